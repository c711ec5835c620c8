package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultPerm is the permission of written files unless Perm is given: readable by all,
// writable by the owner.
const DefaultPerm fs.FileMode = 0o644

// tmpInfix separates a destination's base name from the random digits of its temporary file.
const tmpInfix = ".tmp"

// config holds the options of one write.
type config struct {
	overwrite bool
	perm      fs.FileMode
}

// Option configures Write, WriteFile and WritePair.
type Option func(*config) error

// Overwrite allows replacing existing destination files. Without it a write fails with an
// error wrapping fs.ErrExist and leaves everything as it was.
func Overwrite() Option {
	return func(c *config) error { c.overwrite = true; return nil }
}

// Perm sets the permission bits of the written files (DefaultPerm otherwise), for example
// 0600 for a file only its owner may read. Only the bits in fs.ModePerm are allowed.
func Perm(mode fs.FileMode) Option {
	return func(c *config) error {
		if mode&^fs.ModePerm != 0 {
			return fmt.Errorf("atomicfile: permission %v has bits outside %v", mode, fs.ModePerm)
		}
		c.perm = mode
		return nil
	}
}

func newConfig(opts []Option) (config, error) {
	c := config{perm: DefaultPerm}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// File is one destination of WritePair: its path and its contents, given either as Data or
// as Fill, which writes them to w (Fill is used when non-nil).
type File struct {
	Path string
	Data []byte
	Fill func(w io.Writer) error
}

func (f File) fill() func(io.Writer) error {
	if f.Fill != nil {
		return f.Fill
	}
	return func(w io.Writer) error { _, err := w.Write(f.Data); return err }
}

// Write atomically creates (or with Overwrite replaces) the file at path with the bytes that
// fill writes. When Write returns nil the file and its directory entry are on stable storage;
// when it fails the destination is unchanged and no temporary file remains.
func Write(path string, fill func(w io.Writer) error, opts ...Option) error {
	c, err := newConfig(opts)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(path, fill, c.perm)
	if err != nil {
		return err
	}
	if err := place(tmp, path, c.overwrite); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// WriteFile is Write with the contents given as data.
func WriteFile(path string, data []byte, opts ...Option) error {
	return Write(path, File{Data: data}.fill(), opts...)
}

// WritePair writes two files, first and last (which must be distinct paths in one
// directory), so that whenever last exists, first holds the contents written together with
// it. The order is:
//
//  1. both temporary files are written and synced, with the permission bits set — last's
//     first, so that first's contents may depend on what filling last produced (a verifying
//     key that a parameters file's writer computes, say);
//  2. with Overwrite, an existing last is removed and the directory synced, so that from here
//     until step 4 last is absent;
//  3. first is moved into place, then 4. last, and the directory is synced.
//
// So at every instant, and after a crash at any point, either last is absent (the pair is
// absent or incomplete) or both files are from the same WritePair. A reader therefore takes
// last as the mark of a complete pair; one that may run while a rewrite is under way uses
// OpenPair, which opens both files and checks that no rewrite came between. Writers of one
// pair must not run concurrently. Without Overwrite, an existing first or last is refused
// with an error wrapping fs.ErrExist; on failure before step 2 nothing changes, and on failure
// after it last is absent.
func WritePair(first, last File, opts ...Option) error {
	c, err := newConfig(opts)
	if err != nil {
		return err
	}
	dir := filepath.Dir(first.Path)
	if filepath.Dir(last.Path) != dir {
		return fmt.Errorf("atomicfile: %s and %s are not in one directory", first.Path, last.Path)
	}
	if filepath.Clean(first.Path) == filepath.Clean(last.Path) {
		return fmt.Errorf("atomicfile: pair names one file twice: %s", first.Path)
	}
	if !c.overwrite {
		for _, p := range []string{first.Path, last.Path} {
			if _, err := os.Lstat(p); err == nil {
				return fmt.Errorf("atomicfile: %s: %w", p, fs.ErrExist)
			}
		}
	}
	tmpLast, err := writeTemp(last.Path, last.fill(), c.perm)
	if err != nil {
		return err
	}
	tmpFirst, err := writeTemp(first.Path, first.fill(), c.perm)
	if err != nil {
		_ = os.Remove(tmpLast)
		return err
	}
	cleanup := func() { _ = os.Remove(tmpFirst); _ = os.Remove(tmpLast) }
	if c.overwrite {
		if err := os.Remove(last.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			cleanup()
			return fmt.Errorf("atomicfile: remove old %s: %w", last.Path, err)
		}
		if err := syncDir(dir); err != nil {
			cleanup()
			return err
		}
	}
	if err := place(tmpFirst, first.Path, c.overwrite); err != nil {
		cleanup()
		return err
	}
	if err := place(tmpLast, last.Path, c.overwrite); err != nil {
		cleanup()
		if !c.overwrite {
			// first was created by this call: take it back so nothing changes.
			_ = os.Remove(first.Path)
		}
		return err
	}
	return syncDir(dir)
}

// OpenPair opens the pair written by WritePair, first then last, and checks that first's
// path still names the file it opened; it retries a few times when a rewrite intervened.
// The two files returned were written by one WritePair. A missing last gives an error
// wrapping fs.ErrNotExist (the pair is absent or being written).
func OpenPair(first, last string) (*os.File, *os.File, error) {
	const attempts = 5
	for range attempts {
		ff, err := os.Open(first)
		if err != nil {
			return nil, nil, err
		}
		fl, err := os.Open(last)
		if err != nil {
			ff.Close()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("atomicfile: pair incomplete or absent: %w", err)
			}
			return nil, nil, err
		}
		opened, err1 := ff.Stat()
		now, err2 := os.Stat(first)
		if err1 == nil && err2 == nil && os.SameFile(opened, now) {
			return ff, fl, nil
		}
		ff.Close()
		fl.Close()
		if err := errors.Join(err1, err2); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, nil, fmt.Errorf("atomicfile: %s and %s kept changing while opened", first, last)
}

// RemoveStale removes the temporary files that writes to path left behind when their process
// died: regular files in path's directory named <base of path>.tmp followed by digits only,
// last modified more than olderThan ago (so a write in progress keeps its file). It returns
// the paths removed.
func RemoveStale(path string, olderThan time.Duration) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	cutoff := time.Now().Add(-olderThan)
	for _, e := range entries {
		if !isTempName(e.Name(), base) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// isTempName reports whether name is base + ".tmp" + one or more decimal digits, the names
// os.CreateTemp gives for the pattern base + ".tmp*".
func isTempName(name, base string) bool {
	digits, ok := strings.CutPrefix(name, base+tmpInfix)
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// writeTemp writes fill's output to a new temporary file next to path, syncs it, sets perm
// and closes it, returning its name; on failure the file is removed.
func writeTemp(path string, fill func(io.Writer) error, perm fs.FileMode) (name string, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+tmpInfix+"*")
	if err != nil {
		return "", fmt.Errorf("atomicfile: create temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err := fill(f); err != nil {
		return "", fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return "", fmt.Errorf("atomicfile: chmod %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	return f.Name(), nil
}

// place moves tmp to path: a rename with overwrite; otherwise a hard link, which fails
// atomically if path exists, then removal of tmp. On a file system without hard links it
// falls back to checking for path, then renaming.
func place(tmp, path string, overwrite bool) error {
	if overwrite {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
		return nil
	}
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		_ = os.Remove(tmp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("atomicfile: %s: %w", path, fs.ErrExist)
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EXDEV):
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("atomicfile: %s: %w", path, fs.ErrExist)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("atomicfile: %w", err)
		}
		return nil
	}
	return fmt.Errorf("atomicfile: %w", err)
}

// syncDir syncs the directory dir so that renames in it survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("atomicfile: sync directory %s: %w", dir, err)
	}
	return nil
}
