package synth

import (
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Circuit is implemented by every circuit. Synthesize allocates variables with their witness
// values and enforces the constraints. It must allocate and enforce the same sequence for every
// instance of one shape: only values may differ.
type Circuit interface {
	Synthesize(cs *CS) error
}

type csMode uint8

const (
	modeShape   csMode = iota // record the matrices
	modeWitness               // record values only
	modeLocate                // find the namespace path of one constraint
)

// CS is the constraint system a Circuit writes to. It is a concrete type so that the compiler
// keeps the linear combinations passed to Enforce on the caller's stack.
type CS struct {
	mode   csMode
	inputs []fr.Element // inputs[0] = 1
	aux    []fr.Element
	n      int // constraints enforced so far

	shape *shapeBuilder // modeShape: the whole circuit's recording (nil in a branch)
	rec   *segment      // modeShape: where Enforce records

	// Parallel: the compiled layouts of the Parallel calls and the next one (modeWitness), and
	// whether this system is running a branch.
	layout       [][]branchLayout
	nextParallel int
	inBranch     bool
	// bounded: a concurrent branch's slices are windows of the shared assignment and must not
	// grow past their capacity (appending would read its siblings' ranges); overflow counts the
	// variables it allocated beyond them, which make the branch fail.
	bounded  bool
	overflow int

	// modeLocate: the namespace stack and the constraint looked for.
	ns     []nsEntry
	target int
	found  string
}

type nsEntry struct {
	name  string
	index int // -1: none
}

// AllocInput allocates a public input with the given value and returns its variable.
func (cs *CS) AllocInput(value fr.Element) Variable { return InputVariable(cs.push(&cs.inputs, value)) }

// Alloc allocates an aux (private) variable with the given value and returns it.
func (cs *CS) Alloc(value fr.Element) Variable { return AuxVariable(cs.push(&cs.aux, value)) }

// push appends value to *dst and returns its index. A bounded branch never grows past its
// window: it counts the overflow instead and returns an index beyond it.
func (cs *CS) push(dst *[]fr.Element, value fr.Element) int {
	if cs.bounded && len(*dst) == cap(*dst) {
		cs.overflow++
		return len(*dst) + cs.overflow - 1
	}
	*dst = append(*dst, value)
	return len(*dst) - 1
}

// Value returns the value assigned to v.
func (cs *CS) Value(v Variable) fr.Element {
	if v.IsInput() {
		return cs.inputs[v.Index()]
	}
	return cs.aux[v.Index()]
}

// Eval returns ⟨lc, w⟩ under the values assigned so far.
func (cs *CS) Eval(lc LC) fr.Element {
	var acc, t fr.Element
	for i := range lc {
		v := cs.Value(lc[i].Var)
		t.Mul(&lc[i].Coeff, &v)
		acc.Add(&acc, &t)
	}
	return acc
}

// Enforce adds the constraint ⟨a,w⟩·⟨b,w⟩ = ⟨c,w⟩. name, joined to the namespace path, names the
// constraint in errors. Enforce keeps no reference to a, b or c.
func (cs *CS) Enforce(name string, a, b, c LC) {
	switch cs.mode {
	case modeShape:
		cs.rec.add(a, b, c)
	case modeLocate:
		if cs.n == cs.target {
			cs.found = cs.path(name)
		}
	}
	cs.n++
}

// Push enters the namespace name; Pop leaves it. Namespaces only cost anything when an error
// has to name a constraint.
func (cs *CS) Push(name string) {
	if cs.mode == modeLocate {
		cs.ns = append(cs.ns, nsEntry{name, -1})
	}
}

// PushIndex enters the namespace "name[i]" without formatting it unless it is needed.
func (cs *CS) PushIndex(name string, i int) {
	if cs.mode == modeLocate {
		cs.ns = append(cs.ns, nsEntry{name, i})
	}
}

// Pop leaves the innermost namespace.
func (cs *CS) Pop() {
	if cs.mode == modeLocate && len(cs.ns) > 0 {
		cs.ns = cs.ns[:len(cs.ns)-1]
	}
}

// NumConstraints returns the number of constraints enforced so far.
func (cs *CS) NumConstraints() int { return cs.n }

// NumInputs returns the number of inputs allocated so far, One included.
func (cs *CS) NumInputs() int { return len(cs.inputs) }

// NumAux returns the number of aux variables allocated so far.
func (cs *CS) NumAux() int { return len(cs.aux) }

func (cs *CS) path(name string) string {
	var sb strings.Builder
	for _, e := range cs.ns {
		sb.WriteString(e.name)
		if e.index >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(e.index))
			sb.WriteByte(']')
		}
		sb.WriteByte('/')
	}
	sb.WriteString(name)
	return sb.String()
}

func newCS(mode csMode, nInputs, nAux int) *CS {
	cs := &CS{
		mode:   mode,
		inputs: make([]fr.Element, 1, max(nInputs, 1)),
		aux:    make([]fr.Element, 0, nAux),
	}
	cs.inputs[0].SetOne()
	return cs
}
