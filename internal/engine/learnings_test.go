package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/learn"
)

// gitRepo is an empty directory for a test repository, with functions that run git in it
// and write a file into it.
func gitRepo(t *testing.T) (dir string, run func(args ...string), write func(name, content string)) {
	t.Helper()
	dir = t.TempDir()
	run = func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write = func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, run, write
}

// learningsRepo is a repository whose base (tag base) keeps a learnings file and whose head
// (tag head) changes a.go and rewrites the learnings.
func learningsRepo(t *testing.T) string {
	t.Helper()
	dir, run, write := gitRepo(t)
	run("init", "-q", "-b", "main")
	write("a.go", "package a\n")
	write(learn.Path, "learnings:\n  - id: from-base\n    kind: emphasise\n    text: base\n  - id: elsewhere\n    kind: emphasise\n    text: not this change\n    paths: [\"docs/**\"]\n")
	run("add", ".")
	run("commit", "-qm", "base")
	run("tag", "base")
	write("a.go", "package a\n\nvar X = 1\n")
	write(learn.Path, "learnings:\n  - id: from-head\n    kind: suppress\n    text: head\n    reviewer: security\n")
	run("add", ".")
	run("commit", "-qm", "head")
	run("tag", "head")
	// The work tree has yet another version: it must never be read either.
	write(learn.Path, "learnings:\n  - id: from-work-tree\n    kind: emphasise\n    text: work tree\n")
	return dir
}

func TestLoadLearnings(t *testing.T) {
	t.Parallel()
	repo := learningsRepo(t)
	local := filepath.Join(t.TempDir(), "learnings.yaml")
	if err := os.WriteFile(local, []byte("learnings:\n  - id: from-flag\n    kind: emphasise\n    text: flag\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("learnings:\n  - kind: emphasise\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		want    []string
		wantErr string
	}{
		{name: "base revision only, scoped to the change", want: []string{"from-base"}},
		{name: "no learnings", opts: Options{NoLearnings: true}},
		{name: "a file instead of the base's", opts: Options{LearningsFile: local}, want: []string{"from-flag"}},
		{name: "no learnings wins over a file", opts: Options{LearningsFile: local, NoLearnings: true}},
		{name: "a bad file given is an error", opts: Options{LearningsFile: bad}, wantErr: "bad.yaml:2"},
		{name: "a missing file given is an error", opts: Options{LearningsFile: filepath.Join(t.TempDir(), "none.yaml")}, wantErr: "read learnings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := tt.opts
			o.Repo, o.Base, o.Head = repo, "base", "head"
			s, err := Open(context.Background(), o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []string
			for _, l := range s.Learnings {
				got = append(got, l.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("learnings = %q, want %q", got, tt.want)
			}
			if len(s.notes) != 0 {
				t.Errorf("notes = %q", s.notes)
			}
		})
	}
}
