package synth

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/errgroup"
)

// Assignment is one synthesized partition: everything the prover needs.
type Assignment struct {
	Shape *Shape
	// W is the full assignment inputs ‖ aux; Inputs and Aux are its two parts. Inputs[0] = 1.
	W      []fr.Element
	Inputs []fr.Element
	Aux    []fr.Element
	// A, B, C hold ⟨a_r,w⟩, ⟨b_r,w⟩, ⟨c_r,w⟩ for every row r: the circuit's constraints, then
	// one input constraint per input (a = input_i, b = c = 0). Length Shape.NumRows().
	A, B, C []fr.Element
}

// PublicInputs returns the public inputs without the leading One, as a verifier takes them.
func (a *Assignment) PublicInputs() []fr.Element { return a.Inputs[1:] }

// HasEvaluations reports whether a holds A·w, B·w and C·w (false for SynthesizeWitness's
// assignments and after ReleaseEvaluations).
func (a *Assignment) HasEvaluations() bool { return a.A != nil }

// ReleaseEvaluations drops A, B and C, the largest part of an assignment, once the device work
// that needs them is done.
func (a *Assignment) ReleaseEvaluations() { a.A, a.B, a.C = nil, nil, nil }

// ErrShapeMismatch is returned by Synthesize when a circuit allocates or enforces a different
// number of variables or constraints than its compiled shape.
var ErrShapeMismatch = errors.New("synth: circuit does not match its compiled shape")

// Buffers are vectors a caller lends SynthesizeInto to hold an assignment, so that partitions
// of one shape reuse the same memory instead of leaving it to the garbage collector: W for
// w = inputs ‖ aux (NumInputs + NumAux elements), A, B and C for the evaluations (NumRows
// elements each). A vector whose capacity is too small is allocated instead. Their contents
// are overwritten.
type Buffers struct {
	W, A, B, C []fr.Element
}

// Buffers returns the assignment's vectors for reuse by a later SynthesizeInto: A, B and C are
// nil once ReleaseEvaluations has run. The assignment must not be used afterwards.
func (a *Assignment) Buffers() Buffers {
	return Buffers{W: a.W, A: a.A, B: a.B, C: a.C}
}

// Synthesize runs circuit in witness mode and evaluates A·w, B·w and C·w from shape on all cores.
func Synthesize(ctx context.Context, shape *Shape, circuit Circuit) (*Assignment, error) {
	return SynthesizeInto(ctx, shape, circuit, Buffers{})
}

// reuse returns buf[:n] when its capacity suffices, else a new zeroed vector of n elements.
func reuse(buf []fr.Element, n int) []fr.Element {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]fr.Element, n)
}

// SynthesizeInto is Synthesize writing the assignment into buf's vectors where they are large
// enough (see Buffers). The result is the same as Synthesize's whatever buf held.
func SynthesizeInto(ctx context.Context, shape *Shape, circuit Circuit, buf Buffers) (*Assignment, error) {
	asg, err := SynthesizeWitness(ctx, shape, circuit, buf.W)
	if err != nil {
		return nil, err
	}
	if err := asg.evaluate(ctx, buf); err != nil {
		return nil, err
	}
	return asg, nil
}

// SynthesizeWitness runs circuit in witness mode and returns the assignment w = inputs ‖ aux
// without its evaluations: A, B and C are nil, for a device that computes A·w, B·w and C·w
// itself from the shape. w is written into buf when its capacity suffices (NumInputs + NumAux
// elements); buf may be nil. W, Inputs and Aux are those Synthesize returns.
func SynthesizeWitness(ctx context.Context, shape *Shape, circuit Circuit, buf []fr.Element) (*Assignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The witness is written straight into w = inputs ‖ aux: each part is a slice of w whose
	// capacity ends where the next part starts, so a circuit that allocates more than its shape
	// reallocates rather than overwrites (and is then refused below).
	nIn, nAux := shape.NumInputs, shape.NumAux
	if nIn < 1 {
		return nil, fmt.Errorf("%w: shape has no ONE input", ErrShapeMismatch)
	}
	w := reuse(buf, nIn+nAux)
	cs := &CS{mode: modeWitness, inputs: w[:1:nIn], aux: w[nIn : nIn : nIn+nAux], layout: shape.parallel}
	cs.inputs[0].SetOne()
	if err := runCircuit(circuit, cs); err != nil {
		return nil, fmt.Errorf("synthesize witness: %w", err)
	}
	if len(cs.inputs) != nIn || len(cs.aux) != nAux || cs.n != shape.NumConstraints || cs.nextParallel != len(shape.parallel) {
		return nil, fmt.Errorf("%w: %d inputs, %d aux, %d constraints; shape has %d, %d, %d",
			ErrShapeMismatch, len(cs.inputs), len(cs.aux), cs.n, nIn, nAux, shape.NumConstraints)
	}
	return &Assignment{
		Shape:  shape,
		W:      w,
		Inputs: w[:nIn:nIn],
		Aux:    w[nIn:],
	}, nil
}

// Evaluate computes A, B and C from W on all cores, as Synthesize does: for an assignment of
// SynthesizeWitness, or one whose evaluations were released.
func (a *Assignment) Evaluate(ctx context.Context) error {
	if len(a.W) != a.Shape.NumInputs+a.Shape.NumAux {
		return fmt.Errorf("synth: evaluate: %d values, the shape has %d", len(a.W), a.Shape.NumInputs+a.Shape.NumAux)
	}
	return a.evaluate(ctx, Buffers{})
}

// evalChunkRows is the number of rows one goroutine evaluates at a time.
const evalChunkRows = 1 << 14

// evaluate fills A, B, C, in buf's vectors where large enough: the circuit's rows in parallel,
// then the input rows (a = input_i, b = c = 0).
func (a *Assignment) evaluate(ctx context.Context, buf Buffers) error {
	s := a.Shape
	rows := s.NumRows()
	a.A = reuse(buf.A, rows)
	a.B = reuse(buf.B, rows)
	a.C = reuse(buf.C, rows)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for lo := 0; lo < s.NumConstraints; lo += evalChunkRows {
		hi := min(lo+evalChunkRows, s.NumConstraints)
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			s.A.MulVec(a.W, a.A, lo, hi)
			s.B.MulVec(a.W, a.B, lo, hi)
			s.C.MulVec(a.W, a.C, lo, hi)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("evaluate constraints: %w", err)
	}
	copy(a.A[s.NumConstraints:], a.Inputs)
	clear(a.B[s.NumConstraints:])
	clear(a.C[s.NumConstraints:])
	return nil
}
