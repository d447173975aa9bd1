package github_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
)

// sandbox is a bare repository served as acme/sandbox's git remote: main (one file), feature
// (main and a commit changing it), and same (main again, nothing to merge).
type sandbox struct {
	*bundle
	bare          string
	main, feature string
	patch         string // git diff main...feature
}

func pullGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T12:00:00Z", "GIT_COMMITTER_DATE=2026-01-02T12:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func setupSandbox(t *testing.T) *sandbox {
	t.Helper()
	s := &sandbox{bundle: setup(t)}
	work := filepath.Join(t.TempDir(), "work")
	s.bare = filepath.Join(t.TempDir(), "sandbox.git")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	pullGit(t, work, "init", "-q", "-b", "main")
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(work, "calc.go"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n")
	pullGit(t, work, "add", "-A")
	pullGit(t, work, "commit", "-qm", "base")
	s.main = pullGit(t, work, "rev-parse", "HEAD")
	pullGit(t, work, "branch", "same")
	pullGit(t, work, "checkout", "-qb", "feature")
	write("package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn b + a\n}\n")
	pullGit(t, work, "commit", "-qam", "swap")
	s.feature = pullGit(t, work, "rev-parse", "HEAD")
	s.patch = pullGit(t, work, "diff", "main...feature") + "\n"
	pullGit(t, work, "init", "-q", "--bare", s.bare)
	pullGit(t, work, "push", "-q", s.bare, "main", "feature", "same")
	s.srv.SetRemote(owner, "sandbox", s.bare)
	return s
}

func TestCreatePullRequest(t *testing.T) {
	t.Parallel()
	s := setupSandbox(t)
	ctx := context.Background()
	pr, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{
		Title: "[sample #7] Swap", Body: "Mirrors acme/widget#7.", Head: "feature", Base: "main",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := github.PR{
		Number: 1, Title: "[sample #7] Swap", Body: "Mirrors acme/widget#7.", Author: "council-bot",
		BaseRef: "main", BaseSHA: s.main, HeadRef: "feature", HeadSHA: s.feature,
		HeadRepoFullName: "acme/sandbox", BaseRepoFullName: "acme/sandbox", State: "open",
		HTMLURL: s.srv.WebURL + "/acme/sandbox/pull/1",
	}
	if d := cmp.Diff(want, pr); d != "" {
		t.Errorf("CreatePullRequest (-want +got):\n%s", d)
	}
	got, err := s.c.PullRequest(ctx, owner, "sandbox", 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("PullRequest after creating it (-want +got):\n%s", d)
	}
	d, err := s.c.PullRequestDiff(ctx, owner, "sandbox", 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.patch, string(d)); diff != "" {
		t.Errorf("the new pull request's diff is not git diff main...feature (-want +got):\n%s", diff)
	}
	// Reviews go through the fake's usual checks: a line of the diff is accepted, one outside
	// refused.
	on := github.ReviewRequest{CommitID: s.feature, Body: "b", Comments: []github.ReviewComment{{Path: "calc.go", Line: 5, Side: "RIGHT", Body: "why swap?"}}}
	if _, err := s.c.CreateReview(ctx, owner, "sandbox", 1, on); err != nil {
		t.Errorf("review on a line of the diff: %v", err)
	}
	off := on
	off.Comments = []github.ReviewComment{{Path: "calc.go", Line: 40, Side: "RIGHT", Body: "nowhere"}}
	if _, err := s.c.CreateReview(ctx, owner, "sandbox", 1, off); !github.IsUnprocessable(err) {
		t.Errorf("review outside the diff: err = %v, want a 422", err)
	}
}

func TestCreatePullRequestRefusals(t *testing.T) {
	t.Parallel()
	s := setupSandbox(t)
	ctx := context.Background()
	if _, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{Title: "first", Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	reader := s.client(t, github.Options{Token: readToken})
	tests := []struct {
		name   string
		c      *github.Client
		p      github.NewPullRequest
		status int
		detail string // in the error's text
	}{
		{name: "no such head branch", p: github.NewPullRequest{Title: "t", Head: "gone", Base: "main"}, status: 422, detail: "PullRequest.head invalid"},
		{name: "no such base branch", p: github.NewPullRequest{Title: "t", Head: "feature", Base: "gone"}, status: 422, detail: "PullRequest.base invalid"},
		{name: "nothing to merge", p: github.NewPullRequest{Title: "t", Head: "same", Base: "main"}, status: 422, detail: "No commits between main and same"},
		{name: "already open", p: github.NewPullRequest{Title: "again", Head: "feature", Base: "main"}, status: 422, detail: "A pull request already exists for acme:feature."},
		{name: "already open, head with its owner", p: github.NewPullRequest{Title: "again", Head: "acme:feature", Base: "main"}, status: 422, detail: "A pull request already exists for acme:feature."},
		{name: "read-only token", c: reader, p: github.NewPullRequest{Title: "t", Head: "feature", Base: "same"}, status: 403, detail: "pull_requests:write"},
	}
	// After the parallel subtests: each refusal was GitHub's, none a local one.
	t.Cleanup(func() {
		if n := s.srv.Count("POST", "/repos/acme/sandbox/pulls"); n != 1+len(tests) {
			t.Errorf("%d POST /pulls requests, want %d", n, 1+len(tests))
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.c
			if c == nil {
				c = s.c
			}
			_, err := c.CreatePullRequest(ctx, owner, "sandbox", tt.p)
			var ae *github.APIError
			if !errors.As(err, &ae) || ae.Status != tt.status {
				t.Fatalf("err = %v, want status %d", err, tt.status)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("err = %v, want it to say %q", err, tt.detail)
			}
		})
	}
	// A new pull request that lacks what GitHub requires is refused before it is sent.
	if _, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{Head: "feature"}); err == nil || !strings.Contains(err.Error(), "no title or base") {
		t.Errorf("err = %v, want a local refusal naming title and base", err)
	}
}

func TestFindPullRequest(t *testing.T) {
	t.Parallel()
	s := setupSandbox(t)
	ctx := context.Background()
	if _, found, err := s.c.FindPullRequest(ctx, owner, "sandbox", "feature", "main"); err != nil || found {
		t.Fatalf("before opening: found %v, err %v; want none", found, err)
	}
	// Another open pull request into main: a filter that is ignored would return it.
	if _, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{Title: "other", Head: "feature", Base: "same"}); err != nil {
		t.Fatal(err)
	}
	opened, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{Title: "mine", Head: "feature", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		head, base string
		want       int // 0: not found
	}{
		{name: "branch", head: "feature", base: "main", want: opened.Number},
		{name: "owner and branch", head: "acme:feature", base: "main", want: opened.Number},
		{name: "other base", head: "feature", base: "same", want: opened.Number - 1},
		{name: "other owner", head: "mallory:feature", base: "main"},
		{name: "no such branch", head: "gone", base: "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, found, err := s.c.FindPullRequest(ctx, owner, "sandbox", tt.head, tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if found != (tt.want != 0) || got.Number != tt.want {
				t.Errorf("found %v #%d, want #%d (0: none)", found, got.Number, tt.want)
			}
		})
	}
}

// TestListPullsHeadNeedsOwner pins a rule of GitHub's the fake copies: a head filter without
// its "user:" prefix filters nothing, which is why FindPullRequest always qualifies it.
func TestListPullsHeadNeedsOwner(t *testing.T) {
	t.Parallel()
	s := setupSandbox(t)
	ctx := context.Background()
	if _, err := s.c.CreatePullRequest(ctx, owner, "sandbox", github.NewPullRequest{Title: "t", Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	count := func(query string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/repos/acme/sandbox/pulls?"+query, nil)
		req.Header.Set("Authorization", "Bearer "+writeToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Count(string(body), `"number"`)
	}
	if n := count("head=nobranch"); n != 1 {
		t.Errorf("head without owner: %d pull requests, want 1 (the filter ignored)", n)
	}
	if n := count("head=acme:nobranch"); n != 0 {
		t.Errorf("head with owner: %d pull requests, want 0", n)
	}
}
