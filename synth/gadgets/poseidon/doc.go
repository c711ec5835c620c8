// Package poseidon is the Poseidon hash over BLS12-381 Fr as Filecoin uses it (neptune,
// argumentcomputer/neptune, formerly filecoin-project/neptune), natively and as a circuit.
//
// Parameters, as neptune's PoseidonConstants::new() (Strength::Standard, HashType::MerkleTree):
//
//   - width t = arity + 1; the state is [domain tag, input_1 … input_arity], the digest is
//     state[1] after the permutation;
//   - x⁵ S-box; R_F = 8 full rounds (4 before, 4 after) and R_P partial rounds from the Poseidon
//     paper's security inequalities at 128-bit security with neptune's margin (RF + 2,
//     ⌈1.075·RP⌉): 55 for arity 2, 56 for 4, 57 for 8 and 11, 60 for 36 (neptune
//     src/round_numbers.rs);
//   - round constants from the Grain LFSR of the Poseidon reference (hadeshash
//     generate_parameters_grain.sage) with field = 1, sbox = 1, n = 255 bits, t, R_F, R_P:
//     (R_F + R_P)·t elements, 255 bits each, read most significant first, rejected if ≥ r
//     (neptune src/round_constants.rs);
//   - MDS matrix M_ij = 1/(x_i + y_j), x_i = i, y_j = t + j (a Cauchy matrix, neptune
//     src/mds.rs generate_mds);
//   - Merkle-tree domain tag 2^arity − 1 (neptune src/hash_type.rs), used by Filecoin for its
//     tree hashes and its arity-11 column hashes.
//
// A round adds the round constants to every element, applies the S-box (to every element in a
// full round, to element 0 in a partial round) and multiplies by M (neptune's hash_correct).
//
// The circuit (Params.HashCircuit) is neptune 11's legacy circuit, src/circuit.rs poseidon_hash,
// the one Filecoin's circuits use, with neptune's preprocessed constants: round constants
// compressed through the linear layers (src/preprocessing.rs), a pre-sparse matrix after the
// last initial full round and one sparse matrix per partial round (src/mds.rs). State elements
// are linear combinations until an S-box needs them allocated (1 constraint, lc·1 = v). The
// first round's S-boxes on the allocated inputs cost 3 constraints ((x + c)², its square,
// (x + c)·x⁴ = r − c'), the tag's is a constant, every other S-box costs 4, and the result 1:
// 3·arity + 4·(t·(R_F − 1) + R_P) + 1 — 311 for arity 2, 377 for 4, 505 for 8, 598 for 11,
// 1,385 for 36.
//
// Compile does not build those combinations for every hash: the ones carried through the
// partial rounds grow by a term a round, which costs O(t·R_P²) multiplications a hash (most of
// an all-Poseidon circuit's compile time). The rows are constants of the Params, so the first
// hash records them once (a template: one hash compiled on fresh inputs) and every hash after
// renames the template's variables to its own inputs and aux variables. The matrices are the
// same, term for term; the witness path (Synthesize) computes values only, as before.
//
// HashMD and HashMDCircuit are Filecoin's Merkle–Damgård construction over the arity-36 hash
// (filecoin-hashers hash_md).
package poseidon
