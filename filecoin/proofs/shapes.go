package proofs

import (
	"sync"

	"github.com/cuzk-go/cuzk/synth"
)

// shapeCache holds compiled circuit shapes by key, each compiled on first use and kept:
// compiling is the costly part of building a circuit, and a shape depends only on its
// parameters. Concurrent first callers of one key wait for a single compile.
type shapeCache struct {
	m sync.Map // key → *shapeEntry
}

type shapeEntry struct {
	once  sync.Once
	shape *synth.Shape
	err   error
}

// get returns the shape under key, compiling blank() on its first use.
func (c *shapeCache) get(key any, blank func() synth.Circuit) (*synth.Shape, error) {
	v, _ := c.m.LoadOrStore(key, &shapeEntry{})
	e := v.(*shapeEntry)
	e.once.Do(func() { e.shape, e.err = synth.Compile(blank()) })
	return e.shape, e.err
}
