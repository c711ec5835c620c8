package timeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// linePrefix starts every line of the line format.
const linePrefix = "TIMELINE"

// maxLineBytes bounds one line read by the parsers (1 MiB).
const maxLineBytes = 1 << 20

// ErrMalformed is wrapped by every parse error about the content of a line.
var ErrMalformed = errors.New("malformed timeline line")

// ParseError reports a bad line of a timeline stream.
type ParseError struct {
	Line int    // 1-based line number in the input
	Text string // the line (truncated to 200 bytes)
	Err  error  // what is wrong; wraps ErrMalformed or ErrUnknownKind
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("timeline line %d %q: %v", e.Line, e.Text, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

func newParseError(n int, line string, err error) *ParseError {
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return &ParseError{Line: n, Text: line, Err: err}
}

// FormatLine returns e in the line format, without a trailing newline:
//
//	TIMELINE,<offset_ms>,<EVENT>,<job>,p=<partition> d=<device> w=<worker>[ <text>]
//
// offset_ms is Offset in milliseconds with exactly three decimals (so the
// resolution is one microsecond; the sub-microsecond rest is truncated toward
// zero). EVENT is Kind.String. job is decimal. The detail field is everything
// after the fourth comma: the three integers partition, device and worker
// (-1 when absent), then, only when Detail is non-empty, one space and Detail
// with backslash, newline and carriage return escaped as \\, \n and \r.
// Commas and every other byte of Detail are written verbatim. ParseLine
// inverts FormatLine exactly, except for the truncated sub-microsecond part.
func FormatLine(e Event) string { return string(appendLine(nil, e)) }

// appendLine appends FormatLine(e) to dst and returns the extended slice.
func appendLine(dst []byte, e Event) []byte {
	dst = append(dst, linePrefix...)
	dst = append(dst, ',')
	dst = appendMillis(dst, e.Offset)
	dst = append(dst, ',')
	dst = append(dst, e.Kind.String()...)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, e.Job, 10)
	dst = append(dst, ",p="...)
	dst = strconv.AppendInt(dst, int64(e.Partition), 10)
	dst = append(dst, " d="...)
	dst = strconv.AppendInt(dst, int64(e.Device), 10)
	dst = append(dst, " w="...)
	dst = strconv.AppendInt(dst, int64(e.Worker), 10)
	if e.Detail != "" {
		dst = append(dst, ' ')
		dst = appendEscaped(dst, e.Detail)
	}
	return dst
}

// appendMillis appends d in milliseconds with three decimals, truncated
// toward zero to whole microseconds.
func appendMillis(dst []byte, d time.Duration) []byte {
	us := int64(d / time.Microsecond)
	if us < 0 {
		dst = append(dst, '-')
		us = -us // |MinInt64/1000| fits
	}
	dst = strconv.AppendInt(dst, us/1000, 10)
	frac := us % 1000
	dst = append(dst, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return dst
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("detail text ends in a lone backslash: %w", ErrMalformed)
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("detail text has unknown escape \\%c at byte %d: %w", s[i], i-1, ErrMalformed)
		}
	}
	return b.String(), nil
}

// parseMillis parses a decimal number of milliseconds ("12.345", "-0.5",
// "7") exactly into a Duration. Up to six decimals (nanoseconds) are
// accepted.
func parseMillis(s string) (time.Duration, error) {
	orig := s
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	ip, fp, hasDot := strings.Cut(s, ".")
	if ip == "" || (hasDot && fp == "") {
		return 0, fmt.Errorf("parse offset_ms %q: want digits[.digits]: %w", orig, ErrMalformed)
	}
	if len(fp) > 6 {
		return 0, fmt.Errorf("parse offset_ms %q: more than 6 decimals: %w", orig, ErrMalformed)
	}
	var ms, frac int64
	for _, part := range []struct {
		s string
		v *int64
	}{{ip, &ms}, {fp, &frac}} {
		for i := 0; i < len(part.s); i++ {
			c := part.s[i]
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("parse offset_ms %q: bad character %q: %w", orig, c, ErrMalformed)
			}
			if *part.v > (1<<62)/10 {
				return 0, fmt.Errorf("parse offset_ms %q: out of range: %w", orig, ErrMalformed)
			}
			*part.v = *part.v*10 + int64(c-'0')
		}
	}
	for i := len(fp); i < 6; i++ {
		frac *= 10
	}
	const maxNs = int64(1<<63 - 1)
	const maxMs = maxNs / int64(time.Millisecond)
	if ms > maxMs || (ms == maxMs && frac > maxNs-maxMs*int64(time.Millisecond)) {
		return 0, fmt.Errorf("parse offset_ms %q: out of range: %w", orig, ErrMalformed)
	}
	d := time.Duration(ms)*time.Millisecond + time.Duration(frac)
	if neg {
		d = -d
	}
	return d, nil
}

// ParseLine parses one line written by FormatLine. A trailing "\r" or "\n" is
// ignored. For compatibility with other emitters, a detail field that does
// not start with "p=" is taken as raw free text (not unescaped) and
// Partition, Device and Worker are set to -1. Errors wrap ErrMalformed or
// ErrUnknownKind.
func ParseLine(line string) (Event, error) {
	line = strings.TrimRight(line, "\r\n")
	parts := strings.SplitN(line, ",", 5)
	if len(parts) != 5 {
		return Event{}, fmt.Errorf("want 5 comma-separated fields, have %d: %w", len(parts), ErrMalformed)
	}
	if parts[0] != linePrefix {
		return Event{}, fmt.Errorf("first field %q is not %s: %w", parts[0], linePrefix, ErrMalformed)
	}
	var e Event
	var err error
	if e.Offset, err = parseMillis(parts[1]); err != nil {
		return Event{}, err
	}
	if e.Kind, err = parseKind(parts[2]); err != nil {
		return Event{}, err
	}
	if e.Job, err = strconv.ParseUint(parts[3], 10, 64); err != nil {
		return Event{}, fmt.Errorf("parse job %q: %w", parts[3], ErrMalformed)
	}
	detail := parts[4]
	if !strings.HasPrefix(detail, "p=") {
		e.Partition, e.Device, e.Worker = -1, -1, -1
		e.Detail = detail
		return e, nil
	}
	rest := detail
	for _, f := range []struct {
		key string
		v   *int
	}{{"p=", &e.Partition}, {"d=", &e.Device}, {"w=", &e.Worker}} {
		var tok string
		var more bool
		tok, rest, more = strings.Cut(rest, " ")
		if !strings.HasPrefix(tok, f.key) {
			return Event{}, fmt.Errorf("detail %q: want %s<int>, have %q: %w", detail, f.key, tok, ErrMalformed)
		}
		n, err := strconv.ParseInt(tok[len(f.key):], 10, 0)
		if err != nil {
			return Event{}, fmt.Errorf("detail %q: bad integer in %q: %w", detail, tok, ErrMalformed)
		}
		*f.v = int(n)
		if !more {
			if f.key != "w=" {
				return Event{}, fmt.Errorf("detail %q: missing fields after %q: %w", detail, tok, ErrMalformed)
			}
			return e, nil
		}
	}
	if e.Detail, err = unescape(rest); err != nil {
		return Event{}, err
	}
	return e, nil
}

// ParseLines reads a stream in the line format, one event per line, and
// returns the events in input order. Empty lines are skipped; any other line
// that does not parse yields a *ParseError with its 1-based line number.
// Lines may be at most 1 MiB long. To read a whole program log, in either
// dialect, use ReadLog.
func ParseLines(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineBytes)
	var events []Event
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		e, err := ParseLine(line)
		if err != nil {
			return events, newParseError(n, line, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("read timeline line %d: %w", n+1, err)
	}
	return events, nil
}

// LineWriter is a Hook that writes each event in the line format (see
// FormatLine) followed by "\n", as one Write call per event, as the event
// arrives. It is safe for concurrent use; lines are never interleaved. After
// the first write error it drops further events; Err returns that error.
// Wrap a slow writer in a bufio.Writer and call Flush yourself if Write calls
// are expensive.
type LineWriter struct {
	writerState
	w   io.Writer
	buf []byte
}

// writerState is the lock, first error and count the writers share.
type writerState struct {
	mu  sync.Mutex
	err error
	n   int
}

// Err returns the first encode or write error, or nil.
func (s *writerState) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Written returns the number of events written successfully.
func (s *writerState) Written() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// NewLineWriter returns a LineWriter writing to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Event writes e as one line.
func (lw *LineWriter) Event(e Event) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return
	}
	lw.buf = append(appendLine(lw.buf[:0], e), '\n')
	if _, err := lw.w.Write(lw.buf); err != nil {
		lw.err = fmt.Errorf("write timeline line for %s job %d: %w", e.Kind, e.Job, err)
		return
	}
	lw.n++
}

// WriteLines writes events in the line format, one per line.
func WriteLines(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, e := range events {
		buf = append(appendLine(buf[:0], e), '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("write timeline lines: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write timeline lines: %w", err)
	}
	return nil
}
