package gpu

import (
	"cmp"
	"log/slog"
	"slices"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// The tables a ProverDevice builds on its own — H's shift table under ShiftTableAuto, the pair
// tables SetPairTables asks for, the NTT table — give their memory back when an SRS upload or a
// partition's buffers lack room: the least valuable first, and only as many as the allocation
// needs, so that a device that proves several circuits keeps the tables that save the most. A
// table freed for room is not built again for its SRS (the NTT table: not again on the device).

// autoTable is one table a ProverDevice built on its own, as freeAutoTables sees it.
type autoTable struct {
	name  string // what the logs call it
	rank  int    // the freeing order: rankPairL … rankShift
	srs   string // its SRS's identity; "" for the NTT table
	bytes uint64
	free  func() (bool, error) // frees it; false when it was gone already
}

// The freeing order (autoTable.rank) follows the device time a GiB of each table saves a PoRep
// partition (docs/gpu-kernels.md): the pair tables ≈ 1.1 ms (L), 1.4 (A), 1.6 (B_G1, B_G2:
// B_G2's G2 additions the dearest), the NTT table ≈ 2.5, H's shift table ≈ 3.3. The least
// valuable comes first.
const (
	rankPairL = iota
	rankPairA
	rankPairBG1
	rankPairBG2
	rankNTT
	rankShift
)

// pairTableRank is the rank of sec's pair table.
func pairTableRank(sec primitive.Section) int {
	switch sec {
	case primitive.SectionL:
		return rankPairL
	case primitive.SectionA:
		return rankPairA
	case primitive.SectionBG1:
		return rankPairBG1
	}
	return rankPairBG2
}

// autoTables returns the tables the device built on its own, least valuable first (the ranks
// above), by SRS identity within a rank.
func (p *ProverDevice) autoTables() []autoTable {
	p.mu.Lock()
	all := make([]*SRS, 0, len(p.srs))
	for _, s := range p.srs {
		all = append(all, s)
	}
	var tables []autoTable
	for _, s := range all {
		if s.autoShift {
			tables = append(tables, autoTable{name: "H shift table", rank: rankShift,
				srs: s.id, bytes: uint64(s.h.Len()) * g1AffineBytes, free: p.autoShiftFree(s)})
		}
	}
	if p.nttTableBytes > 0 {
		tables = append(tables, autoTable{name: "NTT table", rank: rankNTT, bytes: p.nttTableBytes,
			free: func() (bool, error) {
				n, err := p.freeNTTTable()
				return n > 0, err
			}})
	}
	p.mu.Unlock()
	for _, s := range all {
		for _, pb := range s.pairedBases() {
			if !pb.b.hasPairTable() {
				continue
			}
			size := g1AffineBytes
			if pb.b.group == 2 {
				size = g2AffineBytes
			}
			b := pb.b
			tables = append(tables, autoTable{name: pb.sec.String() + " pair table", rank: pairTableRank(pb.sec),
				srs: s.id, bytes: uint64(b.n/2) * size, free: func() (bool, error) { return b.hasPairTable(), b.dropPairTable() }})
		}
	}
	sortAutoTables(tables)
	return tables
}

// sortAutoTables sorts tables into the order freeAutoTables frees them.
func sortAutoTables(tables []autoTable) {
	slices.SortStableFunc(tables, func(a, b autoTable) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.srs, b.srs))
	})
}

// autoShiftFree returns the function that frees s's automatic shift table.
func (p *ProverDevice) autoShiftFree(s *SRS) func() (bool, error) {
	return func() (bool, error) {
		p.mu.Lock()
		had := s.autoShift
		s.autoShift = false
		p.mu.Unlock()
		if !had {
			return false, nil
		}
		if err := s.h.DropShiftTable(); err != nil {
			return false, err
		}
		p.mu.Lock()
		p.times.ShiftTablesDropped++
		p.mu.Unlock()
		return true, nil
	}
}

// freeAutoTables frees the tables the device built on its own, least valuable first, until the
// device's free memory is at least need, and at least one (the caller saw an allocation fail);
// each is freed once no kernel reads it. It returns how many it freed: 0 when none was left.
func (p *ProverDevice) freeAutoTables(need uint64) int {
	freed := 0
	for _, t := range p.autoTables() {
		if freed > 0 {
			if props, err := p.dev.Properties(); err == nil && props.FreeMem >= need {
				break
			}
		}
		ok, err := t.free()
		args := []any{"table_gib", gib(t.bytes)}
		if t.srs != "" {
			args = append(args, "srs", t.srs)
		}
		switch {
		case err != nil:
			p.logDevice(slog.LevelWarn, t.name+": free failed", append(args, "err", err)...)
		case ok:
			freed++
			p.logDevice(slog.LevelInfo, t.name+" freed for room", args...)
		}
	}
	return freed
}
