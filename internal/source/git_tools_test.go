package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	mainGo  = "package main\n\nfunc main() { hello() }\n"
	helloGo = "package sub\n\n// hello says hello.\nfunc hello() {}\n"
)

// toolsRepo builds a repository with one of each kind of entry and returns it opened.
func toolsRepo(t *testing.T) (repo, *Git) {
	t.Helper()
	r := setup(t)
	r.write("main.go", mainGo)
	r.write("dir/sub/hello.go", helloGo)
	r.write("dir/notes.txt", "hello from notes\n")
	r.write("run.sh", "#!/bin/sh\necho hello\n")
	r.write("img.bin", "hello\x00binary\n")
	r.write("dír/we ird.txt", "hello spaces\n")
	r.write("*.go", "a file named like a glob\n")
	if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(r.dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", filepath.Join(r.dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	r.git("add", "-A")
	r.git("commit", "-qm", "first")
	// A submodule entry: a gitlink to some commit, without the submodule's repository.
	r.git("update-index", "--add", "--cacheinfo", "160000,"+r.git("rev-parse", "HEAD")+",vendor/mod")
	r.git("commit", "-qm", "add a submodule")
	g, err := OpenGit(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, g
}

func TestEntry(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	tests := []struct {
		path     string
		want     EntryInfo
		notExist bool
	}{
		{path: "main.go", want: EntryInfo{Type: "blob", Mode: "100644", Size: int64(len(mainGo))}},
		{path: "run.sh", want: EntryInfo{Type: "blob", Mode: "100755", Size: 21}},
		{path: "leak", want: EntryInfo{Type: "blob", Mode: ModeSymlink, Size: int64(len("/etc/passwd"))}},
		{path: "dirlink", want: EntryInfo{Type: "blob", Mode: ModeSymlink, Size: 3}},
		{path: "dir", want: EntryInfo{Type: "tree", Mode: "040000"}},
		{path: "dir/sub", want: EntryInfo{Type: "tree", Mode: "040000"}},
		{path: "dir/sub/hello.go", want: EntryInfo{Type: "blob", Mode: "100644", Size: int64(len(helloGo))}},
		{path: "dír/we ird.txt", want: EntryInfo{Type: "blob", Mode: "100644", Size: 13}},
		{path: "vendor/mod", want: EntryInfo{Type: "commit", Mode: ModeSubmodule}},
		{path: "", want: EntryInfo{Type: "tree", Mode: "040000"}},
		{path: ".", want: EntryInfo{Type: "tree", Mode: "040000"}},
		// A name, not a pattern: "*.go" is the file of that name only.
		{path: "*.go", want: EntryInfo{Type: "blob", Mode: "100644", Size: 25}},
		{path: "missing.go", notExist: true},
		{path: "dir/sub/missing.go", notExist: true},
		// git does not follow symbolic links while walking a tree.
		{path: "dirlink/notes.txt", notExist: true},
		{path: "vendor/mod/x.go", notExist: true},
		{path: "*", notExist: true},
		{path: ":(glob)**", notExist: true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := g.Entry(context.Background(), "HEAD", tt.path)
			if tt.notExist {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want fs.ErrNotExist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEntryBadRevision(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	for _, rev := range []string{"", "--output=/tmp/x", "no-such-rev"} {
		if _, err := g.Entry(context.Background(), rev, "main.go"); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Entry at %q: err = %v, want a revision error", rev, err)
		}
		if _, err := g.Entry(context.Background(), rev, ""); err == nil {
			t.Errorf("Entry of the root at %q: no error", rev)
		}
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	tests := []struct {
		name      string
		pattern   string
		globs     []string
		max       int
		want      []GrepMatch
		truncated bool
	}{
		{name: "all text files; binary skipped", pattern: "hello", want: []GrepMatch{
			{Path: "dir/notes.txt", Line: 1, Text: "hello from notes"},
			{Path: "dir/sub/hello.go", Line: 3, Text: "// hello says hello."},
			{Path: "dir/sub/hello.go", Line: 4, Text: "func hello() {}"},
			{Path: "dír/we ird.txt", Line: 1, Text: "hello spaces"},
			{Path: "main.go", Line: 3, Text: "func main() { hello() }"},
			{Path: "run.sh", Line: 2, Text: "echo hello"},
		}},
		{name: "extended regex", pattern: "^func (main|hello)\\(", want: []GrepMatch{
			{Path: "dir/sub/hello.go", Line: 4, Text: "func hello() {}"},
			{Path: "main.go", Line: 3, Text: "func main() { hello() }"},
		}},
		{name: "glob", pattern: "hello", globs: []string{"**/*.go"}, want: []GrepMatch{
			{Path: "dir/sub/hello.go", Line: 3, Text: "// hello says hello."},
			{Path: "dir/sub/hello.go", Line: 4, Text: "func hello() {}"},
			{Path: "main.go", Line: 3, Text: "func main() { hello() }"},
		}},
		{name: "glob star stays in its directory", pattern: "hello", globs: []string{"dir/*.go"}},
		{name: "directory glob", pattern: "hello", globs: []string{"dir"}, want: []GrepMatch{
			{Path: "dir/notes.txt", Line: 1, Text: "hello from notes"},
			{Path: "dir/sub/hello.go", Line: 3, Text: "// hello says hello."},
			{Path: "dir/sub/hello.go", Line: 4, Text: "func hello() {}"},
		}},
		{name: "pattern that looks like an option", pattern: "--no-index"},
		{name: "no match", pattern: "goodbye"},
		{name: "cut at max", pattern: "hello", max: 2, truncated: true, want: []GrepMatch{
			{Path: "dir/notes.txt", Line: 1, Text: "hello from notes"},
			{Path: "dir/sub/hello.go", Line: 3, Text: "// hello says hello."},
		}},
		{name: "exactly max", pattern: "^func", max: 2, want: []GrepMatch{
			{Path: "dir/sub/hello.go", Line: 4, Text: "func hello() {}"},
			{Path: "main.go", Line: 3, Text: "func main() { hello() }"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, truncated, err := g.Grep(context.Background(), "HEAD", tt.pattern, tt.globs, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", truncated, tt.truncated)
			}
		})
	}
}

// TestFiles: Files answers the paths grep would search for the same globs, binary files,
// symbolic links and submodules included.
func TestFiles(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	tests := []struct {
		globs []string
		want  []string
	}{
		{[]string{"**/*.go"}, []string{"*.go", "dir/sub/hello.go", "main.go"}},
		{[]string{"dir/*"}, []string{"dir/notes.txt"}},
		{[]string{"dir"}, []string{"dir/notes.txt", "dir/sub/hello.go"}},
		{[]string{"**/sub", "**/sub/**"}, []string{"dir/sub/hello.go"}},
		{[]string{"img.bin", "leak", "vendor/mod"}, []string{"img.bin", "leak", "vendor/mod"}},
		{[]string{"dirlink/**"}, nil},
		{[]string{"nope/*.go"}, nil},
	}
	for _, tt := range tests {
		got, err := g.Files(context.Background(), "HEAD", tt.globs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Files(%q) (-want +got):\n%s", tt.globs, diff)
		}
	}
	if _, err := g.Files(context.Background(), "-HEAD", []string{"x"}); err == nil {
		t.Error("revision starting with '-': no error")
	}
}

func TestGrepErrors(t *testing.T) {
	t.Parallel()
	_, g := toolsRepo(t)
	ctx := context.Background()
	var gitErr *GitError
	if _, _, err := g.Grep(ctx, "HEAD", "a{", nil, 0); !errors.As(err, &gitErr) || !strings.Contains(err.Error(), "Unmatched") {
		t.Errorf("bad regex: err = %v, want a GitError saying what is wrong", err)
	}
	if _, _, err := g.Grep(ctx, "-HEAD", "x", nil, 0); err == nil {
		t.Error("revision starting with '-': no error")
	}
	if _, _, err := g.Grep(ctx, "HEAD", "", nil, 0); err == nil {
		t.Error("empty pattern: no error")
	}
	if _, _, err := g.Grep(ctx, "HEAD", "a\x00b", nil, 0); err == nil {
		t.Error("NUL in pattern: no error")
	}
}

// TestGrepTimeout: the C library's regex engine backtracks on (a+)+$ against a long run of a's
// (seconds for 30,000 of them); the deadline stops git and says so.
func TestGrepTimeout(t *testing.T) {
	t.Parallel()
	r := setup(t)
	r.write("aaa.txt", strings.Repeat("a", 30000)+"b\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "a's")
	g, err := OpenGit(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err = g.Grep(ctx, "HEAD", "(a+)+$", nil, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestGrepOutputCap(t *testing.T) {
	t.Parallel()
	r := setup(t)
	// Two lines of 600 KiB: the second crosses MaxGrepBytes.
	line := strings.Repeat("x", 600<<10)
	r.write("big.txt", line+"\n"+line+"\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "big")
	g, err := OpenGit(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	got, truncated, err := g.Grep(context.Background(), "HEAD", "x", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !truncated || got[0].Line != 1 || len(got[0].Text) != len(line) {
		t.Errorf("got %d matches, truncated %v; want the first line only, truncated", len(got), truncated)
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	r := setup(t)
	for i, msg := range []string{"add a", "touch b", "change a", "change a again"} {
		file := "a.txt"
		if i == 1 {
			file = "b.txt"
		}
		r.write(file, msg+"\n")
		r.git("add", "-A")
		r.git("commit", "-qm", msg, "-m", "body is not the subject")
	}
	g, err := OpenGit(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := g.Log(ctx, "a.txt", "HEAD", 2)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, e := range got {
		subjects = append(subjects, e.Subject)
		if len(e.SHA) != 40 || e.Author != "t" || !strings.Contains(e.Date, "T") {
			t.Errorf("entry = %+v, want a full SHA, author t and an ISO date", e)
		}
	}
	if diff := cmp.Diff([]string{"change a again", "change a"}, subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	all, err := g.Log(ctx, ".", "HEAD", 0)
	if err != nil || len(all) != 4 {
		t.Errorf("log of the whole repository: %d entries, %v; want 4", len(all), err)
	}
	none, err := g.Log(ctx, "missing.txt", "HEAD", 5)
	if err != nil || len(none) != 0 {
		t.Errorf("log of a path never committed: %v, %v; want nothing", none, err)
	}
	if _, err := g.Log(ctx, "a.txt", "--all", 5); err == nil {
		t.Error("revision starting with '-': no error")
	}
}
