// Package atomicfile writes output files so that a reader, or the system after a crash, sees
// either the old file or the complete new one, never a partial file, and writes pairs of
// files (parameters and verifying key, proof and public inputs) so that a mixed pair is never
// taken for a complete one.
//
// A file is written to a temporary file in the destination's directory, named
// <name>.tmp<digits>, synced, given its permission bits (0644 unless Perm says otherwise;
// the umask is not applied), then moved over the destination, and the directory is synced.
// Without Overwrite an existing destination is refused with an error wrapping fs.ErrExist,
// checked atomically by hard-linking the temporary file into place. On any failure the
// temporary files are removed; RemoveStale removes those a killed process left behind.
//
// Usage:
//
//	err := atomicfile.Write("circuit.params", func(w io.Writer) error {
//		_, err := params.WriteTo(w)
//		return err
//	})
//	err = atomicfile.WritePair(
//		atomicfile.File{Path: "circuit.params", Fill: writeParams},
//		atomicfile.File{Path: "circuit.vk", Data: vkBytes},
//		atomicfile.Overwrite())
//	fp, fv, err := atomicfile.OpenPair("circuit.params", "circuit.vk")
package atomicfile
