package prover

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// checkFuzzErr asserts the contract for rejected input: a *DecodeError wrapping ErrFormat
// whose offset lies within the input.
func checkFuzzErr(t *testing.T, err error, n int) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrFormat) {
		t.Fatalf("rejection is not a *DecodeError wrapping ErrFormat: %v", err)
	}
	if de.Offset < 0 || de.Offset > int64(n) || de.Section == "" {
		t.Fatalf("bad location in %v (input %d bytes)", err, n)
	}
}

// fuzzSeeds adds a valid encoding, its truncations at a few points, single flips in the
// flag byte and deep inside, and a corrupt first count.
func fuzzSeeds(f *testing.F, good []byte, countAt int) {
	f.Add(good, true)
	f.Add(good, false)
	for _, n := range []int{0, 1, 47, 96, 500, len(good) / 2, len(good) - 1} {
		if n <= len(good) {
			f.Add(good[:n], false)
		}
	}
	for _, at := range []int{0, 96, len(good) - 1} {
		b := append([]byte(nil), good...)
		b[at] ^= 0x20
		f.Add(b, true)
	}
	if countAt >= 0 && countAt+4 <= len(good) {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint32(b[countAt:], 0xFFFFFFFF)
		f.Add(b, false)
	}
}

func FuzzDecodeParameters(f *testing.F) {
	p := randParams(700, 2, 3, 2, 2, 1, 1)
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	fuzzSeeds(f, good, p.VK.EncodedSize())
	f.Add(append(append([]byte(nil), good...), 1, 2, 3), true) // trailing transcript
	f.Fuzz(func(t *testing.T, b []byte, checked bool) {
		mode := Unchecked
		if checked {
			mode = Checked
		}
		q, err := DecodeParameters(b, mode)
		if err != nil {
			checkFuzzErr(t, err, len(b))
			return
		}
		// Accepted input is canonical: it re-encodes to the same prefix.
		var out bytes.Buffer
		if _, err := q.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, out.Bytes()) {
			t.Fatal("decoded parameters re-encode differently")
		}
	})
}

func FuzzUnmarshalVerifyingKey(f *testing.F) {
	vk := randVK(701, 3)
	good, _ := vk.MarshalBinary()
	fuzzSeeds(f, good, 864)
	f.Fuzz(func(t *testing.T, b []byte, checked bool) {
		mode := Unchecked
		if checked {
			mode = Checked
		}
		v, err := UnmarshalVerifyingKey(b, mode)
		if err != nil {
			checkFuzzErr(t, err, len(b))
			return
		}
		out, err := v.MarshalBinary()
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("decoded vk re-encodes differently (err %v)", err)
		}
	})
}

func FuzzProofSetBytes(f *testing.F) {
	p := randProof(702)
	good := p.Bytes()
	fuzzSeeds(f, good[:], -1)
	f.Fuzz(func(t *testing.T, b []byte, _ bool) {
		var q Proof
		if err := q.SetBytes(b); err != nil {
			checkFuzzErr(t, err, len(b))
			return
		}
		if out := q.Bytes(); !bytes.Equal(out[:], b) {
			t.Fatal("decoded proof re-encodes differently")
		}
	})
}

// FuzzReadVerifyingKey feeds arbitrary bytes through the bounded stream reader: it must agree
// with UnmarshalVerifyingKey on the key's bytes and never read past the key.
func FuzzReadVerifyingKey(f *testing.F) {
	vk := randVK(703, 2)
	good, _ := vk.MarshalBinary()
	fuzzSeeds(f, good, vkFixedSize-4)
	f.Add(append(append([]byte(nil), good...), 0, 0, 0), true) // bytes after the key
	f.Fuzz(func(t *testing.T, b []byte, checked bool) {
		mode := Unchecked
		if checked {
			mode = Checked
		}
		r := bytes.NewReader(b)
		v, err := ReadVerifyingKey(r, mode)
		if err != nil {
			if !errors.Is(err, errTooLarge) {
				checkFuzzErr(t, err, len(b))
			}
			return
		}
		n := v.EncodedSize()
		if consumed := len(b) - r.Len(); consumed != n {
			t.Fatalf("read %d bytes for a %d-byte key", consumed, n)
		}
		w, err := UnmarshalVerifyingKey(b[:n], mode)
		if err != nil || !vkEqual(v, w) {
			t.Fatalf("stream and slice decoders disagree (err %v)", err)
		}
	})
}

// FuzzReadProofs feeds arbitrary bytes and limits through ReadProofs: accepted input is a
// whole number of at most max proofs that re-encode to the input.
func FuzzReadProofs(f *testing.F) {
	a, b := randProof(704).Bytes(), randProof(705).Bytes()
	two := append(append([]byte(nil), a[:]...), b[:]...)
	f.Add(two, uint8(2))
	f.Add(two, uint8(1))
	f.Add(two[:191], uint8(2))
	f.Add(two[:193], uint8(2))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		ps, err := ReadProofs(bytes.NewReader(in), int(max))
		limit := int(max)
		if limit == 0 {
			limit = MaxProofs
		}
		if err != nil {
			if !errors.Is(err, errTooLarge) {
				checkFuzzErr(t, err, len(in))
			} else if len(in) <= limit*ProofSize {
				t.Fatalf("%d bytes refused as too large for %d proofs", len(in), limit)
			}
			return
		}
		if len(ps) > limit || len(ps)*ProofSize != len(in) {
			t.Fatalf("%d proofs from %d bytes with limit %d", len(ps), len(in), limit)
		}
		for i := range ps {
			if enc := ps[i].Bytes(); !bytes.Equal(enc[:], in[i*ProofSize:(i+1)*ProofSize]) {
				t.Fatalf("proof %d re-encodes differently", i)
			}
		}
	})
}
