// Package merkle holds Merkle inclusion gadgets as Filecoin's circuits build them
// (rust-fil-proofs storage-proofs-core/src/gadgets/{por,insertion}.rs), with native twins:
//
//   - a binary SHA-256 tree over Fr (Filecoin's comm_d tree): a node is SHA-256 of the two
//     children's 32-byte little-endian encodings, with the two top bits of the last digest byte
//     cleared (fr32 trim_to_fr32) and read back as a little-endian Fr;
//   - Poseidon trees (Filecoin's tree_c and tree_r_last, arity 8 with optional arity-8, -4 or -2
//     sub and top levels), nodes hashed with neptune's Merkle-tree Poseidon.
//
// Per level the circuit allocates the index bits (one booleanity constraint each) and the
// siblings, inserts the current node among the siblings at the index (Filecoin's insert_2: 2
// constraints; insert_4: 8; insert_8: 22; other sizes one select per position), and hashes.
// PoR adds what por.rs adds after the levels: the index bits of all levels packed into one
// public input (the leaf index) and the root equality. For SHA-256 each child is unpacked to 255 bits (256
// constraints), hashed (two compressions: 44,866, fewer than bellman's 44,874 for 512 variable
// bits because each child's 256th bit is a constant 0) and the digest's low 254 bits packed
// (1): 45,382 constraints a level. For Poseidon arity 8: 3 + 22 + 505 = 530 a level; arity 4:
// 2 + 8 + 377 = 387; arity 2: 1 + 2 + 311 = 314.
//
// Trees here are sparse: leaves past the last real one hold a default value, so a tree of
// Filecoin's depth (2^30 leaves) costs memory only for its real leaves.
package merkle
