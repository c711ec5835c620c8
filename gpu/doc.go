// Package gpu runs BLS12-381 number-theoretic transforms over Fr and
// multi-scalar multiplications on G1 and G2 on CUDA devices through the
// shared library libcuzk.so (built from csrc/), loaded at run time with
// dlopen. It is the only package of cuzk that uses cgo; building it needs no
// CUDA toolkit (only a C compiler and -ldl), and with CGO_ENABLED=0 it builds
// too, with Load always returning ErrNotLoaded.
//
// # Finding the library
//
// Load looks for the library file libcuzk.so in this order and stops at the
// first rule that applies:
//
//  1. the path given with WithPath;
//  2. the path in the environment variable CUZK_LIB;
//  3. libcuzk.so next to the running executable (os.Executable);
//  4. the name libcuzk.so resolved by the system loader (LD_LIBRARY_PATH,
//     the ld.so cache).
//
// A library that is found must export every symbol of csrc/include/cuzk.h
// and report the ABI version this package was written for; only
// cuzk_debug_field, which a test build (make TEST_KERNELS=1) adds, is
// optional.
//
// # CPU fallback
//
// Callers fall back to the CPU (gnark-crypto) when Load returns an error
// matching ErrNotLoaded or when Library.DeviceCount is 0 / Library.Device
// returns an error matching ErrNoDevice:
//
//	lib, err := gpu.Load()
//	if errors.Is(err, gpu.ErrNotLoaded) { /* CPU path */ }
//	dev, err := lib.Device(0)
//	if errors.Is(err, gpu.ErrNoDevice) { /* CPU path */ }
//
// # Proving
//
// ProverDevices returns one ProverDevice per GPU. A ProverDevice implements
// prover/primitive.Device — the steps of a Groth16 proof: staging, NTTs, the
// coset quotient, density compaction and MSMs — and prover.NewDevice runs
// Groth16's recipe over it; this package does not know the recipe and does
// not import prover. It owns device memory, so close it:
//
//	gpus, err := gpu.ProverDevices() // errors match ErrNotLoaded / ErrNoDevice
//	defer func() { for _, g := range gpus { g.Close() } }()
//	devs := prover.NewDevices(gpus...) // for prover.WithDevice or engine.WithDevices
//
// A parameter set's points are uploaded once per identity
// (prover.Parameters.Identity) and stay resident until the *SRS handle that
// Resident returns is closed, Evict, or Close. Parameters mapped from their
// file (prover.MappedParameters.Parameters) are streamed: each section is
// decoded into one of two 128 MiB host buffers while the other is copied to
// its offset on the device, and the file's pages leave the resident set as
// they land. Partitions are staged in device buffers of their own outside
// the kernel lock and reuse them. SetShiftTableH makes a device keep a shift
// table of H's bases (2^128 times each point, G1Bases.AddShiftTable), which
// makes H's MSM about 6 % faster for as much device memory again as H: built
// at upload (ShiftTableOn), or after the first partitions where the memory
// left free then holds it, and freed again when that memory is needed
// (ShiftTableAuto). A device likewise keeps the NTT table
// (Device.KeepNTTTable: the twiddle diagonal of the whole array, 4 GiB at
// 2^27, which takes ≈ 1.8 ms off each transform of 2^27) from its first
// quotient of 2^21 or more where the memory free outside its pool holds it.
// SetPairTables makes a device keep pair tables of B_G2's, B_G1's, A's and L's
// bases (the sums of adjacent points, G1Bases.AddPairTable), with which the
// sum of an MSM's ones takes a quarter fewer additions, for half those bases'
// memory: built after the first partitions, after an automatic shift table,
// where memory allows, freed like the tables above.
//
// # Kernels
//
//	if err := dev.Lock(ctx); err != nil { return err } // one kernel user at a time
//	defer dev.Unlock()
//	bases, err := dev.UploadG1Bases(points) // resident until Close
//	defer bases.Close()
//	sum, err := bases.MSM(ctx, scalars) // Σ scalars[i]·points[i], bls12381.G1Jac
//	err = dev.NTT(ctx, coeffs, gpu.NTTConfig{OutputBitReversed: true})
//
// Scalars are gnark-crypto fr.Element values (Montgomery form) and points
// bls12381.G1Affine / G2Affine; slices cross the C boundary without
// conversion and the library keeps no Go pointer after a call returns.
// The wrappers do not take the device lock themselves: callers hold
// Device.Lock around their device work. Calls run to completion once
// started (cgo calls cannot be interrupted); ctx is checked before each.
package gpu
