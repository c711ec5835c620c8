package post

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// ProverID returns the 32-byte prover id of miner actor id: the payload of its ID address, the
// unsigned LEB128 varint of minerID, zero-padded to 32 bytes (filecoin-ffi proofs.go toProverID:
// address.NewIDAddress(minerID).Payload() through AsByteArray32).
func ProverID(minerID uint64) Domain {
	var d Domain
	binary.PutUvarint(d[:], minerID)
	return d
}

// checkRandomness mirrors filecoin-proofs as_safe_commitment(randomness, "randomness"): the
// 32 bytes must be a canonical Fr representation.
func checkRandomness(r Domain) error {
	if _, err := r.Element(); err != nil {
		return fmt.Errorf("randomness: %w", err)
	}
	return nil
}

// SectorChallenges returns the WinningPoSt sector challenges: count indices into a sector set
// of setLen sectors. Challenge n is
//
//	LE-u64(SHA-256(prover_id ‖ randomness ‖ LE-u64(n))[0:8]) mod setLen
//
// (storage-proofs-post fallback/vanilla.rs generate_sector_challenge; the n is a Rust usize,
// 8 bytes on Filecoin's 64-bit platforms). filecoin-proofs generate_winning_post_sector_challenge
// calls it with count = WINNING_POST_SECTOR_COUNT = 1. randomness and proverID must be canonical
// Fr representations (as_safe_commitment).
func SectorChallenges(randomness, proverID Domain, count int, setLen uint64) ([]uint64, error) {
	if setLen == 0 {
		return nil, errors.New("sector challenges: empty sector set")
	}
	if count < 0 {
		return nil, fmt.Errorf("sector challenges: negative count %d", count)
	}
	if err := checkRandomness(randomness); err != nil {
		return nil, fmt.Errorf("sector challenges: %w", err)
	}
	if _, err := proverID.Element(); err != nil {
		return nil, fmt.Errorf("sector challenges: prover id: %w", err)
	}
	out := make([]uint64, count)
	var buf [8]byte
	for n := range out {
		h := sha256.New()
		h.Write(proverID[:])
		h.Write(randomness[:])
		binary.LittleEndian.PutUint64(buf[:], uint64(n))
		h.Write(buf[:])
		sum := h.Sum(nil)
		out[n] = binary.LittleEndian.Uint64(sum[:8]) % setLen
	}
	return out, nil
}

// ChallengeIndex returns the index fed into the leaf-challenge hash for challenge n of the
// sector at position sectorIndex (counted over all partitions) with challengesPerSector
// challenges each (storage-proofs-post fallback/utils.rs get_challenge_index):
// sectorIndex·challengesPerSector + n for API 1.0.0 (and 1.1.0), n alone for API 1.2.0.
func ChallengeIndex(api APIVersion, sectorIndex, challengesPerSector, n int) uint64 {
	if api == APIVersion1_2_0 {
		return uint64(n)
	}
	return uint64(sectorIndex)*uint64(challengesPerSector) + uint64(n)
}

// LeafChallenge returns the challenged leaf for one challenge of a sector:
//
//	LE-u64(SHA-256(randomness ‖ LE-u64(sectorID) ‖ LE-u64(challengeIndex))[0:8]) mod leaves
//
// (storage-proofs-post fallback/vanilla.rs generate_leaf_challenge_inner, with leaves =
// sector_size / NODE_SIZE). challengeIndex comes from ChallengeIndex.
func LeafChallenge(randomness Domain, sectorID, challengeIndex, leaves uint64) uint64 {
	var pre [48]byte
	copy(pre[:32], randomness[:])
	binary.LittleEndian.PutUint64(pre[32:40], sectorID)
	binary.LittleEndian.PutUint64(pre[40:48], challengeIndex)
	sum := sha256.Sum256(pre[:])
	return binary.LittleEndian.Uint64(sum[:8]) % leaves
}

// LeafChallenges returns the leaves the vanilla proof of sector sectorID must open, as
// filecoin-proofs generate_fallback_sector_challenges derives them: ConfigChallenges leaves,
// challenge n using ChallengeIndex(API, sectorIndex, ConfigChallenges, n). sectorIndex is the
// sector's position in the prover's whole sector list for WindowPoSt (partition ·
// ConfigSectors + position in the partition) and 0 for WinningPoSt. randomness must be a
// canonical Fr representation.
func (i Info) LeafChallenges(randomness Domain, sectorID uint64, sectorIndex int) ([]uint64, error) {
	if err := checkRandomness(randomness); err != nil {
		return nil, err
	}
	if sectorIndex < 0 {
		return nil, fmt.Errorf("leaf challenges: negative sector index %d", sectorIndex)
	}
	out := make([]uint64, i.ConfigChallenges)
	for n := range out {
		out[n] = LeafChallenge(randomness, sectorID, ChallengeIndex(i.API, sectorIndex, i.ConfigChallenges, n), i.Leaves())
	}
	return out, nil
}
