// Package stacked holds pieces of Filecoin's PoRep StackedCircuit built exactly as rust-fil-proofs
// v28 storage-proofs-porep/src/stacked/circuit builds them: the labeling function
// (create_label.rs) and the column hash (column.rs, hash.rs).
//
// CreateLabel hashes, with SHA-256, the 512-bit header replica id (padded to 256 bits) ‖ layer
// (u32, big-endian bits) ‖ node (u64, big-endian bits) ‖ zero padding, then the 37 parents,
// each padded to a multiple of 256 bits: 39·256 = 9,984 bits, 20 blocks with the length
// padding. The digest's bits are renumbered within each byte and the low 254 packed (the
// label is the digest read little-endian with the top two bits dropped).
package stacked
