package glob

import (
	"errors"
	"path"
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**", "main.go", true},
		{"**", "a/b/c.go", true},
		{"**", "anything/at/all", true},
		{"*.go", "main.go", true},
		{"*.go", "a/main.go", false},
		{"*.go", "cmd/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "cmd/council/main.go", true},
		{"**/*.go", "a/b/c.txt", false},
		{"**/*.pb.go", "api/v1/x.pb.go", true},
		{"**/*.pb.go", "api/v1/x.go", false},
		{"docs/**", "docs", true},
		{"docs/**", "docs/a", true},
		{"docs/**", "docs/a/b.md", true},
		{"docs/**", "doc/a", false},
		{"docs/**", "mydocs/a", false},
		{"docs/generated/**", "docs/generated/a/b.md", true},
		{"docs/generated/**", "docs/other/b.md", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/**/b", "a/b", true},
		{"a/**/**/b", "a/x/b", true},
		{"**/testdata/**", "testdata/f.txt", true},
		{"**/testdata/**", "x/y/testdata/f.txt", true},
		{"**/testdata/**", "x/testdatas/f.txt", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/x/c", false},
		{"vendor/*", "vendor/x/y", false},
		{"a/**b", "a/xb", true}, // "**" inside a segment is two "*"; Validate rejects it
		{"a/**b", "a/x/b", false},
		{"file[0-9].go", "file1.go", true},
		{"file[0-9].go", "filex.go", false},
		{"café/*.go", "café/naïve.go", true},
		{"dir with space/*", "dir with space/my file.txt", true},
		{`\*.go`, "*.go", true},
		{`\*.go`, "a.go", false},
		// A malformed pattern matches nothing, not even its own text.
		{"docs/[", "docs/[", false},
		{"[", "[", false},
		{"**/x[", "a/x[", false},
		{`a\`, `a\`, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Match(tt.pattern, tt.name); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern    string
		want       string // "" for no error
		badPattern bool   // the error wraps path.ErrBadPattern
	}{
		{pattern: "**"},
		{pattern: "**/*.go"},
		{pattern: "a/**/**/b"},
		{pattern: `\*.go`},
		{pattern: "file[0-9].go"},
		{pattern: "", want: "empty pattern"},
		{pattern: "/a", want: `"/a" has an empty path segment (a leading, trailing or double '/')`},
		{pattern: "a/", want: `"a/" has an empty path segment (a leading, trailing or double '/')`},
		{pattern: "a//b", want: `"a//b" has an empty path segment (a leading, trailing or double '/')`},
		{pattern: "a/**b", want: `"a/**b": "**" must be a whole path segment ("a/**/b", not "a**")`},
		{pattern: "docs/[", want: `"docs/[" is not a valid glob: syntax error in pattern (segment "[")`, badPattern: true},
		{pattern: "[", want: `"[" is not a valid glob: syntax error in pattern (segment "[")`, badPattern: true},
		{pattern: "**/x[", want: `"**/x[" is not a valid glob: syntax error in pattern (segment "x[")`, badPattern: true},
		{pattern: `a\`, want: `"a\\" is not a valid glob: syntax error in pattern (segment "a\\")`, badPattern: true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			err := Validate(tt.pattern)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate(%q) = %v, want nil", tt.pattern, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%q) = nil, want %s", tt.pattern, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Validate(%q) = %s, want %s", tt.pattern, got, tt.want)
			}
			if got := errors.Is(err, path.ErrBadPattern); got != tt.badPattern {
				t.Errorf("errors.Is(Validate(%q), path.ErrBadPattern) = %v, want %v", tt.pattern, got, tt.badPattern)
			}
		})
	}
}
