package source

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FindWords finds whole words, literally, in the files of the directories given (not their
// subdirectories) or of the whole tree, skipping binary files and the submodule.
func TestFindWords(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	tests := []struct {
		name  string
		words []string
		dirs  []string
		want  map[string][]string
	}{
		{name: "whole tree", words: []string{"hello", "main", "notes", "absent"}, want: map[string][]string{
			"hello": {"dir/notes.txt", "dir/sub/hello.go", "dír/we ird.txt", "main.go", "run.sh"},
			"main":  {"main.go"},
			"notes": {"dir/notes.txt"},
		}},
		{name: "whole words only", words: []string{"hell", "ell"}, want: map[string][]string{}},
		{name: "a directory's own files", words: []string{"hello"}, dirs: []string{"dir"}, want: map[string][]string{
			"hello": {"dir/notes.txt"},
		}},
		{name: "the root's own files and a subdirectory", words: []string{"hello", "glob"}, dirs: []string{".", "dir/sub"}, want: map[string][]string{
			"hello": {"dir/sub/hello.go", "main.go", "run.sh"},
			"glob":  {"*.go"},
		}},
		{name: "a directory with spaces and non-ASCII", words: []string{"hello"}, dirs: []string{"dír"}, want: map[string][]string{
			"hello": {"dír/we ird.txt"},
		}},
		{name: "a directory named like a glob matches literally", words: []string{"hello"}, dirs: []string{"d*"}, want: map[string][]string{}},
		{name: "regex characters are literal", words: []string{"hel.o"}, want: map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := g.FindWords(context.Background(), "HEAD", tt.words, tt.dirs)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("FindWords(%q, %q) (-want +got):\n%s", tt.words, tt.dirs, d)
			}
		})
	}
	if _, err := g.FindWords(context.Background(), "-HEAD", []string{"x"}, nil); err == nil {
		t.Error("revision starting with '-': no error")
	}
	if _, err := g.FindWords(context.Background(), "HEAD", []string{""}, nil); err == nil {
		t.Error("empty word: no error")
	}
}
