package boundedio

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped by the error ReadAll and ReadFile return when the input holds more
// than the limit.
var ErrTooLarge = errors.New("input exceeds its size limit")

// ReadAll reads r to its end and returns the bytes, or an error wrapping ErrTooLarge as soon
// as more than limit bytes have been read. It reads at most limit+1 bytes, and its memory
// grows with the bytes read, not with limit.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	if limit < 0 {
		return nil, fmt.Errorf("boundedio: negative limit %d", limit)
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)
	}
	return b, nil
}

// ReadFile reads the file at path with ReadAll; errors name the path.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadAll(f, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
