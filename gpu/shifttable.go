package gpu

import (
	"fmt"
	"log/slog"
	"math"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// ShiftTableMode says when a ProverDevice keeps a shift table of an SRS's H bases
// (G1Bases.AddShiftTable): H's MSM, over 60 % of a PoRep partition's device time, then sums
// about 12 pairs a scalar instead of 13, for 96 bytes a point more of device memory (12 GiB at a
// 32 GiB PoRep partition's 2^27 − 1 points) and 128 doublings a point to build it (≈ 6 s at 2^27
// on an H200).
type ShiftTableMode uint32

const (
	// ShiftTableOff keeps no table.
	ShiftTableOff ShiftTableMode = iota
	// ShiftTableOn builds the table as each SRS is uploaded; an upload without room for the
	// points and the table fails.
	ShiftTableOn
	// ShiftTableAuto builds the table once the device has run AutoTablesAfter of H's MSMs
	// over the SRS, when the workers' buffers and the memory pool that holds the MSMs' scratch
	// have grown to their steady size, if the memory free outside that pool then holds the
	// table and a quarter more (H's MSM takes larger buckets with it; the rest is margin). The
	// build runs under the kernel lock. Such a table gives its memory back: it is freed when an
	// SRS upload or a partition's buffers would not fit otherwise, after the tables that save
	// less a GiB (freeAutoTables), and not built again for that SRS.
	ShiftTableAuto
)

// AutoTablesAfter is the number of H MSMs over an SRS after which a device decides on the tables
// it keeps where it has room (H's shift table under ShiftTableAuto, then the pair tables
// SetPairTables asks for): by the third partition each of two workers has staged a partition
// while the other's MSMs ran, so the workers' buffers and the pool are at their steady size.
const AutoTablesAfter = 3

// String returns "off", "on" or "auto".
func (m ShiftTableMode) String() string {
	switch m {
	case ShiftTableOff:
		return "off"
	case ShiftTableOn:
		return "on"
	case ShiftTableAuto:
		return "auto"
	}
	return fmt.Sprintf("ShiftTableMode(%d)", uint32(m))
}

// ParseShiftTableMode parses "off" or "false", "on" or "true", and "auto".
func ParseShiftTableMode(s string) (ShiftTableMode, error) {
	switch s {
	case "off", "false":
		return ShiftTableOff, nil
	case "on", "true":
		return ShiftTableOn, nil
	case "auto":
		return ShiftTableAuto, nil
	}
	return 0, fmt.Errorf("shift table %q: want off, on or auto", s)
}

// SetShiftTableH sets when this device keeps a shift table of an SRS's H bases (ShiftTableMode).
// ShiftTableOn applies to SRS uploaded from now on; an SRS already resident keeps what it has.
func (p *ProverDevice) SetShiftTableH(m ShiftTableMode) { p.shiftH.Store(uint32(m)) }

// SetLogger makes the device log its decisions on the tables it keeps (ShiftTableAuto, the NTT
// table) to l (default: none). Call it before the device proves.
func (p *ProverDevice) SetLogger(l *slog.Logger) { p.log = l }

func (p *ProverDevice) shiftMode() ShiftTableMode { return ShiftTableMode(p.shiftH.Load()) }

// g1AffineBytes is the size of one G1 point on the device and of one entry of a shift table,
// g2AffineBytes that of one G2 point.
const (
	g1AffineBytes = uint64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2AffineBytes = uint64(unsafe.Sizeof(bls12381.G2Affine{}))
)

// autoTableNeed is the device memory free outside the pool that a ProverDevice asks for before
// it builds a table of its own (ShiftTableAuto's, the NTT table): the table and a quarter more
// (for H's shift table at 2^27 − 1 points 12 GiB and 3 GiB, of which H's larger buckets take
// 1.05).
func autoTableNeed(table uint64) uint64 { return table + table/4 }

// roomFor reports whether the device memory free outside the pool (which keeps the most scratch
// the MSMs and transforms have taken at once, which they will take again) holds
// autoTableNeed(table) for the table named what, and logs why not; args name the table's SRS,
// if any. It returns that free memory and the pool's unused memory.
func (p *ProverDevice) roomFor(what string, table uint64, args ...any) (free, pool uint64, ok bool) {
	props, err := p.dev.Properties()
	if err != nil {
		p.logDevice(slog.LevelWarn, what+": device memory unknown; none built", append(args, "err", err)...)
		return 0, 0, false
	}
	free, pool = props.FreeMem-props.PoolFreeMem, props.PoolFreeMem
	if need := autoTableNeed(table); free < need {
		p.logDevice(slog.LevelInfo, what+": not enough free device memory; none built",
			append(args, "free_gib", gib(free), "pool_gib", gib(pool), "need_gib", gib(need))...)
		return free, pool, false
	}
	return free, pool, true
}

// afterHMSM counts an MSM over s's H bases; at the AutoTablesAfter-th it builds, where roomFor
// finds the room, H's table under ShiftTableAuto and then the pair tables SetPairTables asks for
// (addPairTables), in that order: the shift table saves the most time a GiB. The caller holds
// the kernel lock. A failed build is logged, not returned: the partition's MSMs are done and
// correct.
func (p *ProverDevice) afterHMSM(s *SRS) {
	auto := p.shiftMode() == ShiftTableAuto
	if !auto && !p.pairs.Load() || s.h == nil {
		return
	}
	p.mu.Lock()
	s.hMSMs++
	due := s.hMSMs == AutoTablesAfter
	p.mu.Unlock()
	if !due {
		return
	}
	if auto && !s.h.Shifted() {
		p.addAutoShiftTable(s)
	}
	p.addPairTables(s)
}

// addAutoShiftTable builds s's H shift table under ShiftTableAuto when roomFor finds the room.
func (p *ProverDevice) addAutoShiftTable(s *SRS) {
	table := uint64(s.h.Len()) * g1AffineBytes
	free, pool, ok := p.roomFor("H shift table", table, "srs", s.id)
	if !ok {
		return
	}
	start := time.Now()
	if err := s.h.AddShiftTable(); err != nil {
		p.logf(slog.LevelWarn, "H shift table: build failed; none kept", s, "err", err)
		return
	}
	took := time.Since(start)
	p.mu.Lock()
	s.autoShift = true
	p.times.ShiftTables++
	p.times.ShiftTableBuild += took
	p.mu.Unlock()
	p.logf(slog.LevelInfo, "H shift table built", s, "points", s.h.Len(), "table_gib", gib(table),
		"free_before_gib", gib(free), "pool_gib", gib(pool), "took", took.Round(time.Millisecond))
}

// logf logs msg about s's table with args, when the device has a logger.
func (p *ProverDevice) logf(level slog.Level, msg string, s *SRS, args ...any) {
	p.logDevice(level, msg, append([]any{"srs", s.id}, args...)...)
}

// gib returns b in GiB, rounded to 0.01.
func gib(b uint64) float64 { return math.Round(float64(b)/(1<<30)*100) / 100 }
