package devsetup

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// WriteInsecureSetup runs InsecureSetup(shape, tw, opts...) and writes its parameters to path
// in bellperson's encoding, byte for byte what the Parameters' WriteParametersFile writes (the
// verifying key, then the H, L, A, B_G1 and B_G2 sections: prover/params.go), without holding
// the parameters: each chunk of points (pointChunk, 2^24) is encoded and written as soon as it
// is made. The heap then holds, besides the shape, at most the Lagrange basis and the three
// evaluations at τ during the evaluation (32 bytes × (m + 3 × variables)), and afterwards the
// scalars of the sections not yet written (each section's are dropped once it is written) with
// one chunk of points.
//
// INSECURE, as InsecureSetup: whoever holds tw can forge proofs with the file.
//
// The file is written atomically (internal/atomicfile: a temporary file in the same directory,
// synced and renamed over path, replacing any file there, permission 0644); on error path is
// unchanged and no temporary file remains. Progress stages are InsecureSetup's.
func WriteInsecureSetup(path string, shape *synth.Shape, tw ToxicWaste, opts ...Option) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := StreamInsecureSetup(w, shape, tw, opts...)
		return err
	}, atomicfile.Overwrite())
	if err != nil {
		return fmt.Errorf("write insecure setup %s: %w", path, err)
	}
	return nil
}

// StreamInsecureSetup is WriteInsecureSetup onto w, which it does not close or sync, and
// returns the verifying key it wrote (the file's first section), for a caller that also
// writes the key on its own. INSECURE, as InsecureSetup.
func StreamInsecureSetup(w io.Writer, shape *synth.Shape, tw ToxicWaste, opts ...Option) (*prover.VerifyingKey, error) {
	fs := &fileSink{w: bufio.NewWriterSize(w, 1<<20)}
	if err := generate(shape, tw, collect(opts), fs, pointChunk); err != nil {
		return nil, err
	}
	if err := fs.w.Flush(); err != nil {
		return nil, err
	}
	return fs.vk, nil
}

// fileSink encodes a setup's output as a bellperson parameters file.
type fileSink struct {
	w       *bufio.Writer
	vk      *prover.VerifyingKey // the key written
	section string
	buf     []byte
}

func (s *fileSink) verifyingKey(vk *prover.VerifyingKey) error {
	s.vk = vk
	if _, err := vk.WriteTo(s.w); err != nil {
		return fmt.Errorf("write verifying key: %w", err)
	}
	return nil
}

// begin writes section's u32-BE point count.
func (s *fileSink) begin(section string, n int) error {
	s.section = section
	if uint64(n) > math.MaxUint32 {
		return fmt.Errorf("parameters section %q: %d points exceed the u32 count", section, n)
	}
	var cnt [4]byte
	binary.BigEndian.PutUint32(cnt[:], uint32(n))
	if _, err := s.w.Write(cnt[:]); err != nil {
		return fmt.Errorf("write parameters section %q: %w", section, err)
	}
	return nil
}

// encodeBatch is the number of points encoded into the buffer before it is written.
const encodeBatch = 1 << 16

func (s *fileSink) g1(pts []bls12381.G1Affine) error {
	return s.write(len(pts), prover.G1UncompressedSize, func(dst []byte, lo, hi int) { prover.EncodeG1Points(dst, pts[lo:hi]) })
}

func (s *fileSink) g2(pts []bls12381.G2Affine) error {
	return s.write(len(pts), prover.G2UncompressedSize, func(dst []byte, lo, hi int) { prover.EncodeG2Points(dst, pts[lo:hi]) })
}

// write encodes n points of size bytes each with encode (points lo … hi−1 into dst, in the
// encoding bellperson reads), encodeBatch at a time, and writes them in order.
func (s *fileSink) write(n, size int, encode func(dst []byte, lo, hi int)) error {
	for lo := 0; lo < n; lo += encodeBatch {
		hi := min(lo+encodeBatch, n)
		need := (hi - lo) * size
		if cap(s.buf) < need {
			s.buf = make([]byte, need)
		}
		encode(s.buf[:need], lo, hi)
		if _, err := s.w.Write(s.buf[:need]); err != nil {
			return fmt.Errorf("write parameters section %q: %w", s.section, err)
		}
	}
	return nil
}
