package paramcache

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Entry is one file of Filecoin's parameters.json: its IPFS CID, the first 16 bytes of the
// BLAKE2b-512 digest of its contents as 32 lowercase hex characters, and the sector size in bytes
// that the circuit serves.
type Entry struct {
	Name       string
	CID        string
	Digest     string
	SectorSize uint64
}

// Manifest maps a parameter file name (e.g. "v28-proof-of-spacetime-fallback-…-8-0-0-….vk") to
// its entry.
type Manifest map[string]Entry

// maxManifestBytes bounds what ParseManifest reads: the real file is about 12 KB.
const maxManifestBytes = 4 << 20

// lotusParametersJSON is lotus build/proof-params/parameters.json (filecoin-project/lotus; the
// same v28 names and digests as filecoin-ffi's parameters.json, which lists 4 more entries for
// the Poseidon variant of SnapDeals).
//
//go:embed parameters.json
var lotusParametersJSON []byte

// Default returns the v28 manifest that lotus and Curio ship.
func Default() Manifest {
	m, err := ParseManifest(strings.NewReader(string(lotusParametersJSON)))
	if err != nil {
		panic("paramcache: embedded parameters.json: " + err.Error()) // a build defect, not input
	}
	return m
}

// ParseManifest reads a parameters.json: an object whose keys are file names and whose values
// carry "cid", "digest" and "sector_size". Unknown fields are ignored; a missing or malformed
// field is an error naming the file entry and the field.
func ParseManifest(r io.Reader) (Manifest, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("paramcache: read manifest: %w", err)
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("paramcache: manifest larger than %d bytes", maxManifestBytes)
	}
	var raw map[string]struct {
		CID        *string `json:"cid"`
		Digest     *string `json:"digest"`
		SectorSize *uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("paramcache: parse manifest: %w", err)
	}
	m := make(Manifest, len(raw))
	for name, e := range raw {
		switch {
		case name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == "..":
			return nil, fmt.Errorf("paramcache: manifest entry %q: not a plain file name", name)
		case e.CID == nil || *e.CID == "":
			return nil, fmt.Errorf("paramcache: manifest entry %q: field \"cid\" missing", name)
		case e.Digest == nil:
			return nil, fmt.Errorf("paramcache: manifest entry %q: field \"digest\" missing", name)
		case e.SectorSize == nil:
			return nil, fmt.Errorf("paramcache: manifest entry %q: field \"sector_size\" missing", name)
		}
		if b, err := hex.DecodeString(*e.Digest); err != nil || len(b) != digestBytes || *e.Digest != strings.ToLower(*e.Digest) {
			return nil, fmt.Errorf("paramcache: manifest entry %q: field \"digest\" %q is not %d lowercase hex characters", name, *e.Digest, 2*digestBytes)
		}
		m[name] = Entry{Name: name, CID: *e.CID, Digest: *e.Digest, SectorSize: *e.SectorSize}
	}
	return m, nil
}

// Names returns the manifest's file names in sorted order.
func (m Manifest) Names() []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
