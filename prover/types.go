package prover

import (
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// VerifyingKey is a Groth16 verifying key in bellperson's layout. IC[0] is the point for the
// constant ONE input; IC[i] for public input i (1-based, as the verifier sees them after ONE).
type VerifyingKey struct {
	AlphaG1 bls12381.G1Affine
	BetaG1  bls12381.G1Affine
	BetaG2  bls12381.G2Affine
	GammaG2 bls12381.G2Affine
	DeltaG1 bls12381.G1Affine
	DeltaG2 bls12381.G2Affine
	IC      []bls12381.G1Affine
}

// Parameters are the Groth16 proving parameters (the SRS) in bellperson's layout:
//
//   - H: m−1 points τ^i·Z(τ)/δ·G1 for a domain of size m;
//   - L: one point (β·A_j(τ) + α·B_j(τ) + C_j(τ))/δ·G1 per aux variable j;
//   - A: A_i(τ)·G1 for every input, then for every aux variable whose A polynomial is non-zero
//     (the a_aux density);
//   - BG1, BG2: B_i(τ) in G1 and G2 for the inputs, then the aux variables, whose B polynomial is
//     non-zero (the b_input and b_aux densities).
//
// The prover maps variables to points through the densities of the synthesized assignment.
//
// Parameters from MappedParameters.Parameters keep their points in a mapped file instead: the
// five slices are nil, Len gives the sections' lengths, and the points reach a device through
// SRS (streamed to a GPU, decoded once onto the heap for the CPU). Code that reads the slices
// directly works only with decoded parameters (Mapped returns nil).
type Parameters struct {
	// ID, when set, names the parameter set for device residency (see Identity).
	ID  string
	VK  VerifyingKey
	H   []bls12381.G1Affine
	L   []bls12381.G1Affine
	A   []bls12381.G1Affine
	BG1 []bls12381.G1Affine
	BG2 []bls12381.G2Affine
	// CFold, when set, says that L holds C's share of H's MSM for one circuit (FoldC).
	CFold *CFold

	mapped *MappedParameters // the points' file, when the slices are nil
}

// Proof is a Groth16 proof. It marshals to bellperson's 192 bytes: A‖B‖C compressed
// (48 + 96 + 48, zcash encoding).
type Proof struct {
	A bls12381.G1Affine
	B bls12381.G2Affine
	C bls12381.G1Affine
}

// ProofSize is the length in bytes of a marshalled Proof.
const ProofSize = 192
