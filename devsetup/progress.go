package devsetup

import "sync"

// Progress receives the progress of InsecureSetup, WriteInsecureSetup or RandomParameters: of
// the step named stage ("L points", "IC and L scalars", …), done units of total are finished.
// Stages come one after the other; within a stage, done increases up to total, and the last
// call of a stage has done = total. Calls never overlap (they are serialized), but come from several goroutines, so
// a Progress must not block for long.
type Progress func(stage string, done, total int64)

// Option configures InsecureSetup, WriteInsecureSetup and RandomParameters.
type Option func(*options)

type options struct {
	progress  Progress
	fixedBase FixedBase
}

// WithProgress makes the setup report its progress to f (nil: no reporting).
func WithProgress(f Progress) Option { return func(o *options) { o.progress = f } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// progressStep is the granularity, in units, at which loops over points or scalars report.
const progressStep = 1 << 12

// tracker counts one stage's done units and reports them through a Progress, serialized. A nil
// *tracker (no Progress) does nothing.
type tracker struct {
	mu    *sync.Mutex
	f     Progress
	stage string
	done  int64
	total int64
}

// start begins stage with total units, reporting 0 done.
func (o *options) start(stage string, total int) *tracker {
	if o.progress == nil {
		return nil
	}
	t := &tracker{mu: new(sync.Mutex), f: o.progress, stage: stage, total: int64(total)}
	t.f(stage, 0, t.total)
	return t
}

// add counts n more units done.
func (t *tracker) add(n int) {
	if t == nil || n == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = min(t.done+int64(n), t.total)
	t.f(t.stage, t.done, t.total)
}

// finish reports the stage complete, whatever was counted.
func (t *tracker) finish() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done < t.total || t.total == 0 {
		t.done = t.total
		t.f(t.stage, t.done, t.total)
	}
}
