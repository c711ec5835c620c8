package gpu

import (
	"sync"
	"testing"
	"time"
)

// TestMSMOverlap checks Breakdown's accounting of MSMs that run at once, without a GPU: MSMs
// one after the other overlap by nothing, and MSMs held together by a barrier count their
// common time once in MSMs, whatever each one's own time.
func TestMSMOverlap(t *testing.T) {
	p := &ProverDevice{}
	sleep := func(d time.Duration) func() error { return func() error { time.Sleep(d); return nil } }
	if err := p.timedMSM(func(b *Breakdown) *time.Duration { return &b.MSMH }, sleep(5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := p.timedMSM(func(b *Breakdown) *time.Duration { return &b.MSML }, sleep(5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	b := p.Breakdown()
	if b.MSMOverlap != 0 || b.MSMs() != b.MSMH+b.MSML {
		t.Fatalf("one after the other: overlap %v, MSMs %v, H %v, L %v", b.MSMOverlap, b.MSMs(), b.MSMH, b.MSML)
	}

	before := b
	stages := []func(*Breakdown) *time.Duration{
		func(b *Breakdown) *time.Duration { return &b.MSMA },
		func(b *Breakdown) *time.Duration { return &b.MSMB1 },
		func(b *Breakdown) *time.Duration { return &b.MSMB2 },
	}
	var started, wg sync.WaitGroup
	started.Add(len(stages))
	for i, stage := range stages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.timedMSM(stage, func() error {
				started.Done()
				started.Wait()
				time.Sleep(time.Duration(10*(i+1)) * time.Millisecond)
				return nil
			})
		}()
	}
	wg.Wait()
	b = p.Breakdown()
	own := []time.Duration{b.MSMA, b.MSMB1, b.MSMB2}
	span := b.MSMs() - before.MSMs()
	if b.MSMA+b.MSMB1+b.MSMB2-(b.MSMOverlap-before.MSMOverlap) != span {
		t.Fatalf("at once: MSMs %v is not the own times %v less the overlap %v", span, own, b.MSMOverlap)
	}
	if span < max(b.MSMA, b.MSMB1, b.MSMB2) || span >= b.MSMA+b.MSMB1+b.MSMB2 {
		t.Fatalf("at once: own times %v, MSMs %v: not between the longest and the sum", own, span)
	}
}
