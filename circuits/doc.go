// Package circuits holds the built-in circuits of the cuzk CLI and benchmarks. Subpackage porep
// has the PoRep-shaped workload.
package circuits
