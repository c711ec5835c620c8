package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// windowSectorCount is WINDOW_POST_SECTOR_COUNT per sector size, the most sectors one WindowPoSt
// partition proves (filecoin-proofs constants.rs): 2 for the test sizes, 2349 for 32 GiB, 2300
// for 64 GiB.
var windowSectorCount = map[uint64]int{
	2 << 10: 2, 8 << 20: 2, 512 << 20: 2, 32 << 30: 2349, 64 << 30: 2300,
}

// checkRequest checks what the daemon can check of a request without the backend: the kind and
// priority are known, the registered proof belongs to the kind and has the stated sector size,
// and the kind's payload is present and well formed. It returns a *RequestError.
func checkRequest(r *Request) error {
	if !r.Kind.Valid() {
		return badField("proof_kind", "unknown proof kind %d (want 1 porep, 2 snap, 3 window post, 4 winning post)", int32(r.Kind))
	}
	if r.Priority < PriorityLow || r.Priority > PriorityCritical {
		return badField("priority", "unknown priority %d (want 0..4)", int32(r.Priority))
	}
	size, err := ProofSectorSize(r.Kind, r.RegisteredProof)
	if err != nil {
		return badField("registered_proof", "%v", err)
	}
	if r.SectorSize != size {
		i, _ := sizeIndex(size)
		return badField("sector_size", "%d bytes does not match registered proof %d (%s, %d bytes)",
			r.SectorSize, r.RegisteredProof, sizeNames[i], size)
	}
	switch r.Kind {
	case PoRepSealCommit:
		if len(r.C1Output) == 0 {
			return badField("vanilla_proof", "empty: PoRep needs the C1 output")
		}
		if len(r.VanillaProofs) != 0 {
			return badField("vanilla_proofs", "must be empty for %s (the C1 output goes in vanilla_proof)", r.Kind)
		}
	case WinningPoSt, WindowPoStPartition, SnapDealsUpdate:
		if len(r.VanillaProofs) == 0 {
			unit := "sector"
			if r.Kind == SnapDealsUpdate {
				unit = "partition"
			}
			return badField("vanilla_proofs", "empty: %s needs one vanilla proof per %s", r.Kind, unit)
		}
		for i, p := range r.VanillaProofs {
			if len(p) == 0 {
				return badField(fmt.Sprintf("vanilla_proofs[%d]", i), "empty")
			}
		}
		if len(r.C1Output) != 0 {
			return badField("vanilla_proof", "must be empty for %s (use vanilla_proofs)", r.Kind)
		}
	}
	switch r.Kind {
	case WinningPoSt, WindowPoStPartition:
		if len(r.Randomness) != 32 {
			return badField("randomness", "%d bytes, want 32", len(r.Randomness))
		}
		if max := windowSectorCount[size]; r.Kind == WindowPoStPartition && len(r.VanillaProofs) > max {
			return badField("vanilla_proofs", "%d sector proofs, a %s partition holds at most %d", len(r.VanillaProofs), sizeNames[mustSizeIndex(size)], max)
		}
	case SnapDealsUpdate:
		for _, c := range []struct {
			name string
			v    []byte
		}{{"comm_r_old", r.CommROld}, {"comm_r_new", r.CommRNew}, {"comm_d_new", r.CommDNew}} {
			if len(c.v) != 32 {
				return badField(c.name, "%d bytes, want 32", len(c.v))
			}
		}
	}
	return nil
}

func mustSizeIndex(size uint64) int {
	i, _ := sizeIndex(size)
	return i
}

// c1Envelope is the JSON object Curio wraps a PoRep C1 output in before sending it as
// vanilla_proof (Curio lib/ffi/cuzk_funcs.go wrapC1Output; the Rust daemon's C1OutputWrapper in
// cuzk-core prover.rs): Phase1Out is the SealCommitPhase1Output JSON, base64-encoded as Go's
// encoding/json writes a []byte.
type c1Envelope struct {
	SectorNum  *uint64 `json:"SectorNum"`
	Phase1Out  *[]byte `json:"Phase1Out"`
	SectorSize *uint64 `json:"SectorSize"`
}

// UnwrapC1 decodes Curio's PoRep envelope and returns the C1 output inside, checking that the
// envelope's sector number and size agree with the request's.
func UnwrapC1(envelope []byte, sectorNumber, sectorSize uint64) ([]byte, error) {
	if len(envelope) == 0 {
		return nil, badField("vanilla_proof", "empty: PoRep needs the C1 output")
	}
	var env c1Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, badField("vanilla_proof", "not Curio's C1 envelope {SectorNum, Phase1Out, SectorSize}: %v", jsonErrorAt(envelope, err))
	}
	switch {
	case env.Phase1Out == nil:
		return nil, badField("vanilla_proof", "C1 envelope has no Phase1Out")
	case env.SectorNum == nil:
		return nil, badField("vanilla_proof", "C1 envelope has no SectorNum")
	case env.SectorSize == nil:
		return nil, badField("vanilla_proof", "C1 envelope has no SectorSize")
	case *env.SectorNum != sectorNumber:
		return nil, badField("vanilla_proof", "C1 envelope SectorNum %d differs from sector_number %d", *env.SectorNum, sectorNumber)
	case *env.SectorSize != sectorSize:
		return nil, badField("vanilla_proof", "C1 envelope SectorSize %d differs from sector_size %d", *env.SectorSize, sectorSize)
	}
	c1 := bytes.TrimLeft(*env.Phase1Out, " \t\r\n")
	if len(c1) == 0 || c1[0] != '{' {
		return nil, badField("vanilla_proof", "C1 envelope Phase1Out is not a JSON object")
	}
	return *env.Phase1Out, nil
}

// jsonErrorAt adds the byte offset to a JSON syntax error.
func jsonErrorAt(data []byte, err error) error {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Errorf("%w at byte offset %d of %d", err, se.Offset, len(data))
	}
	return err
}
