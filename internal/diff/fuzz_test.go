package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
)

// FuzzParse feeds Parse arbitrary patches, starting from the real git fixtures. Whatever it
// accepts must be numbered consistently, since the hunk index and every anchored comment trust
// those numbers; whatever it rejects must be rejected with an error, never a panic.
func FuzzParse(f *testing.F) {
	patches, err := filepath.Glob(filepath.Join("testdata", "*.patch"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range patches {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, patch []byte) {
		files, err := Parse(patch)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parse diff: ") {
				t.Fatalf("error not wrapped: %v", err)
			}
			return
		}
		for i, file := range files {
			if err := checkNumbering(file); err != nil {
				t.Fatalf("file %d (%q): %v", i, file.Path(), err)
			}
		}
		ix := NewIndex(files)
		for _, file := range files {
			for _, h := range file.Hunks {
				for _, l := range h.Lines {
					checkLookup(t, ix, files, file.Path(), finding.Left, l.Old)
					checkLookup(t, ix, files, file.Path(), finding.Right, l.New)
				}
			}
		}
		// A head of a few lines, shorter than many hunks claim, exercises the clipping of
		// extra context.
		head := func(string) []string { return []string{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"} }
		if out := RenderAll(files, head, 3); out != RenderAll(files, head, 3) {
			t.Fatal("Render is not deterministic")
		}
	})
}

// checkNumbering verifies the invariants Parse promises for one file.
func checkNumbering(f File) error {
	if f.Path() == "" {
		return fmt.Errorf("no path")
	}
	if f.Status == Added && f.OldPath != "" || f.Status == Deleted && f.NewPath != "" {
		return fmt.Errorf("status %s with old path %q and new path %q", f.Status, f.OldPath, f.NewPath)
	}
	added, deleted := 0, 0
	for hi, h := range f.Hunks {
		if len(h.Lines) == 0 {
			return fmt.Errorf("hunk %d has no lines", hi)
		}
		nextOld, nextNew := h.OldStart, h.NewStart
		for li, l := range h.Lines {
			switch l.Op {
			case Context:
				if l.Old != nextOld || l.New != nextNew {
					return fmt.Errorf("hunk %d line %d: context numbered %d/%d, want %d/%d", hi, li, l.Old, l.New, nextOld, nextNew)
				}
				nextOld++
				nextNew++
			case Delete:
				if l.Old != nextOld || l.New != 0 {
					return fmt.Errorf("hunk %d line %d: deletion numbered %d/%d, want %d/0", hi, li, l.Old, l.New, nextOld)
				}
				nextOld++
				deleted++
			case Add:
				if l.New != nextNew || l.Old != 0 {
					return fmt.Errorf("hunk %d line %d: addition numbered %d/%d, want 0/%d", hi, li, l.Old, l.New, nextNew)
				}
				nextNew++
				added++
			default:
				return fmt.Errorf("hunk %d line %d: op %q", hi, li, l.Op)
			}
			if l.Old < 0 || l.New < 0 || (l.Op != Add && l.Old == 0) || (l.Op != Delete && l.New == 0) {
				return fmt.Errorf("hunk %d line %d: numbered %d/%d", hi, li, l.Old, l.New)
			}
		}
		if nextOld-h.OldStart != h.OldLines || nextNew-h.NewStart != h.NewLines {
			return fmt.Errorf("hunk %d: header counts %d/%d, lines count %d/%d", hi, h.OldLines, h.NewLines, nextOld-h.OldStart, nextNew-h.NewStart)
		}
		if hi > 0 {
			prevOld, prevNew := f.Hunks[hi-1].OldStart+f.Hunks[hi-1].OldLines, f.Hunks[hi-1].NewStart+f.Hunks[hi-1].NewLines
			if h.OldLines > 0 && h.OldStart < prevOld || h.NewLines > 0 && h.NewStart < prevNew {
				return fmt.Errorf("hunk %d (-%d,%d +%d,%d) does not follow the previous one", hi, h.OldStart, h.OldLines, h.NewStart, h.NewLines)
			}
		}
	}
	if added != f.Added || deleted != f.Deleted {
		return fmt.Errorf("counts +%d -%d, lines +%d -%d", f.Added, f.Deleted, added, deleted)
	}
	return nil
}

// checkLookup verifies that the index accepts a line a hunk shows. Two files of a fuzzed patch
// may share a path, so the hunk found need only hold the line, not be the one it came from.
func checkLookup(t *testing.T, ix *Index, files []File, path string, side finding.Side, n int) {
	t.Helper()
	if n == 0 {
		return
	}
	pos, ok := ix.Lookup(path, side, n)
	if !ok {
		t.Fatalf("Lookup(%q, %s, %d) = false for a line in a hunk", path, side, n)
	}
	for _, l := range files[pos.File].Hunks[pos.Hunk].Lines {
		if side == finding.Left && l.Op != Add && l.Old == n || side == finding.Right && l.Op != Delete && l.New == n {
			return
		}
	}
	t.Fatalf("Lookup(%q, %s, %d) = %v, a hunk without that line", path, side, n, pos)
}
