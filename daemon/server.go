package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

// ServerConfig says where a Server listens.
type ServerConfig struct {
	// Listen are the gRPC addresses (see ParseListenAddr); at least one.
	Listen []string
	// StatusListen is the HTTP address of /metrics, /status and /healthz; "" for none.
	StatusListen string
	// ShutdownTimeout bounds how long running jobs may go on once shutdown begins.
	ShutdownTimeout time.Duration
	// MaxMessageSize bounds gRPC messages in bytes both ways.
	MaxMessageSize int
}

// ServerConfig returns the listening part of the configuration.
func (c *Config) ServerConfig() ServerConfig {
	return ServerConfig{
		Listen:          append([]string{c.Daemon.Listen}, c.Daemon.ExtraListen...),
		StatusListen:    c.Daemon.StatusListen,
		ShutdownTimeout: time.Duration(c.Daemon.ShutdownTimeout),
		MaxMessageSize:  int(c.Daemon.MaxMessageSize),
	}
}

// Server serves a Daemon over gRPC on its listeners and its metrics over HTTP.
type Server struct {
	d       *Daemon
	cfg     ServerConfig
	log     *slog.Logger
	grpc    *grpc.Server
	http    *http.Server
	lis     []net.Listener
	httpLis net.Listener
}

// afterDrainGrace bounds how long the gRPC server waits for calls still open once every job has
// ended (they only have an outcome left to send) before it closes their connections.
const afterDrainGrace = 5 * time.Second

// NewServer binds the listeners of cfg. A stale Unix socket file left by a dead daemon is
// replaced; a live one, or a path that is not a socket, is an error.
func NewServer(d *Daemon, cfg ServerConfig) (*Server, error) {
	if len(cfg.Listen) == 0 {
		return nil, errors.New("no listen address")
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = 256 << 20
	}
	s := &Server{d: d, cfg: cfg, log: d.log}
	s.grpc = grpc.NewServer(grpc.MaxRecvMsgSize(cfg.MaxMessageSize), grpc.MaxSendMsgSize(cfg.MaxMessageSize))
	cuzkv1.RegisterProvingEngineServer(s.grpc, NewService(d))
	for _, a := range cfg.Listen {
		l, err := listen(a)
		if err != nil {
			s.closeListeners()
			return nil, err
		}
		s.lis = append(s.lis, l)
	}
	if cfg.StatusListen != "" {
		l, err := net.Listen("tcp", cfg.StatusListen)
		if err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("listen for HTTP status on %s: %w", cfg.StatusListen, err)
		}
		s.httpLis = l
		s.http = &http.Server{Handler: s.httpHandler(), ReadHeaderTimeout: 10 * time.Second}
	}
	return s, nil
}

// Addrs returns the addresses the gRPC listeners are bound to, in cfg.Listen order.
func (s *Server) Addrs() []net.Addr {
	var a []net.Addr
	for _, l := range s.lis {
		a = append(a, l.Addr())
	}
	return a
}

// StatusAddr returns the address of the HTTP listener, or nil.
func (s *Server) StatusAddr() net.Addr {
	if s.httpLis == nil {
		return nil
	}
	return s.httpLis.Addr()
}

// Serve serves until ctx ends or a listener fails, then shuts down: new proof requests are
// refused with UNAVAILABLE, queued jobs end cancelled, running jobs get ShutdownTimeout to finish
// and are cancelled after it, the awaiting clients receive their outcomes, and the listeners
// close. It returns nil after a shutdown asked for by ctx, or the listener's error.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, len(s.lis)+1)
	for _, l := range s.lis {
		s.log.Info("serving gRPC", "addr", l.Addr().Network()+"://"+l.Addr().String())
		go func() { errc <- s.grpc.Serve(l) }()
	}
	if s.http != nil {
		s.log.Info("serving HTTP status", "addr", s.httpLis.Addr().String())
		go func() {
			if err := s.http.Serve(s.httpLis); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("HTTP status server: %w", err)
			}
		}()
	}
	var serveErr error
	select {
	case <-ctx.Done():
		s.log.Info("shutdown requested", "timeout", s.cfg.ShutdownTimeout)
	case serveErr = <-errc:
		s.log.Error("listener failed, shutting down", "err", serveErr)
	}
	s.shutdown()
	return serveErr
}

func (s *Server) shutdown() {
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.d.Shutdown(sctx); err != nil {
		s.log.Warn("shutdown", "err", err)
	}
	stopped := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(afterDrainGrace):
		s.grpc.Stop()
	}
	if s.http != nil {
		hctx, hcancel := context.WithTimeout(context.Background(), afterDrainGrace)
		defer hcancel()
		s.http.Shutdown(hctx)
	}
	s.log.Info("daemon stopped")
}

func (s *Server) closeListeners() {
	for _, l := range s.lis {
		l.Close()
	}
	if s.httpLis != nil {
		s.httpLis.Close()
	}
}

func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.d.Registry(), promhttp.HandlerOpts{}))
	svc := NewService(s.d)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		st, _ := svc.GetStatus(r.Context(), &cuzkv1.GetStatusRequest{})
		b, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(st)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		s.d.mu.Lock()
		closing := s.d.closing
		s.d.mu.Unlock()
		if closing {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}

// ParseListenAddr splits a listen address into a network and an address for net.Listen:
// "unix:///abs/path.sock" and "unix:rel/path.sock" are Unix sockets (the forms gRPC clients
// dial, Curio's among them), anything else must be a TCP "host:port".
func ParseListenAddr(a string) (network, address string, err error) {
	switch {
	case strings.HasPrefix(a, "unix://"):
		p := strings.TrimPrefix(a, "unix://")
		if !strings.HasPrefix(p, "/") {
			return "", "", fmt.Errorf("listen address %q: unix:// needs an absolute path (unix:///run/x.sock) or use unix:relative.sock", a)
		}
		return "unix", p, nil
	case strings.HasPrefix(a, "unix:"):
		p := strings.TrimPrefix(a, "unix:")
		if p == "" {
			return "", "", fmt.Errorf("listen address %q: empty socket path", a)
		}
		return "unix", p, nil
	}
	if _, _, err := net.SplitHostPort(a); err != nil {
		return "", "", fmt.Errorf("listen address %q: want unix:///path.sock or host:port: %w", a, err)
	}
	return "tcp", a, nil
}

// listen binds one gRPC address, replacing a stale Unix socket file.
func listen(a string) (net.Listener, error) {
	network, addr, err := ParseListenAddr(a)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if err := os.MkdirAll(filepath.Dir(addr), 0o755); err != nil {
			return nil, fmt.Errorf("create socket directory: %w", err)
		}
		if err := removeStaleSocket(addr); err != nil {
			return nil, err
		}
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", a, err)
	}
	return l, nil
}

func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check socket path: %w", err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("socket path %s exists and is not a socket; not replacing it", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("socket %s: another daemon is listening on it", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}
