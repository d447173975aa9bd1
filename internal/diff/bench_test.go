package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
)

// syntheticPatch writes a git-style patch of files files with hunks hunks each; every hunk
// replaces five lines with five others between three lines of context on each side, so the
// patch changes files*hunks*10 lines.
func syntheticPatch(files, hunks int) []byte {
	var b strings.Builder
	for f := range files {
		path := fmt.Sprintf("pkg%03d/file%03d.go", f/10, f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", path, path)
		fmt.Fprintf(&b, "index %040x..%040x 100644\n", f, f+1)
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
		for h := range hunks {
			start := 1 + h*20
			fmt.Fprintf(&b, "@@ -%d,11 +%d,11 @@ func f%d() {\n", start, start, h)
			for i := range 3 {
				fmt.Fprintf(&b, " \tctx := %d\n", start+i)
			}
			for i := range 5 {
				fmt.Fprintf(&b, "-\told := compute(%d, %d)\n", f, start+3+i)
			}
			for i := range 5 {
				fmt.Fprintf(&b, "+\tnew := compute(%d, %d) + 1\n", f, start+3+i)
			}
			for i := range 3 {
				fmt.Fprintf(&b, " \tctx := %d\n", start+8+i)
			}
		}
	}
	return []byte(b.String())
}

// BenchmarkParseIndex parses and indexes a 500-file patch that changes 50,000 lines, then asks
// the index about one line per hunk.
func BenchmarkParseIndex(b *testing.B) {
	const nFiles, nHunks = 500, 10
	patch := syntheticPatch(nFiles, nHunks)
	b.SetBytes(int64(len(patch)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		files, err := Parse(patch)
		if err != nil {
			b.Fatal(err)
		}
		changed := 0
		for _, f := range files {
			changed += f.Added + f.Deleted
		}
		if len(files) != nFiles || changed != 50_000 {
			b.Fatalf("parsed %d files and %d changed lines, want %d and 50000", len(files), changed, nFiles)
		}
		ix := NewIndex(files)
		for _, f := range files {
			for _, h := range f.Hunks {
				if _, ok := ix.Lookup(f.Path(), finding.Right, h.NewStart+4); !ok {
					b.Fatalf("Lookup(%q, RIGHT, %d) = false", f.Path(), h.NewStart+4)
				}
			}
		}
	}
}

// BenchmarkLookup measures one lookup in the index of the same patch.
func BenchmarkLookup(b *testing.B) {
	files, err := Parse(syntheticPatch(500, 10))
	if err != nil {
		b.Fatal(err)
	}
	ix := NewIndex(files)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, ok := ix.Lookup("pkg025/file250.go", finding.Right, 1+(i%10)*20+5); !ok {
			b.Fatal("lookup failed")
		}
		i++
	}
}
