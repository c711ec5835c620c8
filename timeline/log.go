package timeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Dialect says which engine wrote the TIMELINE lines of a log.
type Dialect uint8

const (
	// DialectCuzk is the line format of this module's engine (see
	// FormatLine): TIMELINE,<offset_ms>,<EVENT>,<job>,p=<partition>
	// d=<device> w=<worker>[ <text>].
	DialectCuzk Dialect = iota + 1
	// DialectCurio is the format of the Rust cuzk proving daemon of Curio
	// (filecoin-project/curio extern/cuzk/cuzk-core/src/engine.rs, function
	// timeline_event): TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>,
	// with whole milliseconds, a string job id and a detail of
	// comma-separated key=value pairs. See ReadLog.
	DialectCurio
)

// String returns "cuzk" or "curio".
func (d Dialect) String() string {
	switch d {
	case DialectCuzk:
		return "cuzk"
	case DialectCurio:
		return "curio"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// ErrUnknownKey is wrapped by the notes ReadLog keeps for a detail key (or a
// bare word) that the Curio dialect does not define.
var ErrUnknownKey = errors.New("unknown timeline detail key")

// Log is a timeline read from a program log by ReadLog.
type Log struct {
	// Dialect is the dialect of the log: the one most of its TIMELINE lines
	// are in (DialectCuzk on a tie or when there are none).
	Dialect Dialect
	// Events are the events read, in input order.
	Events []Event
	// Lines is the number of TIMELINE lines seen, read or not.
	Lines int
	// Bad lists the TIMELINE lines that were not read, with their line
	// numbers: truncated or malformed lines (wrapping ErrMalformed), lines in
	// the other dialect, lines longer than 1 MiB.
	Bad []*ParseError
	// Unknown lists what was kept but not understood: lines whose event name
	// is not a known kind (wrapping ErrUnknownKind; the line is not in
	// Events) and, in the Curio dialect, detail keys or bare words that
	// engine.rs does not write (wrapping ErrUnknownKey; the event is in
	// Events with its whole detail in Event.Detail).
	Unknown []*ParseError
}

// rawLine is one TIMELINE line and its 1-based line number.
type rawLine struct {
	n       int
	text    string
	tooLong bool // longer than maxLineBytes; text is its head
}

// ReadLog reads the TIMELINE lines of a program log in either dialect and
// skips every other line, so a whole daemon log (tracing output, other
// stderr) can be given. Lines may be in any order. A TIMELINE line starts
// with "TIMELINE,", or has it after a prefix that ends in a space or a tab
// (as journalctl writes "Nov 30 10:00:00 host cuzk[81]: TIMELINE,..."); all
// other lines are ignored. A line that cannot be read
// is listed in Log.Bad and an unknown event or detail key in Log.Unknown,
// both with the line number; neither stops the reading. ReadLog fails only
// when r fails.
//
// The dialect is decided per log: a line whose fifth field starts with "p="
// is in the cuzk dialect (FormatLine always writes it so), any other in the
// Curio dialect, and the log takes the dialect of the majority of its lines.
// Lines of the other dialect are listed in Bad. In the cuzk dialect each line
// is read by ParseLine.
//
// In the Curio dialect, fields are
//
//	TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>
//
// offset_ms is a decimal number of milliseconds (engine.rs writes whole
// ones). EVENT is SYNTH_START, SYNTH_END, CHAN_SEND, GPU_QUEUE (read as
// ChanSend: the synthesized partition is queued for the GPU workers),
// GPU_PICKUP, GPU_START or GPU_END, or any Kind name. job_id is kept as
// given in Event.JobID (non-empty, no commas); Event.Job numbers the job ids
// 1, 2, ... in order of first appearance in the log. detail is everything
// after the fourth comma: empty, a bare word ("monolithic"), or
// comma-separated key=value pairs; the keys written by engine.rs are
// partition, worker (non-negative integers), synth_ms, gpu_ms (non-negative
// integers, kept only in Detail) and kind (proof kind, kept only in Detail).
// A missing partition= means a monolithic job, which is Partition 0 (the
// Rust engine queues it as partition 0); a missing worker= is Worker -1.
// The log does not name the GPU, so Device is -1, and the analysis reports
// each GPU worker separately (see Analyze).
func ReadLog(r io.Reader) (*Log, error) {
	lines, err := timelineLines(r)
	if err != nil {
		return nil, err
	}
	lg := &Log{Dialect: DialectCuzk, Lines: len(lines)}
	cuzk := 0
	for _, l := range lines {
		if lineDialect(l.text) == DialectCuzk {
			cuzk++
		}
	}
	if len(lines)-cuzk > cuzk {
		lg.Dialect = DialectCurio
	}
	jobs := make(map[string]uint64)
	for _, l := range lines {
		if l.tooLong {
			lg.Bad = append(lg.Bad, newParseError(l.n, l.text, fmt.Errorf("line longer than %d bytes: %w", maxLineBytes, ErrMalformed)))
			continue
		}
		if d := lineDialect(l.text); d != lg.Dialect {
			lg.Bad = append(lg.Bad, newParseError(l.n, l.text, fmt.Errorf("line in the %s dialect in a %s log: %w", d, lg.Dialect, ErrMalformed)))
			continue
		}
		if lg.Dialect == DialectCuzk {
			e, err := ParseLine(l.text)
			lg.add(l.n, l.text, e, err)
			continue
		}
		e, unknown, err := parseCurioLine(l.text, jobs)
		for _, u := range unknown {
			lg.Unknown = append(lg.Unknown, newParseError(l.n, l.text, u))
		}
		lg.add(l.n, l.text, e, err)
	}
	return lg, nil
}

// add files the result of parsing line n (text): e among the Events when err is nil, else the
// error among the Unknown lines when it is an ErrUnknownKind and among the Bad ones otherwise.
func (lg *Log) add(n int, text string, e Event, err error) {
	switch {
	case errors.Is(err, ErrUnknownKind):
		lg.Unknown = append(lg.Unknown, newParseError(n, text, err))
	case err != nil:
		lg.Bad = append(lg.Bad, newParseError(n, text, err))
	default:
		lg.Events = append(lg.Events, e)
	}
}

// lineDialect classifies a TIMELINE line by its fifth field.
func lineDialect(line string) Dialect {
	parts := strings.SplitN(line, ",", 5)
	if len(parts) == 5 && strings.HasPrefix(parts[4], "p=") {
		return DialectCuzk
	}
	return DialectCurio
}

// timelineLines returns the TIMELINE records of r (see timelineRecord),
// without the line end. A TIMELINE line longer than maxLineBytes is returned
// marked tooLong with the first 200 bytes of its record; longer lines of
// other text are skipped.
func timelineLines(r io.Reader) ([]rawLine, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	prefix := []byte(linePrefix + ",")
	var out []rawLine
	var buf []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			if len(buf) <= maxLineBytes {
				continue
			}
			n++
			if rec := timelineRecord(buf[:maxLineBytes], prefix); rec != nil {
				out = append(out, rawLine{n: n, text: string(rec[:min(len(rec), 200)]), tooLong: true})
			}
			buf = buf[:0]
			if err := skipLine(br); err == io.EOF {
				return out, nil
			} else if err != nil {
				return out, fmt.Errorf("read log line %d: %w", n, err)
			}
			continue
		case err != nil && err != io.EOF:
			return out, fmt.Errorf("read log line %d: %w", n+1, err)
		}
		if len(buf) > 0 {
			n++
			line := bytes.TrimRight(buf, "\r\n")
			if rec := timelineRecord(line, prefix); rec != nil {
				if len(line) > maxLineBytes {
					out = append(out, rawLine{n: n, text: string(rec[:min(len(rec), 200)]), tooLong: true})
				} else {
					out = append(out, rawLine{n: n, text: string(rec)})
				}
			}
		}
		buf = buf[:0]
		if err == io.EOF {
			return out, nil
		}
	}
}

// timelineRecord returns the part of line from "TIMELINE," on when it starts
// the line or follows a space or tab (a prefix added by journalctl or a log
// collector), else nil.
func timelineRecord(line, prefix []byte) []byte {
	i := bytes.Index(line, prefix)
	if i < 0 || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
		return nil
	}
	return line[i:]
}

// skipLine discards input up to and including the next newline.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}
