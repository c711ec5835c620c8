package c1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/internal/sectortest"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// sealed2KiB seals a random 2 KiB sector and returns its C1 output.
func sealed2KiB(t *testing.T, p sector.RegisteredSealProof) *SealCommitPhase1Output {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(p)))
	data := sectortest.RandomData(rng, p.SectorSize())
	ticket, seed := [32]byte{7, 7}, [32]byte{9, 9}
	s, err := sdr.Seal(context.Background(), p, [32]byte{1}, 3, ticket, data)
	require.NoError(t, err)
	o, err := Commit1(context.Background(), s, seed)
	require.NoError(t, err)
	return o
}

func TestRoundTrip2KiB(t *testing.T) {
	for _, p := range []sector.RegisteredSealProof{sector.StackedDrg2KiBV1, sector.StackedDrg2KiBV1_1} {
		o := sealed2KiB(t, p)
		raw, err := Marshal(o)
		require.NoError(t, err)
		// serde_json's layout: Rust field order, the V1 variant name, 32-byte values as arrays.
		require.True(t, strings.HasPrefix(string(raw), `{"registered_proof":"`+p.String()+`","vanilla_proofs":{"StackedDrg2KiBV1":[[{"comm_d_proofs":{"data":{"Single":{"root":[`), string(raw[:200]))
		require.Contains(t, string(raw), `"replica_column_proofs":{"c_x":{"column":{"index":`)
		require.Contains(t, string(raw), `,"_h":null},"inclusion_proof":{"data":{"Single":{"root":[`)
		require.Contains(t, string(raw), `],"layer_index":1,"node":`)
		require.Contains(t, string(raw), `"path":{"path":[{"hashes":[[`)
		require.Contains(t, string(raw), `"comm_r":[`)
		got, err := Unmarshal(raw)
		require.NoError(t, err)
		require.Equal(t, o, got)
		again, err := Marshal(got)
		require.NoError(t, err)
		require.True(t, bytes.Equal(raw, again))

		wrapped, err := MarshalCommit2In(1, o)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(wrapped), `{"SectorNum":1,"Phase1Out":"`))
		require.True(t, strings.HasSuffix(string(wrapped), `","SectorSize":2048}`))
		in, got2, err := UnmarshalCommit2In(wrapped)
		require.NoError(t, err)
		require.Equal(t, int64(1), in.SectorNum)
		require.Equal(t, o, got2)
	}
}

// mutate decodes raw into generic JSON, applies f and re-encodes it.
func mutate(t *testing.T, raw []byte, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	f(doc)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

func at(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func TestMalformedNamesField(t *testing.T) {
	o := sealed2KiB(t, sector.StackedDrg2KiBV1_1)
	raw, err := Marshal(o)
	require.NoError(t, err)
	proof := func(doc map[string]any) map[string]any {
		return at(doc, "vanilla_proofs", "StackedDrg2KiBV1", 0, 1).(map[string]any)
	}
	cases := []struct {
		name, field string
		f           func(doc map[string]any)
	}{
		{"unknown proof", "registered_proof", func(d map[string]any) { d["registered_proof"] = "StackedDrg4KiBV1" }},
		{"wrong size", "vanilla_proofs", func(d map[string]any) { d["registered_proof"] = "StackedDrg8MiBV1_1" }},
		{"short comm_r", "comm_r", func(d map[string]any) { d["comm_r"] = d["comm_r"].([]any)[:31] }},
		{"missing seed", "seed", func(d map[string]any) { delete(d, "seed") }},
		{"byte out of range", "ticket", func(d map[string]any) { d["ticket"].([]any)[0] = 256 }},
		{"non-canonical", "replica_id", func(d map[string]any) {
			for i := range 32 {
				d["replica_id"].([]any)[i] = 255
			}
		}},
		{"extra challenge", "vanilla_proofs.StackedDrg2KiBV1[0]", func(d map[string]any) {
			ps := at(d, "vanilla_proofs", "StackedDrg2KiBV1", 0).([]any)
			d["vanilla_proofs"].(map[string]any)["StackedDrg2KiBV1"].([]any)[0] = append(ps, ps[0])
		}},
		{"short data path", "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.path.path", func(d map[string]any) {
			sp := at(proof(d), "comm_d_proofs", "data", "Single", "path").(map[string]any)
			sp["path"] = sp["path"].([]any)[1:]
		}},
		{"bad arity", "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data.Single.path.path[0].hashes", func(d map[string]any) {
			e := at(proof(d), "comm_r_last_proof", "data", "Single", "path", "path", 0).(map[string]any)
			e["hashes"] = e["hashes"].([]any)[1:]
		}},
		{"index past arity", "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data.Single.path.path[1].index", func(d map[string]any) {
			at(proof(d), "comm_r_last_proof", "data", "Single", "path", "path", 1).(map[string]any)["index"] = 8
		}},
		{"sub proof for 2 KiB", "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data", func(d map[string]any) {
			data := at(proof(d), "comm_r_last_proof", "data").(map[string]any)
			single := data["Single"].(map[string]any)
			data["Sub"] = map[string]any{"base_proof": single["path"], "sub_proof": map[string]any{"path": []any{}}, "root": single["root"], "leaf": single["leaf"]}
			delete(data, "Single")
		}},
		{"row count", "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows", func(d map[string]any) {
			c := at(proof(d), "replica_column_proofs", "drg_parents", 3, "column").(map[string]any)
			c["rows"] = c["rows"].([]any)[:1]
		}},
		{"parent count", "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.exp_parents", func(d map[string]any) {
			rc := at(proof(d), "replica_column_proofs").(map[string]any)
			rc["exp_parents"] = rc["exp_parents"].([]any)[:7]
		}},
		{"label parents", "vanilla_proofs.StackedDrg2KiBV1[0][1].labeling_proofs[1].parents", func(d map[string]any) {
			l := at(proof(d), "labeling_proofs", 1).(map[string]any)
			l["parents"] = l["parents"].([]any)[:36]
		}},
		{"unknown field", "(document)", func(d map[string]any) { d["comm_q"] = 1 }},
		// Consistency: values well-formed but not matching.
		{"comm_r", "vanilla_proofs.StackedDrg2KiBV1", func(d map[string]any) { d["comm_r"].([]any)[0] = 1 }},
		{"comm_d", "vanilla_proofs.StackedDrg2KiBV1", func(d map[string]any) { d["comm_d"].([]any)[0] = 1 }},
		{"seed", "vanilla_proofs.StackedDrg2KiBV1", func(d map[string]any) { d["seed"].([]any)[5] = 1 }},
		{"column value", "vanilla_proofs.StackedDrg2KiBV1", func(d map[string]any) {
			at(proof(d), "replica_column_proofs", "c_x", "column", "rows", 0).([]any)[0] = 3
		}},
	}
	for _, c := range cases {
		_, err := Unmarshal(mutate(t, raw, c.f))
		require.Error(t, err, c.name)
		require.ErrorIs(t, err, ErrMalformed, c.name)
		var fe *FieldError
		require.True(t, errors.As(err, &fe), c.name)
		require.Equal(t, c.field, fe.Field, "%s: %v", c.name, err)
		t.Logf("%s: %v", c.name, err)
	}
	_, err = Unmarshal(mutate(t, raw, func(map[string]any) {}))
	require.NoError(t, err)
}

func TestCommit2InSectorSize(t *testing.T) {
	o := sealed2KiB(t, sector.StackedDrg2KiBV1)
	wrapped, err := MarshalCommit2In(5, o)
	require.NoError(t, err)
	bad := bytes.Replace(wrapped, []byte(`"SectorSize":2048`), []byte(`"SectorSize":34359738368`), 1)
	_, _, err = UnmarshalCommit2In(bad)
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "SectorSize", fe.Field)
	_, _, err = UnmarshalCommit2In([]byte(`{"SectorNum":1,"SectorSize":2048}`))
	require.ErrorIs(t, err, ErrMalformed)
}

// TestSyntheticRoundTrip writes and re-reads synthetic C1 outputs: 512 MiB always, 32 GiB
// (10 partitions × 18 challenges, 8-8-0 trees) outside -short.
func TestSyntheticRoundTrip(t *testing.T) {
	ps := []sector.RegisteredSealProof{sector.StackedDrg512MiBV1_1}
	if !testing.Short() {
		ps = append(ps, sector.StackedDrg32GiBV1_1)
	}
	for _, p := range ps {
		o, err := Synthetic(context.Background(), p, [32]byte{42})
		require.NoError(t, err)
		wrapped, err := MarshalCommit2In(1, o)
		require.NoError(t, err)
		_, got, err := UnmarshalCommit2In(wrapped)
		require.NoError(t, err)
		require.Equal(t, o, got)
		raw, err := Marshal(o)
		require.NoError(t, err)
		if p == sector.StackedDrg32GiBV1_1 {
			require.Contains(t, string(raw), `"vanilla_proofs":{"StackedDrg32GiBV1":[[{"comm_d_proofs":{"data":{"Single":`)
			require.Contains(t, string(raw), `"comm_r_last_proof":{"data":{"Sub":{"base_proof":{"path":[`)
			t.Logf("32 GiB C1: %d bytes of JSON, %d wrapped", len(raw), len(wrapped))
		}
	}
}
