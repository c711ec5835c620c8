package c1

import (
	"fmt"
	"strconv"
)

// domain is a 32-byte hash domain value (Rust Sha256Domain, PoseidonDomain, Commitment, Ticket),
// serialized by serde_json as an array of 32 numbers 0–255. Decoding never fails on a wrong
// length or a value out of range; it records the problem in bad so that the caller can name the
// JSON field. set records that the field was present.
type domain struct {
	b   [32]byte
	set bool
	bad string
}

// MarshalJSON writes the 32 bytes as a JSON array of numbers.
func (d domain) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 4*32+2)
	out = append(out, '[')
	for i, x := range d.b {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendUint(out, uint64(x), 10)
	}
	return append(out, ']'), nil
}

// UnmarshalJSON reads an array of numbers (encoding/json has already checked the syntax).
func (d *domain) UnmarshalJSON(data []byte) error {
	*d = domain{set: true}
	if string(data) == "null" {
		d.bad = "null, want 32 bytes"
		return nil
	}
	if len(data) < 2 || data[0] != '[' {
		d.bad = "not an array of 32 bytes"
		return nil
	}
	n := 0
	i := 1
	for {
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i < len(data) && data[i] == ']' && n == 0 {
			break
		}
		j := i
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		v, err := strconv.ParseUint(string(data[i:j]), 10, 8)
		if err != nil {
			d.bad = fmt.Sprintf("element %d is not a byte", n)
			return nil
		}
		if n < 32 {
			d.b[n] = byte(v)
		}
		n++
		for j < len(data) && isSpace(data[j]) {
			j++
		}
		if j >= len(data) {
			d.bad = "unterminated array"
			return nil
		}
		if data[j] == ']' {
			break
		}
		if data[j] != ',' {
			d.bad = fmt.Sprintf("element %d is not a byte", n)
			return nil
		}
		i = j + 1
	}
	if n != 32 {
		d.bad = fmt.Sprintf("%d bytes, want 32", n)
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
