package gpu

import (
	"errors"
	"fmt"
)

// ErrNotLoaded reports that libcuzk.so could not be loaded (absent, wrong
// ABI version, missing symbols, or a build without cgo). Callers fall back
// to the CPU.
var ErrNotLoaded = errors.New("gpu: libcuzk.so not loaded")

// ErrNoDevice reports that no usable CUDA device (or driver) is present, or
// that a device index is out of range. Callers fall back to the CPU.
var ErrNoDevice = errors.New("gpu: no CUDA device")

// ErrOutOfMemory reports that a device (or pinned host) allocation failed.
var ErrOutOfMemory = errors.New("gpu: out of device memory")

// ErrClosed reports use of a handle after Close.
var ErrClosed = errors.New("gpu: handle closed")

// ErrorCode is the code of an error returned by libcuzk (cuzk.h CUZK_ERR_*).
type ErrorCode int

// Error codes of libcuzk.
const (
	CodeInvalid     ErrorCode = 1 // bad argument
	CodeNoDevice    ErrorCode = 2 // no CUDA device or driver
	CodeCUDA        ErrorCode = 3 // a CUDA call failed
	CodeOutOfMemory ErrorCode = 4 // allocation failed
	CodeInternal    ErrorCode = 5 // anything else
)

func (c ErrorCode) String() string {
	switch c {
	case CodeInvalid:
		return "invalid argument"
	case CodeNoDevice:
		return "no device"
	case CodeCUDA:
		return "CUDA error"
	case CodeOutOfMemory:
		return "out of memory"
	case CodeInternal:
		return "internal error"
	}
	return fmt.Sprintf("code %d", int(c))
}

// DeviceError is an error reported by libcuzk: its code and message
// (which names the operation and, for CUDA failures, the failing call).
type DeviceError struct {
	Device int // device index, −1 when not tied to one
	Code   ErrorCode
	Msg    string
}

func (e *DeviceError) Error() string {
	if e.Device >= 0 {
		return fmt.Sprintf("gpu: device %d: %s: %s", e.Device, e.Code, e.Msg)
	}
	return fmt.Sprintf("gpu: %s: %s", e.Code, e.Msg)
}

// Is makes errors.Is(err, ErrNoDevice) and errors.Is(err, ErrOutOfMemory)
// true for the matching codes.
func (e *DeviceError) Is(target error) bool {
	switch target {
	case ErrNoDevice:
		return e.Code == CodeNoDevice
	case ErrOutOfMemory:
		return e.Code == CodeOutOfMemory
	}
	return false
}
