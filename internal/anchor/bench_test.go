package anchor

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

// bigChange is a change at the size the stage must handle quickly: 500 files, 50,000 changed
// lines, 1,000 findings of every kind (exact, mangled whitespace, substring, not found, no
// quote), with hints off by a few lines.
func bigChange() ([]diff.File, []finding.Finding) {
	r := rand.New(rand.NewPCG(1, 2))
	const nFiles, nHunks = 500, 10
	files := make([]diff.File, nFiles)
	for i := range files {
		path := fmt.Sprintf("pkg/mod%03d/file%03d.go", i%37, i)
		f := diff.File{OldPath: path, NewPath: path, Status: diff.Modified}
		old, nw := 1, 1
		for h := 0; h < nHunks; h++ {
			old += 20
			nw += 24
			var lines []string
			for k := 0; k < 3; k++ {
				lines = append(lines, " \t"+codeLine(r))
			}
			for k := 0; k < 3; k++ {
				lines = append(lines, "-\t"+codeLine(r))
			}
			for k := 0; k < 7; k++ {
				lines = append(lines, "+\t"+codeLine(r))
			}
			lines = append(lines, " \treturn nil", " }")
			hk := hunk(old, nw, lines...)
			f.Hunks = append(f.Hunks, hk)
			old += hk.OldLines
			nw += hk.NewLines
			f.Added += 7
			f.Deleted += 3
		}
		files[i] = f
	}
	fs := make([]finding.Finding, 1000)
	for i := range fs {
		file := files[r.IntN(nFiles)]
		h := file.Hunks[r.IntN(nHunks)]
		var right []diff.Line
		for _, l := range h.Lines {
			if l.Op != diff.Delete {
				right = append(right, l)
			}
		}
		n := 1 + r.IntN(3)
		at := r.IntN(len(right) - n + 1)
		var quote []string
		for _, l := range right[at : at+n] {
			quote = append(quote, l.Text)
		}
		g := finding.Finding{
			Lenses: []string{"correctness"}, Path: file.Path(), Side: finding.Right,
			Line: right[at+n-1].New + r.IntN(11) - 5, Severity: finding.Medium, Title: "t", Body: "b",
		}
		switch k := r.IntN(20); {
		case k < 12:
			g.Quote = strings.Join(quote, "\n")
		case k < 15:
			g.Quote = strings.ReplaceAll(strings.Join(quote, "\n"), "\t", "    ")
		case k < 17:
			g.Quote = strings.TrimSpace(quote[0])
			if len(g.Quote) > 16 {
				g.Quote = g.Quote[2:]
			}
		case k < 19:
			g.Quote = "\tnot(in, the, diff)"
		default:
			g.Line = right[at].New
		}
		fs[i] = g
	}
	return files, fs
}

var identifiers = []string{"ctx", "req", "resp", "user", "id", "err", "cfg", "buf", "n", "items", "store", "cache"}

func codeLine(r *rand.Rand) string {
	a, b, c := identifiers[r.IntN(len(identifiers))], identifiers[r.IntN(len(identifiers))], identifiers[r.IntN(len(identifiers))]
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("%s, err := s.%s.Get(%s, %d)", a, b, c, r.IntN(1000))
	case 1:
		return fmt.Sprintf("if %s == nil { return fmt.Errorf(\"load %s: %%w\", %s) }", a, b, c)
	case 2:
		return fmt.Sprintf("%s.%s = append(%s.%s, %s)", a, b, a, b, c)
	default:
		return fmt.Sprintf("log.Printf(\"%s %s=%%v\", %s)", a, b, c)
	}
}

func TestBigChange(t *testing.T) {
	t.Parallel()

	files, fs := bigChange()
	out, st := Anchor(files, fs)
	checkInvariants(t, files, fs, out)
	indexed, _ := anchorAll(files, fs, 0)
	if diff := cmp.Diff(out, indexed); diff != "" {
		t.Errorf("indexed search differs (-scan +indexed):\n%s", diff)
	}
	// Roughly 90% of the synthetic findings are findable.
	if st.Anchored < 850 || st.OtherNotes < 50 {
		t.Errorf("stats %+v", st)
	}
}

func BenchmarkAnchor(b *testing.B) {
	files, fs := bigChange()
	b.ReportAllocs()
	for b.Loop() {
		Anchor(files, fs)
	}
}
