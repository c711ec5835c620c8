package gpu

import "testing"

// TestShiftTableMode: the modes' names parse back to them, the boolean spellings too, and
// anything else is refused.
func TestShiftTableMode(t *testing.T) {
	for _, m := range []ShiftTableMode{ShiftTableOff, ShiftTableOn, ShiftTableAuto} {
		if got, err := ParseShiftTableMode(m.String()); err != nil || got != m {
			t.Fatalf("%v: parsed back as %v (err %v)", m, got, err)
		}
	}
	for in, want := range map[string]ShiftTableMode{"true": ShiftTableOn, "false": ShiftTableOff} {
		if got, err := ParseShiftTableMode(in); err != nil || got != want {
			t.Fatalf("%q: got %v (err %v), want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "On", "yes", "1"} {
		if _, err := ParseShiftTableMode(in); err == nil {
			t.Fatalf("%q parsed", in)
		}
	}
}

// TestAutoShiftNeed: ShiftTableAuto asks for the table (96 bytes a point) and a quarter more
// (autoTableNeed): 15 GiB at a 32 GiB PoRep partition's 2^27 − 1 points, less 120 bytes.
func TestAutoShiftNeed(t *testing.T) {
	const n = 1<<27 - 1
	need := autoTableNeed(uint64(n) * g1AffineBytes)
	if want := uint64(n) * 96 * 5 / 4; need != want {
		t.Fatalf("autoTableNeed(2^27 − 1 points) = %d, want %d", need, want)
	}
	if g := gib(need); g != 15 {
		t.Fatalf("%v GiB, want 15", g)
	}
}
