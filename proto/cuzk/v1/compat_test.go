package cuzkv1_test

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

// TestWireCompatibleWithCurio checks that our proving.proto declares exactly what Curio's does:
// same file name, package, messages, fields (names, numbers, types, labels), enums and methods.
// Only go_package may differ, and source comments are not part of a compiled descriptor.
func TestWireCompatibleWithCurio(t *testing.T) {
	raw, err := os.ReadFile("testdata/curio_proving.desc")
	if err != nil {
		t.Fatalf("read Curio's descriptor: %v", err)
	}
	var curio descriptorpb.FileDescriptorProto
	if err := proto.Unmarshal(raw, &curio); err != nil {
		t.Fatalf("decode Curio's descriptor: %v", err)
	}
	ours := protodesc.ToFileDescriptorProto(cuzkv1.File_cuzk_v1_proving_proto)

	if got, want := ours.GetOptions().GetGoPackage(), "github.com/cuzk-go/cuzk/proto/cuzk/v1;cuzkv1"; got != want {
		t.Errorf("go_package = %q, want %q", got, want)
	}
	ours.Options, curio.Options = nil, nil
	ours.SourceCodeInfo, curio.SourceCodeInfo = nil, nil
	if !proto.Equal(ours, &curio) {
		t.Fatalf("descriptor differs from Curio's:\nours:  %v\ncurio: %v", ours, &curio)
	}
	if n := len(curio.GetService()[0].GetMethod()); n != 8 {
		t.Errorf("Curio's service has %d methods, want 8", n)
	}
}
