package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/anchor"
	"github.com/council-dev/council/internal/consolidate"
	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/plan"
)

// syntheticPatch is a git patch of files modified files with hunks of added lines: 100 lines per
// file in 10 hunks of 10, each with 3 context lines on either side.
func syntheticPatch(files, linesPerFile int) []byte {
	var b strings.Builder
	const perHunk = 10
	for f := 0; f < files; f++ {
		p := fmt.Sprintf("pkg%03d/file%03d.go", f%50, f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", p, p, p, p)
		old := 1
		added := 0
		for h := 0; h < linesPerFile/perHunk; h++ {
			newStart := old + added
			fmt.Fprintf(&b, "@@ -%d,6 +%d,%d @@ func f%d()\n", old, newStart, 6+perHunk, h)
			for i := 0; i < 3; i++ {
				fmt.Fprintf(&b, " \tctx := %d // file %d hunk %d\n", old+i, f, h)
			}
			for i := 0; i < perHunk; i++ {
				fmt.Fprintf(&b, "+\tvalue%d_%d := compute(%d, %q)\n", h, i, f, p)
			}
			for i := 3; i < 6; i++ {
				fmt.Fprintf(&b, " \tctx := %d // file %d hunk %d\n", old+i, f, h)
			}
			added += perHunk
			old += 40
		}
	}
	return []byte(b.String())
}

// syntheticFindings quote lines of the patch, with hints a few lines off, from three reviewers,
// half of them raised twice so consolidation has work to do.
func syntheticFindings(files []diff.File, n int) []finding.Finding {
	reviewers := []string{"correctness", "security", "maintainability"}
	var out []finding.Finding
	for i := 0; len(out) < n; i++ {
		f := files[(i*7)%len(files)]
		h := f.Hunks[i%len(f.Hunks)]
		l := h.Lines[3+i%10]
		fd := finding.Finding{
			Lenses: []string{reviewers[i%3]}, Path: f.Path(), Line: l.New + 3, Side: finding.Right,
			Quote: l.Text, Severity: finding.Medium, Category: "bug",
			Title: fmt.Sprintf("value %d is computed twice", i), Body: "The value is computed twice; compute it once.",
			Confidence: 0.8,
		}
		out = append(out, fd)
		if i%2 == 0 && len(out) < n {
			dup := fd
			dup.Lenses = []string{reviewers[(i+1)%3]}
			out = append(out, dup)
		}
	}
	return out
}

// BenchmarkPurePipeline runs the pure stages on a change of 500 files and 50,000 changed lines
// with 1,000 findings: parse, index, plan, render, anchor, consolidate.
func BenchmarkPurePipeline(b *testing.B) {
	patch := syntheticPatch(500, 100)
	files, err := diff.Parse(patch)
	if err != nil {
		b.Fatal(err)
	}
	fs := syntheticFindings(files, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		files, err := diff.Parse(patch)
		if err != nil {
			b.Fatal(err)
		}
		_ = diff.NewIndex(files)
		p := plan.Make(files, plan.Options{ExtraContext: 10})
		for _, u := range p.Units {
			_ = diff.RenderAll(u.Files, func(string) []string { return nil }, 10)
		}
		anchored, st := anchor.Anchor(files, fs)
		if st.Anchored != len(fs) {
			b.Fatalf("anchored %d of %d findings", st.Anchored, len(fs))
		}
		_, _ = consolidate.Consolidate(anchored, consolidate.Options{})
	}
}

func TestSyntheticChangeShape(t *testing.T) {
	t.Parallel()
	files, err := diff.Parse(syntheticPatch(500, 100))
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for _, f := range files {
		added += f.Added
	}
	if len(files) != 500 || added != 50000 {
		t.Fatalf("synthetic change has %d files and %d added lines, want 500 and 50000", len(files), added)
	}
	fs := syntheticFindings(files, 1000)
	anchored, st := anchor.Anchor(files, fs)
	if st.Anchored != len(fs) {
		t.Fatalf("anchored %d of %d", st.Anchored, len(fs))
	}
	out, cst := consolidate.Consolidate(anchored, consolidate.Options{})
	if cst.Merged == 0 || len(out) >= len(fs) {
		t.Fatalf("consolidate merged %d, kept %d of %d: the duplicates should merge", cst.Merged, len(out), len(fs))
	}
}
