package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

// gitRepo is a repository a test builds, commit by commit, with fixed dates.
type gitRepo struct {
	t   *testing.T
	dir string
	at  time.Time
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	r := &gitRepo{t: t, dir: t.TempDir(), at: time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)}
	r.git("dev", "init", "-q", "-b", "main")
	return r
}

// git runs git as who (author and committer); who "github" commits as GitHub's web interface
// does, on dev's behalf.
func (r *gitRepo) git(who string, args ...string) string {
	r.t.Helper()
	r.at = r.at.Add(time.Hour)
	author, committer, email := who, who, who+"@example.com"
	if who == "github" {
		author, committer, email = "dev", "GitHub", "noreply@github.com"
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := r.at.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+author+"@example.com", "GIT_COMMITTER_NAME="+committer, "GIT_COMMITTER_EMAIL="+email,
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit(who, msg string) string {
	r.t.Helper()
	r.git(who, "add", "-A")
	r.git(who, "commit", "-qm", msg)
	return r.git(who, "rev-parse", "HEAD")
}

// numbered is a Go file of n calls, name01() to name<n>().
func numbered(name string, n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nfunc " + name + "() {\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\t%s%02d()\n", name, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// TestReaderFeedback reads one merged branch whose feedback is three commits: two with the
// same message, one of which renames a file, and a fixup.
func TestReaderFeedback(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	a, b, c := numbered("a", 30), numbered("b", 30), numbered("c", 30)
	r.write("a.go", a)
	r.write("b.go", b)
	r.write("c.go", c)
	r.commit("dev", "initial")
	r.git("dev", "checkout", "-q", "-b", "topic")
	a = strings.Replace(a, "a10()", "a10(1)", 1)
	b = strings.Replace(b, "b10()", "b10(1)", 1)
	c = strings.Replace(c, "c10()", "c10(1)", 1)
	r.write("a.go", a)
	r.write("b.go", b)
	r.write("c.go", c)
	head := r.commit("dev", "Change a, b and c")
	// fb1 changes a10 and adds a line under it: a25 is one line lower after it.
	a = strings.Replace(a, "a10(1)", "a10(2)\n\ta10b()", 1)
	r.write("a.go", a)
	fb1 := r.commit("dev", "Address review comments")
	a = strings.Replace(a, "a25()", "a25(2)", 1)
	r.write("a.go", a)
	r.git("dev", "mv", "c.go", "d.go")
	r.write("d.go", strings.Replace(c, "c20()", "c20(2)", 1))
	fb2 := r.commit("dev", "Address review comments")
	r.write("b.go", strings.Replace(b, "b20()", "b20(3)", 1))
	fb3 := r.commit("rev", "fixup! Change a, b and c")
	r.git("dev", "checkout", "-q", "main")
	r.git("maintainer", "merge", "-q", "--no-ff", "-m", "Merge pull request #5 from dev/topic\n\nChange things", "topic")

	ctx := context.Background()
	g, err := source.OpenGit(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	graph, err := LoadGraph(ctx, g, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	merges := graph.Merges(time.Time{}, time.Time{}, nil)
	if len(merges) != 1 {
		t.Fatalf("%d merges, want 1", len(merges))
	}
	fb, err := Reader{Git: g}.Feedback(ctx, merges[0])
	if err != nil {
		t.Fatal(err)
	}
	if fb.Branch.Skip != "" || fb.Head().SHA != head || len(fb.Branch.Feedback) != 3 {
		t.Fatalf("skip %q, head %s (want %s), %d feedback commits", fb.Branch.Skip, fb.Head().SHA, head, len(fb.Branch.Feedback))
	}
	if n, title, _ := PRFromMerge(fb.Messages[merges[0].Merge.SHA]); n != 5 || title != "Change things" {
		t.Errorf("pull request #%d %q from the merge's message", n, title)
	}
	type got struct {
		Path            string
		Start, Line     int
		Commits         []string
		Author, Message string
		Commit          string
		CommitPath      string
		CommitLine      int
	}
	var hunks []got
	for _, h := range fb.Hunks {
		if h.Drop != "" {
			t.Errorf("%s dropped: %s", h.Path, h.Drop)
		}
		var shas []string
		for _, c := range h.Commits {
			shas = append(shas, c.SHA)
		}
		hunks = append(hunks, got{h.Path, h.StartLine, h.Line, shas, h.Author, h.Message, h.Commit.SHA, h.CommitPath, h.CommitLine})
		if want := h.Message + "\n\n`" + h.Path + "`:\n```diff\n@@ "; !strings.HasPrefix(h.Body(), want) || !strings.HasSuffix(h.Body(), "```") {
			t.Errorf("body of %s:%d:\n%s", h.Path, h.Line, h.Body())
		}
	}
	// a.go was changed by two commits that share a message: it is said once. Its first hunk is
	// fb1's; its second is fb2's, at line 29 as fb1 left the file. c.go is c.go at head and
	// d.go in fb2, which renamed it; b.go is the fixup's.
	want := []got{
		{"a.go", 0, 13, []string{fb1, fb2}, "dev", "Address review comments", fb1, "a.go", 13},
		{"a.go", 0, 28, []string{fb1, fb2}, "dev", "Address review comments", fb2, "a.go", 29},
		{"b.go", 0, 23, []string{fb3}, "rev", "fixup! Change a, b and c", fb3, "b.go", 23},
		{"c.go", 0, 23, []string{fb2}, "dev", "Address review comments", fb2, "d.go", 23},
	}
	if d := cmp.Diff(want, hunks); d != "" {
		t.Errorf("hunks (-want +got):\n%s", d)
	}
}

func TestDistinctMessages(t *testing.T) {
	t.Parallel()
	msgs := map[string]string{"1": "Update a.go\n\nCo-authored-by: Ann <ann@example.com>", "2": "Update a.go\n\nCo-authored-by: Ann <ann@example.com>\n",
		"3": "Address review comments", "4": "Update a.go\n\nCo-authored-by: Bob <bob@example.com>"}
	var cs []source.Commit
	for _, sha := range []string{"1", "2", "3", "1", "4"} {
		cs = append(cs, source.Commit{SHA: sha})
	}
	want := msgs["1"] + "\n\n" + msgs["3"] + "\n\n" + msgs["4"]
	if got := distinctMessages(cs, msgs); got != want {
		t.Errorf("distinctMessages = %q, want %q", got, want)
	}
}

func TestAfterDiff(t *testing.T) {
	t.Parallel()
	// Line 2 replaced by two lines; two lines inserted after line 10 (git's "-10,0 +11,2").
	hs := []diff.Hunk{hunk(1, 1, " a", "-b", "+B", "+B2", " c"), {OldStart: 10, OldLines: 0, NewStart: 12, NewLines: 2,
		Lines: []diff.Line{{Op: diff.Add, Text: "x", New: 12}, {Op: diff.Add, Text: "y", New: 13}}}}
	for old, want := range map[int]int{1: 1, 3: 4, 5: 6, 10: 11, 11: 14} {
		if got := afterDiff(hs, old); got != want {
			t.Errorf("afterDiff(%d) = %d, want %d", old, got, want)
		}
	}
}
