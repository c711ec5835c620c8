package stacked

import (
	"fmt"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
	"github.com/cuzk-go/cuzk/synth/gadgets/u32"
	"github.com/cuzk-go/cuzk/synth/gadgets/u64"
)

// TotalParents is the number of parents a label hashes: 6 DRG and 8 expander parents repeated
// to 37 (storage-proofs-porep stacked vanilla TOTAL_PARENTS).
const TotalParents = 37

// CreateLabel returns the label of node in layer over replicaID's bits (32 to 256, most
// significant bit of each byte first) and the bits of its 37 parents, as
// create_label_circuit: SHA-256 of the padded preimage, bits renumbered within each byte, the
// low 254 packed into one variable (multipack::pack_bits, 1 constraint).
func CreateLabel(cs *synth.CS, replicaID []boolean.Bit, parents [][]boolean.Bit, layer u32.UInt32, node u64.UInt64) (num.Num, error) {
	if len(replicaID) < 32 || len(replicaID) > 256 {
		return num.Num{}, fmt.Errorf("stacked: replica id of %d bits, want 32 to 256", len(replicaID))
	}
	if len(parents) != TotalParents {
		return num.Num{}, fmt.Errorf("stacked: %d parents, want %d", len(parents), TotalParents)
	}
	pre := make([]boolean.Bit, 0, (2+TotalParents)*256)
	pre = append(pre, replicaID...)
	for len(pre) < 256 {
		pre = append(pre, boolean.Constant(false))
	}
	pre = layer.AppendBitsBE(pre)
	pre = node.AppendBitsBE(pre)
	for len(pre) < 512 {
		pre = append(pre, boolean.Constant(false))
	}
	for _, p := range parents {
		pre = append(pre, p...)
		for len(pre)%256 != 0 {
			pre = append(pre, boolean.Constant(false))
		}
	}
	if len(pre) != (2+TotalParents)*256 {
		return num.Num{}, fmt.Errorf("stacked: label preimage of %d bits, want %d (a parent longer than 256 bits)", len(pre), (2+TotalParents)*256)
	}
	cs.Push("hash")
	digest := sha256.Hash(cs, pre)
	cs.Pop()
	le := ReverseBitNumbering(digest)
	cs.Push("result_num")
	r := num.PackBits(cs, le[:num.Capacity])
	cs.Pop()
	return r, nil
}

// ReverseBitNumbering pads bits to whole bytes with constant zeros and reverses the order of
// the bits within each byte (storage-proofs-core util::reverse_bit_numbering).
func ReverseBitNumbering(bits []boolean.Bit) []boolean.Bit {
	out := make([]boolean.Bit, 0, (len(bits)+7)/8*8)
	padded := append([]boolean.Bit(nil), bits...)
	for len(padded)%8 != 0 {
		padded = append(padded, boolean.Constant(false))
	}
	for i := 0; i < len(padded); i += 8 {
		for j := 7; j >= 0; j-- {
			out = append(out, padded[i+j])
		}
	}
	return out
}
