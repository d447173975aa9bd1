package plan

import (
	"errors"
	"path"
	"slices"
	"testing"

	"github.com/council-dev/council/internal/diff"
)

func TestMatch(t *testing.T) {
	t.Parallel()

	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "a/b/c.txt", false},
		{"*.go", "main.go", true},
		{"*.go", "a/main.go", false},
		{"docs/**", "docs", true},
		{"docs/**", "docs/a", true},
		{"docs/**", "docs/a/b.md", true},
		{"docs/**", "doc/a", false},
		{"docs/**", "mydocs/a", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/**/b", "a/b", true},
		{"**", "anything/at/all", true},
		{"**/testdata/**", "testdata/f.txt", true},
		{"**/testdata/**", "x/y/testdata/f.txt", true},
		{"**/testdata/**", "x/testdatas/f.txt", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/x/c", false},
		{"a/**b", "a/xb", true}, // "**" inside a segment is two "*"
		{"a/**b", "a/x/b", false},
		{"file[0-9].go", "file1.go", true},
		{"file[0-9].go", "filex.go", false},
		{"café/*.go", "café/naïve.go", true},
		{"dir with space/*", "dir with space/my file.txt", true},
		{`\*.go`, "*.go", true},
		{`\*.go`, "a.go", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Match(tt.pattern, tt.name)
			if err != nil {
				t.Fatalf("Match(%q, %q): %v", tt.pattern, tt.name, err)
			}
			if got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
			}
		})
	}
}

func TestMatchBadPattern(t *testing.T) {
	t.Parallel()
	for _, pat := range []string{"[", "a/[b", "**/x[", `a\`} {
		t.Run(pat, func(t *testing.T) {
			t.Parallel()
			if _, err := Match(pat, "a/b"); !errors.Is(err, path.ErrBadPattern) {
				t.Errorf("Match(%q) error = %v, want path.ErrBadPattern", pat, err)
			}
			if err := ValidatePattern(pat); !errors.Is(err, path.ErrBadPattern) {
				t.Errorf("ValidatePattern(%q) = %v, want path.ErrBadPattern", pat, err)
			}
		})
	}
	// Make cannot fail; a malformed pattern matches nothing, so the file shows as not included.
	p := Make([]diff.File{modified("a.go", added(1, "x"))}, Options{Include: []string{"["}})
	if want := []Skip{{Path: "a.go", Reason: ReasonNotIncluded}}; !slices.Equal(want, p.Skipped) {
		t.Errorf("Make with a malformed include pattern skipped %+v, want %+v", p.Skipped, want)
	}
}
