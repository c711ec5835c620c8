package timeline

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// GapCause says what a device was waiting for during a gap between two
// device regions.
type GapCause uint8

// The gap causes. See Analyze for the classification rule.
const (
	// GapOther: none of the rules below applied (typically the partition was
	// synthesized and queued but no device worker was free to pick it up,
	// or the events needed to tell are missing).
	GapOther GapCause = iota
	// GapLock: the next partition's worker was already waiting for the
	// kernel lock when the gap began (lock hand-over latency, or the lock was
	// held by something that emits no events).
	GapLock
	// GapSynthesis: the next partition had not been synthesized (CHAN_SEND)
	// when the gap began.
	GapSynthesis
	// GapPreparation: the next partition's CPU preparation
	// (GPU_PICKUP..LOCK_WAIT) overlapped the gap.
	GapPreparation

	// NumGapCauses is the number of gap causes.
	NumGapCauses = int(GapPreparation) + 1
)

var gapCauseNames = [NumGapCauses]string{"other", "lock", "synthesis", "preparation"}

// String returns "other", "lock", "synthesis" or "preparation".
func (c GapCause) String() string {
	if int(c) < NumGapCauses {
		return gapCauseNames[c]
	}
	return fmt.Sprintf("GapCause(%d)", uint8(c))
}

// NumGapBuckets is the number of gap histogram buckets.
const NumGapBuckets = 4

// gapBucketBounds are the upper bounds (exclusive) of the first three gap
// histogram buckets: [0, 50 ms), [50 ms, 200 ms), [200 ms, 1 s), [1 s, ∞).
var gapBucketBounds = [NumGapBuckets - 1]time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second}

// gapBucketLabels names the gap histogram buckets.
var gapBucketLabels = [NumGapBuckets]string{"<50ms", "50-200ms", "200ms-1s", ">=1s"}

// gapBucket returns the histogram bucket index of a gap of length d.
func gapBucket(d time.Duration) int {
	for i, b := range gapBucketBounds {
		if d < b {
			return i
		}
	}
	return NumGapBuckets - 1
}

// numTopGaps is how many of the largest gaps DeviceStats.TopGaps keeps.
const numTopGaps = 5

// Gap is an idle stretch of a device between two consecutive device regions.
type Gap struct {
	Device int
	// Start is the end of the device's busy time before the gap (the latest
	// GPU_END so far), End the GPU_START of the next region.
	Start, End time.Duration
	// Cause is what the device was waiting for.
	Cause GapCause
	// Job, JobID, Partition and Worker identify the region right after the
	// gap.
	Job       uint64
	JobID     string
	Partition int
	Worker    int
	// Breakdown splits [Start, End] by what the next region's partition was
	// doing: Breakdown[StageSynthesis] is the part before its CHAN_SEND,
	// then StageQueue (CHAN_SEND..GPU_PICKUP), StagePreparation and
	// StageLockWait. Parts whose events are missing are zero, so the sum
	// may be less than the gap.
	Breakdown [NumStages]time.Duration
}

// Duration returns End - Start.
func (g Gap) Duration() time.Duration { return g.End - g.Start }

// DurationStats summarizes a set of durations. Percentiles use the nearest
// rank method: Pq is the smallest sample such that at least q% of the
// samples are <= it. All fields are zero when Count is 0.
type DurationStats struct {
	Count                           int
	Total, Mean, Min, P50, P90, Max time.Duration
}

func durationStats(ds []time.Duration) DurationStats {
	if len(ds) == 0 {
		return DurationStats{}
	}
	s := make([]time.Duration, len(ds))
	copy(s, ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var st DurationStats
	st.Count = len(s)
	for _, d := range s {
		st.Total += d
	}
	st.Mean = st.Total / time.Duration(len(s))
	st.Min, st.Max = s[0], s[len(s)-1]
	rank := func(q int) time.Duration {
		i := (q*len(s)+99)/100 - 1 // ceil(q/100·n) - 1
		return s[max(i, 0)]
	}
	st.P50, st.P90 = rank(50), rank(90)
	return st
}

// DeviceStats describes the device regions (GPU_START..GPU_END) of one
// device, or of one device worker when the timeline does not name devices.
type DeviceStats struct {
	// Device is the device index, or -1 when the timeline does not name the
	// device (the Curio dialect).
	Device int
	// Worker is -1 when the stats cover every worker of Device. When Device
	// is -1 they cover the one device worker Worker: the regions of a
	// device cannot be told apart, so each worker is analyzed alone.
	Worker int
	// Regions is the number of device regions.
	Regions int
	// First is the first GPU_START and Last the last GPU_END.
	First, Last time.Duration
	// Busy is the length of the union of the regions: time during which at
	// least one worker held the kernel lock.
	Busy time.Duration
	// Span is Last - First for Analyze, or the window length for
	// AnalyzeWindow.
	Span time.Duration
	// Utilization is Busy / Span in [0, 1] (0 when Span is 0).
	Utilization float64
	// Overlaps is the number of pairs of regions that overlap: each starts
	// before the other ends. With a working kernel lock it is 0; regions
	// that merely touch (one's GPU_END equals the other's GPU_START) do not
	// count.
	Overlaps int

	// SteadyRegions, SteadyBusy, SteadySpan and SteadyUtilization are the
	// same measures computed without the first and the last region (by
	// start time) of the device, which removes pipeline fill and drain:
	// SteadySpan runs from the second region's GPU_START to the latest
	// GPU_END among the kept regions. They are zero with fewer than 3
	// regions.
	SteadyRegions     int
	SteadyBusy        time.Duration
	SteadySpan        time.Duration
	SteadyUtilization float64

	// Gaps is the number of gaps: transitions between consecutive regions
	// (sorted by start) where the next region starts at or after the end of
	// every earlier one. A zero-length gap counts; overlapping regions give
	// no gap.
	Gaps int
	// GapTotal is the sum of the gap lengths (Span - Busy for Analyze).
	GapTotal time.Duration
	// GapBuckets counts gaps by length: [0, 50 ms), [50 ms, 200 ms),
	// [200 ms, 1 s), [1 s, ∞).
	GapBuckets [NumGapBuckets]int
	// CauseCount and CauseTime count gaps and sum their lengths per cause.
	CauseCount [NumGapCauses]int
	CauseTime  [NumGapCauses]time.Duration
	// TopGaps holds the numTopGaps largest gaps, largest first (equal
	// lengths: earlier first).
	TopGaps []Gap
}

// JobStats describes one job that reached JOB_DONE.
type JobStats struct {
	Job   uint64
	JobID string // Event.JobID, if the log names jobs by string
	// Start is the job's first event, Done its first JOB_DONE.
	Start, Done time.Duration
	// Partitions is the number of distinct partition indices seen.
	Partitions int
}

// Total returns Done - Start.
func (j JobStats) Total() time.Duration { return j.Done - j.Start }

// Report is the result of Analyze.
type Report struct {
	// Events is the number of events analyzed; First and Last their
	// smallest and largest offsets.
	Events      int
	First, Last time.Duration
	// Windowed is true for AnalyzeWindow, with the window [From, To].
	Windowed bool
	From, To time.Duration
	// Unmatched counts start events without an end and end events without
	// a start (see Intervals). A non-zero count means a truncated or
	// inconsistent timeline.
	Unmatched int
	// Partitions is the number of distinct (job, partition) pairs.
	Partitions int
	// Devices holds one entry per device that has a device region, by
	// ascending device index; then, for regions whose device is not named
	// (Device -1), one entry per worker by ascending worker index.
	Devices []DeviceStats
	// Stages holds duration statistics per Stage.
	Stages [NumStages]DurationStats
	// JobTotal summarizes Jobs[i].Total().
	JobTotal DurationStats
	// Jobs lists the jobs that reached JOB_DONE, by ascending job.
	Jobs []JobStats
}

// Device returns the stats of device d, or false if it had no region.
func (r *Report) Device(d int) (DeviceStats, bool) {
	for _, ds := range r.Devices {
		if ds.Device == d && ds.Worker < 0 {
			return ds, true
		}
	}
	return DeviceStats{}, false
}

// Analyze computes device utilization, gaps and stage statistics from a
// timeline. events need not be sorted.
//
// Device regions are the GPU_START..GPU_END intervals, matched on device,
// worker, job and partition (see Intervals). Per device, Busy is the union of
// its regions, Span runs from the first GPU_START to the last GPU_END, and
// Utilization = Busy/Span. Regions whose device is unknown (Device -1, as in
// a Curio log) are analyzed per worker instead.
//
// Each gap is classified by the region R that starts right after it, in this
// order:
//
//  1. GapLock if R's LOCK_WAIT..GPU_START covers the whole gap (the worker
//     was waiting for the lock since before the gap began);
//  2. GapSynthesis if R's partition was sent (CHAN_SEND) after the gap began:
//     no synthesized partition was available when the device went idle;
//  3. GapPreparation if R's GPU_PICKUP..LOCK_WAIT overlaps the gap;
//  4. GapOther otherwise.
//
// Synthesis is checked before preparation because a partition that arrives
// during a gap is always prepared during that gap too; the root cause is
// then the late synthesis. Gap.Breakdown gives the full split.
//
// Stage statistics cover every matched interval of each Stage; JobTotal
// covers each job from its first event to its JOB_DONE.
func Analyze(events []Event) *Report {
	return analyze(events, false, 0, 0)
}

// AnalyzeWindow is Analyze restricted to the window [from, to]: device
// regions are clipped to the window and regions outside it are dropped;
// Span is to - from, so Utilization is the fraction of the window the device
// was busy ("steady-state utilization" when the window excludes warm-up and
// drain); gaps are those between clipped regions (idle time before the first
// or after the last region in the window is not a gap); stage statistics
// cover intervals that start in [from, to); Jobs and JobTotal cover jobs
// whose JOB_DONE is in [from, to]. Steady* fields apply the
// drop-first-and-last rule to the clipped regions.
func AnalyzeWindow(events []Event, from, to time.Duration) *Report {
	if to < from {
		from, to = to, from
	}
	return analyze(events, true, from, to)
}

type partKey struct {
	job  uint64
	part int
}

// lane is what DeviceStats describes: a device (worker -1), or one worker of
// an unnamed device (device -1).
type lane struct{ device, worker int }

type workerKey struct {
	job            uint64
	part           int
	device, worker int
}

func analyze(events []Event, windowed bool, from, to time.Duration) *Report {
	r := &Report{Events: len(events), Windowed: windowed, From: from, To: to}
	if len(events) > 0 {
		r.First, r.Last = events[0].Offset, events[0].Offset
	}
	parts := make(map[partKey]bool)
	jobParts := make(map[uint64]map[int]bool)
	jobFirst := make(map[uint64]time.Duration)
	jobIDs := make(map[uint64]string)
	jobDone := make(map[uint64]time.Duration)
	chanSends := make(map[partKey][]time.Duration)
	for _, e := range events {
		r.First, r.Last = min(r.First, e.Offset), max(r.Last, e.Offset)
		if e.Partition >= 0 {
			parts[partKey{e.Job, e.Partition}] = true
			if jobParts[e.Job] == nil {
				jobParts[e.Job] = make(map[int]bool)
			}
			jobParts[e.Job][e.Partition] = true
		}
		if e.JobID != "" {
			jobIDs[e.Job] = e.JobID
		}
		if f, ok := jobFirst[e.Job]; !ok || e.Offset < f {
			jobFirst[e.Job] = e.Offset
		}
		switch e.Kind {
		case JobDone:
			if d, ok := jobDone[e.Job]; !ok || e.Offset < d {
				jobDone[e.Job] = e.Offset
			}
		case ChanSend:
			k := partKey{e.Job, e.Partition}
			chanSends[k] = append(chanSends[k], e.Offset)
		}
	}
	r.Partitions = len(parts)
	for _, cs := range chanSends {
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	}

	ivs, unmatched := Intervals(events)
	r.Unmatched = unmatched

	inWindow := func(t time.Duration) bool { return !windowed || (t >= from && t < to) }
	var stageDur [NumStages][]time.Duration
	regions := make(map[lane][]Interval)
	byWorker := make(map[workerKey][]Interval) // preparation and lock wait
	for _, iv := range ivs {
		if inWindow(iv.Start) {
			stageDur[iv.Stage] = append(stageDur[iv.Stage], iv.Duration())
		}
		switch iv.Stage {
		case StageDevice:
			if windowed {
				if iv.End < from || iv.Start > to || (iv.End == from && iv.Start < from) || (iv.Start == to && iv.End > to) {
					continue
				}
				iv.Start, iv.End = max(iv.Start, from), min(iv.End, to)
			}
			l := lane{iv.Device, -1}
			if iv.Device < 0 {
				l.worker = iv.Worker
			}
			regions[l] = append(regions[l], iv)
		case StagePreparation, StageLockWait:
			k := workerKey{iv.Job, iv.Partition, iv.Device, iv.Worker}
			byWorker[k] = append(byWorker[k], iv)
		}
	}
	for s := range stageDur {
		r.Stages[s] = durationStats(stageDur[s])
	}

	lanes := make([]lane, 0, len(regions))
	for l := range regions {
		lanes = append(lanes, l)
	}
	sort.Slice(lanes, func(i, j int) bool {
		a, b := lanes[i], lanes[j]
		if (a.device < 0) != (b.device < 0) {
			return b.device < 0
		}
		if a.device != b.device {
			return a.device < b.device
		}
		return a.worker < b.worker
	})
	for _, l := range lanes {
		ds := deviceStats(l, regions[l], byWorker, chanSends)
		if windowed {
			ds.Span = to - from
			ds.Utilization = ratio(ds.Busy, ds.Span)
		}
		r.Devices = append(r.Devices, ds)
	}

	var totals []time.Duration
	for job, done := range jobDone {
		if windowed && (done < from || done > to) {
			continue
		}
		js := JobStats{Job: job, JobID: jobIDs[job], Start: jobFirst[job], Done: done, Partitions: len(jobParts[job])}
		r.Jobs = append(r.Jobs, js)
		totals = append(totals, js.Total())
	}
	sort.Slice(r.Jobs, func(i, j int) bool { return r.Jobs[i].Job < r.Jobs[j].Job })
	r.JobTotal = durationStats(totals)
	return r
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// unionBusy returns the length of the union of regions sorted by Start, and
// the latest End.
func unionBusy(regs []Interval) (busy, last time.Duration) {
	if len(regs) == 0 {
		return 0, 0
	}
	curS, curE := regs[0].Start, regs[0].End
	last = curE
	for _, iv := range regs[1:] {
		if iv.Start > curE {
			busy += curE - curS
			curS, curE = iv.Start, iv.End
		} else if iv.End > curE {
			curE = iv.End
		}
		last = max(last, iv.End)
	}
	busy += curE - curS
	return busy, last
}

func deviceStats(l lane, regs []Interval, byWorker map[workerKey][]Interval, chanSends map[partKey][]time.Duration) DeviceStats {
	sort.SliceStable(regs, func(i, j int) bool {
		if regs[i].Start != regs[j].Start {
			return regs[i].Start < regs[j].Start
		}
		return regs[i].End < regs[j].End
	})
	ds := DeviceStats{Device: l.device, Worker: l.worker, Regions: len(regs), First: regs[0].Start}
	ds.Busy, ds.Last = unionBusy(regs)
	ds.Span = ds.Last - ds.First
	ds.Utilization = ratio(ds.Busy, ds.Span)

	if n := len(regs); n >= 3 {
		mid := regs[1 : n-1]
		ds.SteadyRegions = len(mid)
		var last time.Duration
		ds.SteadyBusy, last = unionBusy(mid)
		ds.SteadySpan = last - mid[0].Start
		ds.SteadyUtilization = ratio(ds.SteadyBusy, ds.SteadySpan)
	}

	// Overlapping pairs: two regions overlap when each starts before the
	// other ends. Regions are sorted by Start, then End, so the later
	// regions that overlap regs[i] are exactly those after it that start
	// before regs[i].End: a later j has Start_j >= Start_i, and End_j >
	// Start_i unless both are empty at Start_i, which the sort puts before
	// any longer region starting there. Counted by binary search in
	// O(n log n).
	for i := range regs {
		hi := sort.Search(len(regs), func(j int) bool { return regs[j].Start >= regs[i].End })
		ds.Overlaps += max(0, hi-i-1)
	}

	var gaps []Gap
	maxEnd := regs[0].End
	for _, next := range regs[1:] {
		if next.Start >= maxEnd {
			g := classifyGap(l.device, maxEnd, next, byWorker, chanSends)
			gaps = append(gaps, g)
			ds.Gaps++
			ds.GapTotal += g.Duration()
			ds.GapBuckets[gapBucket(g.Duration())]++
			ds.CauseCount[g.Cause]++
			ds.CauseTime[g.Cause] += g.Duration()
		}
		maxEnd = max(maxEnd, next.End)
	}
	sort.SliceStable(gaps, func(i, j int) bool { return gaps[i].Duration() > gaps[j].Duration() })
	if len(gaps) > numTopGaps {
		gaps = gaps[:numTopGaps]
	}
	ds.TopGaps = gaps
	return ds
}

// overlap returns the length of [a0, a1] ∩ [b0, b1], or 0.
func overlap(a0, a1, b0, b1 time.Duration) time.Duration {
	return max(0, min(a1, b1)-max(a0, b0))
}

// latestBefore returns the interval among ivs with the largest End <= t, or
// false.
func latestBefore(ivs []Interval, t time.Duration) (Interval, bool) {
	var best Interval
	found := false
	for _, iv := range ivs {
		if iv.End <= t && (!found || iv.End > best.End) {
			best, found = iv, true
		}
	}
	return best, found
}

func classifyGap(dev int, start time.Duration, next Interval, byWorker map[workerKey][]Interval, chanSends map[partKey][]time.Duration) Gap {
	g := Gap{Device: dev, Start: start, End: next.Start, Cause: GapOther,
		Job: next.Job, JobID: next.JobID, Partition: next.Partition, Worker: next.Worker}
	wk := workerKey{next.Job, next.Partition, next.Device, next.Worker}
	var lw, prep Interval
	var haveLW, havePrep bool
	var pick time.Duration // GPU_PICKUP of the next region's partition, if known
	if ivs := byWorker[wk]; len(ivs) > 0 {
		var lws, preps []Interval
		for _, iv := range ivs {
			if iv.Stage == StageLockWait {
				lws = append(lws, iv)
			} else {
				preps = append(preps, iv)
			}
		}
		lw, haveLW = latestBefore(lws, next.Start)
		if haveLW {
			prep, havePrep = latestBefore(preps, lw.Start)
		} else {
			prep, havePrep = latestBefore(preps, next.Start)
		}
	}
	if havePrep {
		pick = prep.Start
	}
	// The CHAN_SEND of this pass of the partition: the latest one at or
	// before its pickup (or before the region when the pickup is unknown).
	var send time.Duration
	haveSend := false
	limit := next.Start
	if havePrep {
		limit = pick
	}
	for _, t := range chanSends[partKey{next.Job, next.Partition}] {
		if t <= limit {
			send, haveSend = t, true
		}
	}

	if haveSend {
		g.Breakdown[StageSynthesis] = overlap(g.Start, g.End, math.MinInt64, send)
		if havePrep {
			g.Breakdown[StageQueue] = overlap(g.Start, g.End, send, pick)
		}
	}
	if havePrep {
		g.Breakdown[StagePreparation] = overlap(g.Start, g.End, prep.Start, prep.End)
	}
	if haveLW {
		g.Breakdown[StageLockWait] = overlap(g.Start, g.End, lw.Start, lw.End)
	}

	switch {
	case haveLW && lw.Start <= g.Start && lw.End >= g.End:
		g.Cause = GapLock
	case haveSend && send > g.Start:
		g.Cause = GapSynthesis
	case havePrep && prep.Start < g.End && prep.End > g.Start:
		g.Cause = GapPreparation
	}
	return g
}
