// Package paramcache finds Filecoin's Groth16 parameter files (.params, .vk) where lotus, Curio
// and filecoin-ffi keep them, and checks each file against Filecoin's parameters.json before its
// first use.
//
// Where: the directory named by $FIL_PROOFS_PARAMETER_CACHE, else
// /var/tmp/filecoin-proof-parameters (the same rule as filecoin-ffi and go-paramfetch), or one
// given with WithDir.
//
// What is checked: the BLAKE2b-512 digest of the whole file, whose first 16 bytes in hex must
// equal the manifest's "digest" (go-paramfetch's rule). A file is hashed once: the result is
// remembered with the file's size and modification time, in memory and in a small JSON file
// (by default .cuzk-digests.json in the parameter directory, when it is writable), so a restart
// does not re-read 47 GB. Hashing reports progress (bytes done of total) through an optional
// callback and stops when its context is cancelled.
//
// What if not: a missing file is an error naming the file, the directory searched and the
// command that fetches it; a wrong digest names the file, both digests and what to do.
//
// Usage:
//
//	c, err := paramcache.Open()
//	path, err := c.Path(ctx, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-….vk")
package paramcache
