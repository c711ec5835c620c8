// Package update is the native side of Filecoin's SnapDeals (EmptySectorUpdate) proofs, as
// rust-fil-proofs v28 storage-proofs-update vanilla.rs computes them: encoding new data into a
// sealed sector (label_r_new = label_r_old + data·rho, comm_r_new, comm_d_new), the vanilla
// PartitionProof of each partition (challenges, apex leaves, tree D and tree R paths), its
// native verification, its bincode form as filecoin-ffi passes it, and the witness of the
// EmptySectorUpdate circuit (filecoin/circuits/update) it gives.
//
//	rep, _ := update.Encode(proofType, oldTreeR, commC, newData)
//	pp, _ := rep.PartitionProof(k)
//	err := update.Verify(proofType, k, rep.CommROld, rep.CommDNew, rep.CommRNew, pp)
package update
