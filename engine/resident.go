package engine

import (
	"fmt"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// residentSet counts what the active jobs share: each distinct shape and parameter set once, by
// pointer, with the number of jobs using it, and the largest fallback workspace among the jobs.
// Sizes are taken when counted, so that mapped parameters count 0 until a CPU proof decodes
// them onto the heap, and their full size afterwards. The engine guards it with its lock; the
// zero value is empty.
type residentSet struct {
	shapes map[*synth.Shape]*residentRef
	params map[*prover.Parameters]*residentRef
	jobs   map[*job]struct{}
}

type residentRef struct {
	bytes func() int64 // the size now
	jobs  int
}

// residentTotals is a residentSet's count in bytes.
type residentTotals struct {
	shapeBytes, paramBytes, fallback int64
}

func (t residentTotals) total() int64 { return t.shapeBytes + t.paramBytes + t.fallback }

// add counts j's shape and parameters (once each, whatever the number of jobs using them).
func (r *residentSet) add(j *job) {
	if r.shapes == nil {
		r.shapes = map[*synth.Shape]*residentRef{}
		r.params = map[*prover.Parameters]*residentRef{}
		r.jobs = map[*job]struct{}{}
	}
	shape, params := j.spec.Shape, j.spec.Params
	addRef(r.shapes, shape, func() int64 { return ShapeBytes(shape) })
	addRef(r.params, params, func() int64 { return ParametersBytes(params) })
	r.jobs[j] = struct{}{}
}

// remove stops counting j; a shape or parameter set no other job uses is no longer counted.
func (r *residentSet) remove(j *job) {
	if _, ok := r.jobs[j]; !ok {
		return
	}
	delete(r.jobs, j)
	dropRef(r.shapes, j.spec.Shape)
	dropRef(r.params, j.spec.Params)
}

// totals returns the bytes counted now.
func (r *residentSet) totals() residentTotals {
	var t residentTotals
	for _, s := range r.shapes {
		t.shapeBytes += s.bytes()
	}
	for _, p := range r.params {
		t.paramBytes += p.bytes()
	}
	for j := range r.jobs {
		t.fallback = max(t.fallback, j.fallback)
	}
	return t
}

// with returns the totals as they would be with j added.
func (r *residentSet) with(j *job) residentTotals {
	t := r.totals()
	if _, ok := r.shapes[j.spec.Shape]; !ok {
		t.shapeBytes += ShapeBytes(j.spec.Shape)
	}
	if _, ok := r.params[j.spec.Params]; !ok {
		t.paramBytes += ParametersBytes(j.spec.Params)
	}
	t.fallback = max(t.fallback, j.fallback)
	return t
}

func addRef[K comparable](m map[K]*residentRef, k K, size func() int64) {
	if ref, ok := m[k]; ok {
		ref.jobs++
		return
	}
	m[k] = &residentRef{bytes: size, jobs: 1}
}

func dropRef[K comparable](m map[K]*residentRef, k K) {
	if ref, ok := m[k]; ok {
		if ref.jobs--; ref.jobs == 0 {
			delete(m, k)
		}
	}
}

// gib formats a byte count for messages: in GiB, in MiB below 1 GiB, exact below 1 MiB.
func gib(b int64) string {
	switch {
	case b < 1<<20:
		return fmt.Sprintf("%d bytes", b)
	case b < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
}
