package prover_test

import (
	"context"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func TestVerifyAssembled(t *testing.T) {
	ctx := context.Background()
	c := &circuits.Scalable{Constraints: 50, Inputs: 2, Seed: 9}
	shape, params := setupFor(t, c)
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	require.NoError(t, err)
	var assembled []byte
	var inputs [][]fr.Element
	for part := range 3 {
		c.Partition = part
		asg, err := synth.Synthesize(ctx, shape, c)
		require.NoError(t, err)
		proof, err := prover.ProvePartition(ctx, params, asg)
		require.NoError(t, err)
		b := proof.Bytes()
		assembled = append(assembled, b[:]...)
		inputs = append(inputs, c.PublicInputs())
	}
	require.NoError(t, prover.VerifyAssembled(pvk, assembled, inputs))

	swapped := [][]fr.Element{inputs[0], inputs[2], inputs[1]}
	err = prover.VerifyAssembled(pvk, assembled, swapped)
	require.ErrorIs(t, err, prover.ErrInvalidProof)
	require.ErrorContains(t, err, "partition 1")

	require.ErrorContains(t, prover.VerifyAssembled(pvk, assembled[:400], inputs), "not a positive multiple of 192")
	require.ErrorContains(t, prover.VerifyAssembled(pvk, assembled, inputs[:2]), "3 partition proofs for 2")
	bad := append([]byte(nil), assembled...)
	bad[prover.ProofSize] ^= 0xff
	require.ErrorContains(t, prover.VerifyAssembled(pvk, bad, inputs), "partition 1 (bytes 192 to 384)")
}

func TestPublicInputsJSONRoundTrip(t *testing.T) {
	var rMinus1 fr.Element
	rMinus1.SetOne().Neg(&rMinus1)
	in := [][]fr.Element{{fr.NewElement(12), fr.NewElement(34)}, {fr.NewElement(0), rMinus1}, {}}
	b, err := prover.MarshalPublicInputs(in)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), `[["12","34"],["0","5243587517512619047944774050818596583769055250052763782260365869993858118`), string(b))
	out, err := prover.UnmarshalPublicInputs(b)
	require.NoError(t, err)
	require.Equal(t, in, out)
}

func TestPublicInputsJSONStrict(t *testing.T) {
	r := fr.Modulus().String()
	huge := strings.Repeat("9", 10000)
	for name, tc := range map[string]struct{ json, want string }{
		"plus sign":     {`[["+1"]]`, `partition 0 input 0: "+1": not a decimal integer`},
		"minus sign":    {`[["-1"]]`, `not a decimal integer`},
		"leading zero":  {`[["1"],["007"]]`, `partition 1 input 0: "007": leading zero`},
		"empty":         {`[[""]]`, `empty`},
		"modulus":       {`[["` + r + `"]]`, `not below the field modulus`},
		"hex":           {`[["0x10"]]`, `leading zero`},
		"underscore":    {`[["1_000"]]`, `not a decimal integer`},
		"space":         {`[[" 1"]]`, `not a decimal integer`},
		"number":        {`[[1]]`, `partition 0: want an array of decimal strings`},
		"null":          {`null`, `got null`},
		"null part":     {`[null]`, `partition 0: want an array of decimal strings: got null`},
		"not an array":  {`{"a":1}`, `want a JSON array`},
		"trailing data": {`[["1"]] x`, `want a JSON array`},
		"huge":          {`[["` + huge + `"]]`, `"99999999999999999999…": 10000 characters`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := prover.UnmarshalPublicInputs([]byte(tc.json))
			require.ErrorContains(t, err, tc.want)
			require.Less(t, len(err.Error()), 300, "the error must not echo a huge value")
		})
	}
	out, err := prover.UnmarshalPublicInputs([]byte(`[["0"],[]]`))
	require.NoError(t, err)
	require.Equal(t, [][]fr.Element{{{}}, {}}, out)
}
