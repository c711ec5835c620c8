package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/internal/syncbuf"
)

// fakeClock is a clock the test advances by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

func TestPlainLinesEveryTenth(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "H points", 1000, WithClock(clk.now), WithTerminal(false), WithUnit("points"))
	for range 100 { // 10 units per 100 ms: 10 s in all
		clk.advance(100 * time.Millisecond)
		r.Add(10)
	}
	r.Done()
	got := lines(buf.String())
	require.Len(t, got, 10, "one line per tenth up to 90%%, then the final line:\n%s", buf.String())
	require.Equal(t, "H points:  10.0% 100/1000 points, 100 points/s, ETA 9s, 1s", got[0])
	require.Equal(t, "H points:  50.0% 500/1000 points, 100 points/s, ETA 5s, 5s", got[4])
	require.Equal(t, "H points:  90.0% 900/1000 points, 100 points/s, ETA 1s, 9s", got[8])
	require.Equal(t, "H points: done, 1000 points in 10s (100 points/s)", got[9])
	require.NotContains(t, buf.String(), "\r")

	r.Add(5) // after Done: nothing more
	r.Done()
	require.Len(t, lines(buf.String()), 10)
}

func TestPlainLinesEveryFiveSeconds(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "slow", 1000, WithClock(clk.now), WithTerminal(false))
	for range 12 { // 1 unit a second: no tenth crossed, a line every 5 s
		clk.advance(time.Second)
		r.Add(1)
	}
	got := lines(buf.String())
	require.Equal(t, []string{
		"slow:   0.5% 5/1000, 1/s, ETA 16m35s, 5s",
		"slow:   1.0% 10/1000, 1/s, ETA 16m30s, 10s",
	}, got)
}

func TestTerminalRedrawRateLimited(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "A", 50_000, WithClock(clk.now), WithTerminal(true))
	for range 1000 { // 1000 updates over 5 s: at most 5 redraws a second
		clk.advance(5 * time.Millisecond)
		r.Add(50)
	}
	r.Done()
	out := buf.String()
	redraws := strings.Count(out, "\r")
	require.LessOrEqual(t, redraws, 4*5+2, "from 1 s (Quiet) to 5 s, and the final line")
	require.GreaterOrEqual(t, redraws, 4*5)
	last := out[strings.LastIndex(out, "\r")+1:]
	require.Equal(t, "A: done, 50k in 5s (10k/s)", strings.TrimRight(last, " \n"))
	require.True(t, strings.HasSuffix(last, "\n"))
	require.Equal(t, 1, strings.Count(out, "\n"), "one line, redrawn in place")
}

func TestTerminalBlanksLongerLine(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "s", 0, WithClock(clk.now), WithTerminal(true))
	clk.advance(time.Second)
	r.Add(123456)
	clk.advance(time.Second)
	r.Done()
	parts := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\r")
	require.Len(t, parts, 3)
	require.Equal(t, "s: 123k, 123k/s, 1s", parts[1])
	require.GreaterOrEqual(t, len(parts[2]), len(parts[1]), "the previous line is blanked")
	require.Equal(t, "s: done, 123k in 2s (61.7k/s)", strings.TrimRight(parts[2], " "))
}

func TestUnknownTotalTick(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "compile", 0, WithClock(clk.now), WithTerminal(false))
	clk.advance(2 * time.Second)
	r.Tick()
	require.Empty(t, buf.String(), "no line before 5 s")
	clk.advance(3 * time.Second)
	r.Tick()
	clk.advance(7 * time.Second)
	r.Tick()
	r.Done()
	require.Equal(t, []string{"compile: 5s", "compile: 12s", "compile: done in 12s"}, lines(buf.String()))
}

func TestConcurrentAdd(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "c", 8000, WithTerminal(false), WithClock(clk.now))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				r.Add(1)
			}
		}()
	}
	wg.Wait()
	clk.advance(2 * time.Second)
	r.Done()
	require.Equal(t, "c: done, 8000 in 2s (4000/s)\n", buf.String())
}

func TestSlowRate(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "p", 3, WithClock(clk.now), WithTerminal(false), WithUnit("partitions"))
	clk.advance(4 * time.Second)
	r.Add(1)
	require.Equal(t, "p:  33.3% 1/3 partitions, 0.25 partitions/s, ETA 8s, 4s\n", buf.String())
}

func TestQuietStage(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	r := New(&buf, "fast", 10, WithClock(clk.now), WithTerminal(false))
	for range 10 {
		clk.advance(50 * time.Millisecond)
		r.Add(1)
	}
	r.Done()
	require.Empty(t, buf.String(), "a stage under a second shows nothing")
}

func TestNilReporter(t *testing.T) {
	var r *Reporter
	r.Add(1)
	r.Set(2)
	r.Tick()
	r.Heartbeat(time.Millisecond)()
	r.Done()
	var s *Stages
	s.Report("x", 1, 2)
	s.Done()
}

func TestHeartbeat(t *testing.T) {
	var buf syncbuf.Buffer
	clk := newClock()
	r := New(&buf, "wait", 0, WithClock(clk.now), WithTerminal(true))
	clk.advance(time.Second)
	stop := r.Heartbeat(time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(buf.String(), "wait: 1s") }, 5*time.Second, time.Millisecond)
	stop()
	stop()
}

func TestStages(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock()
	s := NewStages(&buf, WithClock(clk.now), WithTerminal(false))
	s.Report("IC", 0, 4)
	clk.advance(time.Second)
	s.Report("IC", 4, 4)
	s.Report("L", 0, 10)
	clk.advance(time.Second)
	s.Report("L", 10, 10)
	s.Done()
	require.Equal(t, []string{
		"IC: done, 4 in 1s (4/s)",
		"L: done, 10 in 1s (10/s)",
	}, lines(buf.String()), "100% is the final line's")
}

func TestIsTerminal(t *testing.T) {
	require.False(t, IsTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, IsTerminal(f), "a regular file")
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer null.Close()
		require.True(t, IsTerminal(null), "a character device")
	}
}
