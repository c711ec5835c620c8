package timeline

import (
	"strings"
	"testing"
	"time"
)

func TestIntervalsMatching(t *testing.T) {
	// Two workers on one device interleave two partitions; a third
	// partition is retried (two passes through the device stage).
	evs := timelineOf(
		life{1, 0, 0, 0, 0, 10, 10, 11, 12, 13, 20, 20, 25},
		life{1, 1, 0, 1, 0, 12, 12, 12, 14, 20, 30, 30, 33},
	)
	evs = append(evs, timelineOf(gpuOnly(1, 2, 0, 0, 40, 45), gpuOnly(1, 2, 0, 0, 50, 55))...)
	ivs, unmatched := Intervals(evs)
	equal(t, unmatched, 0, "unmatched")
	var dev []Interval
	for _, iv := range ivs {
		if iv.Stage == StageDevice {
			dev = append(dev, iv)
		}
	}
	equal(t, len(ivs), 2*NumStages+2, "intervals")
	equal(t, len(dev), 4, "device intervals")
	equal(t, [2]time.Duration{dev[0].Start, dev[0].End}, [2]time.Duration{msd(13), msd(20)}, "p0 device")
	equal(t, [2]time.Duration{dev[1].Start, dev[1].End}, [2]time.Duration{msd(20), msd(30)}, "p1 device")
	equal(t, dev[1].Worker, 1, "p1 worker")
	equal(t, [2]time.Duration{dev[3].Start, dev[3].End}, [2]time.Duration{msd(50), msd(55)}, "retry pass")
	for _, iv := range ivs {
		if iv.Stage == StageQueue && iv.Partition == 1 {
			equal(t, iv.Worker, 1, "queue interval takes the pickup's worker")
			equal(t, iv.Duration(), time.Duration(0), "queue duration")
		}
	}

	// A start without end and an end without start.
	_, unmatched = Intervals(append(evs,
		Event{Offset: msd(60), Kind: GPUStart, Job: 2, Partition: 0, Device: 0, Worker: 0},
		Event{Offset: msd(61), Kind: FinalizeEnd, Job: 3, Partition: 0, Device: 0, Worker: 0},
	))
	equal(t, unmatched, 2, "unmatched")
	// GPU_END from another worker does not close the region.
	_, unmatched = Intervals([]Event{
		{Offset: 0, Kind: GPUStart, Job: 1, Partition: 0, Device: 0, Worker: 0},
		{Offset: 1, Kind: GPUEnd, Job: 1, Partition: 0, Device: 0, Worker: 1},
	})
	equal(t, unmatched, 2, "mismatched worker")
	// A start of one stage does not count as unmatched when the stage it
	// would end has no start (no LOCK_WAIT before GPU_START).
	_, unmatched = Intervals([]Event{{Offset: 0, Kind: GPUStart}, {Offset: 1, Kind: GPUEnd}})
	equal(t, unmatched, 0, "GPU_START without LOCK_WAIT")

	// Events stamped at the same instant by two goroutines may be recorded
	// end first (the worker's GPU_PICKUP before the sender's CHAN_SEND, the
	// next LOCK_WAIT before GPU_START); they still pair.
	var rec Recorder
	for _, k := range []Kind{GPUEnd, GPUPickup, ChanSend, SynthEnd, GPUStart, LockWait, SynthStart} {
		rec.Event(Event{Offset: msd(5), Kind: k, Job: 1, Partition: 0, Device: 0, Worker: 0})
	}
	ivs, unmatched = Intervals(rec.Events())
	equal(t, unmatched, 0, "unmatched with equal offsets recorded in reverse")
	equal(t, len(ivs), 5, "synthesis, queue, preparation, lock wait, device")
}

func TestAnalyzeUtilization(t *testing.T) {
	evs := timelineOf(gpuOnly(1, 0, 0, 0, 0, 100), gpuOnly(1, 1, 0, 1, 150, 250))
	r := Analyze(evs)
	equal(t, len(r.Devices), 1, "devices")
	d := r.Devices[0]
	equal(t, d.Regions, 2, "regions")
	equal(t, d.Busy, msd(200), "busy")
	equal(t, d.Span, msd(250), "span")
	near(t, d.Utilization, 0.8, "utilization")
	equal(t, d.Overlaps, 0, "overlaps")
	equal(t, d.Gaps, 1, "gaps")
	equal(t, d.GapTotal, msd(50), "gap total")
	equal(t, d.GapBuckets, [NumGapBuckets]int{0, 1, 0, 0}, "a 50 ms gap is in the 50-200 ms bucket")
	equal(t, r.Stages[StageDevice].Count, 2, "device stage count")
	equal(t, r.Unmatched, 0, "unmatched")

	var text strings.Builder
	noErr(t, r.WriteText(&text))
	for _, want := range []string{"device 0: 2 regions", "busy 200.000 ms of span 250.000 ms = 80.0% utilization",
		"overlapping region pairs: 0", "50-200ms: 1", "device", "job total"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	// Two devices are reported separately, in device order.
	r = Analyze(append(evs, timelineOf(gpuOnly(1, 2, 1, 0, 10, 20))...))
	equal(t, len(r.Devices), 2, "devices")
	d1, ok := r.Device(1)
	if !ok {
		t.Fatal("device 1 missing")
	}
	equal(t, d1.Busy, msd(10), "device 1 busy")
	near(t, d1.Utilization, 1, "device 1 utilization")
	if _, ok := r.Device(7); ok {
		t.Error("Device(7) found")
	}
}

func TestAnalyzeOverlaps(t *testing.T) {
	evs := timelineOf(
		gpuOnly(1, 0, 0, 0, 0, 100),
		gpuOnly(1, 1, 0, 1, 50, 120),    // overlaps p0
		gpuOnly(1, 2, 0, 0, 200, 300),   // separate
		gpuOnly(1, 3, 0, 1, 300, 350),   // touches p2: no overlap
		gpuOnly(1, 4, 1, 0, 0, 1000),    // other device
		gpuOnly(1, 5, 1, 1, 1000, 1001), // touches
	)
	r := Analyze(evs)
	d0, _ := r.Device(0)
	equal(t, d0.Overlaps, 1, "overlapping pairs")
	equal(t, d0.Busy, msd(120+150), "busy is the union")
	equal(t, d0.Span, msd(350), "span")
	equal(t, d0.Gaps, 2, "gaps (the touching transition is a zero gap; the overlap none)")
	equal(t, d0.GapTotal, msd(80), "gap total = span - busy")
	d1, _ := r.Device(1)
	equal(t, d1.Overlaps, 0, "other device")

	// A region nested in another overlaps it and everything the outer one
	// overlaps with it: 3 pairs among {p0, p1, nested}.
	r = Analyze(append(evs, timelineOf(gpuOnly(1, 6, 0, 2, 60, 70))...))
	d0, _ = r.Device(0)
	equal(t, d0.Overlaps, 3, "with a nested region")
	equal(t, d0.Busy, msd(120+150), "nested region adds no busy time")
	// A zero-length region inside another still counts; at its start it does not.
	r = Analyze(timelineOf(gpuOnly(1, 0, 0, 0, 0, 100), gpuOnly(1, 1, 0, 1, 50, 50), gpuOnly(1, 2, 0, 1, 0, 0)))
	equal(t, r.Devices[0].Overlaps, 1, "zero-length regions")
}

func TestAnalyzeGapBuckets(t *testing.T) {
	gaps := []float64{10, 49.999, 50, 199.999, 200, 999.999, 1000, 2500}
	var ls []life
	t0 := 0.0
	for i, g := range gaps {
		ls = append(ls, gpuOnly(1, i, 0, 0, t0, t0+5))
		t0 += 5 + g
	}
	ls = append(ls, gpuOnly(1, len(gaps), 0, 0, t0, t0+5))
	r := Analyze(timelineOf(ls...))
	d := r.Devices[0]
	equal(t, d.Gaps, len(gaps), "gaps")
	equal(t, d.GapBuckets, [NumGapBuckets]int{2, 2, 2, 2}, "buckets")
	equal(t, len(d.TopGaps), numTopGaps, "top gaps")
	want := []float64{2500, 1000, 999.999, 200, 199.999}
	for i, g := range d.TopGaps {
		equal(t, g.Duration(), msd(want[i]), "top gap order")
	}
	equal(t, d.TopGaps[0].Partition, len(gaps), "top gap names the region after it")
	// Without lifecycle events the cause is unknown.
	equal(t, d.CauseCount[GapOther], len(gaps), "causes")
	for i, b := range gapBucketBounds {
		equal(t, gapBucket(b-1), i, "just below a bound")
		equal(t, gapBucket(b), i+1, "at a bound")
	}
}

func TestAnalyzeGapCauses(t *testing.T) {
	// Device 0 is busy [0, 100] with p0, then one gap before each
	// following region. Each case sets up p1's lifecycle so the gap
	// [100, 200] (or [100, 100.05]) has a known cause.
	base := life{1, 0, 0, 0, -1, -1, -1, -1, -1, 0, 100, -1, -1}
	for _, c := range []struct {
		name      string
		next      life
		want      GapCause
		gapEnd    float64
		breakdown [NumStages]float64
	}{
		{
			// Worker 1 waits for the lock from 60 on; the lock hand-over
			// takes 0.05 ms.
			name: "lock", want: GapLock, gapEnd: 100.05,
			next:      life{1, 1, 0, 1, 0, 30, 30, 40, 60, 100.05, 180, -1, -1},
			breakdown: [NumStages]float64{StageLockWait: 0.05},
		},
		{
			// p1 is synthesized at 150: the device starved for synthesis.
			name: "synthesis", want: GapSynthesis, gapEnd: 200,
			next:      life{1, 1, 0, 1, 0, 150, 150, 150, 190, 200, 280, -1, -1},
			breakdown: [NumStages]float64{StageSynthesis: 50, StagePreparation: 40, StageLockWait: 10},
		},
		{
			// p1 was queued at 50, picked up at 120 (worker busy until
			// then), prepared until 195.
			name: "preparation", want: GapPreparation, gapEnd: 200,
			next:      life{1, 1, 0, 1, 0, 50, 50, 120, 195, 200, 280, -1, -1},
			breakdown: [NumStages]float64{StageQueue: 20, StagePreparation: 75, StageLockWait: 5},
		},
		{
			// p1 was queued at 50 but no worker took it before 200; the
			// worker then went straight to the device.
			name: "other (queue)", want: GapOther, gapEnd: 200,
			next:      life{1, 1, 0, 1, 0, 50, 50, 200, 200, 200, 280, -1, -1},
			breakdown: [NumStages]float64{StageQueue: 100},
		},
		{
			// Preparation covers the whole gap and started before it.
			name: "preparation covering", want: GapPreparation, gapEnd: 200,
			next:      life{1, 1, 0, 1, 0, 10, 10, 20, 199, 200, 280, -1, -1},
			breakdown: [NumStages]float64{StagePreparation: 99, StageLockWait: 1},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Analyze(timelineOf(base, c.next))
			d := r.Devices[0]
			equal(t, d.Gaps, 1, "gaps")
			g := d.TopGaps[0]
			equal(t, g.Cause, c.want, "cause")
			equal(t, g.Start, msd(100), "gap start")
			equal(t, g.End, msd(c.gapEnd), "gap end")
			equal(t, [3]int{int(g.Job), g.Partition, g.Worker}, [3]int{1, 1, 1}, "next region")
			for s := range NumStages {
				equal(t, g.Breakdown[s], msd(c.breakdown[s]), "breakdown "+Stage(s).String())
			}
			equal(t, d.CauseCount[c.want], 1, "cause count")
			equal(t, d.CauseTime[c.want], g.Duration(), "cause time")
			if !strings.Contains(r.String(), c.want.String()) {
				t.Errorf("report does not mention %q", c.want)
			}
		})
	}
	equal(t, GapLock.String(), "lock", "GapLock")
	equal(t, GapSynthesis.String(), "synthesis", "GapSynthesis")
	equal(t, GapPreparation.String(), "preparation", "GapPreparation")
	equal(t, GapOther.String(), "other", "GapOther")
}

func TestAnalyzeStageStats(t *testing.T) {
	// Four partitions with synthesis 10, 20, 30, 40 ms; queue 1, 2, 3, 4;
	// preparation 5; lock wait 0, 2, 4, 6; device 100; finalize 7, 7, 7, 9.
	var ls []life
	for i := range 4 {
		fi := float64(i)
		s := 1000 * fi
		sy := s + 10*(fi+1)
		q := sy + fi + 1
		lk := q + 5
		g := lk + 2*fi
		fin := 7.0
		if i == 3 {
			fin = 9
		}
		ls = append(ls, life{1, i, 0, 0, s, sy, sy, q, lk, g, g + 100, g + 100, g + 100 + fin})
	}
	evs := append(timelineOf(ls...), jobDone(1, 5000))
	evs = append(evs, timelineOf(gpuOnly(2, 0, 0, 1, 6000, 6001))...)
	evs = append(evs, jobDone(2, 6010))
	r := Analyze(evs)
	st := r.Stages
	equal(t, st[StageSynthesis], DurationStats{Count: 4, Total: msd(100), Mean: msd(25), Min: msd(10), P50: msd(20), P90: msd(40), Max: msd(40)}, "synthesis")
	equal(t, st[StageQueue], DurationStats{Count: 4, Total: msd(10), Mean: msd(2.5), Min: msd(1), P50: msd(2), P90: msd(4), Max: msd(4)}, "queue")
	equal(t, st[StagePreparation].Mean, msd(5), "preparation mean")
	equal(t, st[StageLockWait].P90, msd(6), "lock wait p90")
	equal(t, st[StageDevice].Count, 5, "device count")
	equal(t, st[StageFinalize], DurationStats{Count: 4, Total: msd(30), Mean: msd(7.5), Min: msd(7), P50: msd(7), P90: msd(9), Max: msd(9)}, "finalize")
	equal(t, r.Jobs, []JobStats{{Job: 1, Start: 0, Done: msd(5000), Partitions: 4}, {Job: 2, Start: msd(6000), Done: msd(6010), Partitions: 1}}, "jobs")
	equal(t, r.JobTotal.Count, 2, "job total count")
	equal(t, r.JobTotal.Max, msd(5000), "job total max")
	equal(t, r.Partitions, 5, "partitions")
	equal(t, r.Events, len(evs), "events")
	equal(t, [2]time.Duration{r.First, r.Last}, [2]time.Duration{0, msd(6010)}, "first/last")

	// Nearest-rank percentiles on 10 samples 1..10: p50 = 5, p90 = 9.
	var ds []time.Duration
	for i := 10; i >= 1; i-- {
		ds = append(ds, msd(float64(i)))
	}
	s := durationStats(ds)
	equal(t, [3]time.Duration{s.P50, s.P90, s.Max}, [3]time.Duration{msd(5), msd(9), msd(10)}, "percentiles")
	equal(t, durationStats(nil), DurationStats{}, "empty")
	equal(t, durationStats([]time.Duration{7}).P90, time.Duration(7), "single sample")
}

func TestAnalyzeSteadyState(t *testing.T) {
	// Fill and drain gaps around two steady regions: [0,100] gap 400
	// [500,600] gap 50 [650,750] gap 1000 [1750,1850].
	evs := timelineOf(
		gpuOnly(1, 0, 0, 0, 0, 100), gpuOnly(1, 1, 0, 1, 500, 600),
		gpuOnly(1, 2, 0, 0, 650, 750), gpuOnly(1, 3, 0, 1, 1750, 1850))
	d := Analyze(evs).Devices[0]
	near(t, d.Utilization, 400.0/1850, "overall")
	equal(t, d.SteadyRegions, 2, "steady regions")
	equal(t, d.SteadyBusy, msd(200), "steady busy")
	equal(t, d.SteadySpan, msd(250), "steady span")
	near(t, d.SteadyUtilization, 0.8, "steady utilization")
	d = Analyze(evs[:4]).Devices[0]
	equal(t, [2]int{d.SteadyRegions, int(d.SteadySpan)}, [2]int{0, 0}, "fewer than 3 regions")
}

func TestAnalyzeWindow(t *testing.T) {
	evs := timelineOf(
		life{1, 0, 0, 0, 0, 10, 10, 10, 20, 20, 100, 100, 110},
		life{1, 1, 0, 1, 10, 140, 140, 140, 145, 150, 250, 250, 260},
		gpuOnly(1, 2, 0, 0, 300, 400))
	evs = append(evs, jobDone(1, 400))
	r := AnalyzeWindow(evs, msd(50), msd(200))
	if !r.Windowed || r.From != msd(50) || r.To != msd(200) {
		t.Errorf("window = %v %v..%v", r.Windowed, r.From, r.To)
	}
	d := r.Devices[0]
	equal(t, d.Regions, 2, "regions clipped into the window")
	equal(t, d.Busy, msd(100), "busy [50,100] + [150,200]")
	equal(t, d.Span, msd(150), "span is the window")
	near(t, d.Utilization, 100.0/150, "utilization")
	equal(t, d.Gaps, 1, "gaps inside the window")
	equal(t, d.TopGaps[0].Cause, GapSynthesis, "cause (p1 was sent at 140, after the gap began)")
	equal(t, r.Stages[StageDevice].Count, 1, "device intervals starting in the window")
	equal(t, r.Stages[StageSynthesis].Count, 0, "synthesis intervals starting in the window")
	equal(t, len(r.Jobs), 0, "JOB_DONE outside the window")

	// Swapped bounds are accepted; a window with no region gives no device.
	r = AnalyzeWindow(evs, msd(290), msd(260))
	equal(t, len(r.Devices), 0, "no device in an idle window")
	if !strings.Contains(r.String(), "window: 260.000..290.000 ms") {
		t.Errorf("report lacks the window:\n%s", r)
	}
}

func TestAnalyzeEmpty(t *testing.T) {
	r := Analyze(nil)
	equal(t, len(r.Devices), 0, "devices")
	if !strings.Contains(r.String(), "no device regions") {
		t.Errorf("empty report:\n%s", r)
	}
	r = Analyze([]Event{{Kind: GPUStart, Device: 0}})
	equal(t, r.Unmatched, 1, "unmatched")
	if !strings.Contains(r.String(), "warning: 1 start/end events") {
		t.Errorf("report lacks the warning:\n%s", r)
	}
}

var sinkReport *Report

func BenchmarkAnalyze(b *testing.B) {
	// 10 jobs × 100 partitions on 2 devices, 2 workers each.
	var ls []life
	for j := range 10 {
		for p := range 100 {
			i := float64(j*100 + p)
			dev, w := p%2, (p/2)%2
			s := 50 * i
			ls = append(ls, life{uint64(j), p, dev, w, s, s + 80, s + 80, s + 85, s + 95, s + 100, s + 190, s + 190, s + 200})
		}
	}
	evs := timelineOf(ls...)
	b.ReportMetric(float64(len(evs)), "events")
	for b.Loop() {
		sinkReport = Analyze(evs)
	}
}
