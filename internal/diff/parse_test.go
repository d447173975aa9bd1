package diff

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	regular fs.FileMode = 0o100644
	exec    fs.FileMode = 0o100755
	symlink fs.FileMode = 0o120000
)

func ctx(oldN, newN int, text string) Line {
	return Line{Op: Context, Text: text, Old: oldN, New: newN}
}
func add(newN int, text string) Line { return Line{Op: Add, Text: text, New: newN} }
func del(old int, text string) Line  { return Line{Op: Delete, Text: text, Old: old} }

// fixture reads testdata/name.patch, written by testdata/gen.sh from real git.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".patch"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	t.Parallel()

	demoHunk := Hunk{
		OldStart: 4, OldLines: 7, NewStart: 4, NewLines: 7, Section: `import "fmt"`,
		Lines: []Line{
			ctx(4, 4, ""),
			ctx(5, 5, "// Hello greets."),
			ctx(6, 6, "func Hello(name string) string {"),
			del(7, "\treturn fmt.Sprintf(\"hello %s\", name)"),
			add(7, "\treturn fmt.Sprintf(\"hello, %s!\", name)"),
			ctx(8, 8, "}"),
			ctx(9, 9, ""),
			ctx(10, 10, "// Bye says goodbye."),
		},
	}
	naive := File{
		OldPath: "café/naïve file.go", NewPath: "café/naïve file.go", Status: Modified,
		OldMode: regular, NewMode: regular, Added: 1,
		Hunks: []Hunk{{
			OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 3,
			Lines: []Line{ctx(1, 1, "un"), ctx(2, 2, "deux"), add(3, "trois")},
		}},
	}
	binary := File{OldPath: "logo.png", NewPath: "logo.png", Status: Modified, Binary: true, OldMode: regular, NewMode: regular}
	// The four "\ No newline at end of file" fixtures share their first lines.
	abc := func(last []Line, noOld, noNew bool) File {
		return File{
			OldPath: "f.txt", NewPath: "f.txt", Status: Modified, OldMode: regular, NewMode: regular,
			Added: 1, Deleted: 1,
			Hunks: []Hunk{{
				OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3,
				Lines:        append([]Line{ctx(1, 1, "a"), ctx(2, 2, "b")}, last...),
				NoNewlineOld: noOld, NoNewlineNew: noNew,
			}},
		}
	}

	tests := []struct {
		fixture string
		want    []File
	}{
		{"empty", nil},
		{"added", []File{{
			NewPath: "pkg/new.go", Status: Added, NewMode: regular, Added: 4,
			Hunks: []Hunk{{
				NewStart: 1, NewLines: 4,
				Lines: []Line{add(1, "package pkg"), add(2, ""), add(3, "// Answer is the answer."), add(4, "const Answer = 42")},
			}},
		}}},
		{"empty_added", []File{{NewPath: "empty.txt", Status: Added, NewMode: regular}}},
		{"deleted", []File{{
			OldPath: "pkg/old.go", Status: Deleted, OldMode: regular, Deleted: 3,
			Hunks: []Hunk{{
				OldStart: 1, OldLines: 3,
				Lines: []Line{del(1, "package pkg"), del(2, ""), del(3, "func Old() {}")},
			}},
		}}},
		{"emptied", []File{{
			OldPath: "gone.txt", NewPath: "gone.txt", Status: Modified, OldMode: regular, NewMode: regular, Deleted: 2,
			Hunks: []Hunk{{OldStart: 1, OldLines: 2, Lines: []Line{del(1, "x"), del(2, "y")}}},
		}}},
		{"modified", []File{{
			OldPath: "demo.go", NewPath: "demo.go", Status: Modified, OldMode: regular, NewMode: regular,
			Added: 1, Deleted: 1, Hunks: []Hunk{demoHunk},
		}}},
		{"rename", []File{{OldPath: "old/demo.go", NewPath: "new/demo.go", Status: Renamed}}},
		{"rename_edit", []File{{
			OldPath: "old/demo.go", NewPath: "new/demo.go", Status: Renamed, OldMode: regular, NewMode: regular,
			Added: 1, Deleted: 1,
			Hunks: []Hunk{{
				OldStart: 9, OldLines: 5, NewStart: 9, NewLines: 5, Section: "func Hello(name string) string {",
				Lines: []Line{
					ctx(9, 9, ""),
					ctx(10, 10, "// Bye says goodbye."),
					ctx(11, 11, "func Bye() string {"),
					del(12, "\treturn \"bye\""),
					add(12, "\treturn \"goodbye\""),
					ctx(13, 13, "}"),
				},
			}},
		}}},
		{"copy", []File{
			{OldPath: "src.go", NewPath: "copy.go", Status: Copied},
			{
				OldPath: "src.go", NewPath: "src.go", Status: Modified, OldMode: regular, NewMode: regular,
				Added: 1, Deleted: 1,
				Hunks: []Hunk{{
					OldStart: 1, OldLines: 4, NewStart: 1, NewLines: 4,
					Lines: []Line{
						del(1, "package demo"),
						add(1, "package demo // source"),
						ctx(2, 2, ""),
						ctx(3, 3, `import "fmt"`),
						ctx(4, 4, ""),
					},
				}},
			},
		}},
		{"binary", []File{binary}},
		{"binary_literal", []File{binary}},
		{"mode", []File{{OldPath: "run.sh", NewPath: "run.sh", Status: Modified, OldMode: regular, NewMode: exec}}},
		{"nonewline_old", []File{abc([]Line{del(3, "c"), add(3, "c")}, true, false)}},
		{"nonewline_new", []File{abc([]Line{del(3, "c"), add(3, "c")}, false, true)}},
		{"nonewline_both", []File{abc([]Line{del(3, "c"), add(3, "C")}, true, true)}},
		{"nonewline_context", []File{{
			OldPath: "f.txt", NewPath: "f.txt", Status: Modified, OldMode: regular, NewMode: regular,
			Added: 1, Deleted: 1,
			Hunks: []Hunk{{
				OldStart: 1, OldLines: 4, NewStart: 1, NewLines: 4,
				Lines:        []Line{ctx(1, 1, "a"), del(2, "b"), add(2, "B"), ctx(3, 3, "c"), ctx(4, 4, "d")},
				NoNewlineOld: true, NoNewlineNew: true,
			}},
		}}},
		{"spaces", []File{{
			OldPath: "dir with space/my file.txt", NewPath: "dir with space/my file.txt", Status: Modified,
			OldMode: regular, NewMode: regular, Added: 1, Deleted: 1,
			Hunks: []Hunk{{
				OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
				Lines: []Line{ctx(1, 1, "one"), del(2, "two"), add(2, "2")},
			}},
		}}},
		{"nonascii_quoted", []File{naive}},
		{"nonascii_unquoted", []File{naive}},
		{"multi_hunk", []File{{
			OldPath: "long.txt", NewPath: "long.txt", Status: Modified, OldMode: regular, NewMode: regular,
			Added: 2, Deleted: 2,
			Hunks: []Hunk{
				{
					OldStart: 2, OldLines: 7, NewStart: 2, NewLines: 7, Section: "line 1",
					Lines: []Line{
						ctx(2, 2, "line 2"), ctx(3, 3, "line 3"), ctx(4, 4, "line 4"),
						del(5, "line 5"), add(5, "line five"),
						ctx(6, 6, "line 6"), ctx(7, 7, "line 7"), ctx(8, 8, "line 8"),
					},
				},
				{
					OldStart: 27, OldLines: 7, NewStart: 27, NewLines: 6, Section: "line 26",
					Lines: []Line{
						ctx(27, 27, "line 27"), ctx(28, 28, "line 28"), ctx(29, 29, "line 29"),
						del(30, "line 30"),
						ctx(31, 30, "line 31"), ctx(32, 31, "line 32"), ctx(33, 32, "line 33"),
					},
				},
				{
					OldStart: 53, OldLines: 6, NewStart: 52, NewLines: 7, Section: "line 52",
					Lines: []Line{
						ctx(53, 52, "line 53"), ctx(54, 53, "line 54"), ctx(55, 54, "line 55"),
						add(55, "line 55.5"),
						ctx(56, 56, "line 56"), ctx(57, 57, "line 57"), ctx(58, 58, "line 58"),
					},
				},
			},
		}}},
		{"typechange", []File{
			{
				OldPath: "link", Status: Deleted, OldMode: regular, Deleted: 1,
				Hunks: []Hunk{{OldStart: 1, OldLines: 1, Lines: []Line{del(1, "target")}}},
			},
			{
				NewPath: "link", Status: Added, NewMode: symlink, Added: 1,
				Hunks: []Hunk{{NewStart: 1, NewLines: 1, Lines: []Line{add(1, "elsewhere")}, NoNewlineNew: true}},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(fixture(t, tt.fixture))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseEquivalentInputs checks inputs that must read the same as a fixture.
func TestParseEquivalentInputs(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		fixture string
		edit    func(string) string
	}{
		{"patch without its final newline", "modified", func(s string) string { return strings.TrimSuffix(s, "\n") }},
		{"patch without its final newline after a no-newline marker", "nonewline_both", func(s string) string { return strings.TrimSuffix(s, "\n") }},
		{"whitespace-only patch", "empty", func(string) string { return "\n  \n\t\n" }},
		{"mnemonic prefixes (diff.mnemonicPrefix)", "modified", func(s string) string {
			return strings.NewReplacer("a/demo.go", "i/demo.go", "b/demo.go", "w/demo.go").Replace(s)
		}},
		{"several files in one patch", "copy", func(s string) string { return s }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := fixture(t, tt.fixture)
			want, err := Parse(raw)
			if err != nil {
				t.Fatalf("Parse(fixture): %v", err)
			}
			got, err := Parse([]byte(tt.edit(string(raw))))
			if err != nil {
				t.Fatalf("Parse(edited): %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-fixture +edited):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()

	const head = "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n"
	tests := []struct {
		name  string
		patch string
		want  string // a part of the error message
	}{
		{"not a diff", "hello, world\n", "no \"diff --git\" file header"},
		{"fewer lines than the header says", head + "@@ -1,3 +1,3 @@\n a\n-b\n+B\n", "miscounts"},
		{"hunk without a change", head + "@@ -1,1 +1,1 @@\n a\n", "no changes"},
		{"hunks out of order", head + "@@ -5,1 +5,1 @@\n-e\n+E\n@@ -1,1 +1,1 @@\n-a\n+A\n", "overlaps or precedes"},
		{"overlapping hunks", head + "@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -2,1 +2,1 @@\n-b\n+B\n", "overlaps or precedes"},
		{"line zero with content", head + "@@ -0,1 +1,1 @@\n-a\n+A\n", "starts at line 0"},
		{"numbers past any real file", head + "@@ -9223372036854775800,1 +1,1 @@\n-a\n+A\n", "out of bounds"},
		{"negative start", head + "@@ --3,1 +1,1 @@\n-a\n+A\n", "out of bounds"},
		{"no-newline marker before the last line", head + "@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+A\n+B\n", "not the last"},
		{"hunk after the end of the file", head + "@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+A\n\\ No newline at end of file\n@@ -5,1 +5,1 @@\n-e\n+E\n", "follows the end of the file"},
		{"fragment without file header", "@@ -1,1 +1,1 @@\n-a\n+b\n", "without file header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, err := Parse([]byte(tt.patch))
			if err == nil {
				t.Fatalf("Parse = %+v, want an error containing %q", files, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "parse diff: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %q, want it to start with %q and contain %q", err, "parse diff: ", tt.want)
			}
		})
	}
}
