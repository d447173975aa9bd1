package github_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestPullRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.AddPR(owner, repo, githubtest.PR{Number: 8, Title: "From a fork", HeadRepo: "mallory/widget", HeadSHA: "cc", BaseSHA: baseSHA}, patch, nil)
	tests := []struct {
		name string
		n    int
		want github.PR
	}{
		{
			name: "same repository",
			n:    prNum,
			want: github.PR{
				Number: prNum, Title: "Add os", Body: "Imports os.", Author: "alice",
				BaseRef: "main", BaseSHA: baseSHA, HeadRef: "feature", HeadSHA: headSHA,
				HeadRepoFullName: "acme/widget", BaseRepoFullName: "acme/widget", State: "open",
				HTMLURL: b.srv.WebURL + "/acme/widget/pull/7",
			},
		},
		{
			name: "fork",
			n:    8,
			want: github.PR{
				Number: 8, Title: "From a fork", Author: "octocat",
				BaseRef: "main", BaseSHA: baseSHA, HeadRef: "feature", HeadSHA: "cc",
				HeadRepoFullName: "mallory/widget", BaseRepoFullName: "acme/widget", IsFork: true, State: "open",
				HTMLURL: b.srv.WebURL + "/acme/widget/pull/8",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := b.c.PullRequest(context.Background(), owner, repo, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("PullRequest (-want +got):\n%s", d)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	calls := map[string]func() error{
		"unknown pull request": func() error { _, err := b.c.PullRequest(ctx, owner, repo, 99); return err },
		"unknown repository":   func() error { _, err := b.c.PullRequestFiles(ctx, owner, "nope", 1); return err },
		"unknown file":         func() error { _, err := b.c.FileContent(ctx, owner, repo, "main", "nope.go"); return err },
		"unknown ref":          func() error { _, err := b.c.FileContent(ctx, owner, repo, "gone", "main.go"); return err },
		"unknown comment": func() error {
			_, err := b.c.ReplyToReviewComment(ctx, owner, repo, prNum, 123456, "hi")
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := call()
			if !github.IsNotFound(err) {
				t.Fatalf("err = %v, want a 404", err)
			}
			if github.IsAuth(err) || github.IsUnprocessable(err) {
				t.Errorf("a 404 also matches another kind: %v", err)
			}
			if !strings.Contains(err.Error(), "does not exist, or the token cannot see it") {
				t.Errorf("err = %q, want a hint", err)
			}
		})
	}
}

func TestPullRequestFilesPaginates(t *testing.T) {
	t.Parallel()
	b := setup(t, githubtest.WithMaxPerPage(2))
	var p strings.Builder
	for i := range 5 {
		fmt.Fprintf(&p, "diff --git a/f%d.txt b/f%d.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/f%d.txt\n@@ -0,0 +1 @@\n+line %d\n", i, i, i, i)
	}
	b.srv.AddPR(owner, repo, githubtest.PR{Number: 9}, p.String(), nil)

	files, err := b.c.PullRequestFiles(context.Background(), owner, repo, 9)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Filename)
	}
	if d := cmp.Diff([]string{"f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt"}, names); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if got := b.srv.Count("GET", "/repos/acme/widget/pulls/9/files"); got != 3 {
		t.Errorf("%d requests for 5 files at 2 a page, want 3", got)
	}
	if b.c.Requests() != 3 {
		t.Errorf("Requests() = %d, want 3", b.c.Requests())
	}
}

func TestPullRequestFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	got, err := b.c.PullRequestFiles(context.Background(), owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want := []github.PRFile{
		{
			Filename: "main.go", Status: "modified", Additions: 3, Deletions: 1,
			Patch: "@@ -1,5 +1,6 @@\n package main\n \n import \"fmt\"\n+import \"os\"\n \n func main() {\n" +
				"@@ -20,4 +21,5 @@ func helper() {\n \ta := 1\n-\tb := 2\n+\tb := 3\n+\tc := 4\n \treturn\n }",
		},
		{Filename: "new.txt", Status: "added", Additions: 2, Patch: "@@ -0,0 +1,2 @@\n+hello\n+world"},
		{Filename: "old.txt", Status: "removed", Deletions: 1, Patch: "@@ -1 +0,0 @@\n-bye"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("PullRequestFiles (-want +got):\n%s", d)
	}
}

func TestPullRequestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []githubtest.Option
		tooLarge bool
	}{
		{name: "served"},
		{name: "too many files", opts: []githubtest.Option{githubtest.WithDiffLimits(2, 100)}, tooLarge: true},
		{name: "too many lines", opts: []githubtest.Option{githubtest.WithDiffLimits(300, 10)}, tooLarge: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.opts...)
			got, err := b.c.PullRequestDiff(context.Background(), owner, repo, prNum)
			if tt.tooLarge {
				var ae *github.APIError
				if !errors.Is(err, github.ErrDiffTooLarge) || !errors.As(err, &ae) || ae.Status != http.StatusNotAcceptable {
					t.Fatalf("err = %v, want ErrDiffTooLarge and a 406 APIError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != patch {
				t.Errorf("diff = %q, want the PR's patch", got)
			}
		})
	}
}

func TestFileContent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	big := strings.Repeat("0123456789abcdef", 1<<16) + "tail" // over 1 MiB: not inlined
	b.srv.AddPR(owner, repo, githubtest.PR{Number: 10}, patch, map[string]map[string]string{"big": {"big.bin": big}})
	tests := []struct {
		name, ref, path string
		want            string
		wantErr         string
	}{
		{name: "at base", ref: "main", path: "main.go", want: "package main\n"},
		{name: "at head SHA", ref: headSHA, path: "main.go", want: "package main\n\nimport \"os\"\n"},
		{name: "spaces and non-ASCII", ref: "main", path: "docs/a b/ünï.md", want: "# title\n"},
		{name: "over 1 MiB", ref: "big", path: "big.bin", want: big},
		{name: "directory", ref: "main", path: "docs", wantErr: "is a directory"},
		{name: "absolute path", ref: "main", path: "/etc/passwd", wantErr: "not a path inside the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := b.c.FileContent(context.Background(), owner, repo, tt.ref, tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("content = %.80q, want %.80q", got, tt.want)
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for _, tc := range []struct{ owner, repo string }{{"acme/x", "widget"}, {"acme", ".."}, {"acme", "w?x"}, {"", "w"}} {
		if _, err := b.c.PullRequest(ctx, tc.owner, tc.repo, 1); err == nil {
			t.Errorf("PullRequest(%q, %q) succeeded", tc.owner, tc.repo)
		}
	}
	if _, err := b.c.PullRequest(ctx, owner, repo, 0); err == nil {
		t.Error("PullRequest(#0) succeeded")
	}
	if n := b.srv.Requests(); n != 0 {
		t.Errorf("%d requests sent for refused names, want 0", n)
	}
}
