package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

func TestPersonaBuildRepoFlags(t *testing.T) {
	t.Parallel()
	var got *PersonaBuildOptions
	cmd := NewCmdPersonaBuild(&Factory{}, func(_ context.Context, o *PersonaBuildOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--repo", "o/a", "--repo", "o/b", "--login", "alice", "--since", "2026-01-31", "--cache", "c", "--max-age", "1h", "--refresh", "--name", "alice", "--out", "a.yaml"})
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Repos, ",") != "o/a,o/b" || got.since.Format("2006-01-02") != "2026-01-31" || got.CacheDir != "c" || got.MaxAge != time.Hour || !got.Refresh {
		t.Errorf("options %+v", got)
	}
}

// seedHarvest serves acme/widgets with alice's reviews on prs pull requests by dev, one on
// a pull request of her own, a bot's review and an acknowledgement of hers.
func seedHarvest(t *testing.T, prs int) (*githubtest.Server, map[string]string) {
	t.Helper()
	users := map[string]string{aliceToken: "alice", devToken: "dev", botToken: "helper[bot]"}
	opts := []githubtest.Option{githubtest.WithToken(importToken), githubtest.WithClock(importClock()), githubtest.WithMaxPerPage(2)}
	for tok, login := range users {
		opts = append(opts, githubtest.WithUser(tok, login, githubtest.PullRequestsWrite))
	}
	srv := githubtest.New(t, opts...)
	as := map[string]*github.Client{}
	for tok, login := range users {
		c, err := github.New(github.Options{Token: tok, BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		as[login] = c
	}
	ctx := context.Background()
	patch := "diff --git a/h.go b/h.go\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n--- /dev/null\n+++ b/h.go\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"
	review := func(who string, n int, body string, cs ...github.ReviewComment) {
		t.Helper()
		pr, err := as["dev"].PullRequest(ctx, "acme", "widgets", n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := as[who].CreateReview(ctx, "acme", "widgets", n, github.ReviewRequest{CommitID: pr.HeadSHA, Body: body, Comments: cs}); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n <= prs; n++ {
		srv.AddPR("acme", "widgets", githubtest.PR{Number: n, Author: "dev"}, patch, nil)
		review("alice", n, "", github.ReviewComment{Path: "h.go", Line: 2, Body: fmt.Sprintf("I think #%d drops the error from `Close`. Could we return it? WDYT?", n)})
	}
	review("helper[bot]", 1, "Coverage 80%")
	cs, err := as["dev"].ReviewComments(ctx, "acme", "widgets", 1)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := as["dev"].ReplyToReviewComment(ctx, "acme", "widgets", 1, cs[0].ID, "Done, but see the caller.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := as["alice"].ReplyToReviewComment(ctx, "acme", "widgets", 1, reply.ID, "Thanks!"); err != nil {
		t.Fatal(err)
	}
	srv.AddPR("acme", "widgets", githubtest.PR{Number: prs + 1, Author: "alice"}, patch, nil)
	review("alice", prs+1, "Note to self: split this up before merging, it is far too large to review.")
	return srv, map[string]string{"GITHUB_TOKEN": importToken, "GITHUB_API_URL": srv.URL}
}

func TestPersonaBuildFromRepo(t *testing.T) {
	t.Parallel()
	srv, env := seedHarvest(t, 5)
	fake := anthropictest.New(t, anthropictest.WithRespond(personaModel))
	env["ANTHROPIC_API_KEY"], env["ANTHROPIC_BASE_URL"] = anthropictest.DefaultAPIKey, fake.URL
	dir := t.TempDir()
	out, cache := filepath.Join(dir, "alice.yaml"), filepath.Join(dir, "cache")
	args := []string{"persona", "build", "--repo", "acme/widgets", "--login", "alice", "--since", "2020-01-01", "--cache", cache, "--name", "alice", "--out", out}

	r := council(t, env, args...)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/"), "http://")
	host, _, _ = strings.Cut(host, "/")
	consent := "council: reading the review comments of alice in acme/widgets (since 2020-01-01) from GitHub (" + host + "); they are cached in " + cache + ", sent to anthropic (claude-sonnet-5-5)"
	if !strings.HasPrefix(r.err, consent) {
		t.Errorf("stderr does not open with the consent line %q:\n%s", consent, r.err)
	}
	for _, s := range []string{
		"acme/widgets: 6 pull requests (5 read from GitHub, 0 from the cache, 1 opened by alice and not read): 6 comments by alice",
		"excluded 1: 1 only acknowledges", "request 1 of 1 (all comments): 5 comments", "wrote persona alice to " + out,
	} {
		if !strings.Contains(r.err, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "alice.comments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := persona.ReadJSONL(strings.NewReader(string(data)), "saved")
	if err != nil || len(saved) != 5 || saved[0].DiffHunk == "" || saved[0].Repo != "acme/widgets" {
		t.Errorf("saved comments %+v, %v", saved, err)
	}
	r = council(t, env, "persona", "show", out)
	if !strings.Contains(r.out, "source: 5 comments by alice in acme/widgets") {
		t.Errorf("show:\n%s", r.out)
	}
	if _, err := os.Stat(filepath.Join(cache, "acme", "widgets", "alice", "pr-1.json")); err != nil {
		t.Errorf("no cache file: %v", err)
	}

	if _, err := os.Stat(filepath.Join(cache, "acme", "widgets", "alice", "listing.json")); err != nil {
		t.Errorf("no cached listing: %v", err)
	}

	// A second run within --max-age sends nothing.
	before := srv.Requests()
	r = council(t, env, args...)
	if r.code != ExitOK {
		t.Fatalf("second run: exit %d; stderr:\n%s", r.code, r.err)
	}
	if sent := srv.Requests() - before; sent != 0 {
		t.Errorf("second run sent %d requests to GitHub, want 0", sent)
	}
	for _, s := range []string{
		"(0 read from GitHub, 5 from the cache, 1 opened by alice and not read)",
		"acme/widgets: the pull requests listed from the cache made at ", ", 0 GitHub requests; --refresh to read GitHub again",
	} {
		if !strings.Contains(r.err, s) {
			t.Errorf("second run stderr lacks %q:\n%s", s, r.err)
		}
	}

	// With --refresh it sends the listing only: 6 pull requests, 2 a page, 3 requests.
	before = srv.Requests()
	r = council(t, env, append(args, "--refresh")...)
	if r.code != ExitOK {
		t.Fatalf("refreshed run: exit %d; stderr:\n%s", r.code, r.err)
	}
	if sent := srv.Requests() - before; sent != 3 {
		t.Errorf("refreshed run sent %d requests to GitHub, want 3 (the listing)", sent)
	}
	if strings.Contains(r.err, "listed from the cache") || !strings.Contains(r.err, "(0 read from GitHub, 5 from the cache") {
		t.Errorf("refreshed run stderr:\n%s", r.err)
	}
}

// TestPersonaHarvestAddressedByLines harvests with a clone: on the merged acme/widget#7, a
// comment of alice's whose lines changed before the merge is addressed and one on lines left
// alone is not; bob's resolved thread is; on the unmerged #8, alice's comment stays unknown.
func TestPersonaHarvestAddressedByLines(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	s.reviewPR7(t)
	r := s.repo
	s.gh.AddPR("acme", "widget", githubtest.PR{Number: 8, Title: "Bound sizes", Author: "dev", BaseSHA: r.base1, HeadSHA: r.head3}, r.diff(t, r.base0, r.head3), nil)
	if _, err := s.as["alice"].CreateReview(context.Background(), "acme", "widget", 8, github.ReviewRequest{CommitID: r.head3, Comments: []github.ReviewComment{{
		Path: "size.go", Line: lineOf(t, r.work, r.head3, "size.go", "n, _ := strconv.Atoi(s)"), Body: "The error is still dropped here.",
	}}}); err != nil {
		t.Fatal(err)
	}
	client, err := github.New(github.Options{Token: importToken, BaseURL: s.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	harvest := func(login string) (map[string]*bool, string) {
		t.Helper()
		var stderr strings.Builder
		f := &Factory{Getenv: func(k string) string { return s.env[k] }, Err: &stderr}
		o := &PersonaBuildOptions{Repos: []string{"acme/widget"}, Login: login, Clone: r.clone}
		h, err := harvestRepos(context.Background(), f, o, client, cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*bool{}
		for _, c := range h.comments {
			if !c.ReviewBody && c.InReplyTo == nil {
				got[fmt.Sprintf("#%d %s", c.PR, strings.Fields(c.Body)[0])] = c.Addressed
				if c.Commit == "" {
					t.Errorf("%q: no commit", c.Body)
				}
			}
		}
		return got, stderr.String()
	}
	str := func(b *bool) string {
		if b == nil {
			return "null"
		}
		return fmt.Sprint(*b)
	}
	alice, stderr := harvest("alice")
	bob, _ := harvest("bob")
	want := map[string]string{
		"#7 When": "true", "#7 Why": "true", "#7 Should": "false", "#8 The": "null",
	}
	again, stderr2 := harvest("alice") // from the cache, which kept the computed values
	if !strings.Contains(stderr2, "0 read from GitHub") {
		t.Errorf("the second harvest read GitHub again: %s", stderr2)
	}
	for k, w := range want {
		if got := str(alice[k]); got != w {
			t.Errorf("alice %s: addressed %s, want %s (all: %v)", k, got, w, alice)
		}
		if got := str(again[k]); got != w {
			t.Errorf("alice %s from the cache: addressed %s, want %s", k, got, w)
		}
	}
	if got := str(bob["#7 `strconv.Atoi`'s"]); got != "true" {
		t.Errorf("bob's resolved thread: addressed %s, want true (all: %v)", got, bob)
	}
	if strings.Contains(stderr, "could not be read") {
		t.Errorf("stderr: %s", stderr)
	}
}
