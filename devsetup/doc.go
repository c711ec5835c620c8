// Package devsetup makes Groth16 parameters for development and benchmarks. It is INSECURE:
// never use its parameters for real proofs.
//
// InsecureSetup runs a Groth16 setup from toxic waste the caller holds, so whoever ran it can
// forge proofs for every circuit the parameters serve; real deployments use the parameters of a
// multi-party ceremony (Filecoin's .params files), read with prover.ReadParametersFile.
// WriteInsecureSetup writes the same parameters straight to a bellperson parameters file,
// holding one chunk of points at a time instead of all of them (tens of GiB at a Filecoin
// partition's size), and StreamInsecureSetup writes them to any writer and returns the verifying
// key; prover.OpenParametersFile reads the file back.
// RandomParameters returns points of the right counts unrelated to any setup, for benchmarks at
// sizes where a setup would take too long: proofs made with them do not verify.
//
//	tw, _ := devsetup.NewToxicWaste(rand.Reader)
//	params, _ := devsetup.InsecureSetup(shape, tw) // INSECURE: tw forges proofs
//
// Both take WithProgress, a callback told of each stage (Lagrange basis, evaluations, scalars,
// the points of each section) as done/total units: at real size a setup runs for hours.
package devsetup
