package paramcache

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/sync/singleflight"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
)

const (
	// DirEnv names the environment variable that overrides the parameter directory.
	DirEnv = "FIL_PROOFS_PARAMETER_CACHE"
	// DefaultDir is where lotus, Curio and filecoin-ffi keep parameters when DirEnv is unset.
	DefaultDir = "/var/tmp/filecoin-proof-parameters"
	// memoName is the digest memo kept in the parameter directory.
	memoName = ".cuzk-digests.json"
	// digestBytes is how much of the BLAKE2b-512 sum parameters.json pins.
	digestBytes = 16
	// hashChunk is the read size while hashing; progress is reported once per chunk.
	hashChunk = 8 << 20
)

// ErrMissing is wrapped by the error for a parameter file that is not in the directory.
var ErrMissing = errors.New("parameter file missing")

// ErrDigest is wrapped by the error for a parameter file whose contents do not match the
// manifest.
var ErrDigest = errors.New("parameter file digest mismatch")

// ErrUnknown is wrapped by the error for a name the manifest does not list.
var ErrUnknown = errors.New("parameter file not in manifest")

// Progress is one report while a file is hashed: Done of Total bytes read after Elapsed.
type Progress struct {
	Name        string
	Done, Total int64
	Elapsed     time.Duration
}

type config struct {
	dir      string
	manifest Manifest
	memo     string // "" = default in dir; "-" = memory only
	progress func(Progress)
}

// Option configures Open.
type Option func(*config) error

// WithDir sets the parameter directory instead of $FIL_PROOFS_PARAMETER_CACHE or DefaultDir.
func WithDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("paramcache: empty directory")
		}
		c.dir = dir
		return nil
	}
}

// WithManifest sets the manifest instead of Default().
func WithManifest(m Manifest) Option {
	return func(c *config) error {
		if len(m) == 0 {
			return errors.New("paramcache: empty manifest")
		}
		c.manifest = m
		return nil
	}
}

// WithMemoFile sets the file that remembers checked digests; "-" keeps them in memory only.
func WithMemoFile(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.New("paramcache: empty memo path")
		}
		c.memo = path
		return nil
	}
}

// WithProgress sets a callback that receives hashing progress. It is called from the goroutine
// that hashes, never concurrently for one file, and must not block.
func WithProgress(f func(Progress)) Option {
	return func(c *config) error { c.progress = f; return nil }
}

// memoEntry identifies a file version that was hashed and found right.
type memoEntry struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Digest  string `json:"digest"`
}

// Cache resolves and checks parameter files in one directory. It is safe for concurrent use; a
// file requested by several goroutines at once is hashed once.
type Cache struct {
	cfg    config
	flight singleflight.Group

	mu   sync.Mutex
	memo map[string]memoEntry // by file name
	// hashed counts whole-file hashes (tests check that the memo avoids them).
	hashed int
}

// Open returns a cache over the parameter directory. It reads the digest memo if there is one
// (a memo that cannot be parsed is ignored: it only saves time).
func Open(opts ...Option) (*Cache, error) {
	cfg := config{dir: os.Getenv(DirEnv)}
	if cfg.dir == "" {
		cfg.dir = DefaultDir
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.manifest == nil {
		cfg.manifest = Default()
	}
	if cfg.memo == "" {
		cfg.memo = filepath.Join(cfg.dir, memoName)
	}
	c := &Cache{cfg: cfg, memo: map[string]memoEntry{}}
	if cfg.memo != "-" {
		if data, err := os.ReadFile(cfg.memo); err == nil {
			_ = json.Unmarshal(data, &c.memo)
		}
	}
	return c, nil
}

// Dir returns the parameter directory.
func (c *Cache) Dir() string { return c.cfg.dir }

// Manifest returns the manifest the cache checks against.
func (c *Cache) Manifest() Manifest { return c.cfg.manifest }

// Path returns the path of the named parameter file after checking it: present, a regular
// file, and — unless the same size and modification time were checked before — hashed to the
// manifest's digest.
func (c *Cache) Path(ctx context.Context, name string) (string, error) {
	e, ok := c.cfg.manifest[name]
	if !ok {
		return "", fmt.Errorf("paramcache: %q: %w", name, ErrUnknown)
	}
	path := filepath.Join(c.cfg.dir, name)
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("paramcache: %s not found in %s (set %s to another directory, or fetch the %s parameters: `curio fetch-params %s` or `lotus fetch-params %s`): %w",
			name, c.cfg.dir, DirEnv, sizeName(e.SectorSize), sizeName(e.SectorSize), sizeName(e.SectorSize), ErrMissing)
	}
	if err != nil {
		return "", fmt.Errorf("paramcache: %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("paramcache: %s is not a regular file", path)
	}
	want := memoEntry{Size: st.Size(), ModTime: st.ModTime().UnixNano(), Digest: e.Digest}
	c.mu.Lock()
	known := c.memo[name] == want
	c.mu.Unlock()
	if known {
		return path, nil
	}
	_, err, _ = c.flight.Do(name, func() (any, error) { return nil, c.check(ctx, path, e, want) })
	if err != nil {
		return "", err
	}
	return path, nil
}

// check hashes the file and, when it matches, remembers it.
func (c *Cache) check(ctx context.Context, path string, e Entry, want memoEntry) error {
	got, err := c.digest(ctx, path, e.Name, want.Size)
	if err != nil {
		return err
	}
	if got != e.Digest {
		return fmt.Errorf("paramcache: %s has digest %s, parameters.json says %s (the file is corrupt or from another release: delete it and fetch it again): %w",
			path, got, e.Digest, ErrDigest)
	}
	c.mu.Lock()
	c.memo[e.Name] = want
	snapshot, _ := json.MarshalIndent(c.memo, "", " ")
	c.mu.Unlock()
	if c.cfg.memo != "-" {
		// The memo only saves time: a directory we cannot write to is not an error.
		_ = atomicfile.WriteFile(c.cfg.memo, snapshot, atomicfile.Overwrite())
	}
	return nil
}

// digest returns the file's digest (FileDigest), reporting progress, and counts the hash.
func (c *Cache) digest(ctx context.Context, path, name string, size int64) (string, error) {
	start := time.Now()
	var progress func(done int64)
	if c.cfg.progress != nil {
		progress = func(done int64) {
			c.cfg.progress(Progress{Name: name, Done: done, Total: size, Elapsed: time.Since(start)})
		}
	}
	d, err := hashFile(ctx, path, progress)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.hashed++
	c.mu.Unlock()
	return d, nil
}

// FileDigest returns the digest a Manifest entry gives for the file at path, as Filecoin's
// parameters.json does: the first 16 bytes of its BLAKE2b-512, in hex. It stops when ctx ends.
func FileDigest(ctx context.Context, path string) (string, error) {
	return hashFile(ctx, path, nil)
}

// hashFile is FileDigest, calling progress (unless nil) with the bytes hashed after each read.
func hashFile(ctx context.Context, path string, progress func(done int64)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("paramcache: %w", err)
	}
	defer f.Close()
	h, _ := blake2b.New512(nil)
	buf := make([]byte, hashChunk)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("paramcache: hash %s: %w", path, err)
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		done += int64(n)
		if n > 0 && progress != nil {
			progress(done)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("paramcache: read %s at byte %d: %w", path, done, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:digestBytes]), nil
}

// sizeName spells a sector size as the fetch-params commands take it.
func sizeName(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%d", b)
}
