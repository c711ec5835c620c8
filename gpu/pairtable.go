package gpu

import (
	"log/slog"
	"time"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// SetPairTables sets whether this device keeps pair tables (G1Bases.AddPairTable,
// G2Bases.AddPairTable) of each SRS's B_G2, B_G1, A and L bases, whose MSMs sum a witness's
// bits: a quarter fewer additions for their ones, for half those bases' memory (3.0, 1.5, 5.8
// and 5.8 GiB at the full 32 GiB PoRep partition). The device decides on them after
// AutoTablesAfter H MSMs over the SRS, once its workers' buffers and its pool have their steady
// size and after H's shift table under ShiftTableAuto: each is built, in that order, where the
// memory free outside the pool holds it and a quarter more (roomFor), and freed, the least
// valuable of the tables the device builds on its own (freeAutoTables), when an SRS upload or a
// partition's buffers lack room (not built again for that SRS). Set it before the device proves.
func (p *ProverDevice) SetPairTables(on bool) { p.pairs.Store(on) }

// addPairTables builds the pair tables SetPairTables asks for of s's bases, each where roomFor
// finds the room; a failed build is logged, not returned (the MSMs are right without it). The
// caller holds the kernel lock.
func (p *ProverDevice) addPairTables(s *SRS) {
	if !p.pairs.Load() {
		return
	}
	for _, pb := range s.pairedBases() {
		size := g1AffineBytes
		if pb.b.group == 2 {
			size = g2AffineBytes
		}
		table := uint64(pb.b.n/2) * size
		name := pb.sec.String() + " pair table"
		free, pool, ok := p.roomFor(name, table, "srs", s.id)
		if !ok {
			continue
		}
		start := time.Now()
		if err := pb.b.addPairTable(); err != nil {
			p.logf(slog.LevelWarn, name+": build failed; none kept", s, "err", err)
			continue
		}
		p.logf(slog.LevelInfo, name+" built", s, "points", pb.b.n, "table_gib", gib(table),
			"free_before_gib", gib(free), "pool_gib", gib(pool), "took", time.Since(start).Round(time.Millisecond))
	}
}

// pairedBase is one section's bases that SetPairTables pairs.
type pairedBase struct {
	sec primitive.Section
	b   *bases
}

// pairedBases returns s's bases that SetPairTables pairs, those it has of two points or more, in
// the order they are built: by the time a GiB of table saves (B_G2's G2 additions first), then
// by size.
func (s *SRS) pairedBases() []pairedBase {
	var out []pairedBase
	for _, pb := range []pairedBase{
		{primitive.SectionBG2, s.b2.shared()},
		{primitive.SectionBG1, s.b1.shared()},
		{primitive.SectionA, s.a.shared()},
		{primitive.SectionL, s.l.shared()},
	} {
		if pb.b != nil && pb.b.n >= 2 {
			out = append(out, pb)
		}
	}
	return out
}
