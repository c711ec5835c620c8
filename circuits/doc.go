// Package circuits holds the built-in benchmark circuits of the cuzk CLI and benchmarks:
// Scalable, a circuit of any size, and subpackage porep, a workload shaped like Filecoin's PoRep
// at any size. Filecoin's real circuits are in filecoin/circuits (stacked for PoRep, post for
// PoSt); the CLI offers the PoRep partition as --circuit stacked.
package circuits
