package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// askRepo is acme/widgets' clone: three pull requests (#11, #12, #13), each adding an
// exported function in its own file, then answering review with an "Address review comments"
// commit that documents it, merged with GitHub's merge message one day apart (January 11, 12
// and 13).
type askRepo struct {
	dir    string
	heads  map[int]string // the reviewed commit of each pull request
	merges map[int]string // its merge commit
}

// askFuncs are the pull requests' functions, by number.
var askFuncs = map[int]string{11: "Eleven", 12: "Twelve", 13: "Thirteen"}

func newAskRepo(t *testing.T) askRepo {
	t.Helper()
	r := askRepo{dir: filepath.Join(t.TempDir(), "widgets"), heads: map[int]string{}, merges: map[int]string{}}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	as := func(who string, args ...string) string {
		t.Helper()
		at = at.Add(time.Minute)
		return gitAs(t, r.dir, who, at, args...)
	}
	write := func(path, content string) { t.Helper(); writeText(t, filepath.Join(r.dir, path), content) }
	commit := func(who, msg string) string {
		t.Helper()
		as(who, "add", "-A")
		as(who, "commit", "-qm", msg)
		return as(who, "rev-parse", "HEAD")
	}
	as("maintainer", "init", "-q", "-b", "main")
	as("maintainer", "remote", "add", "origin", "https://github.com/acme/widgets.git")
	write("widgets.go", "package widgets\n")
	commit("maintainer", "initial")
	for n := 11; n <= 13; n++ {
		name := askFuncs[n]
		file := strings.ToLower(name) + ".go"
		fn := fmt.Sprintf("func %s() int {\n\treturn %d\n}\n", name, n)
		at = time.Date(2026, 1, n, 9, 0, 0, 0, time.UTC)
		as("dev", "checkout", "-q", "-b", strings.ToLower(name), "main")
		write(file, "package widgets\n\n"+fn)
		r.heads[n] = commit("dev", "Add "+name)
		write(file, "package widgets\n\n// "+name+" is the number of widgets in a box.\n"+fn)
		commit("dev", "Address review comments\n\nDocument "+name+".")
		as("maintainer", "checkout", "-q", "main")
		as("maintainer", "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from dev/%s\n\nAdd %s", n, strings.ToLower(name), name), strings.ToLower(name))
		r.merges[n] = as("maintainer", "rev-parse", "HEAD")
	}
	return r
}

func readSignalsFile(t *testing.T, path string) []learn.Signal {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := learn.ReadSignals(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestLearnGit is issue 23's done-when: council learn --git harvests, offline, an ask for each
// of the three pull requests, on its file, at the line the doc comment went under.
func TestLearnGit(t *testing.T) {
	t.Parallel()
	r := newAskRepo(t)
	sigs := filepath.Join(t.TempDir(), "asks.jsonl")
	res := council(t, nil, "learn", "--git", r.dir, "--dry-run", "--signals-out", sigs)
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s", res.code, res.err)
	}
	got := readSignalsFile(t, sigs)
	if len(got) != 3 {
		t.Fatalf("%d asks, want 3:\n%+v\n%s", len(got), got, res.err)
	}
	urls := map[string]bool{}
	for i, s := range got {
		n := 11 + i // oldest merge first
		name := askFuncs[n]
		file := strings.ToLower(name) + ".go"
		// The doc comment is inserted under the blank line that follows the package clause.
		line := lineOf(t, r.dir, r.heads[n], file, "func "+name+"() int {") - 1
		if s.Repo != "acme/widgets" || s.PR != n || s.Path != file || s.Line != line || s.Merge != r.merges[n] ||
			s.Source != learn.SourceFeedback || s.Author != "dev" || !s.Addressed || !s.PRMerged {
			t.Errorf("ask %d: %+v; want #%d on %s:%d, merge %s", i, s, n, file, line, r.merges[n])
		}
		if !strings.Contains(s.Body, "Address review comments\n\nDocument "+name+".") || !strings.Contains(s.Body, "+// "+name+" is the number of widgets in a box.") {
			t.Errorf("ask %d's body lacks the message or the doc comment:\n%s", i, s.Body)
		}
		if fb := strings.TrimSpace(git(t, r.dir, "rev-parse", r.merges[n]+"^2")); s.Commit != fb || !strings.HasPrefix(s.URL, fmt.Sprintf("https://github.com/acme/widgets/pull/%d/commits/%s#diff-", n, fb)) ||
			!strings.HasSuffix(s.URL, fmt.Sprintf("L%d", line)) {
			t.Errorf("ask %d: commit %s, url %s; want the feedback commit %s", i, s.Commit, s.URL, fb)
		}
		if created := strings.TrimSpace(git(t, r.dir, "log", "-1", "--format=%cI", r.heads[n])); !s.PRCreated.Equal(mustTime(t, created)) {
			t.Errorf("ask %d: pr_created %s, want the branch's first commit's %s", i, s.PRCreated, created)
		}
		urls[s.URL] = true
	}
	if len(urls) != len(got) {
		t.Errorf("%d distinct urls for %d asks: distillation cites signals by url", len(urls), len(got))
	}
	for _, want := range []string{
		"council: reading what the reviewers of acme/widgets asked for from the merges of main in " + r.dir + " (3 merges",
		"acme/widgets: 3 merges walked, 3 with feedback: 3 asks",
		"council: 3 asks by reviewers (3 from changes made in answer to review, in git)",
		"saved 3 signals to " + sigs,
	} {
		if !strings.Contains(res.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.err)
		}
	}
	if strings.Contains(res.err, "comments:") {
		t.Errorf("council's acceptance printed for asks alone:\n%s", res.err)
	}

	// --since and --until bound the merges by their dates; --paths the files.
	res = council(t, nil, "learn", "--git", r.dir, "--since", "2026-01-12", "--until", "2026-01-13", "--dry-run", "--signals-out", sigs)
	if got := readSignalsFile(t, sigs); res.code != ExitOK || len(got) != 1 || got[0].PR != 12 {
		t.Errorf("#12 alone: exit %d, %+v\n%s", res.code, got, res.err)
	}
	res = council(t, nil, "learn", "--git", r.dir, "--paths", "!eleven.go", "--dry-run", "--signals-out", sigs)
	if got := readSignalsFile(t, sigs); res.code != ExitOK || len(got) != 2 || !strings.Contains(res.err, "dropped: 1 feedback hunk: outside --paths") {
		t.Errorf("--paths '!eleven.go': exit %d, %d asks\n%s", res.code, len(got), res.err)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestLearnGitBadInput(t *testing.T) {
	t.Parallel()
	r := newAskRepo(t)
	work := t.TempDir()

	// A shallow clone: the merges whose branch reaches past its depth are counted, not asks.
	shallow := filepath.Join(work, "shallow")
	git(t, r.dir, "clone", "-q", "--depth", "2", "file://"+r.dir, shallow)
	res := council(t, nil, "learn", "--git", shallow, "--name", "acme/widgets", "--dry-run")
	if res.code != ExitOK || !strings.Contains(res.err, "is a shallow clone") ||
		!strings.Contains(res.err, "skipped: 1 the branch reaches past the shallow clone's depth") {
		t.Errorf("shallow: exit %d\n%s", res.code, res.err)
	}

	// No merges on the branch.
	git(t, r.dir, "branch", "linear", r.heads[11])
	res = council(t, nil, "learn", "--git", r.dir, "--branch", "linear", "--dry-run")
	if res.code != ExitUsage || !strings.Contains(res.err, "no merge commits on linear") {
		t.Errorf("no merges: exit %d\n%s", res.code, res.err)
	}
	// None in the window either.
	res = council(t, nil, "learn", "--git", r.dir, "--until", "2026-01-05", "--dry-run")
	if res.code != ExitUsage || !strings.Contains(res.err, "no merge commits on main until 2026-01-05") {
		t.Errorf("no merges before --until: exit %d\n%s", res.code, res.err)
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"not a repository", []string{"--git", work, "--name", "acme/widgets"}, "--git " + work},
		{"since after until", []string{"--git", r.dir, "--since", "2026-02-01", "--until", "2026-01-01"}, "--until 2026-01-01 is not after --since 2026-02-01"},
		{"invalid paths glob", []string{"--git", r.dir, "--paths", "pkg/[a-"}, `--paths "pkg/[a-"`},
		{"no name", []string{"--git", shallow + "-none"}, "--git"},
	} {
		res := council(t, nil, append([]string{"learn", "--dry-run"}, tt.args...)...)
		if res.code != ExitUsage || !strings.Contains(res.err, tt.want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", tt.name, res.code, tt.want, res.err)
		}
	}
	// A clone without an origin needs --name.
	bare := filepath.Join(work, "bare")
	git(t, r.dir, "clone", "-q", "--bare", r.dir, bare)
	res = council(t, nil, "learn", "--git", bare, "--dry-run")
	if res.code != ExitUsage || !strings.Contains(res.err, "pass --name owner/repo") {
		t.Errorf("no name: exit %d\n%s", res.code, res.err)
	}
}

// TestLearnGitAndRepo harvests council's comments from GitHub and the asks of a clone in one
// run, and builds the learnings from both: the file's source names the repository, counts
// the pull requests and the merges with asks, and keeps --since and --until.
func TestLearnGitAndRepo(t *testing.T) {
	t.Parallel()
	s := newLearnSetup(t)
	r := newAskRepo(t)
	dir := t.TempDir()
	out, sigs := filepath.Join(dir, "learnings.yaml"), filepath.Join(dir, "s.jsonl")
	var cite []string // the asks' urls, once harvested
	fake := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		if !hasTool(req, learn.AskTool) { // council's own comments: no pattern
			return anthropictest.ToolReply(learn.Tool, map[string]any{"learnings": []any{}})
		}
		return anthropictest.ToolReply(learn.AskTool, map[string]any{"asks": []any{map[string]any{
			"id": "document-exported", "category": "docs",
			"text": "Give every exported function a doc comment.", "evidence_urls": cite,
		}}})
	}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	for k, v := range s.env {
		env[k] = v
	}
	// Dry first, to learn the asks' urls the model is to cite.
	args := []string{"learn", "--repo", "acme/widgets", "--git", r.dir, "--since", "2026-01-12", "--until", "2026-09-03", "--cache", filepath.Join(dir, "cache"), "--signals-out", sigs}
	if res := council(t, env, append(args, "--dry-run")...); res.code != ExitOK {
		t.Fatalf("dry run: exit %d\n%s", res.code, res.err)
	}
	got := readSignalsFile(t, sigs)
	var asks []int
	for _, sg := range got {
		if sg.IsAsk() {
			asks = append(asks, sg.PR)
			cite = append(cite, sg.URL)
		}
	}
	// #12 and #13 were merged on or after January 12; council's five comments are on pull
	// requests created in September.
	if d := cmp.Diff([]int{12, 13}, asks); d != "" || len(got) != 7 {
		t.Fatalf("asks by pull request (-want +got):\n%s\n%d signals", d, len(got))
	}
	res := council(t, env, append(args, "--out", out)...)
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s", res.code, res.err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	file, err := learn.Parse(out, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Learnings) != 1 || file.Learnings[0].Kind != learn.Ask || len(file.Learnings[0].Evidence) != 2 || file.Learnings[0].Evidence[0].URL != cite[0] ||
		file.Learnings[0].Counts[string(learn.Accepted)] != 2 {
		t.Errorf("learnings %+v\n%s", file.Learnings, res.err)
	}
	src := file.Source
	if src == nil || strings.Join(src.Repos, ",") != "acme/widgets" || src.PRs != 5 || src.Signals != 7 ||
		!src.Since.Equal(time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)) || !src.Until.Equal(time.Date(2026, 9, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("source %+v", src)
	}
}

// TestLearnReviewAsks harvests human reviewers' inline comments from acme/widget#7 (bench
// import's pull request): alice's and bob's thread-starting comments are asks; the author's
// note, the app bot's comment and the replies are not, and --ignore-user leaves bob out.
func TestLearnReviewAsks(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	s.reviewPR7(t)
	ctx := t.Context()
	sigs := filepath.Join(t.TempDir(), "s.jsonl")
	args := []string{"learn", "--repo", "acme/widget", "--council-login", "council-bot", "--clone", s.repo.clone, "--cache", t.TempDir(), "--dry-run", "--signals-out", sigs}
	res := council(t, s.env, args...)
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s", res.code, res.err)
	}
	comments, err := s.as["dev"].ReviewComments(ctx, "acme", "widget", 7)
	if err != nil {
		t.Fatal(err)
	}
	byBody := map[string]github.ReviewComment{}
	for _, c := range comments {
		byBody[c.Body] = c
	}
	type ask struct {
		Author, Body string
		Addressed    bool
		Resolved     bool
		Replies      int
	}
	var got []ask
	for _, sg := range readSignalsFile(t, sigs) {
		c, ok := byBody[sg.Body]
		if !ok || sg.Source != learn.SourceReview || sg.URL != c.HTMLURL || sg.CommentID != c.ID || sg.Path != c.Path || sg.PR != 7 || !sg.PRMerged {
			t.Errorf("signal %+v is not the ask of a comment of #7", sg)
		}
		got = append(got, ask{sg.Author, sg.Body[:min(20, len(sg.Body))], sg.Addressed, sg.Resolved, len(sg.Replies)})
	}
	// The lines of alice's comments on the lock and on the size limit (on the base's side)
	// changed before the merge, as bench import finds; bob resolved his thread, but its line
	// stayed. Replies are everyone's but council's, as for council's comments: dev's and the
	// app bot's on the lock.
	want := []ask{
		{"alice", "When `load` fails th", true, false, 2},
		{"alice", "Why drop the size li", true, false, 0},
		{"alice", "Nice!", false, false, 1},
		{"alice", "Should we log here?", false, false, 0},
		{"bob", "`strconv.Atoi`'s err", false, true, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("asks (-want +got):\n%s\nstderr:\n%s", d, res.err)
	}
	if !strings.Contains(res.err, "acme/widget: 1 pull request (1 read from GitHub, 0 from the cache): 0 council comments by council-bot, 5 inline comments by reviewers") ||
		!strings.Contains(res.err, "council: 5 asks by reviewers (5 from inline comments on GitHub)") {
		t.Errorf("stderr:\n%s", res.err)
	}

	res = council(t, s.env, append(args, "--ignore-user", "BOB")...)
	if got := readSignalsFile(t, sigs); res.code != ExitOK || len(got) != 4 {
		t.Errorf("--ignore-user BOB: exit %d, %d asks, want alice's 4\n%s", res.code, len(got), res.err)
	}
}

// TestWriteLearnStatsAsks prints asks apart from council's acceptance, by source and by top
// directory, the table cut after maxAskDirs directories.
func TestWriteLearnStatsAsks(t *testing.T) {
	t.Parallel()
	var ss []learn.Signal
	for i := range maxAskDirs + 2 {
		ss = append(ss, learn.Signal{Source: learn.SourceFeedback, Path: fmt.Sprintf("d%02d/x.go", i)})
	}
	ss = append(ss, learn.Signal{Source: learn.SourceReview, Path: "d00/y.go"})
	var b strings.Builder
	writeLearnStats(&b, learn.ComputeStats(ss))
	got := b.String()
	for _, want := range []string{
		"council: 23 asks by reviewers (22 from changes made in answer to review, in git, 1 from inline comments on GitHub)",
		"d00     2", "2 more     2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "accepted") || strings.Contains(got, "d21") {
		t.Errorf("council's acceptance printed for asks alone, or the table not cut:\n%s", got)
	}
}
