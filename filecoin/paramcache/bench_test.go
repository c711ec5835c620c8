package paramcache

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDigest hashes a 64 MiB file as Path does for a parameter file (b.SetBytes: MB/s).
func BenchmarkDigest(b *testing.B) {
	const size = 64 << 20
	path := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		b.Fatal(err)
	}
	c, err := Open(WithDir(b.TempDir()), WithMemoFile("-"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.digest(context.Background(), path, "f", size); err != nil {
			b.Fatal(err)
		}
	}
}
