package gpu

import (
	"context"
	"fmt"
	"log/slog"
)

// nttTableMaxLog is the largest table KeepNTTTable builds: ω_{2^28}'s powers below 2^27, which
// serve every transform up to 2^27 (the ω_{2n} coset's included). nttTableMinLog is the smallest
// transform that reads it: those up to 2^20 run in two passes, whose one diagonal carries an
// inverse's n⁻¹ in a table of its own.
const (
	nttTableMaxLog = MaxLogNTT - 1
	nttTableMinLog = 21
)

// NTTTableBytes is the device memory of the table KeepNTTTable(logN) keeps: 32·2^min(logN, 27)
// bytes (4 GiB for 2^27).
func NTTTableBytes(logN int) uint64 {
	return uint64(32) << min(logN, nttTableMaxLog)
}

// KeepNTTTable makes the device keep a table of NTTTableBytes(logN) with which every transform
// of 2^21 (nttTableMinLog) up to 2^logN reads the twiddle factors between its first two passes in one
// lookup instead of computing each from two lookups and a product: about 1.8 ms less a
// transform at 2^27 on an H200 (of 40). A call for a size the table covers already does
// nothing; a larger one replaces it. It stays until DropNTTTable or the end of the process.
func (d *Device) KeepNTTTable(logN int) error {
	if logN < 1 || logN > MaxLogNTT {
		return fmt.Errorf("gpu: ntt table for 2^%d: log size must be in [1, %d]", logN, MaxLogNTT)
	}
	if err := d.lib.b.nttTable(d.index, logN); err != nil {
		return fmt.Errorf("gpu: ntt table for 2^%d (%.2f GiB): %w", logN, float64(NTTTableBytes(logN))/(1<<30), err)
	}
	return nil
}

// DropNTTTable frees the device's table of KeepNTTTable, if any, once the transforms that read
// it have run (it waits for the device's work).
func (d *Device) DropNTTTable() error {
	if err := d.lib.b.nttTable(d.index, 0); err != nil {
		return fmt.Errorf("gpu: free ntt table: %w", err)
	}
	return nil
}

// keepNTTTable decides, at its device's first quotient of 2^logN, whether to keep the NTT table
// (Device.KeepNTTTable): when roomFor finds the room. Later
// partitions' buffers and SRS uploads that lack room free it again (freeAutoTables). The caller
// holds the kernel lock. A failure is logged, not returned: the transforms run without it.
func (p *ProverDevice) keepNTTTable(logN int) {
	p.mu.Lock()
	decided := p.nttDecided
	p.nttDecided = true
	p.mu.Unlock()
	if decided || logN < nttTableMinLog {
		return
	}
	bytes := NTTTableBytes(logN)
	free, pool, ok := p.roomFor("NTT table", bytes)
	if !ok {
		return
	}
	if err := p.dev.KeepNTTTable(logN); err != nil {
		p.logDevice(slog.LevelWarn, "NTT table: build failed; none kept", "err", err)
		return
	}
	p.mu.Lock()
	p.nttTableBytes = bytes
	p.mu.Unlock()
	p.logDevice(slog.LevelInfo, "NTT table kept", "log_n", logN, "table_gib", gib(bytes), "free_before_gib", gib(free),
		"pool_gib", gib(pool))
}

// freeNTTTable frees the NTT table keepNTTTable kept, if any, and decides against another; it
// returns the table's size (0: none was kept).
func (p *ProverDevice) freeNTTTable() (uint64, error) {
	p.mu.Lock()
	bytes := p.nttTableBytes
	p.nttDecided, p.nttTableBytes = true, 0
	p.mu.Unlock()
	if bytes == 0 {
		return 0, nil
	}
	return bytes, p.dev.DropNTTTable()
}

// NTTTableBytes returns the device memory of the NTT table the device keeps (0: none).
func (p *ProverDevice) NTTTableBytes() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nttTableBytes
}

// logDevice logs msg about the device with args, when it has a logger.
func (p *ProverDevice) logDevice(level slog.Level, msg string, args ...any) {
	if p.log == nil {
		return
	}
	p.log.Log(context.Background(), level, msg, append([]any{"device", p.dev.Index()}, args...)...)
}
