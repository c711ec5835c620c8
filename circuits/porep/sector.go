package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// Graph degrees and label parents, as Filecoin's stacked DRG (BASE_DEGREE, EXP_DEGREE,
// TOTAL_PARENTS).
const (
	DRGParents   = 6
	ExpParents   = 8
	TotalParents = 37
	treeArity    = 8
)

// Config chooses the circuit's size. Its zero fields take the defaults of Filecoin's 32 GiB
// PoRep (Layers 11, DataDepth 30) and a 64-node sector.
type Config struct {
	Challenges int // challenges per partition (Filecoin 32 GiB: 18); required
	Partitions int // partitions of the sector (default 1)
	Layers     int // labelling layers, also the column hash arity (default 11; 2 for small shapes)
	DataDepth  int // depth of the binary data tree, a multiple of 3 (default 30: 2^30 nodes)
	Nodes      int // real nodes of the in-memory sector, ≥ 8 and ≤ 2^DataDepth (default 64)
}

// ErrConfig is wrapped by NewSector's error for an invalid configuration.
var ErrConfig = errors.New("porep: invalid configuration")

func (c Config) withDefaults() (Config, error) {
	if c.Partitions == 0 {
		c.Partitions = 1
	}
	if c.Layers == 0 {
		c.Layers = 11
	}
	if c.DataDepth == 0 {
		c.DataDepth = 30
	}
	if c.Nodes == 0 {
		c.Nodes = 64
	}
	switch {
	case c.Challenges < 1:
		return c, fmt.Errorf("%w: %d challenges", ErrConfig, c.Challenges)
	case c.Partitions < 1:
		return c, fmt.Errorf("%w: %d partitions", ErrConfig, c.Partitions)
	case c.Layers < 1 || c.Layers > 36:
		return c, fmt.Errorf("%w: %d layers, want 1..36", ErrConfig, c.Layers)
	case c.DataDepth < 3 || c.DataDepth%3 != 0 || c.DataDepth > 60:
		return c, fmt.Errorf("%w: data depth %d, want a multiple of 3 in 3..60", ErrConfig, c.DataDepth)
	case c.Nodes < 8 || (c.DataDepth < 62 && c.Nodes > 1<<c.DataDepth):
		return c, fmt.Errorf("%w: %d nodes for data depth %d", ErrConfig, c.Nodes, c.DataDepth)
	}
	return c, nil
}

// Sector is a replicated sector built natively: data, labels, replica and the three trees.
type Sector struct {
	Cfg       Config
	Seed      [32]byte
	ReplicaID fr.Element
	Data      []fr.Element   // Data[i]: data node i
	Labels    [][]fr.Element // Labels[l][i]: label of node i in layer l+1
	Replica   []fr.Element   // Labels[last][i] + Data[i]
	TreeD     *merkle.Tree   // binary SHA-256 over Data
	TreeC     *merkle.Tree   // arity-8 Poseidon over column hashes
	TreeR     *merkle.Tree   // arity-8 Poseidon over Replica
	CommD     fr.Element
	CommC     fr.Element
	CommRLast fr.Element
	CommR     fr.Element // Poseidon₂(CommC, CommRLast)

	drg [][DRGParents]uint64
	exp [][ExpParents]uint64

	colHash *poseidon.Params
	tree    *poseidon.Params
	hash2   *poseidon.Params
}

// prf returns a pseudo-random 64-bit value from the seed and a tag.
func prf(seed *[32]byte, tag string, a, b uint64) uint64 {
	h := sha256.New()
	h.Write(seed[:])
	h.Write([]byte(tag))
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	h.Write(buf[:])
	var d [32]byte
	h.Sum(d[:0])
	return binary.LittleEndian.Uint64(d[:8])
}

func prfFr(seed *[32]byte, tag string, a uint64) fr.Element {
	h := sha256.New()
	h.Write(seed[:])
	h.Write([]byte(tag))
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], a)
	h.Write(buf[:])
	return merkle.TrimmedSha256(h.Sum(nil))
}

// Parents returns the DRG parents (same layer, before node; node 0 has none and uses zero
// labels) and expander parents (previous layer) of node.
func (s *Sector) Parents(node uint64) (drg [DRGParents]uint64, exp [ExpParents]uint64) {
	return s.drg[node], s.exp[node]
}

// label computes the label of node in layer (1-based) from the labels computed so far.
func (s *Sector) label(layer int, node uint64) fr.Element {
	buf := make([]byte, 0, (2+TotalParents)*32)
	id := merkle.FrToBytes(&s.ReplicaID)
	buf = append(buf, id[:]...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(layer))
	buf = binary.BigEndian.AppendUint64(buf, node)
	buf = append(buf, make([]byte, 20)...)
	parents := s.labelParents(layer, node)
	for i := 0; i < TotalParents; i++ {
		b := merkle.FrToBytes(&parents[i%len(parents)]) // repeated to 37, as Filecoin
		buf = append(buf, b[:]...)
	}
	return merkle.TrimmedSha256(buf)
}

// labelParents returns the parent labels of node in layer, in Filecoin's order: DRG parents in
// this layer, then (after layer 1) expander parents in the previous one. Node 0's DRG parents
// are taken as zero labels.
func (s *Sector) labelParents(layer int, node uint64) []fr.Element {
	var out []fr.Element
	for _, p := range s.drg[node] {
		if node == 0 {
			out = append(out, fr.Element{})
		} else {
			out = append(out, s.Labels[layer-1][p])
		}
	}
	if layer > 1 {
		for _, p := range s.exp[node] {
			out = append(out, s.Labels[layer-2][p])
		}
	}
	return out
}

// NewSector builds the sector of cfg deterministically from seed.
func NewSector(cfg Config, seed [32]byte) (*Sector, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sector{Cfg: cfg, Seed: seed}
	if s.colHash, err = poseidon.New(cfg.Layers); err != nil {
		return nil, fmt.Errorf("new sector: %w", err)
	}
	s.tree, s.hash2 = poseidon.Must(treeArity), poseidon.Must(2)
	n := uint64(cfg.Nodes)
	s.ReplicaID = prfFr(&s.Seed, "replica id", 0)
	s.Data = make([]fr.Element, n)
	for i := range s.Data {
		s.Data[i] = prfFr(&s.Seed, "data", uint64(i))
	}
	s.drg = make([][DRGParents]uint64, n)
	s.exp = make([][ExpParents]uint64, n)
	for i := uint64(0); i < n; i++ {
		for k := range s.drg[i] {
			if i > 0 {
				s.drg[i][k] = prf(&s.Seed, "drg", i, uint64(k)) % i
			}
		}
		for k := range s.exp[i] {
			s.exp[i][k] = prf(&s.Seed, "exp", i, uint64(k)) % n
		}
	}
	s.Labels = make([][]fr.Element, cfg.Layers)
	for l := 1; l <= cfg.Layers; l++ {
		s.Labels[l-1] = make([]fr.Element, n)
		for i := uint64(0); i < n; i++ {
			s.Labels[l-1][i] = s.label(l, i)
		}
	}
	last := s.Labels[cfg.Layers-1]
	s.Replica = make([]fr.Element, n)
	cols := make([]fr.Element, n)
	col := make([]fr.Element, cfg.Layers)
	for i := range s.Replica {
		s.Replica[i].Add(&last[i], &s.Data[i])
		for l := range col {
			col[l] = s.Labels[l][i]
		}
		if cols[i], err = s.colHash.Hash(col); err != nil {
			return nil, fmt.Errorf("new sector: %w", err)
		}
	}
	var zero fr.Element
	if s.TreeD, err = merkle.NewTree(2, cfg.DataDepth, s.Data, zero, merkle.Sha256Node); err != nil {
		return nil, fmt.Errorf("new sector: data tree: %w", err)
	}
	pd := cfg.DataDepth / 3
	if s.TreeC, err = merkle.NewTree(treeArity, pd, cols, zero, merkle.PoseidonNode(s.tree)); err != nil {
		return nil, fmt.Errorf("new sector: column tree: %w", err)
	}
	if s.TreeR, err = merkle.NewTree(treeArity, pd, s.Replica, zero, merkle.PoseidonNode(s.tree)); err != nil {
		return nil, fmt.Errorf("new sector: replica tree: %w", err)
	}
	s.CommD, s.CommC, s.CommRLast = s.TreeD.Root(), s.TreeC.Root(), s.TreeR.Root()
	if s.CommR, err = s.hash2.Hash([]fr.Element{s.CommC, s.CommRLast}); err != nil {
		return nil, fmt.Errorf("new sector: %w", err)
	}
	return s, nil
}

// Challenges returns the challenged nodes of partition, in [1, Nodes).
func (s *Sector) Challenges(partition int) []uint64 {
	out := make([]uint64, s.Cfg.Challenges)
	for j := range out {
		out[j] = 1 + prf(&s.Seed, "challenge", uint64(partition), uint64(j))%uint64(s.Cfg.Nodes-1)
	}
	return out
}

// column returns the labels of node in every layer.
func (s *Sector) column(node uint64) []fr.Element {
	col := make([]fr.Element, s.Cfg.Layers)
	for l := range col {
		col[l] = s.Labels[l][node]
	}
	return col
}
