package diff

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/render")

// golden compares got with testdata/render/name.txt, or rewrites that file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "render", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("Render mismatch with %s (-want +got):\n%s", path, diff)
	}
}

// TestRenderGolden renders every fixture without extra context.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	patches, err := filepath.Glob(filepath.Join("testdata", "*.patch"))
	if err != nil {
		t.Fatal(err)
	}
	if len(patches) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			files, err := Parse(fixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, RenderAll(files, nil, 0))
		})
	}
}

// TestRenderGoldenExtra renders the multi-hunk fixture with the file's head revision, so that
// extra context shows, merges across the gaps between hunks and stops at the ends of the file.
func TestRenderGoldenExtra(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "multi_hunk.head"))
	if err != nil {
		t.Fatal(err)
	}
	headLines := SplitLines(raw)
	head := func(path string) []string {
		if path == "long.txt" {
			return headLines
		}
		t.Errorf("head asked for %q", path)
		return nil
	}
	var patch []byte
	patch = append(patch, fixture(t, "multi_hunk")...)
	patch = append(patch, fixture(t, "deleted")...) // head is never asked for a deleted file
	patch = append(patch, fixture(t, "binary")...)  // nor for a binary one
	files, err := Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range []int{2, 10} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) {
			t.Parallel()
			golden(t, fmt.Sprintf("multi_hunk_extra%d", extra), RenderAll(files, head, extra))
		})
	}
}

func TestRenderExtra(t *testing.T) {
	t.Parallel()

	// head is "l1".."l20"; the hunk replaces line 10 and adds one line after it, so that the
	// new side has 21 lines. Hunks are built from the head so that their text agrees with it.
	head := make([]string, 21)
	for i := range head {
		head[i] = fmt.Sprintf("l%d", i+1)
	}
	one := func(newStart, newLines int, lines ...Line) Hunk {
		old := 0
		for _, l := range lines {
			if l.Op != Add {
				old++
			}
		}
		return Hunk{OldStart: newStart, OldLines: old, NewStart: newStart, NewLines: newLines, Lines: lines}
	}
	file := func(hunks ...Hunk) File {
		return File{OldPath: "f", NewPath: "f", Status: Modified, Hunks: hunks}
	}

	tests := []struct {
		name  string
		file  File
		head  []string
		extra int
		want  string
	}{
		{
			name:  "extra before and after",
			file:  file(one(5, 1, del(5, "old"), add(5, "l5"))),
			head:  head,
			extra: 2,
			want: `### f (modified)
@@ -5 +5 @@
       3 :  l3
       4 :  l4
   5     | -old
       5 | +l5
       6 :  l6
       7 :  l7
`,
		},
		{
			name:  "clipped at the start and the end of the file",
			file:  file(one(1, 1, del(1, "old"), add(1, "l1")), one(21, 1, del(21, "old"), add(21, "l21"))),
			head:  head,
			extra: 3,
			want: `### f (modified)
@@ -1 +1 @@
   1     | -old
       1 | +l1
       2 :  l2
       3 :  l3
       4 :  l4
@@ -21 +21 @@
      18 :  l18
      19 :  l19
      20 :  l20
  21     | -old
      21 | +l21
`,
		},
		{
			name:  "gap of exactly two extras is shown once, after the first hunk",
			file:  file(one(3, 1, add(3, "l3")), one(8, 1, add(8, "l8"))),
			head:  head,
			extra: 2,
			want: `### f (modified)
@@ -3,0 +3 @@
       1 :  l1
       2 :  l2
       3 | +l3
       4 :  l4
       5 :  l5
       6 :  l6
       7 :  l7
@@ -8,0 +8 @@
       8 | +l8
       9 :  l9
      10 :  l10
`,
		},
		{
			name:  "gap one wider than two extras is split around the header",
			file:  file(one(3, 1, add(3, "l3")), one(9, 1, add(9, "l9"))),
			head:  head,
			extra: 2,
			want: `### f (modified)
@@ -3,0 +3 @@
       1 :  l1
       2 :  l2
       3 | +l3
       4 :  l4
       5 :  l5
@@ -9,0 +9 @@
       7 :  l7
       8 :  l8
       9 | +l9
      10 :  l10
      11 :  l11
`,
		},
		{
			name:  "hunk with no new lines sits after its start line",
			file:  file(Hunk{OldStart: 5, OldLines: 1, NewStart: 4, NewLines: 0, Lines: []Line{del(5, "gone")}}),
			head:  head,
			extra: 1,
			want: `### f (modified)
@@ -5 +4,0 @@
       4 :  l4
   5     | -gone
       5 :  l5
`,
		},
		{
			name:  "no head, no extra",
			file:  file(one(5, 1, add(5, "l5"))),
			head:  nil,
			extra: 5,
			want: `### f (modified)
@@ -5,0 +5 @@
       5 | +l5
`,
		},
		{
			name:  "negative extra is none",
			file:  file(one(5, 1, add(5, "l5"))),
			head:  head,
			extra: -1,
			want: `### f (modified)
@@ -5,0 +5 @@
       5 | +l5
`,
		},
		{
			name:  "extra larger than the file",
			file:  file(one(3, 1, add(3, "l3"))),
			head:  head[:5],
			extra: math.MaxInt,
			want: `### f (modified)
@@ -3,0 +3 @@
       1 :  l1
       2 :  l2
       3 | +l3
       4 :  l4
       5 :  l5
`,
		},
		{
			name:  "head shorter than the hunk says",
			file:  file(one(20, 1, add(20, "l20"))),
			head:  head[:20],
			extra: 3,
			want: `### f (modified)
@@ -20,0 +20 @@
      17 :  l17
      18 :  l18
      19 :  l19
      20 | +l20
`,
		},
		{
			name: "columns widen with the numbers",
			file: file(Hunk{
				OldStart: 9998, OldLines: 2, NewStart: 9999, NewLines: 2,
				Lines: []Line{ctx(9998, 9999, "a"), del(9999, "b"), add(10000, "c")},
			}),
			want: `### f (modified)
@@ -9998,2 +9999,2 @@
  9998  9999 |  a
  9999       | -b
       10000 | +c
`,
		},
		{
			name: "the widest number may be extra context",
			file: file(one(9998, 1, add(9998, "x"))),
			head: func() []string {
				h := make([]string, 10001)
				for i := range h {
					h[i] = "h"
				}
				return h
			}(),
			extra: 2,
			want: `### f (modified)
@@ -9998,0 +9998 @@
        9996 :  h
        9997 :  h
        9998 | +x
        9999 :  h
       10000 :  h
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Render(tt.file, tt.head, tt.extra)); diff != "" {
				t.Errorf("Render mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderHeader(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		file File
		want string
	}{
		{"modified", File{OldPath: "a", NewPath: "a", Status: Modified}, "### a (modified)\n"},
		{"added", File{NewPath: "a", Status: Added}, "### a (added)\n"},
		{"deleted", File{OldPath: "a", Status: Deleted}, "### a (deleted)\n"},
		{"renamed", File{OldPath: "o", NewPath: "n", Status: Renamed}, "### n (renamed from o)\n"},
		{"copied", File{OldPath: "o", NewPath: "n", Status: Copied}, "### n (copied from o)\n"},
		{"binary", File{OldPath: "a", NewPath: "a", Status: Modified, Binary: true}, "### a (binary, not shown)\n"},
		{"added binary", File{NewPath: "a", Status: Added, Binary: true}, "### a (added, binary, not shown)\n"},
		{"mode only", File{OldPath: "a", NewPath: "a", Status: Modified, OldMode: regular, NewMode: exec}, "### a (mode 100644 -> 100755)\n"},
		{
			"renamed with a mode change",
			File{OldPath: "o", NewPath: "n", Status: Renamed, OldMode: exec, NewMode: regular},
			"### n (renamed from o, mode 100755 -> 100644)\n",
		},
		{"same mode is not a change", File{OldPath: "a", NewPath: "a", Status: Modified, OldMode: regular, NewMode: regular}, "### a (modified)\n"},
		{"control character in a path is quoted", File{NewPath: "a\tb", Status: Added}, "### \"a\\tb\" (added)\n"},
		{"non-ASCII and spaces are not", File{NewPath: "café/my file", Status: Added}, "### café/my file (added)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Render(tt.file, nil, 0)); diff != "" {
				t.Errorf("Render mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\n\n", []string{"a", ""}},
		{"a\r\nb\r\n", []string{"a\r", "b\r"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, SplitLines([]byte(tt.in))); diff != "" {
				t.Errorf("SplitLines(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
