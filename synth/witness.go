package synth

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// WitnessBlock is the number of elements of a CompactWitness block: the unit of parallel
// encoding and decoding, with one entry of BlockOthers each.
const WitnessBlock = 512

// Classes of a CompactWitness element, 2 bits each.
const (
	WitnessZero  = 0 // the element is 0
	WitnessOne   = 1 // the element is 1
	WitnessOther = 2 // the element is the next entry of Others
)

// CompactWitness is an assignment w encoded for shipping: in Filecoin circuits most values are
// 0 or 1 (PoRep's aux: 51 % and 47 %), so each element gets a 2-bit class and only the others
// are kept whole. Its size is N/4 + 32·len(Others) + 4·N/WitnessBlock bytes.
type CompactWitness struct {
	N int // number of elements
	// Classes holds the class of element i in bits 2(i mod 32) and 2(i mod 32)+1 of word i/32.
	Classes []uint64
	// Others holds the elements of class WitnessOther in order, in Montgomery form (fr.Element's
	// memory layout).
	Others []fr.Element
	// BlockOthers[b] is the number of Others before block b (elements b·WitnessBlock…), so that
	// blocks decode independently; it has one entry per block and a last one, len(Others).
	BlockOthers []uint32
}

// ErrCompactWitness is wrapped by the errors of CompactWitness.Decode.
var ErrCompactWitness = errors.New("synth: compact witness inconsistent")

const classWordsPerBlock = WitnessBlock / 32

// EncodeWitness returns w in compact form, encoded on all cores. w may hold at most 2^32 − 1
// elements.
func EncodeWitness(w []fr.Element) (*CompactWitness, error) {
	c, _, err := EncodeWitnessBounded(w, len(w))
	return c, err
}

// EncodeWitnessBounded is EncodeWitness for a caller that wants the compact form only when at
// most maxOthers of w's elements are neither 0 nor 1: with more, it returns ok = false after one
// pass over w, having allocated only the classes (N/4 bytes), never the others.
func EncodeWitnessBounded(w []fr.Element, maxOthers int) (c *CompactWitness, ok bool, err error) {
	if uint64(len(w)) > math.MaxUint32 {
		return nil, false, fmt.Errorf("synth: encode witness: %d elements, at most 2^32−1", len(w))
	}
	nBlocks := (len(w) + WitnessBlock - 1) / WitnessBlock
	c = &CompactWitness{N: len(w), Classes: make([]uint64, (len(w)+31)/32), BlockOthers: make([]uint32, nBlocks+1)}
	one := fr.One()
	// Classes and the count of others per block, then their prefix sums, then the others.
	forEachPiece(nBlocks, func(b int) {
		lo, hi := b*WitnessBlock, min((b+1)*WitnessBlock, len(w))
		others := 0
		for i := lo; i < hi; i += 32 {
			var word uint64
			for j := i; j < min(i+32, hi); j++ {
				var cl uint64
				switch {
				case w[j].IsZero():
					cl = WitnessZero
				case w[j] == one:
					cl = WitnessOne
				default:
					cl = WitnessOther
					others++
				}
				word |= cl << (2 * uint(j-i))
			}
			c.Classes[i/32] = word
		}
		c.BlockOthers[b+1] = uint32(others)
	})
	for b := 1; b <= nBlocks; b++ {
		c.BlockOthers[b] += c.BlockOthers[b-1]
	}
	if int(c.BlockOthers[nBlocks]) > maxOthers {
		return nil, false, nil
	}
	c.Others = make([]fr.Element, c.BlockOthers[nBlocks])
	forEachPiece(nBlocks, func(b int) {
		k := c.BlockOthers[b]
		lo, hi := b*WitnessBlock, min((b+1)*WitnessBlock, len(w))
		for i := lo; i < hi; i += 32 {
			for word := c.Classes[i/32] & otherMask; word != 0; word &= word - 1 {
				c.Others[k] = w[i+bits.TrailingZeros64(word)/2]
				k++
			}
		}
	})
	return c, true, nil
}

// otherMask has the high bit of every 2-bit class: set exactly for WitnessOther (and the
// invalid class 3, which Decode refuses).
const otherMask = 0xAAAA_AAAA_AAAA_AAAA

// Bytes returns the size of the encoding in bytes.
func (c *CompactWitness) Bytes() int {
	return 8*len(c.Classes) + fr.Bytes*len(c.Others) + 4*len(c.BlockOthers)
}

// Decode writes the encoded elements to dst[:c.N], on all cores. It refuses, naming the
// element or block, an encoding whose arrays do not fit N, an invalid class (3), or counts of
// others that disagree with BlockOthers.
func (c *CompactWitness) Decode(dst []fr.Element) error {
	nBlocks := (c.N + WitnessBlock - 1) / WitnessBlock
	switch {
	case c.N < 0 || len(dst) < c.N:
		return fmt.Errorf("%w: %d elements into %d", ErrCompactWitness, c.N, len(dst))
	case len(c.Classes) != (c.N+31)/32 || len(c.BlockOthers) != nBlocks+1:
		return fmt.Errorf("%w: %d class words and %d block counts for %d elements", ErrCompactWitness, len(c.Classes), len(c.BlockOthers), c.N)
	case c.BlockOthers[0] != 0 || int(c.BlockOthers[nBlocks]) != len(c.Others):
		return fmt.Errorf("%w: block counts from %d to %d for %d others", ErrCompactWitness, c.BlockOthers[0], c.BlockOthers[nBlocks], len(c.Others))
	}
	if c.N%32 != 0 && c.Classes[len(c.Classes)-1]>>(2*uint(c.N%32)) != 0 {
		return fmt.Errorf("%w: classes set beyond element %d", ErrCompactWitness, c.N)
	}
	one := fr.One()
	errs := make([]error, nBlocks)
	forEachPiece(nBlocks, func(b int) {
		k, end := c.BlockOthers[b], c.BlockOthers[b+1]
		if end < k {
			errs[b] = fmt.Errorf("%w: block %d: others %d..%d", ErrCompactWitness, b, k, end)
			return
		}
		lo, hi := b*WitnessBlock, min((b+1)*WitnessBlock, c.N)
		for i := lo; i < hi; i += 32 {
			word := c.Classes[i/32]
			if bad := word & (word >> 1) & 0x5555_5555_5555_5555; bad != 0 {
				errs[b] = fmt.Errorf("%w: element %d has class 3", ErrCompactWitness, i+bits.TrailingZeros64(bad)/2)
				return
			}
			if n := uint32(bits.OnesCount64(word & otherMask)); n > end-k {
				errs[b] = fmt.Errorf("%w: block %d has more others than its count %d", ErrCompactWitness, b, end-c.BlockOthers[b])
				return
			}
			for j := i; j < min(i+32, hi); j, word = j+1, word>>2 {
				switch word & 3 {
				case WitnessZero:
					dst[j] = fr.Element{}
				case WitnessOne:
					dst[j] = one
				default:
					dst[j] = c.Others[k]
					k++
				}
			}
		}
		if k != end {
			errs[b] = fmt.Errorf("%w: block %d has %d others, its count says %d", ErrCompactWitness, b, k-c.BlockOthers[b], end-c.BlockOthers[b])
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
