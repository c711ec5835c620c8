package boundedio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endless is an io.Reader that never ends, like /dev/zero, and counts what it hands out.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadAllLimits(t *testing.T) {
	for _, tc := range []struct {
		size, limit int64
		ok          bool
	}{{0, 0, true}, {0, 10, true}, {10, 10, true}, {11, 10, false}, {1, 0, false}, {5000, 4096, false}} {
		b, err := ReadAll(bytes.NewReader(make([]byte, tc.size)), tc.limit)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrTooLarge)) {
			t.Fatalf("size %d limit %d: err %v", tc.size, tc.limit, err)
		}
		if tc.ok && int64(len(b)) != tc.size {
			t.Fatalf("size %d limit %d: read %d bytes", tc.size, tc.limit, len(b))
		}
	}
	if _, err := ReadAll(strings.NewReader(""), -1); err == nil {
		t.Fatal("negative limit accepted")
	}
}

func TestReadAllEndless(t *testing.T) {
	var e endless
	const limit = 1 << 20
	_, err := ReadAll(&e, limit)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("endless reader: %v", err)
	}
	// io.ReadAll asks for at most its buffer's spare room; the LimitReader caps it at limit+1.
	if e.n != limit+1 {
		t.Fatalf("read %d bytes from an endless reader, want %d", e.n, limit+1)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadAllPassesErrors(t *testing.T) {
	if _, err := ReadAll(failing{}, 10); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("got %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 5); err != nil || string(b) != "hello" {
		t.Fatalf("got %q, %v", b, err)
	}
	if _, err := ReadFile(path, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<16); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("/dev/zero: %v", err)
		}
	}
}
