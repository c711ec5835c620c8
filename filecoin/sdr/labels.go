package sdr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Labels are the SDR layers: Layers[l−1] holds layer l's labels, 32 bytes per node, each the
// little-endian encoding of a field element below 2^254.
type Labels struct {
	Layers [][]byte
}

// Label returns node's label in layer l (1-based) as its 32 bytes.
func (lb *Labels) Label(l int, node uint64) []byte {
	return lb.Layers[l-1][node*32 : node*32+32]
}

// Label computes the labels of layers 1…layers of graph g for replicaID (its 32-byte encoding).
// Node n's label in layer l is SHA-256(replica_id ‖ l u32 BE ‖ n u64 BE ‖ 20 zero bytes ‖ P)
// with its top two bits cleared, where P is empty for node 0 and otherwise 37 parent labels: the
// 6 DRG parents' labels in layer l repeated cyclically in layer 1; from layer 2 on, the 6 DRG
// parents' labels in layer l followed by the 8 expander parents' labels in layer l−1, repeated
// cyclically (stacked/vanilla/create_label/single.rs, graph.rs copy_parents_data{,_exp}).
// Each layer is sequential; ctx is checked between chunks of nodes.
func Label(ctx context.Context, g *Graph, replicaID [32]byte, layers int) (*Labels, error) {
	if layers < 1 {
		return nil, fmt.Errorf("sdr: %d layers", layers)
	}
	parents := g.ParentCache()
	lb := &Labels{}
	var prefix [64]byte
	copy(prefix[:32], replicaID[:])
	var d [32]byte
	for l := 1; l <= layers; l++ {
		cur := make([]byte, g.Nodes*32)
		var prev []byte
		if l > 1 {
			prev = lb.Layers[l-2]
		}
		binary.BigEndian.PutUint32(prefix[32:], uint32(l))
		nParents := DegreeBase
		if l > 1 {
			nParents = Degree
		}
		h := sha256.New()
		for n := uint64(0); n < g.Nodes; n++ {
			if n%(1<<14) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("sdr: label layer %d: %w", l, err)
				}
			}
			h.Reset()
			binary.BigEndian.PutUint64(prefix[36:], n)
			h.Write(prefix[:])
			if n > 0 {
				ps := parents[n*Degree : n*Degree+Degree]
				for i := 0; i < TotalParents; i++ {
					j := i % nParents
					src := cur
					if j >= DegreeBase {
						src = prev
					}
					p := uint64(ps[j]) * 32
					h.Write(src[p : p+32])
				}
			}
			h.Sum(d[:0])
			d[31] &= 0x3f
			copy(cur[n*32:], d[:])
		}
		lb.Layers = append(lb.Layers, cur)
	}
	return lb, nil
}
