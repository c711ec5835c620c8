package daemon

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConfigEmptyFileGivesRustDefaults(t *testing.T) {
	c, err := ParseConfig(nil, "empty.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, DefaultConfig()) {
		t.Fatalf("got %+v", c)
	}
	// The Rust daemon's defaults (cuzk-core config.rs).
	if c.Daemon.Listen != "unix:///run/curio/cuzk.sock" || c.SRS.ParamCache != "/data/zk/params" ||
		c.Memory.TotalBudget != "auto" || c.Memory.SafetyMargin != 5<<30 || time.Duration(c.Memory.EvictionMinIdle) != 5*time.Minute ||
		c.GPUs.GPUWorkersPerDevice != 2 || c.Scheduler.MaxBatchSize != 1 || c.Scheduler.MaxBatchWaitMs != 10000 ||
		!c.Scheduler.SortByType || !c.Pipeline.Enabled || c.Pipeline.SynthesisLookahead != 1 ||
		c.Pipeline.SynthesisConcurrency != 1 || c.Pipeline.MaxParallelSynthesis != 18 || c.Logging.Level != "info" {
		t.Fatalf("defaults differ from the Rust daemon's: %+v", c)
	}
	if len(c.Warnings()) != 0 {
		t.Fatalf("warnings %q", c.Warnings())
	}
}

func TestConfigEveryKey(t *testing.T) {
	c, err := LoadConfig(filepath.Join("testdata", "full.toml"))
	if err != nil {
		t.Fatal(err)
	}
	pb, ww, pw := "100GiB", "100GiB", uint32(4)
	want := Config{
		Daemon: DaemonConfig{Listen: "unix:///run/cuzkd-test/cuzk.sock", ExtraListen: []string{"127.0.0.1:9820"},
			StatusListen: "127.0.0.1:9821", ShutdownTimeout: Duration(2 * time.Minute), MaxMessageSize: 128 << 20},
		SRS: SRSConfig{ParamCache: "/var/tmp/filecoin-proof-parameters", Preload: []string{"porep-32g", "wpost-32g", "winning-32g"}, FoldDir: "/data/zk/fold"},
		Memory: MemoryConfig{TotalBudget: "256GiB", SafetyMargin: 8 << 30, EvictionMinIdle: Duration(10 * time.Minute),
			PinnedBudget: &pb, WorkingMemoryBudget: &ww},
		GPUs: GPUConfig{Devices: []uint32{0, 1}, GPUThreads: 32, GPUWorkersPerDevice: 1, ShiftTableH: TristateOn, PairTables: true},
		Scheduler: SchedulerConfig{MaxBatchSize: 2, MaxBatchWaitMs: 30000, SortByType: false, MaxQueueDepth: 16,
			MaxConcurrent: 3, ResultRetention: Duration(time.Hour), MaxRetainedResults: 50},
		Synthesis: SynthesisConfig{Threads: 64, PartitionWorkers: &pw},
		Pipeline: PipelineConfig{Enabled: false, SynthesisLookahead: 2, SynthesisConcurrency: 2, MaxParallelSynthesis: 12,
			SlotSize: 3, MaxGPUQueueDepth: 4},
		Logging: LoggingConfig{Level: "debug", Format: "json"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", c, want)
	}
	if w := c.Warnings(); len(w) != 3 {
		t.Fatalf("warnings %q, want the three deprecated keys", w)
	}
	sc := c.ServerConfig()
	if !reflect.DeepEqual(sc.Listen, []string{"unix:///run/cuzkd-test/cuzk.sock", "127.0.0.1:9820"}) || sc.MaxMessageSize != 128<<20 {
		t.Fatalf("server config %+v", sc)
	}
	if _, err := New(&FakeBackend{}, c.Options()...); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct{ name, toml, want string }{
		{"unknown key", "[daemon]\nlisten = \"127.0.0.1:1\"\n\n[scheduler]\nmax_batch = 3\n", `x.toml:5: unknown key "scheduler.max_batch"`},
		{"unknown section", "[gpu]\ndevices = [0]\n", `x.toml:1: unknown key "gpu"`},
		{"two unknown keys", "[daemon]\nlisten = \"127.0.0.1:1\"\nlisen = 1\n[logging]\nlevl = \"x\"\n", `x.toml:3: unknown key "daemon.lisen"` + "\n" + `x.toml:5: unknown key "logging.levl"`},
		{"wrong type", "[gpus]\ndevices = \"0,1\"\n", `x.toml:2:`},
		{"bad size", "[daemon]\nmax_message_size = \"12 XB\"\n", `size "12 XB"`},
		{"bad duration", "[daemon]\nshutdown_timeout = \"soon\"\n", `duration "soon"`},
		{"bad budget", "[memory]\ntotal_budget = \"lots\"\n", `memory.total_budget: size "lots"`},
		{"bad listen", "[daemon]\nlisten = \"unix://relative.sock\"\n", `daemon.listen: listen address "unix://relative.sock"`},
		{"bad extra listen", "[daemon]\nextra_listen = [\"9820\"]\n", `daemon.extra_listen[0]`},
		{"bad preload", "[srs]\npreload = [\"porep-32g\", \"porep-31g\"]\n", `srs.preload[1]: unknown circuit id "porep-31g"`},
		{"bad level", "[logging]\nlevel = \"loud\"\n", `logging.level: "loud"`},
		{"bad format", "[logging]\nformat = \"xml\"\n", `logging.format`},
		{"zero workers", "[scheduler]\nmax_concurrent = 0\n", `scheduler.max_concurrent: 0`},
		{"bad shift table", "[gpus]\nshift_table_h = \"sometimes\"\n", `"sometimes": want true, false, "on", "off" or "auto"`},
		{"not toml", "[daemon\n", `x.toml:1:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.toml), "x.toml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.toml")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// TestConfigShiftTable: gpus.shift_table_h takes a boolean or "on", "off", "auto"; absent, it is
// "auto".
func TestConfigShiftTable(t *testing.T) {
	for in, want := range map[string]Tristate{"": TristateAuto, "true": TristateOn, "false": TristateOff,
		`"on"`: TristateOn, `"off"`: TristateOff, `"auto"`: TristateAuto} {
		doc := ""
		if in != "" {
			doc = "[gpus]\nshift_table_h = " + in + "\n"
		}
		c, err := ParseConfig([]byte(doc), "x.toml")
		if err != nil || c.GPUs.ShiftTableH != want {
			t.Fatalf("shift_table_h = %s: got %v (err %v), want %v", in, c.GPUs.ShiftTableH, err, want)
		}
	}
}

func TestParseSizeAndDuration(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "626MiB": 626 << 20, "5GiB": 5 << 30, " 2 TiB ": 2 << 40, "50GB": 50e9, "7B": 7, "3KiB": 3072} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "1.5GiB", "99999999999TiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	for in, want := range map[string]time.Duration{"5m": 5 * time.Minute, "300s": 300 * time.Second, "60": time.Minute, "1h30m": 90 * time.Minute} {
		var d Duration
		if err := d.UnmarshalText([]byte(in)); err != nil || time.Duration(d) != want {
			t.Errorf("Duration(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
}
