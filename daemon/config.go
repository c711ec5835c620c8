package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Config is cuzkd's TOML configuration. Its sections and keys are those of the Rust cuzk
// daemon's cuzk.toml (Curio extern/cuzk/cuzk.example.toml, cuzk-core config.rs) with the same
// defaults, so an existing file keeps working, plus a few of cuzkd's own (marked "cuzkd"). Keys
// the daemon itself does not use are engine settings handed to the proving backend. Unknown
// keys are an error.
type Config struct {
	Daemon    DaemonConfig    `toml:"daemon"`
	SRS       SRSConfig       `toml:"srs"`
	Memory    MemoryConfig    `toml:"memory"`
	GPUs      GPUConfig       `toml:"gpus"`
	Scheduler SchedulerConfig `toml:"scheduler"`
	Synthesis SynthesisConfig `toml:"synthesis"`
	Pipeline  PipelineConfig  `toml:"pipeline"`
	Logging   LoggingConfig   `toml:"logging"`
}

// DaemonConfig is the [daemon] section: where to listen.
type DaemonConfig struct {
	// Listen is the gRPC address: "unix:///run/curio/cuzk.sock" (or "unix:relative.sock") or a
	// TCP "host:port".
	Listen string `toml:"listen"`
	// ExtraListen (cuzkd) are more gRPC addresses served alongside Listen, e.g. a Unix socket
	// for the local Curio and a TCP port for a remote one.
	ExtraListen []string `toml:"extra_listen"`
	// StatusListen is the HTTP address of /metrics (Prometheus), /status (GetStatus as JSON)
	// and /healthz; "" disables it.
	StatusListen string `toml:"status_listen"`
	// ShutdownTimeout (cuzkd) is how long running jobs may go on after SIGINT/SIGTERM before
	// they are cancelled.
	ShutdownTimeout Duration `toml:"shutdown_timeout"`
	// MaxMessageSize (cuzkd) is the largest gRPC message accepted or sent; a 32 GiB PoRep C1
	// output is about 50 MiB, Curio's client allows 256 MiB.
	MaxMessageSize Size `toml:"max_message_size"`
}

// SRSConfig is the [srs] section: the proving parameters.
type SRSConfig struct {
	// ParamCache is the directory of the .params and .vk files (engine setting).
	ParamCache string `toml:"param_cache"`
	// Preload lists circuit ids ("porep-32g", "wpost-32g", …) to preload at start. The Rust
	// daemon ignores this key since it loads on demand; cuzkd honours it.
	Preload []string `toml:"preload"`
	// FoldDir is where fold overlays are kept (`cuzkd fold` writes them): a circuit whose overlay
	// is there is proved with folded parameters (C folded into L, H on the coset). Empty: none
	// are used. The Rust daemon has no such key.
	FoldDir string `toml:"fold_dir"`
}

// MemoryConfig is the [memory] section (engine settings).
type MemoryConfig struct {
	// TotalBudget bounds all of the engine's memory: "auto" (system memory minus
	// SafetyMargin) or a size such as "256GiB".
	TotalBudget string `toml:"total_budget"`
	// SafetyMargin is kept free when TotalBudget is "auto".
	SafetyMargin Size `toml:"safety_margin"`
	// EvictionMinIdle is how long parameters stay unused before they may be evicted.
	EvictionMinIdle Duration `toml:"eviction_min_idle"`

	// Deprecated in the Rust daemon and ignored, accepted with a warning.
	PinnedBudget        *string `toml:"pinned_budget"`
	WorkingMemoryBudget *string `toml:"working_memory_budget"`
}

// GPUConfig is the [gpus] section (engine settings).
type GPUConfig struct {
	Devices             []uint32 `toml:"devices"`                // GPU ordinals; empty: all
	GPUThreads          uint32   `toml:"gpu_threads"`            // CPU threads for GPU-side work; 0: all
	GPUWorkersPerDevice uint32   `toml:"gpu_workers_per_device"` // device workers per GPU
	// ShiftTableH says when the GPUs keep a second table of a circuit's H bases, each point
	// times 2^128, which makes H's MSM about 6 % faster for as much device memory again as H
	// (12 GiB for 32 GiB PoRep): "auto" (the default) once the first partitions show the room
	// for it, freed again when an upload needs the room; true or "on" as the parameters are
	// uploaded; false or "off" never. A cuzk-go key, not the Rust daemon's.
	ShiftTableH Tristate `toml:"shift_table_h"`
	// PairTables says whether the GPUs keep tables of the sums of adjacent B_G2, B_G1, A and L
	// bases, which take a quarter of the point additions off the ones of those MSMs for half
	// those bases' device memory (16 GiB for 32 GiB PoRep), each built after a circuit's first
	// partitions where the GPU then has room (after an automatic H shift table) and freed again
	// when an upload or a partition needs it; default false. A cuzk-go key, not the Rust
	// daemon's.
	PairTables bool `toml:"pair_tables"`
}

// SchedulerConfig is the [scheduler] section.
type SchedulerConfig struct {
	MaxBatchSize   uint32 `toml:"max_batch_size"`    // engine setting: same-circuit proofs batched
	MaxBatchWaitMs uint64 `toml:"max_batch_wait_ms"` // engine setting: how long a batch may wait
	SortByType     bool   `toml:"sort_by_type"`      // engine setting: group normal jobs by circuit

	// MaxQueueDepth (cuzkd) bounds the queued jobs; more are refused with
	// RESOURCE_EXHAUSTED, except critical-priority ones (WinningPoSt).
	MaxQueueDepth int `toml:"max_queue_depth"`
	// MaxConcurrent (cuzkd) is the number of jobs handed to the backend at once.
	MaxConcurrent int `toml:"max_concurrent"`
	// ResultRetention (cuzkd) is how long an ended job's result stays available to AwaitProof.
	ResultRetention Duration `toml:"result_retention"`
	// MaxRetainedResults (cuzkd) bounds the number of retained results, oldest dropped first.
	MaxRetainedResults int `toml:"max_retained_results"`
}

// SynthesisConfig is the [synthesis] section (engine settings).
type SynthesisConfig struct {
	Threads uint32 `toml:"threads"` // CPU threads for synthesis; 0: all
	// Deprecated in the Rust daemon and ignored, accepted with a warning.
	PartitionWorkers *uint32 `toml:"partition_workers"`
}

// PipelineConfig is the [pipeline] section (engine settings).
type PipelineConfig struct {
	Enabled              bool   `toml:"enabled"`
	SynthesisLookahead   uint32 `toml:"synthesis_lookahead"`
	SynthesisConcurrency uint32 `toml:"synthesis_concurrency"`
	MaxParallelSynthesis uint32 `toml:"max_parallel_synthesis"`
	SlotSize             uint32 `toml:"slot_size"`
	MaxGPUQueueDepth     uint32 `toml:"max_gpu_queue_depth"`
}

// LoggingConfig is the [logging] section.
type LoggingConfig struct {
	Level  string `toml:"level"`  // trace (= debug), debug, info, warn, error
	Format string `toml:"format"` // "" or "text": key=value lines; "json": one JSON object per line
}

// DefaultConfig returns the configuration of an empty file: the Rust daemon's defaults
// (cuzk-core config.rs) and cuzkd's own.
func DefaultConfig() Config {
	return Config{
		Daemon: DaemonConfig{
			Listen:          "unix:///run/curio/cuzk.sock",
			ShutdownTimeout: Duration(30 * time.Second),
			MaxMessageSize:  256 << 20,
		},
		SRS:    SRSConfig{ParamCache: "/data/zk/params"},
		Memory: MemoryConfig{TotalBudget: "auto", SafetyMargin: 5 << 30, EvictionMinIdle: Duration(5 * time.Minute)},
		GPUs:   GPUConfig{GPUWorkersPerDevice: 2, ShiftTableH: TristateAuto},
		Scheduler: SchedulerConfig{
			MaxBatchSize: 1, MaxBatchWaitMs: 10000, SortByType: true,
			MaxQueueDepth: DefaultMaxQueueDepth, MaxConcurrent: DefaultMaxConcurrent,
			ResultRetention: Duration(DefaultResultRetention), MaxRetainedResults: DefaultMaxRetained,
		},
		Pipeline: PipelineConfig{Enabled: true, SynthesisLookahead: 1, SynthesisConcurrency: 1, MaxParallelSynthesis: 18},
		Logging:  LoggingConfig{Level: "info"},
	}
}

// LoadConfig reads and checks the TOML file at path over the defaults.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig decodes TOML over DefaultConfig and checks the result; name (the file name) is
// used in messages. An unknown key is reported with its line, e.g.
// `cuzk.toml:12: unknown key "scheduler.max_batch"`.
func ParseConfig(data []byte, name string) (Config, error) {
	c := DefaultConfig()
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var strict *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case errors.As(err, &strict):
			var msgs []string
			for _, e := range strict.Errors {
				row, _ := e.Position()
				msgs = append(msgs, fmt.Sprintf("%s:%d: unknown key %q", name, row, strings.Join(e.Key(), ".")))
			}
			return Config{}, errors.New(strings.Join(msgs, "\n"))
		case errors.As(err, &de):
			row, col := de.Position()
			key := strings.Join(de.Key(), ".")
			if key != "" {
				return Config{}, fmt.Errorf("%s:%d:%d: key %q: %s", name, row, col, key, de.Error())
			}
			return Config{}, fmt.Errorf("%s:%d:%d: %s", name, row, col, de.Error())
		}
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.Check(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// Check reports the first value out of range, naming its key.
func (c *Config) Check() error {
	for i, a := range append([]string{c.Daemon.Listen}, c.Daemon.ExtraListen...) {
		key := "daemon.listen"
		if i > 0 {
			key = fmt.Sprintf("daemon.extra_listen[%d]", i-1)
		}
		if _, _, err := ParseListenAddr(a); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if c.Daemon.ShutdownTimeout <= 0 {
		return fmt.Errorf("daemon.shutdown_timeout: %v, want a positive duration", time.Duration(c.Daemon.ShutdownTimeout))
	}
	if c.Daemon.MaxMessageSize < 1<<20 || c.Daemon.MaxMessageSize > 2<<30-1 {
		return fmt.Errorf("daemon.max_message_size: %d bytes, want 1MiB..2GiB", uint64(c.Daemon.MaxMessageSize))
	}
	for i, id := range c.SRS.Preload {
		if _, _, err := ParseCircuitID(id); err != nil {
			return fmt.Errorf("srs.preload[%d]: %w", i, err)
		}
	}
	if c.Memory.TotalBudget != "auto" {
		if _, err := ParseSize(c.Memory.TotalBudget); err != nil {
			return fmt.Errorf("memory.total_budget: %w (or \"auto\")", err)
		}
	}
	if c.GPUs.GPUWorkersPerDevice < 1 {
		return errors.New("gpus.gpu_workers_per_device: 0, want at least 1")
	}
	if c.Scheduler.MaxQueueDepth < 1 {
		return fmt.Errorf("scheduler.max_queue_depth: %d, want at least 1", c.Scheduler.MaxQueueDepth)
	}
	if c.Scheduler.MaxConcurrent < 1 {
		return fmt.Errorf("scheduler.max_concurrent: %d, want at least 1", c.Scheduler.MaxConcurrent)
	}
	if c.Scheduler.ResultRetention <= 0 {
		return errors.New("scheduler.result_retention: want a positive duration")
	}
	if c.Scheduler.MaxRetainedResults < 1 {
		return fmt.Errorf("scheduler.max_retained_results: %d, want at least 1", c.Scheduler.MaxRetainedResults)
	}
	if _, err := c.Logging.SlogLevel(); err != nil {
		return fmt.Errorf("logging.level: %w", err)
	}
	if f := c.Logging.Format; f != "" && f != "text" && f != "json" {
		return fmt.Errorf("logging.format: %q, want \"text\" or \"json\"", f)
	}
	return nil
}

// Warnings lists the deprecated keys the file set, which the Rust daemon also ignores.
func (c *Config) Warnings() []string {
	var w []string
	if c.Memory.PinnedBudget != nil {
		w = append(w, "memory.pinned_budget is deprecated and ignored; use memory.total_budget")
	}
	if c.Memory.WorkingMemoryBudget != nil {
		w = append(w, "memory.working_memory_budget is deprecated and ignored; use memory.total_budget")
	}
	if c.Synthesis.PartitionWorkers != nil {
		w = append(w, "synthesis.partition_workers is deprecated and ignored; the memory budget sets concurrency")
	}
	return w
}

// Options returns the Daemon options the configuration sets.
func (c *Config) Options() []Option {
	return []Option{
		WithMaxQueueDepth(c.Scheduler.MaxQueueDepth),
		WithMaxConcurrent(c.Scheduler.MaxConcurrent),
		WithResultRetention(time.Duration(c.Scheduler.ResultRetention), c.Scheduler.MaxRetainedResults),
	}
}

// SlogLevel returns the level as a slog.Level; "trace" is slog.LevelDebug.
func (l LoggingConfig) SlogLevel() (slog.Level, error) {
	switch strings.ToLower(l.Level) {
	case "trace", "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%q, want trace, debug, info, warn or error", l.Level)
}

// Duration is a TOML string duration: Go's syntax ("30s", "5m", "1h30m") or a bare number of
// seconds ("300"), as the Rust daemon also accepts.
type Duration time.Duration

// UnmarshalText parses a duration.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		*d = Duration(time.Duration(n) * time.Second)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: want e.g. \"30s\", \"5m\" or a number of seconds", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText formats the duration as Go does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Tristate is a setting that is on, off, or left to the daemon: in the file true or "on", false
// or "off", or "auto".
type Tristate struct{ v string }

// The values of a Tristate.
var (
	TristateAuto = Tristate{"auto"}
	TristateOn   = Tristate{"on"}
	TristateOff  = Tristate{"off"}
)

// UnmarshalText parses a TOML boolean or string.
func (t *Tristate) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "auto", "on", "off":
		t.v = s
	case "true":
		t.v = "on"
	case "false":
		t.v = "off"
	default:
		return fmt.Errorf("%q: want true, false, \"on\", \"off\" or \"auto\"", s)
	}
	return nil
}

// MarshalText formats the value as "auto", "on" or "off".
func (t Tristate) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// String returns "auto", "on" or "off" (the zero value is "auto").
func (t Tristate) String() string {
	if t.v == "" {
		return "auto"
	}
	return t.v
}

// Size is a TOML string size in bytes: a number with an optional unit, B, KiB, MiB, GiB, TiB
// (powers of 1024) or KB, MB, GB, TB (powers of 1000), e.g. "5GiB".
type Size uint64

// UnmarshalText parses a size.
func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = Size(v)
	return nil
}

// MarshalText formats the size as a number of bytes.
func (s Size) MarshalText() ([]byte, error) { return []byte(strconv.FormatUint(uint64(s), 10)), nil }

// ParseSize parses a size as Size does.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n > (1<<64-1)/mult {
		return 0, fmt.Errorf("size %q: want a whole number with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", s)
	}
	return n * mult, nil
}
