package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/gpu"
)

// defaultConfigPath is where the Rust cuzk daemon looks for its configuration; cuzkd reads it
// when it exists and --config is not given.
const defaultConfigPath = "/data/zk/cuzk.toml"

type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func runDaemon(ctx context.Context, args []string, _, stderr io.Writer) error {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	configPath := fl.String("config", "", "TOML configuration file (default "+defaultConfigPath+" when it exists)")
	listen := fl.String("listen", "", "gRPC address, unix:///path.sock or host:port (overrides daemon.listen)")
	var extra listFlag
	fl.Var(&extra, "extra-listen", "another gRPC address to serve (repeatable; adds to daemon.extra_listen)")
	statusListen := fl.String("status-listen", "", "HTTP address for /metrics, /status, /healthz (overrides daemon.status_listen)")
	logLevel := fl.String("log-level", "", "trace, debug, info, warn or error (overrides logging.level)")
	logFormat := fl.String("log-format", "", "text or json (overrides logging.format)")
	fake := fl.Bool("fake-backend", false, "prove with the fake backend: hash bytes, NOT valid proofs (for testing clients)")
	var bf backendFlags
	fl.StringVar(&bf.paramCache, "param-cache", "", "directory of the v28 .params/.vk files (overrides srs.param_cache and $"+paramcache.DirEnv+")")
	fl.StringVar(&bf.foldDir, "fold-dir", "", "directory of the fold overlays that cuzkd fold makes (overrides srs.fold_dir)")
	fl.BoolVar(&bf.cpuOnly, "cpu-only", false, "prove on the CPU even when GPUs are found")
	fl.BoolVar(&bf.insecure, "insecure-dev-params", false, "INSECURE, for tests and demos: make each 2 KiB circuit's parameters with a development setup instead of reading files; its proofs verify only against those parameters and can be forged")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fl.Args())
	}

	cfg, path, err := loadConfig(*configPath)
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Daemon.Listen = *listen
	}
	cfg.Daemon.ExtraListen = append(cfg.Daemon.ExtraListen, extra...)
	if *statusListen != "" {
		cfg.Daemon.StatusListen = *statusListen
	}
	if *logLevel != "" {
		cfg.Logging.Level = *logLevel
	}
	if *logFormat != "" {
		cfg.Logging.Format = *logFormat
	}
	if err := cfg.Check(); err != nil {
		return fmt.Errorf("flags: %w", err)
	}
	log, err := newLogger(cfg.Logging, stderr)
	if err != nil {
		return err
	}
	if path != "" {
		log.Info("configuration loaded", "file", path)
	} else {
		log.Info("no configuration file, using defaults")
	}
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}

	backend, err := newBackend(cfg, *fake, bf, log)
	if err != nil {
		return err
	}
	d, err := daemon.New(backend, append(cfg.Options(), daemon.WithLogger(log))...)
	if err != nil {
		closeBackend(backend, log)
		return err
	}
	srv, err := daemon.NewServer(d, cfg.ServerConfig())
	if err != nil {
		d.Shutdown(ctx)
		closeBackend(backend, log)
		return err
	}
	go preload(ctx, backend, cfg.SRS.Preload, log)
	err = srv.Serve(ctx)
	closeBackend(backend, log)
	return err
}

// closeBackend closes a backend that is an io.Closer.
func closeBackend(b daemon.Backend, log *slog.Logger) {
	if c, ok := b.(io.Closer); ok {
		if err := c.Close(); err != nil {
			log.Error("close backend", "err", err)
		}
	}
}

// backendFlags are the run flags that choose and configure the proving backend.
type backendFlags struct {
	paramCache string
	foldDir    string
	cpuOnly    bool
	insecure   bool
}

// newBackend chooses the prover: the fake one with --fake-backend, else the engine backend over
// the GPUs that gpu.Load finds (gpus.devices selects ordinals; none found, or --cpu-only: the
// CPU), reading parameters from the cache directory (--param-cache, else srs.param_cache when the
// file sets it, else $FIL_PROOFS_PARAMETER_CACHE, else the default /data/zk/params) or, with
// --insecure-dev-params, making INSECURE ones; with the fold overlays of --fold-dir, else
// srs.fold_dir, where there are. A backend that is an io.Closer is closed after
// the daemon has shut down.
func newBackend(cfg daemon.Config, fake bool, bf backendFlags, log *slog.Logger) (daemon.Backend, error) {
	if fake {
		log.Warn("proving with the FAKE backend: results are hash bytes, not valid proofs")
		return &daemon.FakeBackend{}, nil
	}
	opts := []enginebackend.Option{enginebackend.WithLogger(log)}
	if bf.insecure {
		log.Warn("INSECURE development parameters (--insecure-dev-params): proofs verify only against parameters made here and can be forged; for tests and demos only, never for real sectors")
		opts = append(opts, enginebackend.WithInsecureDevParams())
	} else {
		dir := paramCacheDir(cfg, bf.paramCache)
		cache, err := paramcache.Open(paramcache.WithDir(dir))
		if err != nil {
			return nil, fmt.Errorf("parameter cache %s: %w", dir, err)
		}
		log.Info("parameters", "dir", dir)
		opts = append(opts, enginebackend.WithParamCache(cache))
		if fd := cmp.Or(bf.foldDir, cfg.SRS.FoldDir); fd != "" {
			log.Info("fold overlays", "dir", fd)
			opts = append(opts, enginebackend.WithFoldDir(fd))
		}
	}
	devs, err := selectGPUs(cfg.GPUs.Devices, bf.cpuOnly, log)
	if err != nil {
		return nil, err
	}
	shiftH, err := gpu.ParseShiftTableMode(cfg.GPUs.ShiftTableH.String())
	if err != nil {
		return nil, fmt.Errorf("gpus.shift_table_h: %w", err)
	}
	opts = append(opts, enginebackend.WithGPUs(devs...), enginebackend.WithShiftTableH(shiftH),
		enginebackend.WithPairTables(cfg.GPUs.PairTables))
	eopts, err := engineOptions(cfg, len(devs) > 0)
	if err != nil {
		return nil, err
	}
	opts = append(opts, enginebackend.WithEngineOptions(eopts...))
	return enginebackend.New(opts...)
}

// paramCacheDir picks the parameter directory: the flag, else srs.param_cache when it is not
// the default, else $FIL_PROOFS_PARAMETER_CACHE, else the default.
func paramCacheDir(cfg daemon.Config, flagDir string) string {
	if flagDir != "" {
		return flagDir
	}
	if def := daemon.DefaultConfig().SRS.ParamCache; cfg.SRS.ParamCache != def {
		return cfg.SRS.ParamCache
	}
	if env := os.Getenv(paramcache.DirEnv); env != "" {
		return env
	}
	return cfg.SRS.ParamCache
}

// selectGPUs returns the GPUs to prove on: those of ordinals (all when empty), or none when
// cpuOnly or when no CUDA library or device is found (logged).
func selectGPUs(ordinals []uint32, cpuOnly bool, log *slog.Logger) ([]*gpu.Device, error) {
	if cpuOnly {
		log.Info("proving on the CPU (--cpu-only)")
		return nil, nil
	}
	lib, err := gpu.Load()
	if err != nil {
		if len(ordinals) > 0 {
			return nil, fmt.Errorf("gpus.devices %v: %w", ordinals, err)
		}
		log.Warn("no GPU library: proving on the CPU", "err", err)
		return nil, nil
	}
	n := lib.DeviceCount()
	if n == 0 && len(ordinals) == 0 {
		log.Warn("no CUDA device: proving on the CPU", "library", lib.Path())
		return nil, nil
	}
	if len(ordinals) == 0 {
		for i := range n {
			ordinals = append(ordinals, uint32(i))
		}
	}
	var devs []*gpu.Device
	for _, o := range ordinals {
		d, err := lib.Device(int(o))
		if err != nil {
			return nil, fmt.Errorf("gpus.devices: %w", err)
		}
		devs = append(devs, d)
	}
	log.Info("proving on GPUs", "ordinals", ordinals, "library", lib.Path())
	return devs, nil
}

// engineOptions maps the engine keys of the configuration: gpus.gpu_workers_per_device,
// memory.total_budget (a size, or "auto": the cgroup or RAM limit less memory.safety_margin) and
// pipeline.max_gpu_queue_depth (when set).
func engineOptions(cfg daemon.Config, gpus bool) ([]engine.Option, error) {
	var opts []engine.Option
	if w := cfg.GPUs.GPUWorkersPerDevice; w > engine.MaxWorkersPerDevice {
		return nil, fmt.Errorf("gpus.gpu_workers_per_device: %d, want at most %d", w, engine.MaxWorkersPerDevice)
	}
	if gpus {
		opts = append(opts, engine.WithWorkersPerDevice(int(cfg.GPUs.GPUWorkersPerDevice)))
	}
	if cfg.Memory.TotalBudget == "auto" {
		if lim, err := engine.DetectMemoryLimit(); err == nil && lim.Bytes > int64(cfg.Memory.SafetyMargin) {
			opts = append(opts, engine.WithMemoryBudget(lim.Bytes-int64(cfg.Memory.SafetyMargin)))
		}
	} else {
		n, err := daemon.ParseSize(cfg.Memory.TotalBudget)
		if err != nil || n == 0 || n > 1<<62 {
			return nil, fmt.Errorf("memory.total_budget %q: want a positive size or \"auto\"", cfg.Memory.TotalBudget)
		}
		opts = append(opts, engine.WithMemoryBudget(int64(n)))
	}
	if q := cfg.Pipeline.MaxGPUQueueDepth; q > engine.MaxQueueDepth {
		return nil, fmt.Errorf("pipeline.max_gpu_queue_depth: %d, want at most %d", q, engine.MaxQueueDepth)
	} else if q > 0 {
		opts = append(opts, engine.WithQueueDepth(int(q)))
	}
	return opts, nil
}

// preload loads the configured circuits' parameters, one after the other, logging the outcome.
func preload(ctx context.Context, b daemon.Backend, ids []string, log *slog.Logger) {
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		r, err := b.Preload(ctx, id)
		if err != nil {
			log.Warn("preload failed", "circuit", id, "err", err)
			continue
		}
		log.Info("preloaded", "circuit", id, "already_loaded", r.AlreadyLoaded, "load_time", r.LoadTime)
	}
}

// loadConfig reads path, or the default path when path is "" and that file exists, or returns
// the defaults. It returns the file it read.
func loadConfig(path string) (daemon.Config, string, error) {
	if path == "" {
		if _, err := os.Stat(defaultConfigPath); errors.Is(err, fs.ErrNotExist) {
			return daemon.DefaultConfig(), "", nil
		}
		path = defaultConfigPath
	}
	cfg, err := daemon.LoadConfig(path)
	return cfg, path, err
}

func newLogger(c daemon.LoggingConfig, w io.Writer) (*slog.Logger, error) {
	level, err := c.SlogLevel()
	if err != nil {
		return nil, fmt.Errorf("log level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.Format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q, want text or json", c.Format)
}
