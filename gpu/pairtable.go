package gpu

import (
	"log/slog"
	"time"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// SetPairTables sets whether this device keeps pair tables (G1Bases.AddPairTable,
// G2Bases.AddPairTable) of each SRS's B_G1 and B_G2 bases, whose MSMs sum a witness's bits: a
// quarter fewer additions for their ones, for half those bases' memory (1.5 and 3.0 GiB at the
// full 32 GiB PoRep partition). They are built after an SRS is uploaded where the memory free
// outside the pool holds each and a quarter more (the rule of ShiftTableAuto), and freed, as the
// tables the device builds on its own, when an SRS upload or a partition's buffers lack room.
// It applies to SRS uploaded from now on.
func (p *ProverDevice) SetPairTables(on bool) { p.pairs.Store(on) }

// addPairTables builds the pair tables SetPairTables asks for of s's B bases, each where roomFor
// finds the room; a failed build is logged, not returned (the MSMs are right without it).
func (p *ProverDevice) addPairTables(s *SRS) {
	if !p.pairs.Load() {
		return
	}
	for _, b := range s.pairedBases() {
		sec, size := primitive.SectionBG1, g1AffineBytes
		if b.group == 2 {
			sec, size = primitive.SectionBG2, g2AffineBytes
		}
		table := uint64(b.n/2) * size
		free, pool, ok := p.roomFor(sec.String()+" pair table", table, "srs", s.id)
		if !ok {
			continue
		}
		start := time.Now()
		if err := b.addPairTable(); err != nil {
			p.logf(slog.LevelWarn, sec.String()+" pair table: build failed; none kept", s, "err", err)
			continue
		}
		p.logf(slog.LevelInfo, sec.String()+" pair table built", s, "points", b.n, "table_gib", gib(table),
			"free_before_gib", gib(free), "pool_gib", gib(pool), "took", time.Since(start).Round(time.Millisecond))
	}
}

// dropPairTables frees the pair tables addPairTables built (each once no MSM over it runs); it
// returns how many it freed.
func (p *ProverDevice) dropPairTables() int {
	p.mu.Lock()
	var all []*SRS
	for _, s := range p.srs {
		all = append(all, s)
	}
	p.mu.Unlock()
	dropped := 0
	for _, s := range all {
		for _, b := range s.pairedBases() {
			if !b.hasPairTable() {
				continue
			}
			if err := b.dropPairTable(); err != nil {
				p.logf(slog.LevelWarn, "pair table: free failed", s, "err", err)
				continue
			}
			dropped++
			p.logf(slog.LevelInfo, "pair table freed for room", s, "group", b.group, "points", b.n)
		}
	}
	return dropped
}

// pairedBases returns s's B_G1 and B_G2 bases, those it has: the bases SetPairTables pairs.
func (s *SRS) pairedBases() []*bases {
	var out []*bases
	for _, b := range []*bases{s.b1.shared(), s.b2.shared()} {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}
