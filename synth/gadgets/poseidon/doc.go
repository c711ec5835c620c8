// Package poseidon is the Poseidon hash over BLS12-381 Fr as Filecoin uses it (neptune,
// argumentcomputer/neptune, formerly filecoin-project/neptune), natively and as a circuit.
//
// Parameters, as neptune's PoseidonConstants::new() (Strength::Standard, HashType::MerkleTree):
//
//   - width t = arity + 1; the state is [domain tag, input_1 … input_arity], the digest is
//     state[1] after the permutation;
//   - x⁵ S-box; R_F = 8 full rounds (4 before, 4 after) and R_P partial rounds from the Poseidon
//     paper's security inequalities at 128-bit security with neptune's margin (RF + 2,
//     ⌈1.075·RP⌉): 55 for arity 2, 57 for arities 8 and 11 (neptune src/round_numbers.rs);
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
// The circuit has neptune's src/circuit.rs constraint count, the one Filecoin's circuits use:
// 3 constraints per S-box and 1 per S-box input that is not already a variable, plus 1 for the
// result: 3·(t·R_F + R_P − 1) + (t·R_F + R_P − arity) — 311 for arity 2, 505 for arity 8, 598 for
// arity 11.
package poseidon
