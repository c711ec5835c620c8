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

// TestAutoShiftNeed: ShiftTableAuto asks for the table (96 bytes a point) and a quarter more:
// 15 GiB at a 32 GiB PoRep partition's 2^27 − 1 points, less 120 bytes.
func TestAutoShiftNeed(t *testing.T) {
	const n = 1<<27 - 1
	if got, want := autoShiftNeed(n), uint64(n)*96*5/4; got != want {
		t.Fatalf("autoShiftNeed(2^27 − 1) = %d, want %d", got, want)
	}
	if g := gib(autoShiftNeed(n)); g != 15 {
		t.Fatalf("%v GiB, want 15", g)
	}
}
