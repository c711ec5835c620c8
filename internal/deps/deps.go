// Package deps pins the module's direct dependencies for go mod tidy while packages are written.
package deps

import (
	_ "github.com/consensys/gnark-crypto/ecc/bls12-381"
	_ "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
)
