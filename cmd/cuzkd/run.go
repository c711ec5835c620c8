package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/cuzk-go/cuzk/daemon"
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

	backend := newBackend(cfg, *fake, log)
	d, err := daemon.New(backend, append(cfg.Options(), daemon.WithLogger(log))...)
	if err != nil {
		return err
	}
	srv, err := daemon.NewServer(d, cfg.ServerConfig())
	if err != nil {
		d.Shutdown(ctx)
		return err
	}
	go preload(ctx, backend, cfg.SRS.Preload, log)
	err = srv.Serve(ctx)
	if c, ok := backend.(io.Closer); ok {
		if cerr := c.Close(); cerr != nil {
			log.Error("close backend", "err", cerr)
		}
	}
	return err
}

// newBackend chooses the prover. This build has none but the fake one; the engine backend is
// to be added here. A backend that is an io.Closer is closed after the daemon has shut down.
func newBackend(_ daemon.Config, fake bool, log *slog.Logger) daemon.Backend {
	if fake {
		log.Warn("proving with the FAKE backend: results are hash bytes, not valid proofs")
		return &daemon.FakeBackend{}
	}
	log.Warn("no proving backend in this build: proof and parameter requests are answered UNIMPLEMENTED")
	return daemon.NoBackend{}
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
