package synth_test

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
)

var shapeSize = flag.String("shape.size", "", "PoRep-shaped size for BenchmarkShapeLifecycle (tiny, 2^24, 2^26, partition); empty: tiny")

// BenchmarkShapeLifecycle compiles one PoRep-shaped partition, writes its shape file, reads it
// back and synthesizes once, reporting seconds per step, the shape's bytes and the process's peak
// resident memory (VmHWM). The size comes from -shape.size; the full partition needs a large host.
func BenchmarkShapeLifecycle(b *testing.B) {
	size := *shapeSize
	if size == "" {
		size = "tiny"
	}
	var cfg *porep.Config
	for _, s := range porep.Sizes() {
		if s.Name == size {
			c := s.Cfg
			cfg = &c
		}
	}
	if cfg == nil {
		b.Fatalf("no porep size %q", size)
	}
	sector, err := porep.NewSector(*cfg, [32]byte{9})
	if err != nil {
		b.Fatal(err)
	}
	c := sector.Circuit(0)
	path := filepath.Join(b.TempDir(), "porep.shape")
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		shape, err := synth.Compile(c)
		if err != nil {
			b.Fatal(err)
		}
		compile := time.Since(t0)
		t0 = time.Now()
		if err := synth.WriteShapeFile(path, shape, "porep-"+size); err != nil {
			b.Fatal(err)
		}
		write := time.Since(t0)
		bytes := shape.Bytes()
		shape = nil
		runtime.GC()
		t0 = time.Now()
		loaded, err := synth.ReadShapeFile(path, "porep-"+size)
		if err != nil {
			b.Fatal(err)
		}
		load := time.Since(t0)
		t0 = time.Now()
		asg, err := synth.Synthesize(b.Context(), loaded, c)
		if err != nil {
			b.Fatal(err)
		}
		synthesize := time.Since(t0)
		sinkAsg = asg
		b.ReportMetric(compile.Seconds(), "compile-s")
		b.ReportMetric(write.Seconds(), "write-s")
		b.ReportMetric(load.Seconds(), "load-s")
		b.ReportMetric(synthesize.Seconds(), "synthesize-s")
		b.ReportMetric(float64(bytes)/(1<<30), "shape-GiB")
		b.ReportMetric(float64(loaded.NumConstraints), "constraints")
	}
	b.ReportMetric(peakRSSGiB(), "peakRSS-GiB")
}

var sinkAsg *synth.Assignment

// peakRSSGiB returns the process's peak resident set (VmHWM) in GiB, or 0 where /proc is absent.
func peakRSSGiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / (1 << 20)
		}
	}
	return 0
}
