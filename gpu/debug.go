package gpu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// errNoTestKernels is returned by debugField and debugFpRate when libcuzk.so lacks the optional
// cuzk_debug_field and cuzk_debug_fp_rate symbols, which only a test build of the library exports.
var errNoTestKernels = errors.New("libcuzk.so built without test kernels (make TEST_KERNELS=1)")

// debugField runs out[i] = a[i] op b[i] on the device (test entry point):
// field 0 = Fr, 1 = Fp, 2 = Fp2; op 0 mul, 1 add, 2 sub, 3 sqr, 4 neg,
// 5 inverse; field 3 = Fp with products on the FP64 pipe, op 0 a·b, 1 a·b^16.
// n elements of the field's size each.
func (d *Device) debugField(field, op int, a, b, out unsafe.Pointer, n int) error {
	if err := d.lib.b.debugField(d.index, field, op, a, b, out, uint64(n)); err != nil {
		return fmt.Errorf("gpu: field op %d on field %d: %w", op, field, err)
	}
	return nil
}

// debugFpRate runs Fp product chains of rounds products a thread, one thread per element of a and
// b (n elements each), writing each thread's result to out, and returns the kernel's time (test
// entry point). The variants, and the products a thread, are those of fp_rate_kernel in
// csrc/src/test_kernels.cu: 0 integer, 1 FP64 in digit form, 2 two integer chains, 3 one
// integer and one FP64, 4 FP64 converted each product, 5 one integer and one FP64 converted each
// product, 6 two FP64, 7 one chain alternating integer and FP64 converted, 8 an Fr integer chain
// beside an Fp FP64 chain, 9 the Fr integer chain alone.
func (d *Device) debugFpRate(variant int, a, b, out []fp.Element, rounds int) (time.Duration, error) {
	if len(a) != len(b) || len(out) != len(a) || len(a) == 0 {
		return 0, fmt.Errorf("gpu: fp rate: %d, %d and %d elements", len(a), len(b), len(out))
	}
	ms, err := d.lib.b.debugFpRate(d.index, variant, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]),
		unsafe.Pointer(&out[0]), uint64(len(a)), uint32(rounds))
	if err != nil {
		return 0, fmt.Errorf("gpu: fp rate variant %d: %w", variant, err)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}
