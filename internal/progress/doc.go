// Package progress reports the progress of long steps — a circuit's compilation, a parameter
// setup, a benchmark's partitions — to a human watching stderr.
//
// A Reporter follows one stage: its name, how much is done of a known total (or only how much,
// when the total is unknown), the rate and the estimated time left. On a terminal it redraws one
// line in place (a carriage return, at most five times a second); otherwise it writes plain
// lines, one per tenth of the total or every five seconds, so that a log file stays short. A
// stage shorter than a second shows nothing.
//
//	r := progress.New(os.Stderr, "H points", int64(n))
//	defer r.Done()
//	... r.Add(int64(chunk)) ... // from any goroutine
//
// A nil *Reporter does nothing, so that code can take one optionally at no cost.
package progress
