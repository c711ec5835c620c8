package sha256_test

import (
	"encoding/hex"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
)

// The Sprout JoinSplit circuit of Zcash (zcash/librustzcash zcash_proofs/src/circuit/sprout/
// {mod,input,output,prfs,commitment}.rs), rebuilt here from bellman's gadgets — the same
// boolean, uint32, multieq, sha256 and multipack code bellperson forked — with a zero witness
// (which satisfies it). Its test test_sprout_constraints pins 1,989,085 constraints, 10 inputs
// and TestConstraintSystem::hash() = sproutHash, unchanged since 2018: equal counts and hash
// show our SHA-256 stack and synth.HashShape produce bellman's matrices byte for byte.
const sproutHash = "1a228d3c6377130d1778c7885811dc8b8864049cb5af8aff7e6cd46c5bc4b84c"

const sproutTreeDepth = 29

type sprout struct{}

func allocBits(cs *synth.CS, n int) []boolean.Bit {
	out := make([]boolean.Bit, n)
	for i := range out {
		out[i] = boolean.Alloc(cs, false)
	}
	return out
}

func constBits(vals ...bool) []boolean.Bit {
	out := make([]boolean.Bit, len(vals))
	for i, v := range vals {
		out[i] = boolean.Constant(v)
	}
	return out
}

// noteValue is NoteValue: 64 allocated bits, least significant first.
type noteValue []boolean.Bit

func newNoteValue(cs *synth.CS) noteValue { return allocBits(cs, 64) }

// lc is Σ 2^i·bit_i.
func (v noteValue) lc() synth.LC {
	lc := synth.NewLC()
	var c fr.Element
	c.SetOne()
	for _, b := range v {
		lc = b.AppendLC(lc, c)
		c.Double(&c)
	}
	return lc
}

// bitsLE is the value's bits in little-endian byte order, most significant bit of each byte
// first.
func (v noteValue) bitsLE() []boolean.Bit {
	var out []boolean.Bit
	for i := 0; i < 64; i += 8 {
		for j := 7; j >= 0; j-- {
			out = append(out, v[i+j])
		}
	}
	return out
}

// prf is prfs.rs prf: one compression of [a, b, c, d] ‖ x (252) ‖ y (256) from the IV.
func prf(cs *synth.CS, a, b, c, d bool, x, y []boolean.Bit) []boolean.Bit {
	img := append(constBits(a, b, c, d), x...)
	img = append(img, y...)
	iv := sha256.IV()
	out := sha256.Compress(cs, img, &iv)
	var bits []boolean.Bit
	for i := range out {
		bits = out[i].AppendBitsBE(bits)
	}
	return bits
}

// noteComm is commitment.rs note_comm: SHA-256 of 10110000 ‖ a_pk ‖ value ‖ rho ‖ r.
func noteComm(cs *synth.CS, aPk []boolean.Bit, value noteValue, rho, r []boolean.Bit) []boolean.Bit {
	img := constBits(true, false, true, true, false, false, false, false)
	img = append(img, aPk...)
	img = append(img, value.bitsLE()...)
	img = append(img, rho...)
	img = append(img, r...)
	return sha256.Hash(cs, img)
}

var frOne = fr.One()

// conditionallySwap is input.rs conditionally_swap_u256.
func conditionallySwap(cs *synth.CS, lhs, rhs []boolean.Bit, cond boolean.Bit) []boolean.Bit {
	cv, _, _ := cond.Variable()
	newL, newR := make([]boolean.Bit, 256), make([]boolean.Bit, 256)
	for i := range lhs {
		x := boolean.Alloc(cs, false)
		cs.Enforce("conditional swap for x",
			lhs[i].AppendNegLC(rhs[i].AppendLC(nil, frOne), frOne), synth.V(cv),
			lhs[i].AppendNegLC(x.AppendLC(nil, frOne), frOne))
		y := boolean.Alloc(cs, false)
		cs.Enforce("conditional swap for y",
			rhs[i].AppendNegLC(lhs[i].AppendLC(nil, frOne), frOne), synth.V(cv),
			rhs[i].AppendNegLC(y.AppendLC(nil, frOne), frOne))
		newL[i], newR[i] = x, y
	}
	return append(newL, newR...)
}

// inputNote is input.rs InputNote::compute; it returns nf and mac.
func inputNote(cs *synth.CS, value noteValue, hSig []boolean.Bit, nonce bool, rt []boolean.Bit) (nf, mac []boolean.Bit) {
	aSk := allocBits(cs, 252)
	rho := allocBits(cs, 256)
	r := allocBits(cs, 256)
	aPk := prf(cs, true, true, false, false, aSk, constBits(make([]bool, 256)...))
	nf = prf(cs, true, true, true, false, aSk, rho)
	mac = prf(cs, false, nonce, false, false, aSk, hSig)
	cur := noteComm(cs, aPk, value, rho, r)
	for i := 0; i < sproutTreeDepth; i++ {
		curIsRight := boolean.Alloc(cs, false)
		sibling := allocBits(cs, 256)
		pre := conditionallySwap(cs, cur, sibling, curIsRight)
		iv := sha256.IV()
		out := sha256.Compress(cs, pre, &iv)
		cur = cur[:0:0]
		for k := range out {
			cur = out[k].AppendBitsBE(cur)
		}
	}
	enforce := boolean.Alloc(cs, false)
	ev, _, _ := enforce.Variable()
	cs.Enforce("enforce validity", value.lc(), synth.V(synth.One).Sub(ev), nil)
	for i := range cur {
		cs.Enforce("conditionally enforce correct root", rt[i].AppendNegLC(cur[i].AppendLC(nil, frOne), frOne), synth.V(ev), nil)
	}
	return nf, mac
}

// outputNote is output.rs OutputNote::compute; it returns cm.
func outputNote(cs *synth.CS, value noteValue, phi, hSig []boolean.Bit, nonce bool) []boolean.Bit {
	rho := prf(cs, false, nonce, true, false, phi, hSig)
	aPk := allocBits(cs, 256)
	r := allocBits(cs, 256)
	return noteComm(cs, aPk, value, rho, r)
}

// Synthesize is mod.rs JoinSplit::synthesize.
func (sprout) Synthesize(cs *synth.CS) error {
	vpubOld, vpubNew := newNoteValue(cs), newNoteValue(cs)
	lhs, rhs := vpubOld.lc(), vpubNew.lc()
	rt := allocBits(cs, 256)
	hSig := allocBits(cs, 256)
	phi := allocBits(cs, 252)
	var public []boolean.Bit
	var notes [][]boolean.Bit
	for i := 0; i < 2; i++ {
		value := newNoteValue(cs)
		nf, mac := inputNote(cs, value, hSig, i == 1, rt)
		notes = append(notes, nf, mac)
		lhs = lhs.AddLC(value.lc())
	}
	total := newNoteValue(cs)
	cs.Enforce("left hand side can be expressed as a 64-bit unsigned integer", lhs, synth.V(synth.One), total.lc())
	var cms [][]boolean.Bit
	for i := 0; i < 2; i++ {
		value := newNoteValue(cs)
		cms = append(cms, outputNote(cs, value, phi, hSig, i == 1))
		rhs = rhs.AddLC(value.lc())
	}
	cs.Enforce("balance equation", lhs, synth.V(synth.One), rhs)
	public = append(public, rt...)
	public = append(public, hSig...)
	for _, n := range notes {
		public = append(public, n...)
	}
	for _, c := range cms {
		public = append(public, c...)
	}
	public = append(public, vpubOld.bitsLE()...)
	public = append(public, vpubNew.bitsLE()...)
	num.PackIntoInputs(cs, public)
	return nil
}

// TestSproutJoinSplitHash compares counts and the constraint-system hash with Zcash's published
// values. It compiles a circuit of two million constraints.
func TestSproutJoinSplitHash(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the 1,989,085-constraint Sprout circuit")
	}
	shape, err := synth.Compile(sprout{})
	require.NoError(t, err)
	require.Equal(t, 1_989_085, shape.NumConstraints)
	require.Equal(t, 10, shape.NumInputs)
	h := synth.HashShape(shape)
	require.Equal(t, sproutHash, hex.EncodeToString(h[:]))
}
