package diff

import (
	"bytes"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/google/go-cmp/cmp"
)

// indexSetup parses several fixtures as one patch. The files, in order:
//
//	0 long.txt            three hunks: new 2-8, 27-32, 52-58; old 2-8, 27-33, 53-58
//	1 new/demo.go         renamed from old/demo.go; one hunk, old and new 9-13
//	2 pkg/old.go          deleted; old 1-3
//	3 link                deleted (a file that became a symlink); old 1
//	4 link                added (the symlink); new 1
//	5 demo.go             one hunk, old and new 4-10
//	6 copy.go             copied from src.go, no hunks
//	7 src.go              one hunk, old and new 1-4
//	8 café/naïve file.go  one hunk, old 1-2, new 1-3
func indexSetup(t testing.TB) ([]File, *Index) {
	t.Helper()
	var patch bytes.Buffer
	for _, name := range []string{"multi_hunk", "rename_edit", "deleted", "typechange", "modified", "copy", "nonascii_quoted"} {
		patch.Write(fixture(t, name))
	}
	files, err := Parse(patch.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 9 {
		t.Fatalf("setup parsed %d files, want 9", len(files))
	}
	return files, NewIndex(files)
}

func TestIndexLookup(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		path   string
		side   finding.Side
		line   int
		want   Pos
		wantOK bool
	}{
		{"added line", "long.txt", finding.Right, 5, Pos{0, 0}, true},
		{"first context line of a hunk", "long.txt", finding.Right, 2, Pos{0, 0}, true},
		{"last context line of a hunk", "long.txt", finding.Right, 8, Pos{0, 0}, true},
		{"line before the first hunk", "long.txt", finding.Right, 1, Pos{}, false},
		{"line just after a hunk", "long.txt", finding.Right, 9, Pos{}, false},
		{"line between hunks", "long.txt", finding.Right, 20, Pos{}, false},
		{"context line shifted by a deletion", "long.txt", finding.Right, 30, Pos{0, 1}, true},
		{"deleted line on the left", "long.txt", finding.Left, 30, Pos{0, 1}, true},
		{"context line on the left", "long.txt", finding.Left, 33, Pos{0, 1}, true},
		{"left number that exists only on the right", "long.txt", finding.Left, 52, Pos{}, false},
		{"right number that exists only on the left", "long.txt", finding.Right, 33, Pos{}, false},
		{"added line in the last hunk", "long.txt", finding.Right, 55, Pos{0, 2}, true},
		{"past the last hunk", "long.txt", finding.Right, 59, Pos{}, false},
		{"line zero", "long.txt", finding.Right, 0, Pos{}, false},
		{"negative line", "long.txt", finding.Left, -1, Pos{}, false},
		{"renamed file, new path, right", "new/demo.go", finding.Right, 12, Pos{1, 0}, true},
		{"renamed file, new path, left", "new/demo.go", finding.Left, 12, Pos{1, 0}, true},
		{"renamed file by its old path", "old/demo.go", finding.Left, 12, Pos{1, 0}, true},
		{"renamed file outside the hunk", "new/demo.go", finding.Right, 8, Pos{}, false},
		{"deleted file, left", "pkg/old.go", finding.Left, 2, Pos{2, 0}, true},
		{"deleted file has no right side", "pkg/old.go", finding.Right, 2, Pos{}, false},
		{"path deleted and added: left is the deletion", "link", finding.Left, 1, Pos{3, 0}, true},
		{"path deleted and added: right is the addition", "link", finding.Right, 1, Pos{4, 0}, true},
		{"copy without hunks", "copy.go", finding.Right, 1, Pos{}, false},
		{"source of a copy", "src.go", finding.Left, 1, Pos{7, 0}, true},
		{"non-ASCII path", "café/naïve file.go", finding.Right, 3, Pos{8, 0}, true},
		{"unknown path", "nope.go", finding.Right, 5, Pos{}, false},
		{"paths are case-sensitive", "Long.txt", finding.Right, 5, Pos{}, false},
		{"unknown side", "long.txt", finding.Side("BOTH"), 5, Pos{}, false},
	}
	_, ix := indexSetup(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ix.Lookup(tt.path, tt.side, tt.line)
			if ok != tt.wantOK {
				t.Fatalf("Lookup(%q, %s, %d) ok = %v, want %v", tt.path, tt.side, tt.line, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup(%q, %s, %d) mismatch (-want +got):\n%s", tt.path, tt.side, tt.line, diff)
			}
		})
	}
}

// TestIndexLookupAgreesWithLines asks the index about every line of every hunk of every file,
// so no numbering rule can be missed by the table above.
func TestIndexLookupAgreesWithLines(t *testing.T) {
	t.Parallel()
	files, ix := indexSetup(t)
	for fi, f := range files {
		for hi, h := range f.Hunks {
			for _, l := range h.Lines {
				checks := []struct {
					side finding.Side
					n    int
				}{{finding.Left, l.Old}, {finding.Right, l.New}}
				for _, c := range checks {
					if c.n == 0 {
						continue
					}
					got, ok := ix.Lookup(f.Path(), c.side, c.n)
					// Even for the path two files share, each side belongs to one of them.
					want := Pos{fi, hi}
					if !ok || got != want {
						t.Errorf("Lookup(%q, %s, %d) = %v, %v; want %v, true", f.Path(), c.side, c.n, got, ok, want)
					}
				}
			}
		}
	}
}

func TestIndexSameHunk(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name       string
		path       string
		side       finding.Side
		start, end int
		want       bool
	}{
		{"whole hunk", "long.txt", finding.Right, 2, 8, true},
		{"one line", "long.txt", finding.Right, 5, 5, true},
		{"ends in two hunks", "long.txt", finding.Right, 8, 27, false},
		{"end outside the hunk", "long.txt", finding.Right, 2, 9, false},
		{"start outside the hunk", "long.txt", finding.Right, 1, 8, false},
		{"backwards", "long.txt", finding.Right, 8, 2, false},
		{"left side", "long.txt", finding.Left, 27, 33, true},
		{"left range running into right-only numbers", "long.txt", finding.Left, 53, 59, false},
		{"renamed file by its old path", "old/demo.go", finding.Right, 9, 13, true},
		{"unknown path", "nope.go", finding.Right, 1, 2, false},
	}
	_, ix := indexSetup(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ix.SameHunk(tt.path, tt.side, tt.start, tt.end); got != tt.want {
				t.Errorf("SameHunk(%q, %s, %d, %d) = %v, want %v", tt.path, tt.side, tt.start, tt.end, got, tt.want)
			}
		})
	}
}

func TestIndexFile(t *testing.T) {
	t.Parallel()

	tests := []struct {
		path   string
		want   int
		wantOK bool
	}{
		{"long.txt", 0, true},
		{"new/demo.go", 1, true},
		{"old/demo.go", 1, true}, // a rename, by its old path
		{"pkg/old.go", 2, true},
		{"link", 4, true}, // deleted and added: the file that exists at head
		{"copy.go", 6, true},
		{"src.go", 7, true}, // a copy's source is itself, not the copy
		{"café/naïve file.go", 8, true},
		{"nope.go", 0, false},
	}
	_, ix := indexSetup(t)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, ok := ix.File(tt.path)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("File(%q) = %d, %v; want %d, %v", tt.path, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestIndexHandBuilt covers files no git patch produces but a caller might build: a new file
// at the path a rename left, and hunks that overlap or come out of order.
func TestIndexHandBuilt(t *testing.T) {
	t.Parallel()

	files := []File{
		{
			OldPath: "a.go", NewPath: "b.go", Status: Renamed,
			Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []Line{del(1, "x"), add(1, "y")}}},
		},
		{
			NewPath: "a.go", Status: Added,
			Hunks: []Hunk{{NewStart: 1, NewLines: 2, Lines: []Line{add(1, "p"), add(2, "q")}}},
		},
		{
			OldPath: "c.go", NewPath: "c.go", Status: Modified,
			Hunks: []Hunk{
				{NewStart: 20, NewLines: 2, Lines: []Line{add(20, "late"), add(21, "late")}},
				{NewStart: 1, NewLines: 30, Lines: []Line{add(1, "wide"), add(30, "wide")}}, // gapped on purpose
				{NewStart: 10, NewLines: 1, Lines: []Line{add(10, "inside the wide one")}},
			},
		},
	}
	ix := NewIndex(files)

	tests := []struct {
		name   string
		path   string
		side   finding.Side
		line   int
		want   Pos
		wantOK bool
	}{
		{"new file wins its path", "a.go", finding.Right, 2, Pos{1, 0}, true},
		{"rename's old path is not an alias when taken", "a.go", finding.Left, 1, Pos{}, false},
		{"renamed file by its new path", "b.go", finding.Left, 1, Pos{0, 0}, true},
		{"hunk listed first, starting late", "c.go", finding.Right, 21, Pos{2, 0}, true},
		{"hunk nested in a wider one", "c.go", finding.Right, 10, Pos{2, 2}, true},
		{"end of the wide hunk, behind a later start", "c.go", finding.Right, 30, Pos{2, 1}, true},
		{"gap in a hand-built hunk", "c.go", finding.Right, 15, Pos{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ix.Lookup(tt.path, tt.side, tt.line)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Lookup(%q, %s, %d) = %v, %v; want %v, %v", tt.path, tt.side, tt.line, got, ok, tt.want, tt.wantOK)
			}
		})
	}
	if got, _ := ix.File("a.go"); got != 1 {
		t.Errorf("File(a.go) = %d, want 1", got)
	}
}
