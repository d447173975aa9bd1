package cli

import (
	"context"
	"encoding/base64"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

var updateBenchImport = flag.Bool("update-bench-import", false, "rewrite testdata/bench_import/*")

// Tokens of the people on the imported pull requests.
const (
	importToken = "ghp_importReaderToken000000000000000000"
	aliceToken  = "ghp_alice"
	bobToken    = "ghp_bob"
	carolToken  = "ghp_carol"
	devToken    = "ghp_dev" // the author
	botToken    = "ghs_helperbot"
	rabbitToken = "ghp_rabbit" // an AI reviewer that posts as a user
)

// importRepo is a repository whose pull request acme/widget#7 was force-pushed after its first
// human review: origin is the bare repository GitHub would hold (the first reviewed commit is
// in it, but in no branch), clone a clone of it made after the force-push.
type importRepo struct {
	work, origin, clone string
	// base0 is where the branch forked, base1 main's tip; head0 the first push, head1 the
	// second (the first reviewed), head2 the force-pushed rewrite, head3 the merged head.
	base0, base1, head0, head1, head2, head3 string
}

// diff is the patch from one commit to another, as the fake serves a pull request's.
func (r importRepo) diff(t *testing.T, from, to string) string {
	t.Helper()
	return git(t, r.work, "diff", from, to)
}

func newImportRepo(t *testing.T) importRepo {
	t.Helper()
	root := t.TempDir()
	r := importRepo{work: filepath.Join(root, "work"), origin: filepath.Join(root, "origin.git"), clone: filepath.Join(root, "clone")}
	run := func(args ...string) string { t.Helper(); return strings.TrimSpace(git(t, r.work, args...)) }
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(r.work, path), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "init", "-q", "--bare", "-b", "main", r.origin)
	// GitHub serves a commit by its SHA even when no branch holds it any more.
	git(t, r.origin, "config", "uploadpack.allowAnySHA1InWant", "true")
	if err := os.MkdirAll(r.work, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	cacheBase := "package cache\n\nimport \"sync\"\n\n// Cache maps keys to values.\ntype Cache struct {\n\tmu sync.Mutex\n\tm  map[string]string\n}\n\n" +
		"// Get returns the value of k.\nfunc (c *Cache) Get(k string) string {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.m[k]\n}\n"
	write("cache.go", cacheBase)
	write("size.go", "package cache\n\n// maxSize bounds a request.\nconst maxSize = 1 << 20\n\n"+
		"func limit(n int) int {\n\tif n > maxSize {\n\t\treturn maxSize\n\t}\n\treturn n\n}\n")
	run("add", "-A")
	run("commit", "-qm", "base")
	r.base0 = run("rev-parse", "HEAD")
	write("README.md", "# cache\n")
	run("add", "-A")
	run("commit", "-qm", "readme")
	r.base1 = run("rev-parse", "HEAD")

	run("checkout", "-q", "-b", "feature", r.base0)
	lookup := "\n// Lookup returns the value of k, loading it with load when missing.\n" +
		"func (c *Cache) Lookup(k string, load func(string) (string, error)) (string, error) {\n\tc.mu.Lock()\n" +
		"\tif v, ok := c.m[k]; ok {\n\t\tc.mu.Unlock()\n\t\treturn v, nil\n\t}\n\tv, err := load(k)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n" +
		"\tc.m[k] = v\n\tc.mu.Unlock()\n\treturn v, nil\n}\n"
	write("cache.go", cacheBase+lookup)
	size := "package cache\n\nimport \"strconv\"\n\n// parseSize reads a size in bytes.\nfunc parseSize(s string) int {\n\tn, _ := strconv.Atoi(s)\n\treturn n\n}\n"
	write("size.go", size)
	run("add", "-A")
	run("commit", "-qm", "lookup")
	r.head0 = run("rev-parse", "HEAD")
	test := "package cache\n\nimport \"testing\"\n\nfunc TestLookup(t *testing.T) {\n\tc := &Cache{m: map[string]string{}}\n" +
		"\tif v, _ := c.Lookup(\"a\", func(string) (string, error) { return \"x\", nil }); v != \"x\" {\n\t\tt.Fatal(v)\n\t}\n}\n"
	write("cache_test.go", test)
	run("add", "-A")
	run("commit", "-qm", "test lookup")
	r.head1 = run("rev-parse", "HEAD")
	run("push", "-q", r.origin, "main", "feature")

	// The author answers the review by rewriting the branch, then pushes once more.
	run("reset", "-q", "--soft", r.base0)
	fixed := strings.Replace(lookup, "\tif err != nil {\n\t\treturn \"\", err\n\t}\n\tc.m[k] = v\n\tc.mu.Unlock()\n",
		"\tif err != nil {\n\t\tc.mu.Unlock()\n\t\treturn \"\", err\n\t}\n\tc.m[k] = v\n\tc.mu.Unlock()\n", 1)
	write("cache.go", cacheBase+fixed)
	run("add", "-A")
	run("commit", "-qm", "lookup, tested")
	r.head2 = run("rev-parse", "HEAD")
	write("size.go", strings.Replace(strings.Replace(size, "// parseSize", "// maxSize bounds a request.\nconst maxSize = 1 << 20\n\n// parseSize", 1),
		"\treturn n\n", "\treturn min(n, maxSize)\n", 1))
	run("add", "-A")
	run("commit", "-qm", "bound sizes again")
	r.head3 = run("rev-parse", "HEAD")
	run("push", "-q", "-f", r.origin, "feature")

	// A clone made over the wire (not by hard links) holds what branches reach, nothing more.
	git(t, root, "clone", "-q", "--no-local", r.origin, r.clone)
	if err := exec.Command("git", "-C", r.clone, "cat-file", "-e", r.head1+"^{commit}").Run(); err == nil {
		t.Fatal("the clone already holds the force-pushed-away commit")
	}
	return r
}

// importClock moves a minute on every reading: every review and comment has its own time.
func importClock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Minute)
		return now
	}
}

type importSetup struct {
	repo importRepo
	gh   *githubtest.Server
	env  map[string]string
	as   map[string]*github.Client
}

func newImportSetup(t *testing.T) importSetup {
	t.Helper()
	s := importSetup{repo: newImportRepo(t), as: map[string]*github.Client{}}
	users := map[string]string{aliceToken: "alice", bobToken: "bob", carolToken: "carol", devToken: "dev", botToken: "helper[bot]", rabbitToken: "coderabbitai"}
	opts := []githubtest.Option{githubtest.WithToken(importToken), githubtest.WithClock(importClock())}
	for tok, login := range users {
		opts = append(opts, githubtest.WithUser(tok, login, githubtest.PullRequestsWrite))
	}
	s.gh = githubtest.New(t, opts...)
	for tok, login := range users {
		c, err := github.New(github.Options{Token: tok, BaseURL: s.gh.URL})
		if err != nil {
			t.Fatal(err)
		}
		s.as[login] = c
	}
	s.env = map[string]string{"GITHUB_TOKEN": importToken, "GITHUB_API_URL": s.gh.URL}
	return s
}

// reviewPR7 plays acme/widget#7's history on the fake: a bot and an AI reviewer on the first
// push; the author's note, alice's and bob's reviews and the replies on the second; the
// force-push, carol's review of the rewrite, the last push, bob resolving his thread, the merge.
func (s importSetup) reviewPR7(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	r := s.repo
	s.gh.AddPR("acme", "widget", githubtest.PR{
		Number: 7, Title: "Add Cache.Lookup", Body: "Lookup loads missing keys.", Author: "dev",
		BaseRef: "main", BaseSHA: r.base1, HeadRef: "feature", HeadSHA: r.head0,
	}, r.diff(t, r.base0, r.head0), nil)
	review := func(who string, req github.ReviewRequest) {
		t.Helper()
		if _, err := s.as[who].CreateReview(ctx, "acme", "widget", 7, req); err != nil {
			t.Fatalf("review by %s: %v", who, err)
		}
	}
	line := func(rev, file, text string) int { t.Helper(); return lineOf(t, r.work, rev, file, text) }

	review("helper[bot]", github.ReviewRequest{CommitID: r.head0, Comments: []github.ReviewComment{{
		Path: "cache.go", Line: line(r.head0, "cache.go", "c.m[k] = v"), Body: "Consider checking that the map is initialised before writing to it.",
	}}})
	review("coderabbitai", github.ReviewRequest{CommitID: r.head0, Body: "Walkthrough: this pull request adds a Lookup method to Cache that loads missing keys through a callback."})

	s.gh.SetHead("acme", "widget", 7, r.head1, r.diff(t, r.base0, r.head1))
	review("dev", github.ReviewRequest{CommitID: r.head1, Comments: []github.ReviewComment{{
		Path: "cache.go", Line: line(r.head1, "cache.go", "func (c *Cache) Lookup(k string, load func(string) (string, error)) (string, error) {"),
		Body: "Note for reviewers: this mirrors the loader of the old service, on purpose.",
	}}})
	review("alice", github.ReviewRequest{
		CommitID: r.head1, Event: github.EventRequestChanges,
		Body: "The lookup path has a locking problem and the size limit is gone; details inline. Please also add a test for the error path.",
		Comments: []github.ReviewComment{
			{
				Path: "cache.go", StartLine: line(r.head1, "cache.go", "if err != nil {"), Line: line(r.head1, "cache.go", `return "", err`),
				Body: "When `load` fails this returns with `c.mu` still held, so every later call deadlocks. Unlock before returning.",
			},
			{Path: "size.go", Line: line(r.base0, "size.go", "const maxSize = 1 << 20"), Side: github.SideLeft,
				Body: "Why drop the size limit? Without it a client can ask for any size and the server allocates all of it."},
			{Path: "cache_test.go", Line: line(r.head1, "cache_test.go", "func TestLookup(t *testing.T) {"), Body: "Nice!"},
			{Path: "cache.go", Line: line(r.head1, "cache.go", "c.m[k] = v"), Body: "Should we log here?"},
		},
	})
	review("bob", github.ReviewRequest{
		CommitID: r.head1, Event: github.EventApprove, Body: "LGTM",
		Comments: []github.ReviewComment{{
			Path: "size.go", Line: line(r.head1, "size.go", "n, _ := strconv.Atoi(s)"),
			Body: "`strconv.Atoi`'s error is dropped: `parseSize(\"ten\")` returns 0 and the caller cannot tell.",
		}},
	})
	comments, err := s.as["dev"].ReviewComments(ctx, "acme", "widget", 7)
	if err != nil {
		t.Fatal(err)
	}
	id := func(prefix string) int64 {
		t.Helper()
		for _, c := range comments {
			if strings.HasPrefix(c.Body, prefix) {
				return c.ID
			}
		}
		t.Fatalf("no comment %q", prefix)
		return 0
	}
	reply := func(who string, to int64, body string) {
		t.Helper()
		if _, err := s.as[who].ReplyToReviewComment(ctx, "acme", "widget", 7, to, body); err != nil {
			t.Fatalf("reply by %s: %v", who, err)
		}
	}
	reply("dev", id("When `load` fails"), "Good catch, fixed in the next push.")
	reply("helper[bot]", id("When `load` fails"), "Automated: marked as useful.")
	reply("dev", id("Nice!"), "Thanks!")

	s.gh.SetHead("acme", "widget", 7, r.head2, r.diff(t, r.base0, r.head2))
	review("carol", github.ReviewRequest{CommitID: r.head2, Body: "Second pass on the rewritten branch: the lookup is fine now, but the size limit is still missing."})
	s.gh.SetHead("acme", "widget", 7, r.head3, r.diff(t, r.base0, r.head3))
	threads, err := s.as["bob"].ReviewThreads(ctx, "acme", "widget", 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if th.FirstCommentID == id("`strconv.Atoi`") {
			if err := s.as["bob"].ResolveThread(ctx, th.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.gh.MarkMerged("acme", "widget", 7, "")
}

// deterministic replaces what changes from run to run: the fake's port and the temp dirs.
func (s importSetup) deterministic(text string) string {
	host := strings.TrimPrefix(s.gh.WebURL, "http://")
	text = strings.ReplaceAll(text, s.repo.clone, "$CLONE")
	text = strings.ReplaceAll(text, s.repo.origin, "$ORIGIN")
	return strings.ReplaceAll(text, host, "github.example")
}

func benchImportGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "bench_import", name)
	if *updateBenchImport {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-bench-import to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got), -update-bench-import rewrites it:\n%s", name, d)
	}
}

func TestBenchImportGolden(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	s.reviewPR7(t)
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, s.env, "bench", "import", "--pr", "acme/widget#7", "--clone", s.repo.clone, "--out", out)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	data, err := os.ReadFile(filepath.Join(out, "acme-widget-7.json"))
	if err != nil {
		t.Fatal(err)
	}
	benchImportGolden(t, "acme-widget-7.json", s.deterministic(string(data)))
	benchImportGolden(t, "stderr.golden", s.deterministic(strings.ReplaceAll(res.err, out, "$OUT")))
	if _, err := bench.ReadSample(filepath.Join(out, "acme-widget-7.json")); err != nil {
		t.Errorf("the sample does not read back: %v", err)
	}
	// The force-pushed-away commit was fetched by its SHA, and pinned.
	if got := strings.TrimSpace(git(t, s.repo.clone, "rev-parse", "refs/council/bench/"+s.repo.head1)); got != s.repo.head1 {
		t.Errorf("refs/council/bench/<head> = %s, want %s", got, s.repo.head1)
	}

	// Again: the sample is kept; --force imports it again, the same.
	again := council(t, s.env, "bench", "import", "--pr", "acme/widget#7", "--clone", s.repo.clone, "--out", out)
	if again.code != 0 || !strings.Contains(again.err, "kept acme-widget-7: already in") {
		t.Errorf("second run: exit %d, %s", again.code, again.err)
	}
	forced := council(t, s.env, "bench", "import", "--pr", "acme/widget#7", "--clone", s.repo.clone, "--out", out, "--force")
	if forced.code != 0 || !strings.Contains(forced.err, "imported acme-widget-7") {
		t.Errorf("--force: exit %d, %s", forced.code, forced.err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "acme-widget-7.json")); string(after) != string(data) {
		t.Error("importing again with --force changed the sample")
	}
}

func TestBenchImportSkips(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	ctx := context.Background()
	// #8: a bot reviewed, the author commented, no one else looked.
	s.gh.AddPR("acme", "widget", githubtest.PR{Number: 8, Author: "dev", BaseSHA: r.base1, HeadSHA: r.head3}, r.diff(t, r.base0, r.head3), nil)
	for _, who := range []string{"helper[bot]", "dev"} {
		if _, err := s.as[who].CreateReview(ctx, "acme", "widget", 8, github.ReviewRequest{Body: "A comment with plenty of words in it, but not a human review."}); err != nil {
			t.Fatal(err)
		}
	}
	// #9: alice reviewed a commit that is nowhere to be fetched.
	gone := strings.Repeat("9", 40)
	s.gh.AddPR("acme", "widget", githubtest.PR{Number: 9, Author: "dev", BaseSHA: r.base1, HeadSHA: gone}, r.diff(t, r.base0, r.head3), nil)
	if _, err := s.as["alice"].CreateReview(ctx, "acme", "widget", 9, github.ReviewRequest{Body: "This needs a test for the error path before it can go in."}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, s.env, "bench", "import", "--pr", "acme/widget#8", "--pr", "acme/widget#9", "--clone", r.clone, "--out", out)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	for _, want := range []string{
		"skipped acme/widget#8: no review by a human other than the author (left out as bots or AI reviewers: helper[bot])\n",
		"skipped acme/widget#9: the first reviewed commit 9999999 (reviewed by alice) is not in the clone and cannot be fetched by SHA",
		"0 imported, 2 skipped",
	} {
		if !strings.Contains(res.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.err)
		}
	}
	log, err := bench.ReadImportLog(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.PRs) != 2 || log.PRs[0].Reason != "no review by a human other than the author (left out as bots or AI reviewers: helper[bot])" ||
		!strings.HasPrefix(log.PRs[1].Reason, "the first reviewed commit 9999999") || log.PRs[0].ID != "" {
		t.Errorf("import.json = %+v", log.PRs)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("the dataset holds %d files, want import.json alone", len(entries))
	}

	// An unknown pull request is an error that says what to check.
	res = council(t, s.env, "bench", "import", "--pr", "acme/widget#404", "--clone", r.clone, "--out", out)
	if res.code != ExitUsage || !strings.Contains(res.err, "no pull request acme/widget#404, or the token cannot see it") {
		t.Errorf("unknown PR: exit %d, %s", res.code, res.err)
	}
	res = council(t, map[string]string{"GITHUB_API_URL": s.gh.URL}, "bench", "import", "--pr", "acme/widget#8", "--out", out)
	if res.code != ExitUsage || !strings.Contains(res.err, "set GITHUB_TOKEN") {
		t.Errorf("no token: exit %d, %s", res.code, res.err)
	}
}

func TestBenchImportRepoListing(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	ctx := context.Background()
	day := func(d int) func() time.Time {
		return func() time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	}
	type pr struct {
		n, created      int // created: the day of January 2026 (0: December 31, 2025)
		draft, reviewed bool
		state           string
		merged          bool
	}
	prs := []pr{
		{n: 20, created: 0, reviewed: true},
		{n: 21, created: 5, reviewed: true},
		{n: 22, created: 6, reviewed: true, draft: true},
		{n: 23, created: 7, reviewed: true, state: "closed"},
		{n: 24, created: 8},
		{n: 25, created: 9, reviewed: true, merged: true},
	}
	for _, p := range prs {
		s.gh.SetClock(day(p.created))
		s.gh.AddPR("acme", "widget", githubtest.PR{
			Number: p.n, Title: "change", Author: "dev", Draft: p.draft, State: p.state, BaseSHA: r.base1, HeadSHA: r.head3,
		}, r.diff(t, r.base0, r.head3), nil)
		if p.reviewed {
			if _, err := s.as["alice"].CreateReview(ctx, "acme", "widget", p.n, github.ReviewRequest{
				Body: "The size limit is applied after parsing; apply it to the input length too, or `parseSize` allocates first.",
			}); err != nil {
				t.Fatal(err)
			}
		}
		if p.merged {
			s.gh.MarkMerged("acme", "widget", p.n, "")
		}
	}
	out := filepath.Join(t.TempDir(), "bench")
	importLog := func() []bench.ImportEntry {
		t.Helper()
		l, err := bench.ReadImportLog(out)
		if err != nil {
			t.Fatal(err)
		}
		return l.PRs
	}
	imp := func(n int) bench.ImportEntry {
		return bench.ImportEntry{Repo: "acme/widget", Number: n, ID: bench.SampleID("acme", "widget", n)}
	}
	skipped := func(n int, reason string) bench.ImportEntry {
		return bench.ImportEntry{Repo: "acme/widget", Number: n, Reason: reason}
	}
	args := func(limit string) []string {
		return []string{"bench", "import", "--repo", "acme/widget", "--since", "2026-01-01", "--limit", limit, "--clone", r.clone, "--out", out}
	}

	// Newest first: #25 imported, #24 skipped (skips do not count), #23 imported: the limit.
	res := council(t, s.env, args("2")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	want := []bench.ImportEntry{imp(23), skipped(24, bench.NoHumanReview), imp(25)}
	if d := cmp.Diff(want, importLog()); d != "" {
		t.Errorf("import.json after --limit 2 (-want +got):\n%s", d)
	}
	wantErr := "imported acme-widget-25: 1 truth items (0 dropped), head " + r.head3[:7] + " (first review by alice)\n" +
		"skipped #24: no review by a human other than the author\n" +
		"imported acme-widget-23: 1 truth items (0 dropped), head " + r.head3[:7] + " (first review by alice)\n"
	if !strings.HasPrefix(res.err, wantErr) {
		t.Errorf("stderr (-want +got):\n%s", cmp.Diff(wantErr, res.err))
	}
	for n, merge := range map[int]string{25: r.head3, 23: ""} {
		smp, err := bench.ReadSample(filepath.Join(out, bench.SampleID("acme", "widget", n)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if smp.Merge != merge || smp.Base != r.base0 || smp.Head != r.head3 {
			t.Errorf("#%d: base %s head %s merge %q, want merge %q", n, smp.Base, smp.Head, smp.Merge, merge)
		}
	}

	// A larger limit counts what the dataset already holds, skips the draft and goes on.
	res = council(t, s.env, args("3")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	if !strings.Contains(res.err, "kept acme-widget-25") || !strings.Contains(res.err, "skipped #22: a draft pull request") ||
		!strings.Contains(res.err, "imported acme-widget-21") || !strings.Contains(res.err, "1 imported, 2 skipped") {
		t.Errorf("second run's stderr:\n%s", res.err)
	}
	// No limit: #20 is older than --since, and ends the listing.
	res = council(t, s.env, args("0")...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	want = []bench.ImportEntry{imp(21), skipped(22, "a draft pull request"), imp(23), skipped(24, bench.NoHumanReview), imp(25)}
	if d := cmp.Diff(want, importLog()); d != "" {
		t.Errorf("import.json after all (-want +got):\n%s", d)
	}

	res = council(t, s.env, "bench", "import", "--repo", "acme/nothing", "--clone", r.clone, "--out", out)
	if res.code != ExitUsage || !strings.Contains(res.err, "no repository acme/nothing, or the token cannot see it") {
		t.Errorf("unknown repository: exit %d, %s", res.code, res.err)
	}
}

func TestBenchImportFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o *BenchImportOptions)
	}{
		{name: "nothing", args: []string{"--out", "d"}, wantErr: "nothing to import"},
		{name: "both", args: []string{"--pr", "o/r#1", "--repo", "o/r", "--out", "d"}, wantErr: "cannot be used together"},
		{name: "no out", args: []string{"--pr", "o/r#1"}, wantErr: "--out DIR is required"},
		{name: "since without repo", args: []string{"--pr", "o/r#1", "--since", "2026-01-01", "--out", "d"}, wantErr: "use them with --repo"},
		{name: "bad since", args: []string{"--repo", "o/r", "--since", "yesterday", "--out", "d"}, wantErr: "want a date such as 2026-01-31"},
		{name: "bad limit", args: []string{"--repo", "o/r", "--limit", "-1", "--out", "d"}, wantErr: "--limit -1"},
		{name: "bad repo", args: []string{"--repo", "o", "--out", "d"}, wantErr: `--repo: "o" is not a repository: want OWNER/REPO`},
		{name: "bad pr", args: []string{"--pr", "o/r", "--out", "d"}, wantErr: "--pr: parse pull request reference"},
		{
			name: "prs and users", args: []string{"--pr", "o/r#1", "--pr", "https://github.com/o/s/pull/2", "--ignore-user", "a,b", "--ignore-user", "c", "--out", "d"},
			check: func(t *testing.T, o *BenchImportOptions) {
				if d := cmp.Diff([]string{"o/r#1", "https://github.com/o/s/pull/2"}, o.PRs); d != "" {
					t.Errorf("PRs (-want +got):\n%s", d)
				}
				if d := cmp.Diff([]string{"a", "b", "c"}, o.IgnoreUsers); d != "" {
					t.Errorf("IgnoreUsers (-want +got):\n%s", d)
				}
			},
		},
		{
			name: "repo and since", args: []string{"--repo", "o/r", "--since", "2026-02-01T10:00:00Z", "--limit", "5", "--out", "d"},
			check: func(t *testing.T, o *BenchImportOptions) {
				if !o.since.Equal(time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)) || o.Limit != 5 {
					t.Errorf("since %v, limit %d", o.since, o.Limit)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *BenchImportOptions
			cmd := NewCmdBenchImport(&Factory{Getenv: func(string) string { return "" }}, func(_ context.Context, o *BenchImportOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tt.args)
			cmd.SetOut(new(strings.Builder))
			cmd.SetErr(new(strings.Builder))
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
}

// TestBenchImportDeletedAccounts: GitHub serves a deleted account as "user": null. Its reviews
// were a person's: they count, under GitHub's name for such accounts, "ghost".
func TestBenchImportDeletedAccounts(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	ctx := context.Background()
	for n, who := range map[int]string{12: "alice", 13: "bob"} {
		author := map[int]string{12: "dev", 13: "erin"}[n]
		s.gh.AddPR("acme", "widget", githubtest.PR{Number: n, Title: "Bound sizes", Author: author, BaseSHA: r.base1, HeadSHA: r.head3}, r.diff(t, r.base0, r.head3), nil)
		if _, err := s.as[who].CreateReview(ctx, "acme", "widget", n, github.ReviewRequest{
			Body: "The size limit is applied after parsing; apply it to the input length too, or `parseSize` allocates first.",
			Comments: []github.ReviewComment{{
				Path: "size.go", Line: lineOf(t, r.work, r.head3, "size.go", "return min(n, maxSize)"),
				Body: "A negative size passes this bound: `parseSize(\"-1\")` returns -1 and the caller allocates nothing useful.",
			}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	s.gh.DeleteUser("alice") // the reviewer of #12
	s.gh.DeleteUser("erin")  // the author of #13
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, s.env, "bench", "import", "--pr", "acme/widget#12", "--pr", "acme/widget#13", "--clone", r.clone, "--out", out)
	for _, want := range []string{
		"imported acme-widget-12: 2 truth items (0 dropped), head " + r.head3[:7] + " (first review by ghost)",
		"imported acme-widget-13: 2 truth items (0 dropped), head " + r.head3[:7] + " (first review by bob)",
	} {
		if res.code != 0 || !strings.Contains(res.err, want) {
			t.Fatalf("exit %d, stderr lacks %q:\n%s", res.code, want, res.err)
		}
	}
	type who struct{ Author, Truth0, Truth1 string }
	for n, want := range map[int]who{12: {"dev", "ghost", "ghost"}, 13: {"ghost", "bob", "bob"}} {
		smp, err := bench.ReadSample(filepath.Join(out, bench.SampleID("acme", "widget", n)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := (who{smp.PR.Author, smp.Truth[0].Author, smp.Truth[1].Author}); got != want {
			t.Errorf("#%d: author %q, truth by %q and %q; want %+v", n, got.Author, got.Truth0, got.Truth1, want)
		}
	}
}

// TestImportFetchKeepsTheTokenOffTheCommandLine: the credential that fetches a commit from
// GitHub travels in git's environment, scoped to GitHub's host: never in git's arguments,
// which every user of the machine can read (ps, /proc/PID/cmdline), nor in the error.
func TestImportFetchKeepsTheTokenOffTheCommandLine(t *testing.T) {
	// Not parallel: PATH is the process's. A git that notes its arguments and its
	// configuration environment, then runs the real one.
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	script := "#!/bin/sh\n{ printf 'ARGS'; printf ' %s' \"$@\"; echo; env | grep '^GIT_CONFIG_'; } >> '" + calls + "'\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil { //nolint:gosec // an executable test helper
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	srv := githubtest.New(t, githubtest.WithToken(importToken))
	env := map[string]string{"GITHUB_TOKEN": importToken, "GITHUB_API_URL": srv.URL}
	client, err := github.New(github.Options{Token: importToken, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	f := &Factory{Getenv: func(k string) string { return env[k] }}
	r := &importRun{f: f, o: &BenchImportOptions{Clone: filepath.Join(t.TempDir(), "clone")}, gh: client}
	defer func() {
		for _, g := range r.clones {
			_ = g.Close()
		}
	}()
	im, err := r.importer(context.Background(), "acme", "widget")
	if err != nil {
		t.Fatal(err)
	}
	// The fake serves no git: the fetch fails, after git was called with the credential.
	fetchErr := im.Git.Fetch(context.Background(), strings.Repeat("1", 40))
	if fetchErr == nil {
		t.Fatal("fetched a commit nothing serves")
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	secrets := []string{importToken, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + importToken))}
	for _, line := range strings.Split(log, "\n") {
		for _, secret := range secrets {
			if strings.HasPrefix(line, "ARGS") && strings.Contains(line, secret) {
				t.Errorf("the credential is on git's command line: %s", line)
			}
			if strings.Contains(fetchErr.Error(), secret) {
				t.Errorf("the credential is in the error: %v", fetchErr)
			}
		}
	}
	if want := "=http." + srv.WebURL + "/.extraHeader"; !strings.Contains(log, want) {
		t.Errorf("no git configuration %q that sends the credential to GitHub alone:\n%s", want, log)
	}
}

// TestBenchImportRepoKeepsADraftsSample: a draft imported with --pr stays in the dataset, and
// import.json keeps saying so, when a --repo listing comes across it.
func TestBenchImportRepoKeepsADraftsSample(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	s.gh.AddPR("acme", "widget", githubtest.PR{Number: 30, Title: "wip", Author: "dev", Draft: true, BaseSHA: r.base1, HeadSHA: r.head3}, r.diff(t, r.base0, r.head3), nil)
	if _, err := s.as["alice"].CreateReview(context.Background(), "acme", "widget", 30, github.ReviewRequest{
		Body: "The size limit is applied after parsing; apply it to the input length too, or `parseSize` allocates first.",
	}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bench")
	if res := council(t, s.env, "bench", "import", "--pr", "acme/widget#30", "--clone", r.clone, "--out", out); res.code != 0 {
		t.Fatalf("--pr: exit %d: %s", res.code, res.err)
	}
	res := council(t, s.env, "bench", "import", "--repo", "acme/widget", "--limit", "1", "--clone", r.clone, "--out", out)
	if res.code != 0 || !strings.Contains(res.err, "kept acme-widget-30") {
		t.Errorf("--repo: exit %d, stderr:\n%s", res.code, res.err)
	}
	l, err := bench.ReadImportLog(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]bench.ImportEntry{{Repo: "acme/widget", Number: 30, ID: "acme-widget-30"}}, l.PRs); d != "" {
		t.Errorf("import.json (-want +got):\n%s", d)
	}
}

// TestBenchImportCloneIsAClone: --clone names a clone, which a subdirectory of it names too; a
// directory with other things in it is refused rather than made a new repository, and a new
// directory becomes one.
func TestBenchImportCloneIsAClone(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	r := s.repo
	s.gh.AddPR("acme", "widget", githubtest.PR{Number: 40, Title: "Bound sizes", Author: "dev", BaseSHA: r.base1, HeadSHA: r.head3}, r.diff(t, r.base0, r.head3), nil)
	if _, err := s.as["alice"].CreateReview(context.Background(), "acme", "widget", 40, github.ReviewRequest{
		Body: "The size limit is applied after parsing; apply it to the input length too, or `parseSize` allocates first.",
	}); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(r.clone, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(sub, "notes.txt"), "mine\n")
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, s.env, "bench", "import", "--pr", "acme/widget#40", "--clone", sub, "--out", out)
	if res.code != 0 {
		t.Fatalf("--clone a subdirectory of the clone: exit %d: %s", res.code, res.err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".git")); err == nil {
		t.Error("a new repository was made inside the clone's work tree")
	}
	smp, err := bench.ReadSample(filepath.Join(out, "acme-widget-40.json"))
	if err != nil {
		t.Fatal(err)
	}
	if smp.Repo.Path != r.clone {
		t.Errorf("repo.path %q, want the clone %q", smp.Repo.Path, r.clone)
	}

	other := t.TempDir()
	writeText(t, filepath.Join(other, "notes.txt"), "mine\n")
	res = council(t, s.env, "bench", "import", "--pr", "acme/widget#40", "--clone", other, "--out", out, "--force")
	if res.code != ExitUsage || !strings.Contains(res.err, "is not a git repository") {
		t.Errorf("--clone a directory that is no repository: exit %d: %s", res.code, res.err)
	}
	if _, err := os.Stat(filepath.Join(other, ".git")); err == nil {
		t.Error("a directory that is no repository was made one")
	}
}
