package gpu

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestLoadBogusPath(t *testing.T) {
	bogus := filepath.Join(t.TempDir(), "no-such-dir", LibraryName)
	_, err := Load(WithPath(bogus))
	if !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("Load(bogus path) error = %v, want ErrNotLoaded", err)
	}
	t.Setenv(EnvLibrary, bogus)
	_, err = Load()
	if !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("Load with %s=bogus: error = %v, want ErrNotLoaded", EnvLibrary, err)
	}
}

func TestLoadNotALibrary(t *testing.T) {
	// A file that exists but is no shared object must fail as a whole.
	_, err := Load(WithPath("loader_test.go"))
	if !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("Load(non-ELF file) error = %v, want ErrNotLoaded", err)
	}
}

func TestWithPathEmpty(t *testing.T) {
	if _, err := Load(WithPath("")); err == nil {
		t.Fatal("Load(WithPath(\"\")) succeeded")
	}
}

func TestDeviceErrorIs(t *testing.T) {
	e := &DeviceError{Device: 0, Code: CodeNoDevice, Msg: "x"}
	if !errors.Is(e, ErrNoDevice) || errors.Is(e, ErrOutOfMemory) {
		t.Fatal("DeviceError.Is mismatch for CodeNoDevice")
	}
	e = &DeviceError{Device: 1, Code: CodeOutOfMemory, Msg: "y"}
	if !errors.Is(e, ErrOutOfMemory) || errors.Is(e, ErrNoDevice) {
		t.Fatal("DeviceError.Is mismatch for CodeOutOfMemory")
	}
}
