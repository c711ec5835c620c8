package paramcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// winningVK is Filecoin's real v28 WinningPoSt 2 KiB verifying key (testdata/README.md).
const winningVK = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk"

func TestDefaultManifest(t *testing.T) {
	m := Default()
	require.Len(t, m, 40)
	e, ok := m[winningVK]
	require.True(t, ok)
	require.Equal(t, "ffd79788d614d27919ae5bd2d94eacb6", e.Digest)
	require.Equal(t, uint64(2048), e.SectorSize)
	require.Equal(t, winningVK, e.Name)
	names := m.Names()
	require.Len(t, names, 40)
	require.True(t, strings.HasPrefix(names[0], "v28-"))
}

// TestRealFileMatchesManifest hashes the real vk and finds parameters.json's digest: the rule
// (BLAKE2b-512, first 16 bytes, hex) is go-paramfetch's.
func TestRealFileMatchesManifest(t *testing.T) {
	c, err := Open(WithDir("testdata"), WithMemoFile("-"))
	require.NoError(t, err)
	p, err := c.Path(context.Background(), winningVK)
	require.NoError(t, err)
	require.Equal(t, filepath.Join("testdata", winningVK), p)
	require.Equal(t, 1, c.hashed)
}

// copyVK puts the real vk into a fresh directory and returns the directory.
func copyVK(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", winningVK))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, winningVK), data, 0o644))
	return dir
}

func TestMemoAvoidsRehash(t *testing.T) {
	dir := copyVK(t)
	ctx := context.Background()
	c, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c.Path(ctx, winningVK)
	require.NoError(t, err)
	_, err = c.Path(ctx, winningVK)
	require.NoError(t, err)
	require.Equal(t, 1, c.hashed, "the second call in one process must not hash")
	require.FileExists(t, filepath.Join(dir, memoName))

	// A restart reads the memo and does not hash either.
	c2, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c2.Path(ctx, winningVK)
	require.NoError(t, err)
	require.Equal(t, 0, c2.hashed)
}

func TestChangedFileIsRehashedAndRefused(t *testing.T) {
	dir := copyVK(t)
	ctx := context.Background()
	c, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c.Path(ctx, winningVK)
	require.NoError(t, err)

	// Same size, one byte changed, new modification time: the memo no longer applies.
	path := filepath.Join(dir, winningVK)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[1000] ^= 1
	require.NoError(t, os.WriteFile(path, data, 0o644))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(path, later, later))

	c2, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c2.Path(ctx, winningVK)
	require.ErrorIs(t, err, ErrDigest)
	require.Contains(t, err.Error(), path)
	require.Contains(t, err.Error(), "ffd79788d614d27919ae5bd2d94eacb6")
	require.Equal(t, 1, c2.hashed)
}

func TestMissingFileSaysWhatToRun(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c.Path(context.Background(), winningVK)
	require.ErrorIs(t, err, ErrMissing)
	for _, want := range []string{winningVK, dir, DirEnv, "fetch-params 2KiB"} {
		require.Contains(t, err.Error(), want)
	}
}

func TestUnknownName(t *testing.T) {
	c, err := Open(WithDir(t.TempDir()))
	require.NoError(t, err)
	_, err = c.Path(context.Background(), "v27-something.params")
	require.ErrorIs(t, err, ErrUnknown)
}

func TestDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, winningVK), 0o755))
	c, err := Open(WithDir(dir))
	require.NoError(t, err)
	_, err = c.Path(context.Background(), winningVK)
	require.ErrorContains(t, err, "not a regular file")
}

func TestEnvironmentChoosesDirectory(t *testing.T) {
	dir := copyVK(t)
	t.Setenv(DirEnv, dir)
	c, err := Open()
	require.NoError(t, err)
	require.Equal(t, dir, c.Dir())
	_, err = c.Path(context.Background(), winningVK)
	require.NoError(t, err)

	t.Setenv(DirEnv, "")
	c, err = Open()
	require.NoError(t, err)
	require.Equal(t, DefaultDir, c.Dir())
}

func TestCancelledHash(t *testing.T) {
	dir := copyVK(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := Open(WithDir(dir), WithMemoFile("-"))
	require.NoError(t, err)
	_, err = c.Path(ctx, winningVK)
	require.ErrorIs(t, err, context.Canceled)
	require.NoFileExists(t, filepath.Join(dir, memoName))
}

func TestProgressReachesTotal(t *testing.T) {
	dir := copyVK(t)
	var last Progress
	c, err := Open(WithDir(dir), WithMemoFile("-"), WithProgress(func(p Progress) { last = p }))
	require.NoError(t, err)
	_, err = c.Path(context.Background(), winningVK)
	require.NoError(t, err)
	require.Equal(t, winningVK, last.Name)
	require.Equal(t, int64(13636), last.Total)
	require.Equal(t, last.Total, last.Done)
}

func TestConcurrentCallersHashOnce(t *testing.T) {
	dir := copyVK(t)
	c, err := Open(WithDir(dir), WithMemoFile("-"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Path(context.Background(), winningVK)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 1, c.hashed, "callers during the hash share it; callers after it use the memo")
}

func TestParseManifestErrors(t *testing.T) {
	cases := map[string]string{
		`{"a.vk":{"digest":"00112233445566778899aabbccddeeff","sector_size":2048}}`:               `"cid" missing`,
		`{"a.vk":{"cid":"Qm","sector_size":2048}}`:                                                `"digest" missing`,
		`{"a.vk":{"cid":"Qm","digest":"0011","sector_size":2048}}`:                                `"digest" "0011"`,
		`{"a.vk":{"cid":"Qm","digest":"00112233445566778899AABBCCDDEEFF","sector_size":2048}}`:    `lowercase hex`,
		`{"a.vk":{"cid":"Qm","digest":"00112233445566778899aabbccddeeff"}}`:                       `"sector_size" missing`,
		`{"../a.vk":{"cid":"Qm","digest":"00112233445566778899aabbccddeeff","sector_size":2048}}`: `not a plain file name`,
		`[1,2]`: `parse manifest`,
	}
	for in, want := range cases {
		_, err := ParseManifest(strings.NewReader(in))
		require.ErrorContains(t, err, want, in)
	}
	_, err := ParseManifest(strings.NewReader(`{"a":` + strings.Repeat(" ", maxManifestBytes) + `}`))
	require.ErrorContains(t, err, "larger than")
	_, err = Open(WithManifest(Manifest{}))
	require.ErrorContains(t, err, "empty manifest")
}
