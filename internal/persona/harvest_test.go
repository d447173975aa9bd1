package persona_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/review"
)

const (
	readerToken = "ghp_reader"
	hvOwner     = "acme"
	hvRepo      = "widgets"
)

// hvPatch adds n lines to f.go: lines 1 to n can take comments.
func hvPatch(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/f.go b/f.go\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n--- /dev/null\n+++ b/f.go\n@@ -0,0 +1,%d @@\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

type hvSetup struct {
	srv    *githubtest.Server
	as     map[string]*github.Client // by login
	reader *github.Client
	slept  *[]time.Duration
}

func stepClock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Minute)
		return now
	}
}

func hvNew(t testing.TB, opts ...githubtest.Option) hvSetup {
	t.Helper()
	users := map[string]string{"ghp_alice": "alice", "ghp_dev": "dev", "ghs_bot": "helper[bot]"}
	opts = append(opts, githubtest.WithToken(readerToken), githubtest.WithClock(stepClock()))
	for tok, login := range users {
		opts = append(opts, githubtest.WithUser(tok, login, githubtest.PullRequestsWrite))
	}
	s := hvSetup{srv: githubtest.New(t, opts...), as: map[string]*github.Client{}, slept: &[]time.Duration{}}
	for tok, login := range users {
		c, err := github.New(github.Options{Token: tok, BaseURL: s.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		s.as[login] = c
	}
	var mu sync.Mutex
	c, err := github.New(github.Options{Token: readerToken, BaseURL: s.srv.URL, Sleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*s.slept = append(*s.slept, d)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.reader = c
	return s
}

// addPR opens pull request n by author, with lines lines to comment on.
func (s hvSetup) addPR(t testing.TB, n int, author string, lines int) {
	t.Helper()
	s.srv.AddPR(hvOwner, hvRepo, githubtest.PR{Number: n, Title: fmt.Sprint("PR ", n), Author: author}, hvPatch(lines), nil)
}

func (s hvSetup) review(t testing.TB, who string, n int, body string, comments ...github.ReviewComment) {
	t.Helper()
	pr, err := s.reader.PullRequest(context.Background(), hvOwner, hvRepo, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.as[who].CreateReview(context.Background(), hvOwner, hvRepo, n, github.ReviewRequest{CommitID: pr.HeadSHA, Body: body, Comments: comments}); err != nil {
		t.Fatalf("review of #%d by %s: %v", n, who, err)
	}
}

// mapCache is a persona.Cache in memory.
type mapCache map[string]persona.HarvestedPR

func (m mapCache) Load(repo string, pr int) (persona.HarvestedPR, bool, error) {
	h, ok := m[fmt.Sprint(repo, "#", pr)]
	return h, ok, nil
}

func (m mapCache) Store(repo string, pr int, h persona.HarvestedPR) error {
	m[fmt.Sprint(repo, "#", pr)] = h
	return nil
}

// listingCache is a mapCache that also keeps listings: a persona.ListingCache.
type listingCache struct {
	mapCache
	listings map[string]persona.Listing
}

var _ persona.ListingCache = listingCache{}

func (c listingCache) LoadListing(repo string) (persona.Listing, bool, error) {
	l, ok := c.listings[repo]
	return l, ok, nil
}

func (c listingCache) StoreListing(repo string, l persona.Listing) error {
	c.listings[repo] = l
	return nil
}

// countingGitHub counts History calls and can fail or inject a fault before one.
type countingGitHub struct {
	persona.GitHub
	histories []int
	before    func(call int) error
}

func (c *countingGitHub) History(ctx context.Context, owner, repo string, n int) (github.History, error) {
	c.histories = append(c.histories, n)
	if c.before != nil {
		if err := c.before(len(c.histories)); err != nil {
			return github.History{}, err
		}
	}
	return c.GitHub.History(ctx, owner, repo, n)
}

func TestHarvestSelectsAndPaginates(t *testing.T) {
	t.Parallel()
	s := hvNew(t, githubtest.WithMaxPerPage(2))
	ctx := context.Background()
	s.addPR(t, 1, "dev", 5)
	s.review(t, "alice", 1, "Two things; details inline.",
		github.ReviewComment{Path: "f.go", Line: 2, Body: "Should this return the error instead of logging it?"},
		github.ReviewComment{Path: "f.go", Line: 4, Body: "nit: name this `limit`."})
	s.review(t, "helper[bot]", 1, "Coverage 80%", github.ReviewComment{Path: "f.go", Line: 3, Body: "Automated hint."})
	s.addPR(t, 2, "alice", 3) // alice's own: never read
	s.review(t, "dev", 2, "", github.ReviewComment{Path: "f.go", Line: 1, Body: "Why here?"})
	s.addPR(t, 3, "dev", 3)
	s.review(t, "dev", 3, "", github.ReviewComment{Path: "f.go", Line: 1, Body: "Is this right?"})
	// An approval with no text: nothing to learn.
	pr3, err := s.reader.PullRequest(ctx, hvOwner, hvRepo, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.as["alice"].CreateReview(ctx, hvOwner, hvRepo, 3, github.ReviewRequest{CommitID: pr3.HeadSHA, Event: github.EventApprove}); err != nil {
		t.Fatal(err)
	}
	s.addPR(t, 4, "dev", 3)
	s.addPR(t, 5, "dev", 3)

	comments, err := s.as["dev"].ReviewComments(ctx, hvOwner, hvRepo, 1)
	if err != nil {
		t.Fatal(err)
	}
	var first, nit int64
	for _, c := range comments {
		switch {
		case strings.HasPrefix(c.Body, "Should this"):
			first = c.ID
		case strings.HasPrefix(c.Body, "nit:"):
			nit = c.ID
		}
	}
	if _, err := s.as["dev"].ReplyToReviewComment(ctx, hvOwner, hvRepo, 1, first, "It is logged on purpose: the caller retries."); err != nil {
		t.Fatal(err)
	}
	if _, err := s.as["alice"].ReplyToReviewComment(ctx, hvOwner, hvRepo, 1, first, "Thanks!"); err != nil {
		t.Fatal(err)
	}
	threads, err := s.as["alice"].ReviewThreads(ctx, hvOwner, hvRepo, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if th.FirstCommentID == nit {
			if err := s.as["alice"].ResolveThread(ctx, th.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A secondary rate limit answers the second history's first request.
	gh := &countingGitHub{GitHub: s.reader, before: func(call int) error {
		if call == 2 {
			s.srv.FailNext(403, map[string]string{"retry-after": "7"}, "")
		}
		return nil
	}}
	res, err := persona.Harvest(ctx, gh, persona.HarvestOptions{Owner: hvOwner, Repo: hvRepo, Login: "ALICE"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Duration{7 * time.Second}, *s.slept); d != "" {
		t.Errorf("rate-limit waits (-want +got):\n%s", d)
	}
	// Five pull requests, two a page: three list requests.
	if n := s.srv.Count("GET", "/repos/acme/widgets/pulls"); n != 3 {
		t.Errorf("%d list requests, want 3 (pages of 2)", n)
	}
	if d := cmp.Diff([]int{5, 4, 3, 1}, gh.histories); d != "" {
		t.Errorf("histories read (-want +got):\n%s", d)
	}
	if res.PRs != 5 || res.Fetched != 4 || res.OwnPRs != 1 || res.Cached != 0 {
		t.Errorf("counts %+v", res)
	}
	type got struct {
		Body      string
		Line      int
		Review    bool
		Reply     bool
		Addressed string
		Hunk      bool
	}
	var gotList []got
	for _, c := range res.Comments {
		a := "null"
		if c.Addressed != nil {
			a = fmt.Sprint(*c.Addressed)
		}
		if c.Repo != "acme/widgets" || c.PR != 1 || c.Author != "alice" || c.CreatedAt.IsZero() || c.ID == 0 {
			t.Errorf("comment %+v lacks its repo, pr, author, date or id", c)
		}
		if !c.ReviewBody && (c.Path != "f.go" || c.Side != "RIGHT") {
			t.Errorf("inline comment %+v lacks its path or side", c)
		}
		gotList = append(gotList, got{c.Body, c.Line, c.ReviewBody, c.InReplyTo != nil, a, strings.HasPrefix(c.DiffHunk, "@@")})
	}
	want := []got{
		{"Two things; details inline.", 0, true, false, "null", false},
		{"Should this return the error instead of logging it?", 2, false, false, "null", true},
		{"nit: name this `limit`.", 4, false, false, "true", true},
		{"Thanks!", 2, false, true, "null", true},
	}
	if d := cmp.Diff(want, gotList); d != "" {
		t.Errorf("harvested (-want +got):\n%s", d)
	}
	// The thread alice started carries what others answered in it, not her own reply.
	for _, c := range res.Comments {
		var want []persona.Reply
		if c.ID == first {
			want = []persona.Reply{{Author: "dev", Body: "It is logged on purpose: the caller retries."}}
		}
		if d := cmp.Diff(want, c.Replies); d != "" {
			t.Errorf("replies of %q (-want +got):\n%s", c.Body, d)
		}
	}
	// The acknowledgement is kept by Harvest and counted by Select.
	sel := persona.Select(res.Comments, "alice")
	if d := cmp.Diff([]review.Count{{Name: persona.ExcludedAck, Count: 1}}, sel.Excluded); d != "" {
		t.Errorf("excluded (-want +got):\n%s", d)
	}
}

func TestHarvestBotComments(t *testing.T) {
	t.Parallel()
	s := hvNew(t)
	s.addPR(t, 1, "dev", 3)
	s.review(t, "helper[bot]", 1, "Automated summary.", github.ReviewComment{Path: "f.go", Line: 1, Body: "Automated hint."})
	res, err := persona.Harvest(context.Background(), s.reader, persona.HarvestOptions{Owner: hvOwner, Repo: hvRepo, Login: "helper[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Comments) != 0 || cmp.Diff([]review.Count{{Name: persona.ExcludedBot, Count: 2}}, res.Excluded) != "" {
		t.Errorf("a bot's comments were harvested: %+v, excluded %+v", res.Comments, res.Excluded)
	}
}

// seed opens prs pull requests by dev, each with alice's review of perPR inline comments.
func (s hvSetup) seed(t testing.TB, prs, perPR int) {
	t.Helper()
	for n := 1; n <= prs; n++ {
		s.addPR(t, n, "dev", perPR)
		var cs []github.ReviewComment
		for i := 1; i <= perPR; i++ {
			cs = append(cs, github.ReviewComment{Path: "f.go", Line: i, Body: fmt.Sprintf("Comment %d on #%d: could this return the error rather than log it?", i, n)})
		}
		s.review(t, "alice", n, "", cs...)
	}
}

func TestHarvestCacheAndResume(t *testing.T) {
	t.Parallel()
	s := hvNew(t)
	s.seed(t, 6, 2)
	ctx := context.Background()
	cache := listingCache{mapCache: mapCache{}, listings: map[string]persona.Listing{}}
	now := new(time.Time)
	*now = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	opts := persona.HarvestOptions{Owner: hvOwner, Repo: hvRepo, Login: "alice", Cache: cache,
		MaxAge: 24 * time.Hour, Now: func() time.Time { return *now }}

	// The first run stops at the fourth pull request it reads.
	boom := errors.New("connection reset")
	gh := &countingGitHub{GitHub: s.reader, before: func(call int) error {
		if call == 4 {
			return boom
		}
		return nil
	}}
	res, err := persona.Harvest(ctx, gh, opts)
	if !errors.Is(err, boom) || res.Fetched != 3 || len(cache.mapCache) != 3 || len(cache.listings) != 0 {
		t.Fatalf("interrupted run: err %v, fetched %d, cached %d, listings %d", err, res.Fetched, len(cache.mapCache), len(cache.listings))
	}

	// The second run reads only the three it lacks.
	gh = &countingGitHub{GitHub: s.reader}
	res, err = persona.Harvest(ctx, gh, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{3, 2, 1}, gh.histories); d != "" || res.Cached != 3 || res.Fetched != 3 || len(res.Comments) != 12 {
		t.Errorf("resumed run read %v (cached %d, fetched %d, %d comments), want 3, 2, 1", gh.histories, res.Cached, res.Fetched, len(res.Comments))
	}

	// The third sends no request at all: the listing the second stored is fresh.
	before := s.srv.Requests()
	gh = &countingGitHub{GitHub: s.reader}
	again, err := persona.Harvest(ctx, gh, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sent := s.srv.Requests() - before; sent != 0 || len(gh.histories) != 0 || !again.CachedListing {
		t.Errorf("a run within --max-age sent %d requests and read %v (cached listing %v), want none", sent, gh.histories, again.CachedListing)
	}
	if d := cmp.Diff(res.Comments, again.Comments); d != "" {
		t.Errorf("cached comments differ (-fetched +cached):\n%s", d)
	}

	// With Refresh it sends the listing only.
	refresh := opts
	refresh.Refresh = true
	before = s.srv.Requests()
	gh = &countingGitHub{GitHub: s.reader}
	if again, err = persona.Harvest(ctx, gh, refresh); err != nil {
		t.Fatal(err)
	}
	if sent := s.srv.Requests() - before; sent != 1 || len(gh.histories) != 0 || again.CachedListing {
		t.Errorf("a refreshed run on an unchanged repository sent %d requests and read %v, want 1 (the listing) and none", sent, gh.histories)
	}

	// A new comment moves #2's updated_at: a fresh listing hides it, a refresh reads #2 only.
	s.review(t, "alice", 2, "One more thing: the test sleeps.")
	gh = &countingGitHub{GitHub: s.reader}
	if res, err = persona.Harvest(ctx, gh, opts); err != nil || len(gh.histories) != 0 || len(res.Comments) != 12 {
		t.Errorf("within max-age: err %v, read %v, %d comments; want none, 12", err, gh.histories, len(res.Comments))
	}
	gh = &countingGitHub{GitHub: s.reader}
	res, err = persona.Harvest(ctx, gh, refresh)
	if err != nil || cmp.Diff([]int{2}, gh.histories) != "" || len(res.Comments) != 13 {
		t.Errorf("after a new review: err %v, read %v, %d comments; want #2 only, 13", err, gh.histories, len(res.Comments))
	}

	// Past max-age, or for an earlier --since, the listing is read again.
	*now = now.Add(25 * time.Hour)
	before = s.srv.Requests()
	if res, err = persona.Harvest(ctx, s.reader, opts); err != nil || res.CachedListing || s.srv.Requests()-before != 1 {
		t.Errorf("past max-age: err %v, cached listing %v, %d requests; want the listing", err, res.CachedListing, s.srv.Requests()-before)
	}
	later := opts
	later.Since = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if res, err = persona.Harvest(ctx, s.reader, later); err != nil || !res.CachedListing {
		t.Errorf("a later --since than the listing's: err %v, cached listing %v; want the cached listing", err, res.CachedListing)
	}
}

// TestHarvestMeasure harvests 2,000 comments (100 pull requests × 20) and logs the requests
// and time of a first run and of a cached second run: go test -run HarvestMeasure -v.
func TestHarvestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100 pull requests")
	}
	t.Parallel()
	s := hvNew(t)
	s.seed(t, 100, 20)
	ctx := context.Background()
	cache := listingCache{mapCache: mapCache{}, listings: map[string]persona.Listing{}}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	opts := persona.HarvestOptions{Owner: hvOwner, Repo: hvRepo, Login: "alice", Cache: cache,
		MaxAge: 24 * time.Hour, Now: func() time.Time { return now }}
	for _, run := range []string{"first", "second (cached)"} {
		before, start := s.reader.Requests(), time.Now()
		res, err := persona.Harvest(ctx, s.reader, opts)
		if err != nil {
			t.Fatal(err)
		}
		sent := s.reader.Requests() - before
		t.Logf("%s run: %d comments from %d pull requests, %d GitHub requests, %v", run, len(res.Comments), res.PRs, sent, time.Since(start).Round(time.Millisecond))
		if len(res.Comments) != 2000 {
			t.Errorf("%s run: %d comments, want 2000", run, len(res.Comments))
		}
		// A first run: one list page, then per pull request its get, reviews, comments and
		// threads. A second, within max-age: nothing.
		want := 1 + 4*100
		if res.Cached == 100 {
			want = 0
		}
		if sent != want {
			t.Errorf("%s run: %d requests, want %d", run, sent, want)
		}
	}
}
