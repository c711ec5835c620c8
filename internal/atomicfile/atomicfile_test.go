package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// entries returns the sorted names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Fatalf("%s: got %q (%v), want %q", path, b, err, want)
	}
}

func TestWriteCreateRefuseOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, "one")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != DefaultPerm {
		t.Fatalf("mode %v (%v), want %v", st.Mode().Perm(), err, DefaultPerm)
	}
	// An existing file is refused without Overwrite and left as it was.
	err = WriteFile(path, []byte("two"))
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second write without Overwrite: %v", err)
	}
	wantContent(t, path, "one")
	if err := WriteFile(path, []byte("three"), Overwrite()); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, "three")
	if got := entries(t, dir); !slices.Equal(got, []string{"out.bin"}) {
		t.Fatalf("directory holds %v", got)
	}
}

func TestWritePerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := WriteFile(path, []byte("k"), Perm(0o600)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := WriteFile(path+"2", nil, Perm(fs.ModeSetuid|0o644)); err == nil {
		t.Fatal("setuid permission accepted")
	}
}

func TestWriteFillErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		if _, err := w.Write([]byte("partial")); err != nil {
			return err
		}
		return boom
	}, Overwrite())
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	wantContent(t, path, "old")
	if got := entries(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("temporary file left: %v", got)
	}
}

func TestWriteUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	// A directory that is a regular file, and one that does not exist: refused as root too.
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(notDir, "out"), filepath.Join(dir, "missing", "out")} {
		if err := WriteFile(p, []byte("x")); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %v", p, err)
		}
	}
	// A read-only directory (only meaningful when not running as root).
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })
	err := WriteFile(filepath.Join(ro, "out"), []byte("x"))
	if os.Geteuid() != 0 && !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("read-only directory: %v", err)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"file", "ro"}) {
		t.Fatalf("directory holds %v", got)
	}
}

func TestWritePair(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "c.params"), filepath.Join(dir, "c.vk")
	if err := WritePair(File{Path: a, Data: []byte("p1")}, File{Path: b, Data: []byte("v1")}); err != nil {
		t.Fatal(err)
	}
	wantContent(t, a, "p1")
	wantContent(t, b, "v1")

	// Without Overwrite either existing file refuses the pair, changing nothing.
	other := filepath.Join(dir, "new.vk")
	err := WritePair(File{Path: a, Data: []byte("p2")}, File{Path: other, Data: []byte("v2")})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("existing first: %v", err)
	}
	err = WritePair(File{Path: filepath.Join(dir, "new.params"), Data: []byte("p2")}, File{Path: b, Data: []byte("v2")})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("existing last: %v", err)
	}
	wantContent(t, a, "p1")
	wantContent(t, b, "v1")
	if got := entries(t, dir); !slices.Equal(got, []string{"c.params", "c.vk"}) {
		t.Fatalf("directory holds %v", got)
	}

	// A failing Fill of the second file, with Overwrite: the old pair stays.
	boom := errors.New("boom")
	err = WritePair(File{Path: a, Data: []byte("p3")},
		File{Path: b, Fill: func(io.Writer) error { return boom }}, Overwrite())
	if !errors.Is(err, boom) {
		t.Fatalf("failing fill: %v", err)
	}
	wantContent(t, a, "p1")
	wantContent(t, b, "v1")
	if got := entries(t, dir); !slices.Equal(got, []string{"c.params", "c.vk"}) {
		t.Fatalf("temporary files left: %v", got)
	}

	if err := WritePair(File{Path: a, Data: []byte("p4")}, File{Path: b, Data: []byte("v4")}, Overwrite()); err != nil {
		t.Fatal(err)
	}
	wantContent(t, a, "p4")
	wantContent(t, b, "v4")

	// Last is filled first: first's contents may come from filling last, and a failing Fill
	// of first leaves no temporary file of last behind.
	var made string
	err = WritePair(File{Path: a, Fill: func(w io.Writer) error { _, err := io.WriteString(w, "key of "+made); return err }},
		File{Path: b, Fill: func(w io.Writer) error { made = "v5"; _, err := io.WriteString(w, made); return err }}, Overwrite())
	if err != nil {
		t.Fatal(err)
	}
	wantContent(t, a, "key of v5")
	wantContent(t, b, "v5")
	err = WritePair(File{Path: a, Fill: func(io.Writer) error { return boom }}, File{Path: b, Data: []byte("v6")}, Overwrite())
	if !errors.Is(err, boom) {
		t.Fatalf("failing fill of first: %v", err)
	}
	wantContent(t, b, "v5")
	if got := entries(t, dir); !slices.Equal(got, []string{"c.params", "c.vk"}) {
		t.Fatalf("temporary files left: %v", got)
	}

	// Misuse.
	if err := WritePair(File{Path: a}, File{Path: filepath.Join(t.TempDir(), "x")}); err == nil {
		t.Fatal("pair across directories accepted")
	}
	if err := WritePair(File{Path: a}, File{Path: a}, Overwrite()); err == nil {
		t.Fatal("pair naming one file twice accepted")
	}
}

// TestOpenPairDuringRewrites rewrites a pair continuously, each time with matching
// contents, while readers open it: every pair opened must match.
func TestOpenPairDuringRewrites(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "p"), filepath.Join(dir, "v")
	write := func(i int) error {
		s := []byte(fmt.Sprint(i))
		return WritePair(File{Path: a, Data: s}, File{Path: b, Data: s}, Overwrite())
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	const rewrites = 50
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := 1; i <= rewrites; i++ {
			if err := write(i); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var opened, absent int
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		fa, fb, err := OpenPair(a, b)
		if errors.Is(err, fs.ErrNotExist) {
			absent++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ba, _ := io.ReadAll(fa)
		bb, _ := io.ReadAll(fb)
		fa.Close()
		fb.Close()
		if !bytes.Equal(ba, bb) {
			t.Fatalf("mixed pair: %q and %q", ba, bb)
		}
		opened++
	}
	wg.Wait()
	t.Logf("%d consistent pairs opened, %d times the pair was being written", opened, absent)
	if _, _, err := OpenPair(a, filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing last: %v", err)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "circuit.params")
	old := time.Now().Add(-2 * time.Hour)
	mk := func(name string, mtime time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mk("circuit.params", old)
	mk("circuit.params.tmp123", old)        // ours, stale: removed
	mk("circuit.params.tmp456", time.Now()) // ours, maybe a write in progress: kept
	mk("circuit.params.tmpabc", old)        // not our pattern
	mk("circuit.params.tmp", old)           // no digits
	mk("circuit.vk.tmp789", old)            // another destination's
	mk("xcircuit.params.tmp1", old)         // a different base
	if err := os.Mkdir(filepath.Join(dir, "circuit.params.tmp9"), 0o755); err != nil {
		t.Fatal(err) // a directory is never removed
	}
	removed, err := RemoveStale(path, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "circuit.params.tmp123")}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	want := []string{"circuit.params", "circuit.params.tmp", "circuit.params.tmp456", "circuit.params.tmp9",
		"circuit.params.tmpabc", "circuit.vk.tmp789", "xcircuit.params.tmp1"}
	if got := entries(t, dir); !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	if _, err := RemoveStale(filepath.Join(dir, "missing", "x"), 0); err == nil {
		t.Fatal("missing directory accepted")
	}
}

// TestTempNamesMatchRemoveStale ties the temporary names Write creates to RemoveStale's
// pattern: a temporary file left by a failed write is recognised.
func TestTempNamesMatchRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "proof.bin")
	var tmp string
	_ = Write(path, func(w io.Writer) error {
		tmp = filepath.Base(w.(*os.File).Name())
		return errors.New("stop")
	})
	if !isTempName(tmp, "proof.bin") {
		t.Fatalf("temporary name %q does not match RemoveStale's pattern", tmp)
	}
}
