package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// learnToken is council's own token in the learn tests: it posts as githubtest.DefaultLogin.
const learnToken = "ghp_councilLearnTokenForTests0000000000"

func TestLearnFlags(t *testing.T) {
	t.Parallel()
	repo := []string{"--repo", "acme/widgets", "--since", "2026-09-01", "--out", "l.yaml"}
	tests := []struct {
		name string
		args []string
		want string // error; "" for none
	}{
		{"repo", repo, ""},
		{"from file", []string{"--from-file", "s.jsonl", "--out", "l.yaml"}, ""},
		{"dry run needs no out", []string{"--repo", "acme/widgets", "--dry-run"}, ""},
		{"no source", []string{"--out", "l.yaml"}, "nothing to learn from"},
		{"two sources", append(repo, "--from-file", "s.jsonl"), "--repo and --from-file cannot be used together"},
		{"since without repo", []string{"--from-file", "s.jsonl", "--since", "2026-01-01", "--out", "l.yaml"}, "use them with --repo"},
		{"bad repo", []string{"--repo", "acme", "--out", "l.yaml"}, `--repo: "acme" is not a repository`},
		{"bad since", []string{"--repo", "a/b", "--since", "May", "--out", "l.yaml"}, `--since "May": want a date`},
		{"bad until", []string{"--repo", "a/b", "--until", "June", "--out", "l.yaml"}, `--until "June": want a date`},
		{"until before since", append(repo, "--until", "2026-08-01"), "--until 2026-08-01 is not after --since 2026-09-01"},
		{"no out", []string{"--repo", "a/b"}, "--out is required"},
		{"out not yaml", []string{"--repo", "a/b", "--out", "l.json"}, `--out "l.json": a learnings file is a .yaml or .yml file`},
		{"bad provider", append(repo, "--provider", "mistral"), `--provider "mistral": must be one of anthropic, openai`},
		{"negative max age", append(repo, "--max-age", "-1h"), "--max-age -1h0m0s"},
		{"git", []string{"--git", "d", "--since", "2026-01-01", "--paths", "pkg/**", "--ignore-user", "bot", "--out", "l.yaml"}, ""},
		{"git and repo", []string{"--git", "d", "--repo", "a/b", "--out", "l.yaml"}, ""},
		{"git and from file", []string{"--git", "d", "--from-file", "s.jsonl", "--out", "l.yaml"}, "--git and --from-file cannot be used together"},
		{"name without git", append(repo, "--name", "a/b"), "--name, --branch and --paths select what a harvest of a clone reads: use them with --git DIR"},
		{"paths without git", append(repo, "--paths", "pkg/**"), "use them with --git DIR"},
		{"bad name", []string{"--git", "d", "--name", "nope", "--out", "l.yaml"}, `--name: "nope" is not a repository`},
		{"bad paths", []string{"--git", "d", "--paths", "!", "--out", "l.yaml"}, `--paths "!"`},
		{"ignore-user without a harvest", []string{"--from-file", "s.jsonl", "--ignore-user", "x", "--out", "l.yaml"}, "use them with --repo or --git"},
		{"cache with git alone", []string{"--git", "d", "--cache", "c", "--out", "l.yaml"}, "--cache, --refresh, --clone and --council-login select and keep a GitHub harvest: use them with --repo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *LearnOptions
			cmd := NewCmdLearnBuild(&Factory{}, func(_ context.Context, o *LearnOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			err := cmd.Execute()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && got == nil:
				t.Fatal("not run")
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// learnSetup is acme/widgets with council's comments on three pull requests by dev: on #1,
// three (one dev answers, one with a 👎, one dev resolves; six review comments with the
// replies, three pages); on #2, merged, one with a 👍 and a ❤️; on #3, one nobody touched.
type learnSetup struct {
	srv *githubtest.Server
	env map[string]string
	as  map[string]*github.Client
	at  []time.Time // creation of pull request n
	// comments are council's comments by fingerprint.
	comments map[string]github.ReviewComment
}

func newLearnSetup(t *testing.T) *learnSetup {
	t.Helper()
	var mu sync.Mutex
	clock := time.Date(2026, 9, 2, 10, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d); return clock }
	users := map[string]string{learnToken: githubtest.DefaultLogin, devToken: "dev", aliceToken: "alice"}
	opts := []githubtest.Option{githubtest.WithMaxPerPage(2), githubtest.WithClock(func() time.Time { return advance(time.Second) })}
	for tok, login := range users {
		opts = append(opts, githubtest.WithUser(tok, login, githubtest.PullRequestsWrite))
	}
	s := &learnSetup{srv: githubtest.New(t, opts...), as: map[string]*github.Client{}, at: make([]time.Time, 4), comments: map[string]github.ReviewComment{}}
	for tok, login := range users {
		c, err := github.New(github.Options{Token: tok, BaseURL: s.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		s.as[login] = c
	}
	s.srv.SetCollaborator("acme", "widgets", "alice", "read")
	ctx := context.Background()
	patch := "diff --git a/pkg/h.go b/pkg/h.go\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n--- /dev/null\n+++ b/pkg/h.go\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"
	for n := 1; n <= 3; n++ {
		advance(time.Hour)
		s.srv.AddPR("acme", "widgets", githubtest.PR{Number: n, Author: "dev"}, patch, nil)
		pr, err := s.as["dev"].PullRequestDetails(ctx, "acme", "widgets", n)
		if err != nil {
			t.Fatal(err)
		}
		s.at[n] = pr.CreatedAt
	}
	body := func(title, reviewer, id string) string {
		return "🔎 **" + reviewer + "** — " + title + "\n\nWhy it matters.\n\n<!-- council:v1 id=" + id + " reviewer=" + reviewer + " -->"
	}
	post := func(n int, cs ...github.ReviewComment) {
		t.Helper()
		pr, err := s.as["dev"].PullRequest(ctx, "acme", "widgets", n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.as[githubtest.DefaultLogin].CreateReview(ctx, "acme", "widgets", n, github.ReviewRequest{CommitID: pr.HeadSHA, Comments: cs}); err != nil {
			t.Fatal(err)
		}
		all, err := s.as["dev"].ReviewComments(ctx, "acme", "widgets", n)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			if m := learnMarkerID(c.Body); m != "" {
				s.comments[m] = c
			}
		}
	}
	post(1,
		github.ReviewComment{Path: "pkg/h.go", Line: 1, Body: body("Error dropped", "correctness", "fp1")},
		github.ReviewComment{Path: "pkg/h.go", Line: 2, Body: body("Nil map write", "correctness", "fp2")},
		github.ReviewComment{Path: "pkg/h.go", Line: 3, Body: body("Name is long", "style", "fp3")},
	)
	post(2, github.ReviewComment{Path: "pkg/h.go", Line: 1, Body: body("Doc comment missing", "style", "fp4")})
	post(3, github.ReviewComment{Path: "pkg/h.go", Line: 2, Body: body("Race on close", "correctness", "fp5")})
	for _, r := range []struct{ who, body string }{
		{"dev", "Not a problem: the caller checks it."}, {"alice", "+1 to dev."}, {githubtest.DefaultLogin, "Noted."},
	} {
		if _, err := s.as[r.who].ReplyToReviewComment(ctx, "acme", "widgets", 1, s.comments["fp1"].ID, r.body); err != nil {
			t.Fatal(err)
		}
	}
	s.srv.AddReaction("acme", "widgets", s.comments["fp2"].ID, "dev", "-1")
	s.srv.ResolveThreadAs(s.comments["fp3"].ID, "dev")
	s.srv.AddReaction("acme", "widgets", s.comments["fp4"].ID, "alice", "+1")
	s.srv.AddReaction("acme", "widgets", s.comments["fp4"].ID, "dev", "heart")
	s.srv.MarkMerged("acme", "widgets", 2, "")
	s.env = map[string]string{"GITHUB_TOKEN": learnToken, "GITHUB_API_URL": s.srv.URL}
	return s
}

func learnMarkerID(body string) string {
	_, rest, ok := strings.Cut(body, "<!-- council:v1 id=")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, " ")
	return id
}

// learnModel proposes one learning citing urls, as the learnings tool.
func learnModel(urls ...string) func(anthropictest.Request) anthropictest.Reply {
	return func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.ToolReply(learn.Tool, map[string]any{"learnings": []any{map[string]any{
			"id": "correctness-callers-check", "kind": learn.Suppress, "reviewer": "correctness",
			"text":          "Do not flag errors the callers in this repository already check.",
			"evidence_urls": urls,
		}}})
	}
}

func TestLearnFromRepo(t *testing.T) {
	t.Parallel()
	s := newLearnSetup(t)
	fake := anthropictest.New(t, anthropictest.WithRespond(learnModel(s.comments["fp1"].HTMLURL, s.comments["fp2"].HTMLURL)))
	env := s.env
	env["ANTHROPIC_API_KEY"], env["ANTHROPIC_BASE_URL"] = anthropictest.DefaultAPIKey, fake.URL
	dir := t.TempDir()
	out, sigs, cache := filepath.Join(dir, ".council", "learnings.yaml"), filepath.Join(dir, "signals.jsonl"), filepath.Join(dir, "cache")
	args := []string{"learn", "--repo", "acme/widgets", "--since", "2026-09-01", "--cache", cache, "--out", out, "--signals-out", sigs}

	r := council(t, env, args...)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	for _, want := range []string{
		"council: reading what happened to the comments of council-bot on the pull requests of acme/widgets (created since 2026-09-01) from GitHub",
		"acme/widgets: 3 pull requests (3 read from GitHub, 0 from the cache): 5 council comments by council-bot",
		"council: 5 comments: 1 accepted, 3 rejected, 1 ignored (20% accepted)",
		"correctness", "style",
		"saved 5 signals to " + sigs,
		"wrote 1 learning to " + out + " (1 suppress, 0 emphasise), from 5 signals on 3 pull requests",
	} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}

	// The signals, exactly.
	data, err := os.ReadFile(sigs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := learn.ReadSignals(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := s.as["dev"].ReviewComments(ctx, "acme", "widgets", 1)
	if err != nil {
		t.Fatal(err)
	}
	replyAt := map[string]time.Time{}
	for _, c := range all {
		replyAt[c.Body] = c.CreatedAt
	}
	sig := func(fp string, pr int, reviewer, title string) learn.Signal {
		c := s.comments[fp]
		return learn.Signal{
			Repo: "acme/widgets", PR: pr, PRCreated: s.at[pr], URL: c.HTMLURL, CommentID: c.ID, Created: c.CreatedAt,
			Fingerprint: fp, Reviewer: reviewer, Path: "pkg/h.go", Line: c.Line, Title: title, Body: "Why it matters.",
		}
	}
	want := []learn.Signal{sig("fp1", 1, "correctness", "Error dropped"), sig("fp2", 1, "correctness", "Nil map write"), sig("fp3", 1, "style", "Name is long"),
		sig("fp4", 2, "style", "Doc comment missing"), sig("fp5", 3, "correctness", "Race on close")}
	want[0].Replies = []learn.Reply{
		{Author: "dev", WriteAccess: true, Body: "Not a problem: the caller checks it.", Created: replyAt["Not a problem: the caller checks it."]},
		{Author: "alice", Body: "+1 to dev.", Created: replyAt["+1 to dev."]},
	}
	want[1].Reactions = map[string]int{"-1": 1}
	want[2].Resolved, want[2].ResolvedBy = true, "dev"
	want[3].PRMerged, want[3].Reactions = true, map[string]int{"+1": 1, "heart": 1}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("signals (-want +got):\n%s", d)
	}

	// The learnings file, and show.
	data, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	file, err := learn.Parse(out, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Learnings) != 1 || file.Learnings[0].ID != "correctness-callers-check" || len(file.Learnings[0].Evidence) != 2 {
		t.Errorf("learnings %+v", file.Learnings)
	}
	if src := file.Source; src == nil || strings.Join(src.Repos, ",") != "acme/widgets" || src.PRs != 3 || src.Signals != 5 ||
		src.Model != "claude-sonnet-5-5" || src.Since.Format(time.DateOnly) != "2026-09-01" || src.Built.IsZero() {
		t.Errorf("source %+v", src)
	}
	r = council(t, env, "learn", "show", out)
	if r.code != ExitOK || !strings.Contains(r.out, "correctness-callers-check") {
		t.Errorf("show: exit %d\n%s\n%s", r.code, r.out, r.err)
	}

	// A second run within --max-age sends nothing to GitHub (naming council's login spares
	// the request that reads the token's).
	before := s.srv.Requests()
	r = council(t, env, append(args, "--council-login", githubtest.DefaultLogin)...)
	if r.code != ExitOK {
		t.Fatalf("second run: exit %d; stderr:\n%s", r.code, r.err)
	}
	if sent := s.srv.Requests() - before; sent != 0 {
		t.Errorf("second run sent %d requests to GitHub, want 0:\n%s", sent, r.err)
	}
	if !strings.Contains(r.err, "(0 read from GitHub, 3 from the cache)") || !strings.Contains(r.err, "listed from the cache") {
		t.Errorf("second run stderr:\n%s", r.err)
	}

	// A model answer that cannot be used: exit 3, the signals kept and said so.
	bad := anthropictest.New(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.TextReply("I have no learnings.")
	}))
	env2 := map[string]string{}
	for k, v := range env {
		env2[k] = v
	}
	env2["ANTHROPIC_BASE_URL"] = bad.URL
	sigs2 := filepath.Join(dir, "again.jsonl")
	r = council(t, env2, "learn", "--from-file", sigs, "--out", filepath.Join(dir, "x.yaml"), "--signals-out", sigs2)
	if r.code != ExitIncomplete || !strings.Contains(r.err, "the signals are in "+sigs2) {
		t.Errorf("bad answer: exit %d, stderr:\n%s", r.code, r.err)
	}
	if _, err := os.Stat(sigs2); err != nil {
		t.Errorf("signals not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.yaml")); err == nil {
		t.Error("learnings written despite the bad answer")
	}
}

// TestLearnRateLimit stops the harvest on a spent rate limit at #2 (newest first: #3 is done),
// then resumes: the second run reads #2 and #1 only.
func TestLearnRateLimit(t *testing.T) {
	t.Parallel()
	s := newLearnSetup(t)
	cache := t.TempDir()
	var n atomic.Int32
	s.srv.SetDelay(func(method, path string) time.Duration {
		if method == http.MethodGet && path == "/repos/acme/widgets/pulls/2" && n.Add(1) == 1 {
			// Reset beyond the client's longest wait: it gives up at once.
			s.srv.FailNext(http.StatusForbidden, githubtest.RateLimitHeaders(time.Now().Add(2*time.Hour)), "")
		}
		return 0
	})
	args := []string{"learn", "--repo", "acme/widgets", "--cache", cache, "--dry-run"}
	r := council(t, s.env, args...)
	if r.code == ExitOK || !strings.Contains(r.err, "rate limited at #2 after 1 pull request (1 read from GitHub, 0 from the cache)") ||
		!strings.Contains(r.err, "run again to resume") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	before := len(s.srv.Log())
	r = council(t, s.env, args...)
	if r.code != ExitOK || !strings.Contains(r.err, "3 pull requests (2 read from GitHub, 1 from the cache): 5 council comments") {
		t.Fatalf("resumed: exit %d; stderr:\n%s", r.code, r.err)
	}
	for _, req := range s.srv.Log()[before:] {
		if strings.HasPrefix(req.Path, "/repos/acme/widgets/pulls/3") || req.Path == "/repos/acme/widgets/pulls" {
			t.Errorf("the resumed run read %s %s again", req.Method, req.Path)
		}
	}
}

// TestLearnAddressed applies the changed-lines rule through a clone: on the merged
// acme/widget#7, council's comment on lines the author rewrote is addressed, the one on lines
// left alone is not.
func TestLearnAddressed(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	ctx := context.Background()
	s.gh.AddPR("acme", "widget", githubtest.PR{
		Number: 7, Title: "Add Cache.Lookup", Author: "dev", BaseRef: "main", BaseSHA: r.base1, HeadRef: "feature", HeadSHA: r.head1,
	}, r.diff(t, r.base0, r.head1), nil)
	line := func(rev, file, text string) int { t.Helper(); return lineOf(t, r.work, rev, file, text) }
	// Council posts as bob here: --council-login names him.
	councilClient := s.as["bob"]
	if _, err := councilClient.CreateReview(ctx, "acme", "widget", 7, github.ReviewRequest{CommitID: r.head1, Comments: []github.ReviewComment{
		{Path: "cache.go", StartLine: line(r.head1, "cache.go", "if err != nil {"), Line: line(r.head1, "cache.go", `return "", err`),
			Body: "🔎 **Correctness** — Lock held on error\n\nUnlock first.\n\n<!-- council:v1 id=fa reviewer=correctness -->"},
		{Path: "cache_test.go", Line: line(r.head1, "cache_test.go", "func TestLookup(t *testing.T) {"),
			Body: "🧪 **Tests** — No error case\n\nAdd one.\n\n<!-- council:v1 id=fb reviewer=tests -->"},
	}}); err != nil {
		t.Fatal(err)
	}
	s.gh.SetHead("acme", "widget", 7, r.head3, r.diff(t, r.base0, r.head3))
	s.gh.MarkMerged("acme", "widget", 7, "")
	sigs := filepath.Join(t.TempDir(), "s.jsonl")
	res := council(t, s.env, "learn", "--repo", "acme/widget", "--council-login", "bob", "--clone", r.clone, "--cache", t.TempDir(), "--dry-run", "--signals-out", sigs)
	if res.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", res.code, res.err)
	}
	data, err := os.ReadFile(sigs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := learn.ReadSignals(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	addressed := map[string]bool{}
	for _, sg := range got {
		addressed[sg.Fingerprint] = sg.Addressed
	}
	if d := cmp.Diff(map[string]bool{"fa": true, "fb": false}, addressed); d != "" {
		t.Errorf("addressed (-want +got):\n%s\nstderr:\n%s", d, res.err)
	}
}

func TestLearnFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var ss []learn.Signal
	for i := 1; i <= 3; i++ {
		ss = append(ss, learn.Signal{
			Repo: "acme/api", PR: i, URL: fmt.Sprintf("https://github.com/acme/api/pull/%d#discussion_r%d", i, i), CommentID: int64(i),
			Fingerprint: fmt.Sprintf("f%d", i), Reviewer: "correctness", Path: "api/h.go", Line: 3, Title: "Error dropped",
			Reactions: map[string]int{"-1": 1},
		})
	}
	var buf bytes.Buffer
	if err := learn.WriteSignals(&buf, ss); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "signals.jsonl")
	if err := os.WriteFile(in, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := anthropictest.New(t, anthropictest.WithRespond(learnModel(ss[0].URL, ss[2].URL)))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(dir, "learnings.yaml")
	r := council(t, env, "learn", "--from-file", in, "--out", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	file, err := learn.Parse(out, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	want := []learn.Learning{{
		ID: "correctness-callers-check", Kind: learn.Suppress, Reviewer: "correctness",
		Text: "Do not flag errors the callers in this repository already check.",
		Evidence: []learn.Evidence{
			{URL: ss[0].URL, Signal: learn.Describe(ss[0])}, {URL: ss[2].URL, Signal: learn.Describe(ss[2])},
		},
		Counts: map[string]int{"rejected": 2},
	}}
	if d := cmp.Diff(want, file.Learnings); d != "" {
		t.Errorf("learnings (-want +got):\n%s", d)
	}
	if src := file.Source; src == nil || strings.Join(src.Repos, ",") != "acme/api" || src.PRs != 3 || src.Signals != 3 {
		t.Errorf("source %+v", src)
	}
	if !strings.Contains(r.err, "council: 3 comments: 0 accepted, 3 rejected, 0 ignored (0% accepted)") {
		t.Errorf("stderr:\n%s", r.err)
	}
}
