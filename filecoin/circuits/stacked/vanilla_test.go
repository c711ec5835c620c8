package stacked

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/internal/sectortest"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/synth"
)

// sealed2KiB seals a 2 KiB sector of pseudo-random fr32 data in Go and returns its C1 output.
func sealed2KiB(t testing.TB, seedByte byte) *c1.SealCommitPhase1Output {
	return sealedC1(t, sector.StackedDrg2KiBV1_1, seedByte)
}

// sealedC1 seals a sector of proof type p of pseudo-random fr32 data in Go and returns its C1
// output.
func sealedC1(t testing.TB, p sector.RegisteredSealProof, seedByte byte) *c1.SealCommitPhase1Output {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(seedByte)))
	data := sectortest.RandomData(rng, p.SectorSize())
	var ticket, seed [32]byte
	ticket[0], seed[0] = 1, seedByte
	s, err := sdr.Seal(context.Background(), p, sector.ProverID(1000), 7, ticket, data)
	require.NoError(t, err)
	out, err := c1.Commit1(context.Background(), s, seed)
	require.NoError(t, err)
	return out
}

var shape2KiB = sync.OnceValues(func() (*synth.Shape, error) {
	p, err := PoRepParams(sector.Size2KiB)
	if err != nil {
		return nil, err
	}
	return synth.Compile(Blank(p))
})

// TestFromC1Sealed2KiB: a 2 KiB sector sealed in Go (sdr.Seal, random data), its vanilla proofs
// (sdr.Sealed.Prove) mapped into the partition's circuit: the witness satisfies every constraint
// of the compiled circuit, and the circuit's public inputs are PublicInputs derived from
// (replica_id, comm_d, comm_r, seed) alone.
func TestFromC1Sealed2KiB(t *testing.T) {
	o := sealed2KiB(t, 9)
	shape, err := shape2KiB()
	require.NoError(t, err)
	require.Len(t, checkFromC1(t, shape, o), 39)
}

// TestFromC1Sealed8MiB: as TestFromC1Sealed2KiB for an 8 MiB sector (2^18 nodes, tree D depth
// 18, trees R and C of six arity-8 levels: 3,844,929 constraints).
func TestFromC1Sealed8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("seals 8 MiB and compiles and checks a 3.8 M-constraint circuit")
	}
	o := sealedC1(t, sector.StackedDrg8MiBV1_1, 10)
	p, err := SealParams(o.RegisteredProof)
	require.NoError(t, err)
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 3_844_929, shape.NumConstraints)
	checkFromC1(t, shape, o)
}

// checkFromC1 builds partition 0's circuit from o with FromC1, synthesizes it on shape, checks
// that every constraint holds and that its public inputs are PublicInputs of (replica_id,
// comm_d, comm_r, seed) alone, and returns them.
func checkFromC1(t *testing.T, shape *synth.Shape, o *c1.SealCommitPhase1Output) []fr.Element {
	t.Helper()
	c, err := FromC1(o, 0)
	require.NoError(t, err)
	asg, err := synth.Synthesize(t.Context(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	want, err := PublicInputs(o.RegisteredProof, nil, o.ReplicaID, o.CommD, o.CommR, o.Seed, 0)
	require.NoError(t, err)
	require.Equal(t, want, asg.PublicInputs())
	return want
}

// TestFromC1Tampered: a value changed in a vanilla proof makes synth.Check name the constraint
// that fails (the parent column's, the path's, the data leaf's inclusion), or FromVanilla refuse
// the proof naming the field.
func TestFromC1Tampered(t *testing.T) {
	o := sealed2KiB(t, 9)
	shape, err := shape2KiB()
	require.NoError(t, err)
	bump := func(x *fr.Element) { one := fr.One(); x.Add(x, &one) }
	cases := []struct {
		name   string
		tamper func(p *sdr.Proof)
		want   string
	}{
		{"drg parent label", func(p *sdr.Proof) { bump(&p.ReplicaColumnProofs.DrgParents[2].Column.Rows[0]) },
			"challenge[1]/parent_inclusion/enforce root is correct"},
		{"exp parent label", func(p *sdr.Proof) { bump(&p.ReplicaColumnProofs.ExpParents[5].Column.Rows[1]) },
			"challenge[1]/parent_inclusion/enforce root is correct"},
		{"tree R sibling", func(p *sdr.Proof) { bump(&p.CommRLastProof.BaseProof[1].Hashes[3]) },
			"challenge[1]/comm_r_last_data_inclusion/enforce root is correct"},
		{"tree C sibling", func(p *sdr.Proof) { bump(&p.ReplicaColumnProofs.CX.InclusionProof.BaseProof[0].Hashes[0]) },
			"challenge[1]/c_x_inclusion/enforce root is correct"},
		{"data leaf", func(p *sdr.Proof) { bump(&p.CommDProofs.Leaf) },
			"challenge[1]/comm_d_inclusion/enforce root is correct"},
		{"tree D sibling", func(p *sdr.Proof) { bump(&p.CommDProofs.BaseProof[4].Hashes[0]) },
			"challenge[1]/comm_d_inclusion/enforce root is correct"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proofs := cloneProofs(o.VanillaProofs[0])
			tc.tamper(&proofs[1])
			c, err := FromVanilla(shape2KiBParams(t), o.ReplicaID, o.CommD, o.CommR, proofs)
			require.NoError(t, err)
			asg, err := synth.Synthesize(t.Context(), shape, c)
			require.NoError(t, err)
			err = synth.Check(shape, asg, c)
			var ue *synth.UnsatisfiedError
			require.True(t, errors.As(err, &ue), "%v", err)
			require.Contains(t, ue.Path, tc.want)
		})
	}
}

func shape2KiBParams(t testing.TB) Params {
	p, err := PoRepParams(sector.Size2KiB)
	require.NoError(t, err)
	return p
}

func cloneProofs(ps []sdr.Proof) []sdr.Proof {
	cloneMerkle := func(m sdr.MerkleProof) sdr.MerkleProof {
		cp := func(es []sdr.PathElement) []sdr.PathElement {
			out := make([]sdr.PathElement, len(es))
			for i, e := range es {
				out[i] = sdr.PathElement{Hashes: append([]fr.Element(nil), e.Hashes...), Index: e.Index}
			}
			return out
		}
		m.BaseProof, m.SubProof, m.TopProof = cp(m.BaseProof), cp(m.SubProof), cp(m.TopProof)
		return m
	}
	cloneCol := func(c sdr.ColumnProof) sdr.ColumnProof {
		c.Column.Rows = append([]fr.Element(nil), c.Column.Rows...)
		c.InclusionProof = cloneMerkle(c.InclusionProof)
		return c
	}
	out := make([]sdr.Proof, len(ps))
	for i, p := range ps {
		p.CommDProofs = cloneMerkle(p.CommDProofs)
		p.CommRLastProof = cloneMerkle(p.CommRLastProof)
		rc := p.ReplicaColumnProofs
		rc.CX = cloneCol(rc.CX)
		rc.DrgParents = append([]sdr.ColumnProof(nil), rc.DrgParents...)
		rc.ExpParents = append([]sdr.ColumnProof(nil), rc.ExpParents...)
		for j := range rc.DrgParents {
			rc.DrgParents[j] = cloneCol(rc.DrgParents[j])
		}
		for j := range rc.ExpParents {
			rc.ExpParents[j] = cloneCol(rc.ExpParents[j])
		}
		p.ReplicaColumnProofs = rc
		out[i] = p
	}
	return out
}

// TestFromVanillaRefuses: proofs of the wrong count or shape, inconsistent roots, or paths that
// open another node than the challenge are refused before synthesis, naming challenge and field.
func TestFromVanillaRefuses(t *testing.T) {
	o, err := c1.Synthetic(t.Context(), sector.StackedDrg2KiBV1_1, [32]byte{3})
	require.NoError(t, err)
	p := shape2KiBParams(t)
	cases := []struct {
		name   string
		tamper func(ps []sdr.Proof) []sdr.Proof
		want   string
	}{
		{"no proofs", func([]sdr.Proof) []sdr.Proof { return nil }, "no vanilla proofs"},
		{"one proof", func(ps []sdr.Proof) []sdr.Proof { return ps[:1] }, "1 vanilla proofs, the partition has 2 challenges"},
		{"comm_c", func(ps []sdr.Proof) []sdr.Proof {
			ps[1].ReplicaColumnProofs.CX.InclusionProof.Root.SetUint64(5)
			return ps
		}, "challenge 1: comm_r_last_proof.root or c_x.inclusion_proof.root differs"},
		{"tree D path index", func(ps []sdr.Proof) []sdr.Proof {
			ps[0].CommDProofs.BaseProof[0].Index ^= 1
			return ps
		}, "challenge 0: comm_d_proofs: path opens node"},
		{"parent path index", func(ps []sdr.Proof) []sdr.Proof {
			ps[1].ReplicaColumnProofs.ExpParents[3].InclusionProof.BaseProof[1].Index ^= 1
			return ps
		}, "challenge 1: replica_column_proofs.exp_parents[3].inclusion_proof: path opens node"},
		{"parent rows", func(ps []sdr.Proof) []sdr.Proof {
			ps[0].ReplicaColumnProofs.DrgParents[0].Column.Rows = ps[0].ReplicaColumnProofs.DrgParents[0].Column.Rows[:1]
			return ps
		}, "challenge 0: replica_column_proofs.drg_parents[0].column.rows: 1, want 2"},
		{"drg count", func(ps []sdr.Proof) []sdr.Proof {
			ps[0].ReplicaColumnProofs.DrgParents = ps[0].ReplicaColumnProofs.DrgParents[:5]
			return ps
		}, "5 drg_parents and 8 exp_parents"},
		{"labeling proofs", func(ps []sdr.Proof) []sdr.Proof {
			ps[1].LabelingProofs = nil
			return ps
		}, "challenge 1: labeling_proofs: 0, want 2"},
		{"tree R levels", func(ps []sdr.Proof) []sdr.Proof {
			ps[1].CommRLastProof.BaseProof = ps[1].CommRLastProof.BaseProof[:1]
			return ps
		}, "challenge 1: comm_r_last_proof: 1 levels, want 2"},
		{"tree C arity", func(ps []sdr.Proof) []sdr.Proof {
			ps[1].ReplicaColumnProofs.CX.InclusionProof.BaseProof[1].Hashes = ps[1].ReplicaColumnProofs.CX.InclusionProof.BaseProof[1].Hashes[:3]
			return ps
		}, "challenge 1: replica_column_proofs.c_x.inclusion_proof: level 1: 3 siblings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := tc.tamper(cloneProofs(o.VanillaProofs[0]))
			_, err := FromVanilla(p, o.ReplicaID, o.CommD, o.CommR, ps)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err = FromC1(o, 1)
	require.ErrorContains(t, err, "partition 1 of 1")
}

// TestPublicInputsSynthetic: PublicInputs of a synthetic C1 (2 KiB, and 32 GiB's ten partitions
// of 18 challenges) agree with what the vanilla proofs open: per challenge its node four times
// and its 14 parents' column indices in order; 3 + 18·challenges inputs. FromC1 accepts every
// partition.
func TestPublicInputsSynthetic(t *testing.T) {
	for _, p := range []sector.RegisteredSealProof{sector.StackedDrg2KiBV1_1, sector.StackedDrg32GiBV1_1} {
		if p == sector.StackedDrg32GiBV1_1 && testing.Short() {
			continue
		}
		o, err := c1.Synthetic(t.Context(), p, [32]byte{4})
		require.NoError(t, err)
		cfg := p.Config()
		for k, ps := range o.VanillaProofs {
			in, err := PublicInputs(p, nil, o.ReplicaID, o.CommD, o.CommR, o.Seed, k)
			require.NoError(t, err)
			require.Len(t, in, 3+18*cfg.ChallengesPerPartition)
			want := []fr.Element{o.ReplicaID, o.CommD, o.CommR}
			u := func(x uint64) fr.Element { var e fr.Element; e.SetUint64(x); return e }
			for i := range ps {
				node := ps[i].LabelingProofs[0].Node
				want = append(want, u(ps[i].CommDProofs.PathIndex()))
				for _, c := range append(ps[i].ReplicaColumnProofs.DrgParents, ps[i].ReplicaColumnProofs.ExpParents...) {
					want = append(want, u(uint64(c.Column.Index)))
				}
				want = append(want, u(node), u(ps[i].CommRLastProof.PathIndex()), u(ps[i].ReplicaColumnProofs.CX.InclusionProof.PathIndex()))
			}
			require.Equal(t, want, in, "%v partition %d", p, k)
			_, err = FromC1(o, k)
			require.NoError(t, err, "%v partition %d", p, k)
		}
	}
	_, err := PublicInputs(sector.StackedDrg2KiBV1_1, nil, fr.Element{}, fr.Element{}, fr.Element{}, [32]byte{}, 1)
	require.ErrorContains(t, err, "partition 1 of 1")
}
