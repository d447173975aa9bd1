package source

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestHistoryAndMessages(t *testing.T) {
	t.Parallel()
	r := setup(t)
	r.write("a.go", "package a\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "first\n\nwith a body")
	first := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "topic")
	r.write("b.go", "package a\n")
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty-message", "-m", "")
	empty := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "main")
	r.git("merge", "-q", "--no-ff", "-m", "Merge branch 'topic'\n\nÜnïcode body", "topic")
	merge := r.git("rev-parse", "HEAD")

	// A bare clone opens as a repository too.
	bare := filepath.Join(t.TempDir(), "mirror.git")
	r.git("clone", "-q", "--bare", r.dir, bare)
	g, err := OpenGit(context.Background(), bare)
	if err != nil {
		t.Fatalf("open a bare repository: %v", err)
	}
	defer g.Close()
	var got []Commit
	if err := g.History(context.Background(), "main", func(c Commit) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	type short struct {
		SHA       string
		Parents   []string
		Committer string
		Subject   string
	}
	var s []short
	for _, c := range got {
		s = append(s, short{c.SHA, c.Parents, c.Committer, c.Subject})
		if c.Time.IsZero() || c.CommitterEmail != "t@example.com" || c.Author != "t" {
			t.Errorf("commit %s: time %v, committer email %q, author %q", c.SHA, c.Time, c.CommitterEmail, c.Author)
		}
	}
	want := []short{
		{merge, []string{first, empty}, "t", "Merge branch 'topic'"},
		{empty, []string{first}, "t", ""},
		{first, nil, "t", "first"},
	}
	// The tip first; the others, of one date, in any order.
	bySHA := cmpopts.SortSlices(func(a, b short) bool { return a.SHA < b.SHA })
	if diff := cmp.Diff(want, s, bySHA, cmpopts.EquateEmpty()); diff != "" || s[0].SHA != merge {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	msgs, err := g.Messages(context.Background(), []string{merge, first, empty})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{merge: "Merge branch 'topic'\n\nÜnïcode body", first: "first\n\nwith a body", empty: ""}, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if data, err := g.ReadFile(context.Background(), merge, "b.go"); err != nil || string(data) != "package a\n" {
		t.Errorf("read from the bare repository: %q, %v", data, err)
	}
	if name, rev, err := g.DefaultBranch(context.Background()); err != nil || name != "main" || rev != "refs/heads/main" {
		t.Errorf("default branch %q %q %v", name, rev, err)
	}
	if sh, err := g.Shallow(context.Background()); err != nil || sh != nil {
		t.Errorf("a complete clone is shallow: %v %v", sh, err)
	}
	stop := g.History(context.Background(), "main", func(Commit) error { return context.Canceled })
	if stop == nil || !strings.Contains(stop.Error(), "canceled") {
		t.Errorf("a visit that fails stops the walk with its error: %v", stop)
	}
}
