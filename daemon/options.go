package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Option configures a Daemon (see New).
type Option func(*config) error

type config struct {
	logger        *slog.Logger
	maxQueueDepth int
	maxConcurrent int
	retention     time.Duration
	maxRetained   int
}

// The defaults of the options.
const (
	DefaultMaxQueueDepth   = 64
	DefaultMaxConcurrent   = 1
	DefaultResultRetention = 10 * time.Minute
	DefaultMaxRetained     = 1024
)

func defaultConfig() config {
	return config{
		logger:        slog.New(slog.DiscardHandler),
		maxQueueDepth: DefaultMaxQueueDepth,
		maxConcurrent: DefaultMaxConcurrent,
		retention:     DefaultResultRetention,
		maxRetained:   DefaultMaxRetained,
	}
}

// WithLogger makes the daemon log to l (default: nowhere).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithMaxQueueDepth bounds the number of queued (not yet running) jobs; Submit fails with
// ErrQueueFull beyond it, except for critical-priority jobs. Default DefaultMaxQueueDepth.
func WithMaxQueueDepth(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max queue depth %d, want at least 1", n)
		}
		c.maxQueueDepth = n
		return nil
	}
}

// WithMaxConcurrent sets how many jobs the backend proves at once. A backend that pipelines
// (synthesizing one job while the GPU proves another) wants 2 or more. Default 1.
func WithMaxConcurrent(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max concurrent jobs %d, want at least 1", n)
		}
		c.maxConcurrent = n
		return nil
	}
}

// WithResultRetention keeps the outcomes of ended jobs for AwaitProof for at most age and at
// most count of them, the oldest forgotten first. Default DefaultResultRetention and
// DefaultMaxRetained.
func WithResultRetention(age time.Duration, count int) Option {
	return func(c *config) error {
		if age <= 0 || count < 1 {
			return fmt.Errorf("result retention %v for %d results, want a positive age and count", age, count)
		}
		c.retention, c.maxRetained = age, count
		return nil
	}
}
