package syncbuf

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBufferConcurrent writes from many goroutines while reading (run it under -race): every
// write lands whole.
func TestBufferConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, err := b.Write([]byte("ab"))
				require.NoError(t, err)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	require.Equal(t, strings.Repeat("ab", 800), b.String())
}
