// Package boundedio reads whole inputs with a byte limit, so that a file that is larger than
// its format allows, or endless (a pipe, /dev/zero), costs at most limit+1 bytes of reading
// and memory instead of exhausting them.
//
// Usage:
//
//	b, err := boundedio.ReadFile("inputs.json", 64<<20)
//	if errors.Is(err, boundedio.ErrTooLarge) { … }
package boundedio
