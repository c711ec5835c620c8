package poseidon

import (
	"fmt"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// template is the constraint system of one HashCircuit call of a Params, recorded once with
// the hash's inputs as the public inputs 1…Arity of a system of its own: rows[r] is constraint
// r's a, b and c, each term's Var an input (One or hash input i) or the k-th aux variable the
// hash allocates (aux k). Every call records the same rows with the variables renamed, because
// the linear layers' coefficients are constants of the Params: building them term by term, as
// neptune's circuit does, costs each call O(Width·R_P²) multiplications (the combinations
// carried through the partial rounds grow by a term a round), while renaming costs one
// assignment per stored term.
type template struct {
	aux  int // aux variables the hash allocates
	out  int // the aux variable that holds the result
	rows [][3]synth.LC
}

// templates holds each Params' template, built on first use (*Params → *templateEntry).
var templates sync.Map

type templateEntry struct {
	once sync.Once
	t    *template
	err  error
}

// template returns p's template, recording it on first use.
func (p *Params) template() (*template, error) {
	v, _ := templates.LoadOrStore(p, &templateEntry{})
	e := v.(*templateEntry)
	e.once.Do(func() { e.t, e.err = p.recordTemplate() })
	return e.t, e.err
}

// recordTemplate compiles one hash of Arity fresh inputs with the term-by-term construction and
// reads its rows back from the compiled matrices (whose rows are merged and ordered by
// variable, as Compile stores any row).
func (p *Params) recordTemplate() (*template, error) {
	var out synth.Variable
	shape, err := synth.Compile(circuitFunc(func(cs *synth.CS) error {
		inputs := make([]num.Num, p.Arity)
		for i := range inputs {
			inputs[i] = num.Num{Var: cs.AllocInput(fr.Element{})}
		}
		out = p.hashTermByTerm(cs, inputs).Var
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("poseidon: record the arity-%d circuit: %w", p.Arity, err)
	}
	if shape.NumInputs != p.Arity+1 || out.IsInput() {
		return nil, fmt.Errorf("poseidon: arity-%d circuit: %d inputs, result %v", p.Arity, shape.NumInputs, out)
	}
	t := &template{aux: shape.NumAux, out: out.Index(), rows: make([][3]synth.LC, shape.NumConstraints)}
	var entries []synth.MatrixEntry
	for r := range t.rows {
		for mi, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
			entries = m.AppendRow(entries[:0], r)
			lc := make(synth.LC, len(entries))
			for i, e := range entries {
				lc[i].Coeff = shape.Coeffs[e.Coeff]
				if c := int(e.Col); c < shape.NumInputs {
					lc[i].Var = synth.InputVariable(c)
				} else {
					lc[i].Var = synth.AuxVariable(c - shape.NumInputs)
				}
			}
			t.rows[r][mi] = lc
		}
	}
	return t, nil
}

// circuitFunc adapts a function to synth.Circuit.
type circuitFunc func(cs *synth.CS) error

func (f circuitFunc) Synthesize(cs *synth.CS) error { return f(cs) }

// replay records t in cs for inputs, whose values give the result's: it allocates the hash's
// aux variables (the result with its value, the others with zero, which Compile ignores) and
// enforces t's rows with One and input i renamed to One and inputs[i−1], aux k to the k-th
// variable allocated. The system recorded is the one hashTermByTerm records for these inputs:
// the same rows, each combination's terms of one variable added up (Compile adds them when
// inputs repeat a variable), in the same order.
func (t *template) replay(cs *synth.CS, p *Params, inputs []num.Num) num.Num {
	var buf [maxArity]fr.Element
	vals := buf[:len(inputs)]
	for i := range inputs {
		vals[i] = inputs[i].Value
	}
	val := p.hashOptimized(vals)
	var first synth.Variable
	for k := 0; k < t.aux; k++ {
		var v synth.Variable
		if k == t.out {
			v = cs.Alloc(val)
		} else {
			v = cs.Alloc(fr.Element{})
		}
		if k == 0 {
			first = v
		}
	}
	var ins [maxWidth]synth.Variable // template input i → One or the hash's input i
	ins[0] = synth.One
	for i := range inputs {
		ins[i+1] = inputs[i].Var
	}
	var lcs [3]synth.LC
	for _, row := range t.rows {
		for mi, lc := range row {
			dst := slices.Grow(lcs[mi][:0], len(lc))[:len(lc)]
			for i := range lc {
				v := lc[i].Var
				if v.IsInput() {
					v = ins[v.Index()]
				} else {
					v = first + synth.Variable(v.Index())
				}
				dst[i] = synth.Term{Coeff: lc[i].Coeff, Var: v}
			}
			lcs[mi] = dst
		}
		cs.Enforce("poseidon", lcs[0], lcs[1], lcs[2])
	}
	return num.Num{Var: first + synth.Variable(t.out), Value: val}
}
