package gpu

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// setupScalable compiles a scalable circuit of about 2^logN rows and makes INSECURE parameters.
func setupScalable(tb testing.TB, logN, inputs int) (*circuits.Scalable, *synth.Shape, *prover.Parameters) {
	tb.Helper()
	c := &circuits.Scalable{Constraints: 1<<logN - inputs - 1, Inputs: inputs, Seed: 11}
	shape, err := synth.Compile(c)
	if err != nil {
		tb.Fatal(err)
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	params, err := devsetup.InsecureSetup(shape, tw)
	if err != nil {
		tb.Fatal(err)
	}
	return c, shape, params
}

// proveOnGPUAndCPU proves asg on pd and on the CPU with the same r and s, fails t (naming what)
// unless the two proofs are byte-identical, and returns the GPU's.
func proveOnGPUAndCPU(t *testing.T, ctx context.Context, pd *ProverDevice, params *prover.Parameters, asg *synth.Assignment, what string) *prover.Proof {
	t.Helper()
	rs, err := prover.NewRandomness()
	if err != nil {
		t.Fatal(err)
	}
	onGPU, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(prover.NewDevice(pd)), prover.WithRandomness(rs))
	if err != nil {
		t.Fatal(err)
	}
	onCPU, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
	if err != nil {
		t.Fatal(err)
	}
	g, cp := onGPU.Bytes(), onCPU.Bytes()
	if !bytes.Equal(g[:], cp[:]) {
		t.Fatalf("%s: GPU proof differs from the CPU proof", what)
	}
	return onGPU
}

// provePartition proves partition part of c on pd and the CPU (proveOnGPUAndCPU), checks that the
// proof verifies, and returns the SRS resident on pd.
func provePartition(t *testing.T, ctx context.Context, pd *ProverDevice, c *circuits.Scalable, shape *synth.Shape,
	params *prover.Parameters, pvk *prover.PreparedVerifyingKey, part int) *SRS {
	t.Helper()
	c.Partition = part
	asg, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		t.Fatal(err)
	}
	onGPU := proveOnGPUAndCPU(t, ctx, pd, params, asg, fmt.Sprintf("partition %d", part))
	if err := prover.Verify(pvk, onGPU, c.PublicInputs()); err != nil {
		t.Fatalf("partition %d: %v", part, err)
	}
	s, err := pd.lookup(params.Identity())
	if err != nil || s == nil {
		t.Fatalf("after partition %d: resident SRS %v (err %v)", part, s, err)
	}
	return s
}

// TestProverMatchesCPU proves the same partitions on the GPU and the CPU with the same r and s:
// the proofs must be byte-identical and verify without H's shift table, with it built at upload
// (ShiftTableOn), and under ShiftTableAuto, which builds it after AutoTablesAfter
// partitions (small SRSs always fit) and frees it for room (freeAutoTables): each
// partition is proved with the table the mode says the SRS has at that point.
func TestProverMatchesCPU(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	sizes := []int{10, 12, 14, 16}
	if !testing.Short() {
		sizes = append(sizes, 18, 20)
	}
	ctx := context.Background()
	for _, logN := range sizes {
		for _, mode := range []ShiftTableMode{ShiftTableOff, ShiftTableOn, ShiftTableAuto} {
			t.Run(fmt.Sprintf("2^%d/shift-table=%v", logN, mode), func(t *testing.T) {
				pd.SetShiftTableH(mode)
				c, shape, params := setupScalable(t, logN, 5)
				pvk, err := prover.PrepareVerifyingKey(&params.VK)
				if err != nil {
					t.Fatal(err)
				}
				// wantShifted is whether H has its table once partition part is proved.
				wantShifted := func(part int) bool {
					return mode == ShiftTableOn || mode == ShiftTableAuto && part+1 >= AutoTablesAfter
				}
				partitions := 2
				if mode == ShiftTableAuto {
					partitions = AutoTablesAfter + 2
				}
				built := pd.Breakdown().ShiftTables
				for part := 0; part < partitions; part++ {
					s := provePartition(t, ctx, pd, c, shape, params, pvk, part)
					if s.h.Shifted() != wantShifted(part) {
						t.Fatalf("after partition %d: want H with shift table %v", part, wantShifted(part))
					}
					if mode == ShiftTableAuto && part == AutoTablesAfter {
						// The table built, freed for room; the next partition runs without it.
						if got := pd.Breakdown().ShiftTables - built; got != 1 {
							t.Fatalf("%d tables built, want 1", got)
						}
						if n := pd.freeAutoTables(math.MaxUint64); n != 1 || s.h.Shifted() {
							t.Fatalf("freeAutoTables freed %d (H shifted: %v), want 1", n, s.h.Shifted())
						}
						wantShifted = func(int) bool { return false }
					}
				}
				if err := pd.Evict(ctx, params.Identity()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestProverFoldedMatchesCPU proves partitions with C folded into L (prover.FoldC) on the GPU,
// whose one-call quotient then takes no c, both from the host's evaluations and from w alone
// (device evaluation without C·w), and on the CPU with the same r and s: the proofs must be
// byte-identical and verify.
func TestProverFoldedMatchesCPU(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	ctx := context.Background()
	for _, logN := range []int{10, 12} {
		t.Run(fmt.Sprintf("2^%d", logN), func(t *testing.T) {
			c, shape, params := setupScalable(t, logN, 5)
			folded, err := prover.FoldC(t.Context(), params, shape)
			if err != nil {
				t.Fatal(err)
			}
			pvk, err := prover.PrepareVerifyingKey(&folded.VK)
			if err != nil {
				t.Fatal(err)
			}
			for part := 0; part < 2; part++ {
				provePartition(t, ctx, pd, c, shape, folded, pvk, part)
				proveBothWays(t, pd, shape, folded, c)
			}
			if err := pd.Evict(ctx, folded.Identity()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestProverPairTablesMatchCPU proves partitions on a GPU that keeps pair tables
// (SetPairTables, small SRSs always fit) and on the CPU with the same r and s: the proofs must be
// byte-identical and verify, before the tables (built after AutoTablesAfter partitions' H
// MSMs), with B_G2's, B_G1's, A's and L's tables, and after freeAutoTables freed them (not built
// again).
func TestProverPairTablesMatchCPU(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	pd.SetPairTables(true)
	ctx := context.Background()
	for _, logN := range []int{10, 13, 16} {
		t.Run(fmt.Sprintf("2^%d", logN), func(t *testing.T) {
			c, shape, params := setupScalable(t, logN, 7)
			pvk, err := prover.PrepareVerifyingKey(&params.VK)
			if err != nil {
				t.Fatal(err)
			}
			for part := 0; part < AutoTablesAfter+2; part++ {
				s := provePartition(t, ctx, pd, c, shape, params, pvk, part)
				paired := part == AutoTablesAfter-1 || part == AutoTablesAfter
				for _, pb := range s.pairedBases() {
					if pb.b.hasPairTable() != paired {
						t.Fatalf("after partition %d: %s pair table %v, want %v", part, pb.sec, !paired, paired)
					}
				}
				if got := len(s.pairedBases()); got != 4 {
					t.Fatalf("%d bases to pair, want 4 (B_G2, B_G1, A, L)", got)
				}
				if part == AutoTablesAfter {
					if n := pd.freeAutoTables(math.MaxUint64); n != 4 {
						t.Fatalf("freeAutoTables freed %d, want 4", n)
					}
				}
			}
			if err := pd.Evict(ctx, params.Identity()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// denseA is a circuit whose every aux variable is in A (so A's scalars are w itself, not a
// compaction) and whose input u is only in C (so B's input density leaves it out): the density
// paths TestProverMatchesCPU's scalable circuit does not take.
type denseA struct{ n int }

func (c denseA) Synthesize(cs *synth.CS) error {
	vs := make([]synth.Variable, c.n)
	for i := range vs {
		vs[i] = cs.Alloc(fr.NewElement(uint64(i*i + 2)))
		cs.Enforce("v·1 = v", synth.V(vs[i]), synth.V(synth.One), synth.V(vs[i]))
	}
	u := cs.AllocInput(fr.NewElement(2))
	cs.Enforce("v0·1 = u", synth.V(vs[0]), synth.V(synth.One), synth.V(u))
	return nil
}

// TestProverMatchesCPUDensities proves denseA on the GPU and the CPU with the same r and s: the
// proofs must be byte-identical and verify.
func TestProverMatchesCPUDensities(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	ctx := context.Background()
	c := denseA{n: 3000}
	shape, err := synth.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	if shape.ADensityAux.Count() != shape.NumAux || shape.BDensityInput.Count() == shape.NumInputs {
		t.Fatalf("densities: a_aux %d of %d, b_input %d of %d", shape.ADensityAux.Count(), shape.NumAux,
			shape.BDensityInput.Count(), shape.NumInputs)
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	params, err := devsetup.InsecureSetup(shape, tw)
	if err != nil {
		t.Fatal(err)
	}
	asg, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		t.Fatal(err)
	}
	onGPU := proveOnGPUAndCPU(t, ctx, pd, params, asg, "the partition")
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	if err != nil {
		t.Fatal(err)
	}
	if err := prover.Verify(pvk, onGPU, asg.PublicInputs()); err != nil {
		t.Fatal(err)
	}
}

// TestProverResidentOncePerIdentity checks that parameters read twice (two values, one identity)
// are uploaded once, that closing the handle evicts them, and that a closed device refuses work.
func TestProverResidentOncePerIdentity(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	ctx := context.Background()
	_, _, params := setupScalable(t, 10, 2)
	var buf bytes.Buffer
	if _, err := params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := prover.DecodeParameters(buf.Bytes(), prover.Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	first, err := pd.Resident(ctx, params.SRS())
	if err != nil {
		t.Fatal(err)
	}
	second, err := pd.Resident(ctx, again.SRS())
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Fatal("the same parameters read twice were uploaded twice")
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := pd.Resident(ctx, again.SRS())
	if err != nil {
		t.Fatal(err)
	}
	if third == first {
		t.Fatal("a closed SRS is still resident")
	}
	if err := pd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pd.Resident(ctx, params.SRS()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resident after Close: %v, want ErrClosed", err)
	}
}

// TestProverEngineWorkersInterlock runs the engine with two workers on each GPU over many
// partitions: every proof verifies and no two device regions overlap on one device.
func TestProverEngineWorkersInterlock(t *testing.T) { engineInterlock(t, false) }

// TestProverEngineWorkersInterlockDeviceEval is TestProverEngineWorkersInterlock with device
// evaluation: the partitions are synthesized witness-only and the GPUs evaluate A·w, B·w, C·w.
func TestProverEngineWorkersInterlockDeviceEval(t *testing.T) { engineInterlock(t, true) }

func engineInterlock(t *testing.T, deviceEval bool) {
	testDevice(t)
	devs, err := ProverDevices()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	logN, jobs, parts := 12, 2, 6
	if !testing.Short() {
		logN, jobs, parts = 16, 3, 10
	}
	c, shape, params := setupScalable(t, logN, 4)
	var rec timeline.Recorder
	eng, err := engine.New(engine.WithDevices(prover.NewDevices(devs...)...), engine.WithWorkersPerDevice(2), engine.WithTimeline(&rec),
		engine.WithDeviceEvaluation(deviceEval))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	handles := make([]*engine.Handle, jobs)
	for j := range handles {
		seed := uint64(100 + j)
		handles[j], err = eng.Submit(ctx, &engine.Job{Params: params, Shape: shape, Partitions: parts,
			Circuit: func(p int) (synth.Circuit, error) {
				return &circuits.Scalable{Constraints: c.Constraints, Inputs: c.Inputs, Seed: seed, Partition: p}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	if err != nil {
		t.Fatal(err)
	}
	for j, h := range handles {
		res, err := h.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.DeviceEvaluation != deviceEval {
			t.Fatalf("job %d: device evaluation %v, want %v", j, res.Stats.DeviceEvaluation, deviceEval)
		}
		for p, proof := range res.Partitions {
			in := (&circuits.Scalable{Constraints: c.Constraints, Inputs: c.Inputs, Seed: uint64(100 + j), Partition: p}).PublicInputs()
			if err := prover.Verify(pvk, proof, in); err != nil {
				t.Fatalf("job %d partition %d: %v", j, p, err)
			}
		}
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rep := timeline.Analyze(rec.Events())
	used := 0
	for _, ds := range rep.Devices {
		if ds.Overlaps != 0 {
			t.Fatalf("device %d: %d overlapping device regions", ds.Device, ds.Overlaps)
		}
		if ds.Regions > 0 {
			used++
		}
		t.Logf("device %d: %d regions, utilization %.3f, steady %.3f", ds.Device, ds.Regions, ds.Utilization, ds.SteadyUtilization)
	}
	if used != len(devs) {
		t.Fatalf("partitions ran on %d of %d devices", used, len(devs))
	}
}
