package progress

import (
	"io"
	"sync"
)

// Stages reports a sequence of stages, each with its own total, from callbacks of the form
// func(stage string, done, total int64) — the shape of devsetup's progress option: a call
// naming a new stage finishes the previous one. Its methods are safe for concurrent use and do
// nothing on a nil *Stages.
type Stages struct {
	mu   sync.Mutex
	w    io.Writer
	opts []Option
	name string
	cur  *Reporter
}

// NewStages returns a Stages writing to w, its reporters made with opts.
func NewStages(w io.Writer, opts ...Option) *Stages { return &Stages{w: w, opts: opts} }

// Report sets stage's done units of total, starting the stage (and finishing the one before)
// when it is new.
func (s *Stages) Report(stage string, done, total int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || stage != s.name {
		s.cur.Done()
		s.name = stage
		s.cur = New(s.w, stage, total, s.opts...)
	}
	s.cur.Set(done)
}

// Done finishes the current stage, if any.
func (s *Stages) Done() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.Done()
	s.cur = nil
}
