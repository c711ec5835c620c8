package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Redraw and log intervals.
const (
	// TerminalInterval is the shortest time between two redraws of the terminal line: 200 ms,
	// five updates a second.
	TerminalInterval = 200 * time.Millisecond
	// LogInterval is the longest time between two plain lines while a stage advances: 5 s.
	LogInterval = 5 * time.Second
	// LogSteps is the number of plain lines over a stage of known total: one per tenth.
	LogSteps = 10
	// Quiet is how long a stage runs before it shows anything: a stage done sooner writes
	// nothing at all.
	Quiet = time.Second
)

// Reporter reports the progress of one stage to a writer. Its methods are safe for concurrent
// use, and do nothing on a nil *Reporter.
type Reporter struct {
	mu       sync.Mutex
	w        io.Writer
	stage    string
	unit     string
	total    int64 // ≤ 0: unknown
	done     int64
	terminal bool
	now      func() time.Time
	start    time.Time
	last     time.Time // last line written or redrawn
	lastStep int64     // last tenth logged (plain lines)
	width    int       // length of the last terminal line, to blank its rest
	written  bool      // a line was written
	finished bool
}

// Option configures New.
type Option func(*Reporter)

// WithClock sets the clock the rate, the ETA and the intervals read (default time.Now); for
// tests.
func WithClock(now func() time.Time) Option { return func(r *Reporter) { r.now = now } }

// WithTerminal forces the terminal mode (redrawn line) on or off instead of detecting it.
func WithTerminal(on bool) Option { return func(r *Reporter) { r.terminal = on } }

// WithUnit names what is counted in the lines ("points", "partitions"); default none.
func WithUnit(unit string) Option { return func(r *Reporter) { r.unit = unit } }

// New returns a reporter of stage, total units, writing to w. A total ≤ 0 means unknown: the
// lines then show what is done and the elapsed time only. The mode is the terminal mode when w
// is an *os.File on a character device (IsTerminal), unless WithTerminal says otherwise.
func New(w io.Writer, stage string, total int64, opts ...Option) *Reporter {
	r := &Reporter{w: w, stage: stage, total: total, now: time.Now, terminal: IsTerminal(w)}
	for _, o := range opts {
		o(r)
	}
	r.start = r.now()
	r.last = r.start
	return r
}

// IsTerminal reports whether w is an *os.File whose mode is a character device (a terminal,
// or /dev/null).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Add counts n more units done and updates the output when an interval has passed.
func (r *Reporter) Add(n int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	r.update(false)
}

// Set sets the units done to done (for callers that count themselves) and updates the output
// when an interval has passed.
func (r *Reporter) Set(done int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = done
	r.update(false)
}

// Tick updates the output if an interval has passed, without counting anything: for stages of
// unknown progress, to show that time goes on (see Heartbeat).
func (r *Reporter) Tick() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.update(false)
}

// Heartbeat calls Tick every interval from a goroutine until the returned function is called,
// for a step that reports nothing itself. The returned function waits for the goroutine.
func (r *Reporter) Heartbeat(interval time.Duration) (stop func()) {
	if r == nil {
		return func() {}
	}
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				r.Tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit); <-exited })
	}
}

// Done writes the stage's final line ("stage: done, 10M points in 8.1s …") and ends the terminal
// line, unless the stage took less than Quiet and showed nothing. Later calls of any method do
// nothing more.
func (r *Reporter) Done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.update(true)
}

// update writes a line if due (or final); the caller holds r.mu.
func (r *Reporter) update(final bool) {
	if r.finished {
		return
	}
	now := r.now()
	if quiet := now.Sub(r.start) < Quiet; final && quiet && !r.written {
		r.finished = true
		return
	} else if quiet && !final {
		return
	}
	if !final {
		if r.terminal {
			if now.Sub(r.last) < TerminalInterval {
				return
			}
		} else {
			step := r.step()
			if (step <= r.lastStep || step == LogSteps) && now.Sub(r.last) < LogInterval {
				return // no new tenth (the last one is the final line's)
			}
			r.lastStep = max(r.lastStep, step)
		}
	}
	r.last = now
	line := r.line(now, final)
	if r.terminal {
		pad := ""
		if r.width > len(line) {
			pad = strings.Repeat(" ", r.width-len(line))
		}
		r.width = len(line)
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(r.w, "\r%s%s%s", line, pad, end)
	} else {
		fmt.Fprintln(r.w, line)
	}
	r.written = true
	if final {
		r.finished = true
	}
}

// step returns the tenths of the total done (0 for an unknown total).
func (r *Reporter) step() int64 {
	if r.total <= 0 {
		return 0
	}
	return min(r.done, r.total) * LogSteps / r.total
}

// line formats the stage's state at now:
//
//	stage: 45.0% 4.5M/10M points, 1.2M points/s, ETA 4.6s
//	stage: 4.5M points, 1.2M points/s, 3.8s
//	stage: done, 10M points in 8.1s (1.2M points/s)
func (r *Reporter) line(now time.Time, final bool) string {
	el := now.Sub(r.start)
	unit := ""
	if r.unit != "" {
		unit = " " + r.unit
	}
	rate := ""
	if s := el.Seconds(); s > 0 && r.done > 0 {
		rate = fmt.Sprintf("%s%s/s", count(float64(r.done)/s), unit)
	}
	var b strings.Builder
	b.WriteString(r.stage)
	b.WriteString(": ")
	switch {
	case final:
		b.WriteString("done")
		if r.done > 0 {
			fmt.Fprintf(&b, ", %s%s", count(float64(r.done)), unit)
		}
		fmt.Fprintf(&b, " in %s", dur(el))
		if rate != "" && r.done > 1 {
			fmt.Fprintf(&b, " (%s)", rate)
		}
	case r.total > 0:
		fmt.Fprintf(&b, "%5.1f%% %s/%s%s", 100*float64(min(r.done, r.total))/float64(r.total),
			count(float64(r.done)), count(float64(r.total)), unit)
		if rate != "" {
			fmt.Fprintf(&b, ", %s", rate)
			if left := r.total - r.done; left > 0 {
				eta := time.Duration(float64(el) * float64(left) / float64(r.done))
				fmt.Fprintf(&b, ", ETA %s", dur(eta))
			}
		}
		fmt.Fprintf(&b, ", %s", dur(el))
	default:
		if r.done > 0 {
			fmt.Fprintf(&b, "%s%s", count(float64(r.done)), unit)
			if rate != "" {
				fmt.Fprintf(&b, ", %s", rate)
			}
			b.WriteString(", ")
		}
		b.WriteString(dur(el))
	}
	return b.String()
}

// count formats v with a k, M or G suffix (3 significant digits).
func count(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case v < 10 && v != float64(int64(v)):
		return fmt.Sprintf("%.2g", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// dur formats d to a tenth of a second, or to the second beyond a minute.
func dur(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
