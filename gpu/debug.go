package gpu

import (
	"errors"
	"fmt"
	"unsafe"
)

// errNoTestKernels is returned by debugField when libcuzk.so lacks the optional cuzk_debug_field
// symbol, which only a test build of the library exports.
var errNoTestKernels = errors.New("libcuzk.so built without test kernels (make TEST_KERNELS=1)")

// debugField runs out[i] = a[i] op b[i] on the device (test entry point):
// field 0 = Fr, 1 = Fp, 2 = Fp2; op 0 mul, 1 add, 2 sub, 3 sqr, 4 neg,
// 5 inverse. elemSize is the byte size of one element; n elements.
func (d *Device) debugField(field, op int, a, b, out unsafe.Pointer, n int) error {
	if err := d.lib.b.debugField(d.index, field, op, a, b, out, uint64(n)); err != nil {
		return fmt.Errorf("gpu: field op %d on field %d: %w", op, field, err)
	}
	return nil
}
