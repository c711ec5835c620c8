package synth

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/errgroup"
)

// ErrParallel is wrapped by errors about the use of CS.Parallel.
var ErrParallel = errors.New("synth: parallel branches")

// branchLayout is where one branch of a Parallel call puts its variables and constraints: the
// first input and aux index it allocates and how many, and its number of constraints.
type branchLayout struct {
	inStart, inCount   int
	auxStart, auxCount int
	constraints        int
}

// Parallel runs branch(i, sub) for i = 0…n−1: independent parts of a circuit, such as PoRep's
// challenges. Each branch writes to its own sub, may read any variable allocated before the call
// (and its own), and must not read another branch's variables. Compile, Check and Count run the
// branches in order on cs itself, and Compile records where each branch's inputs, aux variables
// and constraints go; Synthesize then runs them concurrently, each writing straight into its
// range of the assignment. The result is the same as calling the branches in order. Branches
// must not call Parallel themselves. A branch's error, or a branch that allocates differently
// from its compiled layout, is returned.
//
// Compile runs each branch twice, both times concurrently: once counting, to learn the layout,
// then recording its constraints into its range, so branches must be deterministic.
func (cs *CS) Parallel(n int, branch func(i int, sub *CS) error) error {
	if cs.inBranch {
		return fmt.Errorf("%w: Parallel inside a branch", ErrParallel)
	}
	switch cs.mode {
	case modeWitness:
		return cs.parallelWitness(n, branch)
	case modeShape:
		return cs.parallelShape(n, branch)
	}
	return cs.parallelInOrder(n, branch)
}

// parallelShape compiles the branches concurrently: a counting run of every branch gives the
// layout, then each branch records its constraints into its own segment while writing its
// variables into its range, as Synthesize will.
func (cs *CS) parallelShape(n int, branch func(i int, sub *CS) error) error {
	layout := make([]branchLayout, n)
	errs := make([]error, n)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range layout {
		sub := &CS{
			mode:     modeLocate,
			target:   -1,
			inputs:   cs.inputs[:len(cs.inputs):len(cs.inputs)],
			aux:      cs.aux[:len(cs.aux):len(cs.aux)],
			inBranch: true,
		}
		g.Go(func() error {
			errs[i] = runCircuit(branchCircuit{i, branch}, sub)
			layout[i] = branchLayout{inCount: len(sub.inputs) - len(cs.inputs), auxCount: len(sub.aux) - len(cs.aux), constraints: sub.n}
			return nil
		})
	}
	g.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	in, aux := len(cs.inputs), len(cs.aux)
	for i := range layout {
		layout[i].inStart, layout[i].auxStart = in, aux
		in += layout[i].inCount
		aux += layout[i].auxCount
	}
	cs.inputs = append(make([]fr.Element, 0, in), cs.inputs...)
	cs.aux = append(make([]fr.Element, 0, aux), cs.aux...)
	segs := make([]*segment, n)
	for i := range segs {
		segs[i] = cs.shape.open()
		segs[i].reserve(layout[i].constraints)
	}
	if err := cs.runBranches(layout, branch, modeShape, segs); err != nil {
		return err
	}
	cs.shape.parallel = append(cs.shape.parallel, layout)
	cs.rec = cs.shape.open()
	return nil
}

// parallelInOrder runs the branches one after the other on cs (counting or locating).
func (cs *CS) parallelInOrder(n int, branch func(i int, sub *CS) error) error {
	var layout []branchLayout
	cs.inBranch = true
	defer func() { cs.inBranch = false }()
	for i := 0; i < n; i++ {
		l := branchLayout{inStart: len(cs.inputs), auxStart: len(cs.aux), constraints: cs.n}
		if err := branch(i, cs); err != nil {
			return err
		}
		l.inCount = len(cs.inputs) - l.inStart
		l.auxCount = len(cs.aux) - l.auxStart
		l.constraints = cs.n - l.constraints
		layout = append(layout, l)
	}
	return nil
}

// parallelWitness runs the branches concurrently, each on a sub-system whose input and aux
// slices are windows of the assignment: the values before the branch's range (readable), then
// room for exactly its own.
func (cs *CS) parallelWitness(n int, branch func(i int, sub *CS) error) error {
	if cs.layout == nil || cs.nextParallel >= len(cs.layout) {
		return fmt.Errorf("%w: call %d was not recorded by Compile", ErrShapeMismatch, cs.nextParallel)
	}
	layout := cs.layout[cs.nextParallel]
	cs.nextParallel++
	if len(layout) != n || (n > 0 && (layout[0].inStart != len(cs.inputs) || layout[0].auxStart != len(cs.aux))) {
		return fmt.Errorf("%w: parallel call %d has %d branches from input %d, aux %d; compiled %d",
			ErrShapeMismatch, cs.nextParallel-1, n, len(cs.inputs), len(cs.aux), len(layout))
	}
	return cs.runBranches(layout, branch, modeWitness, nil)
}

// runBranches runs the branches concurrently in mode, each on a sub-system whose slices are
// windows of cs's: the values before its range (readable), then room for exactly its own; in
// shape mode branch i records into segs[i]. It then extends cs over all the branches' variables
// and constraints.
func (cs *CS) runBranches(layout []branchLayout, branch func(i int, sub *CS) error, mode csMode, segs []*segment) error {
	n := len(layout)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, l := range layout {
		if l.inStart+l.inCount > cap(cs.inputs) || l.auxStart+l.auxCount > cap(cs.aux) {
			return fmt.Errorf("%w: parallel branch %d exceeds the shape", ErrShapeMismatch, i)
		}
		sub := &CS{
			mode:     mode,
			inputs:   cs.inputs[: l.inStart : l.inStart+l.inCount],
			aux:      cs.aux[: l.auxStart : l.auxStart+l.auxCount],
			inBranch: true,
			bounded:  true,
		}
		if mode == modeShape {
			sub.rec = segs[i]
		}
		g.Go(func() error {
			err := runCircuit(branchCircuit{i, branch}, sub)
			if sub.rec != nil {
				sub.rec.done()
			}
			if sub.overflow > 0 {
				return fmt.Errorf("%w: parallel branch %d allocated %d variables more than compiled", ErrShapeMismatch, i, sub.overflow)
			}
			if err != nil {
				return err
			}
			if len(sub.inputs) != l.inStart+l.inCount || len(sub.aux) != l.auxStart+l.auxCount || sub.n != l.constraints {
				return fmt.Errorf("%w: parallel branch %d allocated %d inputs, %d aux, %d constraints; compiled %d, %d, %d",
					ErrShapeMismatch, i, len(sub.inputs)-l.inStart, len(sub.aux)-l.auxStart, sub.n,
					l.inCount, l.auxCount, l.constraints)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if n > 0 {
		last := layout[n-1]
		cs.inputs = cs.inputs[:last.inStart+last.inCount]
		cs.aux = cs.aux[:last.auxStart+last.auxCount]
		for _, l := range layout {
			cs.n += l.constraints
		}
	}
	return nil
}

// branchCircuit adapts one branch to runCircuit, which turns its panic into an error.
type branchCircuit struct {
	i      int
	branch func(i int, sub *CS) error
}

func (b branchCircuit) Synthesize(cs *CS) error { return b.branch(b.i, cs) }
