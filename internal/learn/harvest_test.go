package learn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/learn"
)

const (
	botToken   = "ghs_councilBotTokenForTests000000000000"
	devToken   = "ghp_devTokenForTests00000000000000000000"
	aliceToken = "ghp_aliceTokenForTests000000000000000000"
	helperTok  = "ghs_helperBotTokenForTests00000000000000"
	rabbitTok  = "ghp_rabbitTokenForTests00000000000000000"
	hvPatch    = "diff --git a/h.go b/h.go\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n--- /dev/null\n+++ b/h.go\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"
)

// councilBody is an inline comment laid out as ghreview writes one.
func councilBody(title, body, id, reviewer string) string {
	return "🔎 **Correctness** — " + title + "\n\n" + body +
		"\n\n<details><summary>Prompt for a coding agent</summary>\n\n```text\nFix it.\n```\n\n</details>\n\nAlso raised by: Casey\n\n<!-- council:v1 id=" + id + " reviewer=" + reviewer + " -->"
}

type hvSetup struct {
	srv *githubtest.Server
	as  map[string]*github.Client // by login
	at  []time.Time               // creation time of pull request n at at[n]
}

// setupHarvest serves acme/widgets: #1 and #2 by dev (#2 merged) with council's comments,
// replies, reactions and a resolved thread, and people's comments: alice's asks (one with a
// copied council marker, one on #2), dev's note on his own pull request, an app's bot's and an
// AI reviewer's that posts as a user (rabbit); #3 created after the harvest's Until.
func setupHarvest(t *testing.T, opts ...githubtest.Option) *hvSetup {
	t.Helper()
	var mu sync.Mutex
	clock := time.Date(2026, 9, 2, 10, 0, 0, 0, time.UTC)
	tick := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d); return clock }
	users := map[string]string{botToken: githubtest.DefaultLogin, devToken: "dev", aliceToken: "alice", helperTok: "helper[bot]", rabbitTok: "rabbit"}
	opts = append([]githubtest.Option{githubtest.WithClock(tick)}, opts...)
	for tok, login := range users {
		opts = append(opts, githubtest.WithUser(tok, login, githubtest.PullRequestsWrite))
	}
	s := &hvSetup{srv: githubtest.New(t, opts...), as: map[string]*github.Client{}, at: make([]time.Time, 4)}
	for tok, login := range users {
		c, err := github.New(github.Options{Token: tok, BaseURL: s.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		s.as[login] = c
	}
	s.srv.SetCollaborator("acme", "widgets", "alice", "read")
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		s.at[n] = advance(time.Hour)
		s.srv.AddPR("acme", "widgets", githubtest.PR{Number: n, Author: "dev"}, hvPatch, nil)
	}
	advance(time.Hour)
	post := func(who string, n int, cs ...github.ReviewComment) {
		t.Helper()
		pr, err := s.as["dev"].PullRequest(ctx, "acme", "widgets", n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.as[who].CreateReview(ctx, "acme", "widgets", n, github.ReviewRequest{CommitID: pr.HeadSHA, Comments: cs}); err != nil {
			t.Fatal(err)
		}
	}
	post(githubtest.DefaultLogin, 1,
		github.ReviewComment{Path: "h.go", Line: 2, Body: councilBody("Close drops the error", "The error from `Close` is lost.", "fp1", "correctness")},
		github.ReviewComment{Path: "h.go", Line: 3, Body: "🛡️ **Security** — Token logged\n\nThe token reaches the log.\n\n<sub>🤖 Council of Claudes · reply or react 👍/👎 to teach it about this repository</sub>\n\n<!-- council:v1 id=fp2 reviewer=security category=secrets%2Flogging severity=high -->"},
		github.ReviewComment{Path: "h.go", Line: 1, Body: "Summary without a marker."},
	)
	// alice copies a marker: not council's, but her own ask.
	post("alice", 1, github.ReviewComment{Path: "h.go", Line: 1, Body: "me too <!-- council:v1 id=fake reviewer=x -->"})
	post("dev", 1, github.ReviewComment{Path: "h.go", Line: 2, Body: "Note to reviewers: b is on purpose."})
	post("helper[bot]", 1, github.ReviewComment{Path: "h.go", Line: 3, Body: "Consider a constant."})
	post("rabbit", 1, github.ReviewComment{Path: "h.go", Line: 3, Body: "Nitpick: rename c."})
	post(githubtest.DefaultLogin, 2, github.ReviewComment{Path: "h.go", Line: 1, Body: councilBody("Unused a", "a is never read.", "fp3", "maintainability")})
	post("alice", 2, github.ReviewComment{Path: "h.go", Line: 1, Body: "Please name `a` after what it holds.\r\n"})
	post(githubtest.DefaultLogin, 3, github.ReviewComment{Path: "h.go", Line: 1, Body: councilBody("Too late", "x", "fp4", "correctness")})

	cs := s.comments(t, 1)
	advance(time.Minute)
	for _, r := range []struct {
		who, body string
	}{{"dev", "Good catch, fixed."}, {"alice", "Not sure this matters."}, {githubtest.DefaultLogin, "Thanks for the reply."}} {
		if _, err := s.as[r.who].ReplyToReviewComment(ctx, "acme", "widgets", 1, cs[0].ID, r.body); err != nil {
			t.Fatal(err)
		}
	}
	s.srv.AddReaction("acme", "widgets", cs[0].ID, "dev", "+1")
	s.srv.AddReaction("acme", "widgets", cs[0].ID, "alice", "heart")
	s.srv.AddReaction("acme", "widgets", cs[1].ID, "dev", "-1")
	s.srv.ResolveThreadAs(cs[1].ID, "dev")
	s.srv.MarkMerged("acme", "widgets", 2, "")
	return s
}

// comments are the thread-starting comments of #n, oldest first.
func (s *hvSetup) comments(t *testing.T, n int) []github.ReviewComment {
	t.Helper()
	all, err := s.as["dev"].ReviewComments(context.Background(), "acme", "widgets", n)
	if err != nil {
		t.Fatal(err)
	}
	var out []github.ReviewComment
	for _, c := range all {
		if c.InReplyTo == 0 {
			out = append(out, c)
		}
	}
	return out
}

func trusted(login string) bool { return login == githubtest.DefaultLogin }

func TestLearnHarvest(t *testing.T) {
	t.Parallel()
	s := setupHarvest(t)
	ctx := context.Background()
	var asked []int64
	o := learn.HarvestOptions{
		Repo: "acme/widgets", Since: s.at[1], Until: s.at[3], Trusted: trusted,
		Addressed: func(_ context.Context, pr learn.PRInfo, c learn.Comment) (bool, error) {
			asked = append(asked, c.ID)
			if !pr.Merged || pr.HeadSHA == "" || c.CommitID == "" || c.Line != 1 || c.Side != github.SideRight {
				t.Errorf("Addressed(%+v, %+v)", pr, c)
			}
			return true, nil
		},
	}
	// Without Ignore, rabbit's comment is a person's.
	got, err := learn.Harvest(ctx, s.as[githubtest.DefaultLogin], o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got, func(sg learn.Signal) bool { return sg.Author == "rabbit" }) {
		t.Errorf("rabbit's comment is not an ask without Ignore: %+v", got)
	}
	asked = nil
	o.Ignore = []string{"Rabbit"}
	got, err = learn.Harvest(ctx, s.as[githubtest.DefaultLogin], o)
	if err != nil {
		t.Fatal(err)
	}
	one, two := s.comments(t, 1), s.comments(t, 2)
	all1, err := s.as["dev"].ReviewComments(ctx, "acme", "widgets", 1)
	if err != nil {
		t.Fatal(err)
	}
	replyAt := func(body string) time.Time {
		for _, c := range all1 {
			if c.Body == body {
				return c.CreatedAt
			}
		}
		t.Fatalf("no reply %q", body)
		return time.Time{}
	}
	want := []learn.Signal{
		{
			Repo: "acme/widgets", PR: 1, PRCreated: s.at[1], URL: one[0].HTMLURL, CommentID: one[0].ID, Created: one[0].CreatedAt,
			Fingerprint: "fp1", Reviewer: "correctness", Path: "h.go", Line: 2,
			Title: "Close drops the error", Body: "The error from `Close` is lost.",
			Replies: []learn.Reply{
				{Author: "dev", WriteAccess: true, Body: "Good catch, fixed.", Created: replyAt("Good catch, fixed.")},
				{Author: "alice", Body: "Not sure this matters.", Created: replyAt("Not sure this matters.")},
			},
			Reactions: map[string]int{"+1": 1, "heart": 1},
		},
		{
			Repo: "acme/widgets", PR: 1, PRCreated: s.at[1], URL: one[1].HTMLURL, CommentID: one[1].ID, Created: one[1].CreatedAt,
			Fingerprint: "fp2", Reviewer: "security", Category: "secrets/logging", Severity: "high", Path: "h.go", Line: 3,
			Title: "Token logged", Body: "The token reaches the log.",
			Reactions: map[string]int{"-1": 1}, Resolved: true, ResolvedBy: "dev",
		},
		{
			Repo: "acme/widgets", PR: 1, PRCreated: s.at[1], URL: one[3].HTMLURL, CommentID: one[3].ID, Created: one[3].CreatedAt,
			Path: "h.go", Line: 1, Body: "me too <!-- council:v1 id=fake reviewer=x -->", Source: learn.SourceReview, Author: "alice",
		},
		{
			Repo: "acme/widgets", PR: 2, PRCreated: s.at[2], PRMerged: true, URL: two[0].HTMLURL, CommentID: two[0].ID, Created: two[0].CreatedAt,
			Fingerprint: "fp3", Reviewer: "maintainability", Path: "h.go", Line: 1,
			Title: "Unused a", Body: "a is never read.", Addressed: true,
		},
		{
			Repo: "acme/widgets", PR: 2, PRCreated: s.at[2], PRMerged: true, URL: two[1].HTMLURL, CommentID: two[1].ID, Created: two[1].CreatedAt,
			Path: "h.go", Line: 1, Body: "Please name `a` after what it holds.", Addressed: true, Source: learn.SourceReview, Author: "alice",
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("signals (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int64{two[0].ID, two[1].ID}, asked); d != "" {
		t.Errorf("Addressed asked for (-want +got):\n%s", d)
	}
}

func TestLearnHarvestCacheAndRateLimit(t *testing.T) {
	t.Parallel()
	s := setupHarvest(t, githubtest.WithMaxPerPage(1))
	ctx := context.Background()
	dir := t.TempDir()
	now := time.Date(2026, 9, 3, 0, 0, 0, 0, time.UTC)
	o := learn.HarvestOptions{
		Repo: "acme/widgets", Trusted: trusted, CacheDir: dir, MaxAge: time.Hour,
		Now: func() time.Time { return now },
	}
	client, err := github.New(github.Options{Token: botToken, BaseURL: s.srv.URL, RateLimitRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The listing (3 pages) and #3 go through; #2's history meets a spent rate limit.
	var n atomic.Int32
	s.srv.SetDelay(func(method, path string) time.Duration {
		if method == http.MethodGet && path == "/repos/acme/widgets/pulls/2" && n.Add(1) == 1 {
			s.srv.FailNext(http.StatusForbidden, githubtest.RateLimitHeaders(now.Add(time.Hour)), "")
		}
		return 0
	})
	var log strings.Builder
	o.Log = &log
	_, err = learn.Harvest(ctx, client, o)
	if !github.IsRateLimited(err) || !strings.Contains(err.Error(), "rate limited at #2 after 1 pull request (1 read from GitHub, 0 from the cache)") ||
		!strings.Contains(err.Error(), "run again to resume") {
		t.Fatalf("error %v, want a rate limit at #2 after #3", err)
	}

	// The second run reads #2 and #1 only.
	before := s.srv.Log()
	var cached []int
	o.OnPR = func(pr, _ int, c bool) {
		if c {
			cached = append(cached, pr)
		}
	}
	got, err := learn.Harvest(ctx, client, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || len(cached) != 1 || cached[0] != 3 {
		t.Errorf("resumed run: %d signals, cached %v; want 7 (4 council's; alice's two and rabbit's) and [3]", len(got), cached)
	}
	for _, r := range s.srv.Log()[len(before):] {
		if strings.Contains(r.Path, "/pulls/3") || strings.HasSuffix(r.Path, "/pulls") {
			t.Errorf("resumed run read %s %s again", r.Method, r.Path)
		}
	}

	// Within MaxAge, nothing is asked of GitHub; the result is the same.
	requests := s.srv.Requests()
	again, err := learn.Harvest(ctx, client, o)
	if err != nil {
		t.Fatal(err)
	}
	if sent := s.srv.Requests() - requests; sent != 0 {
		t.Errorf("a run within MaxAge sent %d requests, want 0", sent)
	}
	if d := cmp.Diff(got, again); d != "" {
		t.Errorf("cached signals differ (-first +cached):\n%s", d)
	}
	// Which logins are ignored is the run's choice, the cache's signals are everyone's.
	o.Ignore = []string{"alice"}
	fewer, err := learn.Harvest(ctx, client, o)
	if err != nil {
		t.Fatal(err)
	}
	if sent := s.srv.Requests() - requests; sent != 0 || len(fewer) != len(got)-2 {
		t.Errorf("with alice ignored, from the cache: %d signals (want %d), %d requests", len(fewer), len(got)-2, sent)
	}
	o.Ignore = nil

	// Later, the open pull requests are read again and the merged one is not.
	now = now.Add(2 * time.Hour)
	before = s.srv.Log()
	reads := s.srv.Count("GET", "/repos/acme/widgets/pulls/1")
	if _, err := learn.Harvest(ctx, client, o); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.srv.Log()[len(before):] {
		if r.Path == "/repos/acme/widgets/pulls/2" {
			t.Errorf("the merged #2 was read again")
		}
	}
	if n := s.srv.Count("GET", "/repos/acme/widgets/pulls/1") - reads; n != 1 {
		t.Errorf("open #1 read %d times, want 1", n)
	}
}

func TestLearnHarvestOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []learn.HarvestOptions{{Repo: "acme", Trusted: trusted}, {Repo: "acme/widgets"}} {
		if _, err := learn.Harvest(context.Background(), nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestLearnHarvestCacheVersion reads again a pull request cached before human reviewers'
// comments were harvested: a closed pull request would otherwise never be read again.
func TestLearnHarvestCacheVersion(t *testing.T) {
	t.Parallel()
	s := setupHarvest(t)
	ctx := context.Background()
	dir := t.TempDir()
	o := learn.HarvestOptions{Repo: "acme/widgets", Trusted: trusted, CacheDir: dir, MaxAge: time.Hour}
	client := s.as[githubtest.DefaultLogin]
	if _, err := learn.Harvest(ctx, client, o); err != nil {
		t.Fatal(err)
	}
	// #2 (merged) as a council before the version kept it: no version, council's signals only.
	file := filepath.Join(dir, "acme", "widgets", "pr-2.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pr map[string]any
	if err := json.Unmarshal(data, &pr); err != nil {
		t.Fatal(err)
	}
	if pr["version"] != float64(2) {
		t.Fatalf("cached #2 has version %v, want 2", pr["version"])
	}
	delete(pr, "version")
	pr["signals"] = pr["signals"].([]any)[:1]
	if data, err = json.Marshal(pr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	reads := s.srv.Count("GET", "/repos/acme/widgets/pulls/2")
	got, err := learn.Harvest(ctx, client, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.srv.Count("GET", "/repos/acme/widgets/pulls/2") - reads; n != 1 {
		t.Errorf("#2 cached without a version read %d times, want 1", n)
	}
	if !slices.ContainsFunc(got, func(sg learn.Signal) bool { return sg.PR == 2 && sg.Source == learn.SourceReview }) {
		t.Errorf("alice's ask on #2 is not harvested again: %+v", got)
	}
}
