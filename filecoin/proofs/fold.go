package proofs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// A registered proof type's parameters can be proved folded (prover.FoldC: C folded into L, H on
// the quotient's coset; a partition then needs no C·w and four transforms instead of six; the
// proofs are the same bytes). The fold belongs to the parameters file and the circuit together;
// it is made once, into a fold overlay (prover.FoldParametersOverlay: the inputs' points, L' and
// K, 24 GiB beside a 32 GiB PoRep's 47 GiB file), and mapped over the parameters file at each
// start.

// foldSuffix replaces ".params" in the name of a type's fold overlay.
const foldSuffix = ".cuzk-fold"

// Shape returns the compiled circuit of pi's type, compiled on first use and kept (SealShape,
// PoStCircuitShape, UpdateCircuitShape).
func (pi ProofInfo) Shape() (*synth.Shape, error) {
	if pi.shape == nil {
		return nil, fmt.Errorf("proofs: %s: no circuit (a ProofInfo not made by this package)", pi.Name)
	}
	return pi.shape()
}

// FoldFile returns the name of the fold overlay of pi's parameters: ParamsFile with ".params"
// replaced by ".cuzk-fold".
func (pi ProofInfo) FoldFile() string {
	return strings.TrimSuffix(pi.ParamsFile, ".params") + foldSuffix
}

// FoldParameters makes the fold overlay of pi's parameters and writes it to dir/FoldFile(),
// replacing any file there atomically: it maps the parameters file from the cache (its digest
// checked against the manifest), compiles the circuit and folds (prover.FoldParametersOverlay
// with opts: FoldWithProgress reports the stages). The fold is two transforms over H's points,
// m/2·log m + m point multiplications each for a domain of m: seconds for the 2 KiB circuits,
// hours on the CPU at 32 GiB. It holds on the heap H, its two transforms G and K, L and L' (96
// bytes a point each; 12 GiB each at a 32 GiB PoRep, plus 18 GiB of Jacobian points while the
// CPU transforms), C by columns and the circuit's shape. Cancelling ctx stops it and leaves no
// file. It returns the overlay's path.
func (pi ProofInfo) FoldParameters(ctx context.Context, c *paramcache.Cache, dir string, opts ...prover.FoldOption) (string, error) {
	shape, err := pi.Shape()
	if err != nil {
		return "", err
	}
	base, err := pi.OpenParameters(ctx, c, prover.Unchecked)
	if err != nil {
		return "", err
	}
	defer base.Close()
	path := filepath.Join(dir, pi.FoldFile())
	if err := prover.FoldParametersOverlay(ctx, base, shape, path, opts...); err != nil {
		return "", fmt.Errorf("%s: %w", pi.Name, err)
	}
	return path, nil
}

// ErrNoFold is wrapped by OpenFold's error when dir holds no fold overlay of the type's
// parameters.
var ErrNoFold = errors.New("no fold overlay")

// OpenFold maps the fold overlay dir/FoldFile() over base, pi's parameters file mapped from the
// cache (OpenParameters), and checks that it was folded from that file for pi's circuit
// (prover.OpenFoldOverlay, then prover.CheckParameters: the counts and the digest of C). The
// result proves as base does, the same proof bytes, with two transforms fewer a partition and
// no C·w; it reads L' and K (H on the coset) from the overlay and every other point from base, which must stay open while it is
// used: close the result, then base. An overlay that is missing wraps ErrNoFold; one that is
// damaged, folded from another parameters file or for another circuit is an error naming the
// file and what does not match (make it again with FoldParameters).
func (pi ProofInfo) OpenFold(base *prover.MappedParameters, dir string, mode prover.DecodeMode) (*prover.MappedParameters, error) {
	path := filepath.Join(dir, pi.FoldFile())
	shape, err := pi.Shape()
	if err != nil {
		return nil, err
	}
	folded, err := prover.OpenFoldOverlay(base, path, mode)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: %w", pi.Name, ErrNoFold, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pi.Name, err)
	}
	p, err := folded.Parameters()
	if err == nil {
		err = prover.CheckParameters(p, shape)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: fold overlay %s: %w", pi.Name, path, err), folded.Close())
	}
	return folded, nil
}
