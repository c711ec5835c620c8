// Package timeline records, writes and analyzes the event timeline of the
// cuzk proving engine.
//
// # Events
//
// The engine proves Groth16 partitions in a pipeline: synthesis on the CPU,
// a queue to the device workers (two per device), and on a worker: CPU
// preparation, the per-device kernel-only lock, device work, lock release,
// CPU finalization. Every step boundary is an Event with a Kind:
//
//	SYNTH_START ─ synthesis ─ SYNTH_END
//	CHAN_SEND ─ queue ─ GPU_PICKUP ─ preparation ─ LOCK_WAIT ─ lock wait ─
//	GPU_START ─ device ─ GPU_END
//	FINALIZE_START ─ finalize ─ FINALIZE_END
//	JOB_DONE (once per job, Partition -1)
//
// GPU_START and GPU_END bracket the kernel-lock region and nothing else:
// GPU_START is emitted right after the device's kernel-only lock is
// acquired, immediately before the first device call of the partition (the
// first kernel launch or host-to-device copy), and GPU_END right after the
// last device call has completed (results copied back and synchronized),
// immediately before the lock is released. CPU preparation (GPU_PICKUP..
// LOCK_WAIT: e.g. building density bitmaps, arranging scalars) and CPU
// finalization (FINALIZE_START..FINALIZE_END: e.g. the final group
// arithmetic and serialization) are outside the region. So at most one
// worker per device is ever between GPU_START and GPU_END, a device region
// is time the device was reserved for one partition, and the union of the
// regions divided by their span is the device utilization.
//
// Offsets are monotonic time since the engine's epoch (see Clock), kept as a
// time.Duration (nanoseconds); the line format keeps microseconds.
//
// # Hooks
//
// A Hook receives events; a nil Hook means recording is off and costs one
// nil check per event. Hooks are called concurrently from every worker.
// Recorder keeps events in memory, LineWriter and JSONWriter write them as
// they arrive, HookFunc adapts a function and Multi fans out:
//
//	var rec timeline.Recorder
//	f, _ := os.Create("timeline.log")
//	lw := timeline.NewLineWriter(f)
//	hook := timeline.Multi(&rec, lw) // pass to the engine
//	clock := timeline.NewClock()
//	hook.Event(timeline.Event{Offset: clock.Now(), Kind: timeline.SynthStart, Job: 1, Partition: 0, Device: -1, Worker: -1})
//	...
//	if err := lw.Err(); err != nil { ... }
//	rep := timeline.Analyze(rec.Events())
//	rep.WriteText(os.Stdout)
//
// # Formats
//
// The line format (FormatLine, ParseLines) is
//
//	TIMELINE,<offset_ms>,<EVENT>,<job>,p=<partition> d=<device> w=<worker>[ <text>]
//
// with offset_ms in milliseconds with three decimals, and the free text
// after one space with backslash, newline and carriage return escaped
// (\\, \n, \r); it may contain commas, as the detail field is everything
// after the fourth comma. JSON Lines (JSONWriter, ParseJSONLines) carry
// the offset exactly in nanoseconds. WriteChromeTrace writes a Chrome
// trace-event file for Perfetto or chrome://tracing.
//
// # Reading logs of either engine
//
// ReadLog reads the TIMELINE lines out of a whole program log, skipping
// everything else, in the line format above (DialectCuzk) or in the one the
// Rust cuzk daemon of Curio writes to stderr (DialectCurio):
//
//	TIMELINE,87698,SYNTH_START,ae003926,kind=porep-c2
//	TIMELINE,92510,GPU_END,ae003926,worker=1,partition=3,gpu_ms=2107
//
// The dialect is that of the majority of the lines (ours always start the
// detail with "p="). Curio's string job ids are kept in Event.JobID and
// numbered in Event.Job; its logs do not name the GPU, so the analysis
// reports each GPU worker. Truncated lines and unknown events or detail keys
// are listed in the Log with their line numbers rather than failing the
// file:
//
//	lg, err := timeline.ReadLog(f)
//	if err != nil { ... } // only a read error
//	for _, bad := range lg.Bad { log.Print(bad) } // "timeline line 41 ...: malformed timeline line"
//	timeline.Analyze(lg.Events).WriteText(os.Stdout)
//
// # Analysis
//
// Analyze (or AnalyzeWindow) computes per device (per GPU worker when the
// log does not name devices) the busy time (union of device regions), span,
// utilization, overlapping region pairs (must be 0 for this engine),
// a gap histogram with the largest gaps and what the device waited for, and
// duration statistics per stage and per job. WriteWaterfall and WriteSVG
// draw one row per partition over time.
package timeline
