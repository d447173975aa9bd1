package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/history"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// feedbackRepo is a repository whose pull requests were merged with merge commits, each
// shaped like one of the cases an import from git must handle.
type feedbackRepo struct {
	dir string
	// pr7Head is #7's reviewed commit, pr9Head #9's (a merge of main into the branch).
	pr7Head, pr9Head string
}

func newFeedbackRepo(t *testing.T) feedbackRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := feedbackRepo{dir: dir}
	// as commits as a person: the committer is who the import credits with the feedback.
	as := func(who string, args ...string) string {
		t.Helper()
		return gitAs(t, dir, who, time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC), args...)
	}
	write := func(path, content string) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(who, msg string) string {
		t.Helper()
		as(who, "add", "-A")
		as(who, "commit", "-qm", msg)
		return as(who, "rev-parse", "HEAD")
	}
	merge := func(branch, msg string) {
		t.Helper()
		as("maintainer", "checkout", "-q", "main")
		as("maintainer", "merge", "-q", "--no-ff", "-m", msg, branch)
	}
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "\t%s%02d()\n", prefix, i)
		}
		return b.String()
	}
	cache := func(imports, body string) string {
		return "package cache\n\nimport (\n" + imports + ")\n\nfunc run() {\n" + body + "}\n"
	}

	as("maintainer", "init", "-q", "-b", "main")
	write("cache.go", cache("\t\"fmt\"\n", lines("step", 20)))
	write("size.go", "package cache\n\nfunc limit(n int) int {\n\tif n > 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n")
	write("old.go", "package cache\n\n"+lines("legacy", 12))
	write("pkg/testdata/in.json", "{\"a\": 1}\n")
	write("vendor/lib/lib.go", "package lib\n\nvar X = 1\n")
	write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00binary\x00")
	write("other.go", "package cache\n\nvar other = 1\n")
	commit("maintainer", "initial")

	// #7: reviewed at "Add Cache.Lookup"; the feedback is two commits, then other work.
	as("dev", "checkout", "-q", "-b", "topic")
	write("cache.go", cache("\t\"fmt\"\n", lines("step", 20)+"\tlookup()\n"))
	write("size.go", "package cache\n\nfunc limit(n int) int {\n\tif n > 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n\nfunc zero() int { return 0 }\n")
	write("old.go", "package cache\n\n"+lines("legacy", 12)+"\tlegacy13()\n")
	write("pkg/testdata/in.json", "{\"a\": 1, \"b\": 1}\n")
	write("vendor/lib/lib.go", "package lib\n\nvar X = 1\n\nvar Y = 1\n")
	write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00binary2\x00")
	r.pr7Head = commit("dev", "Add Cache.Lookup")
	write("cache.go", cache("\t\"errors\"\n\t\"fmt\"\n", strings.Replace(lines("step", 20), "step15()", "step15(ctx)", 1)+"\tlookup()\n"))
	write("size.go", "package cache\n\nfunc limit(n int) int {\n    if n > 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n\nfunc zero() int { return 0 }\n") // whitespace only
	write("pkg/testdata/in.json", "{\"a\": 2, \"b\": 1}\n")
	write("vendor/lib/lib.go", "package lib\n\nvar X = 2\n\nvar Y = 1\n")
	write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00other\x00")
	write("new.go", "package cache\n\nfunc added() {}\n")
	write("other.go", "package cache\n\nvar other = 2\n") // the review did not see this file
	as("dev", "mv", "old.go", "renamed.go")
	write("renamed.go", "package cache\n\n"+strings.Replace(lines("legacy", 12), "legacy07()", "legacy07(true)", 1)+"\tlegacy13()\n")
	commit("dev", "Address review comments")
	write("size.go", "package cache\n\nfunc limit(n int) int {\n    if n >= 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n\nfunc zero() int { return 0 }\n")
	commit("rev", "fixup! Add Cache.Lookup")
	write("cache.go", cache("\t\"errors\"\n\t\"fmt\"\n", strings.Replace(lines("step", 20), "step15()", "step15(ctx)", 1)+"\tlookup()\n\tmore()\n"))
	commit("dev", "Add metrics")
	merge("topic", "Merge pull request #7 from dev/topic\n\nAdd Cache.Lookup")

	// #8: no commit answers review.
	as("dev", "checkout", "-q", "-b", "plain")
	write("plain.go", "package cache\n")
	commit("dev", "Add plain")
	as("dev", "checkout", "-q", "main")

	// #9: forks, main moves on (#8 merges), the branch merges main in, is reviewed, answers.
	as("dev", "checkout", "-q", "-b", "nine")
	write("nine.go", "package cache\n\nfunc nine() int {\n\treturn 9\n}\n")
	commit("dev", "Add nine")
	merge("plain", "Merge pull request #8 from dev/plain\n\nAdd plain")
	as("dev", "checkout", "-q", "nine")
	as("dev", "merge", "-q", "--no-ff", "-m", "Merge branch 'main' into nine", "main")
	r.pr9Head = as("dev", "rev-parse", "HEAD")
	write("nine.go", "package cache\n\nfunc nine() int {\n\treturn 3 * 3\n}\n")
	commit("dev", "address review: compute it")
	merge("nine", "Merge pull request #9 from dev/nine\n\nAdd nine")

	// An octopus merge of two branches.
	as("dev", "checkout", "-q", "-b", "o1")
	write("o1.go", "package cache\n")
	commit("dev", "one")
	as("dev", "checkout", "-q", "main")
	as("dev", "checkout", "-q", "-b", "o2")
	write("o2.go", "package cache\n")
	commit("dev", "two")
	as("maintainer", "checkout", "-q", "main")
	as("maintainer", "merge", "-q", "--no-ff", "-m", "Merge branches o1 and o2", "o1", "o2")

	// #11: the feedback only touches test data and whitespace: nothing to score.
	as("dev", "checkout", "-q", "-b", "eleven")
	write("eleven.go", "package cache\n\nvar eleven = 11\n")
	commit("dev", "Add eleven")
	write("pkg/testdata/in.json", "{\"a\": 3}\n")
	commit("dev", "Review markups")
	merge("eleven", "Merge pull request #11 from dev/eleven\n\nAdd eleven")
	return r
}

// gitAs runs git in dir as who (author and committer, who@example.com), dated at, and
// returns its output trimmed.
func gitAs(t testing.TB, dir, who string, at time.Time, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := at.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+who, "GIT_AUTHOR_EMAIL="+who+"@example.com", "GIT_COMMITTER_NAME="+who, "GIT_COMMITTER_EMAIL="+who+"@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func readSample(t *testing.T, dir, id string) bench.Sample {
	t.Helper()
	s, err := bench.ReadSample(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBenchImportGit(t *testing.T) {
	t.Parallel()
	r := newFeedbackRepo(t)
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, nil, "bench", "import", "--git", r.dir, "--name", "acme/widget", "--out", out)
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s", res.code, res.err)
	}
	for _, want := range []string{
		"imported acme-widget-7: 3 truth items (6 dropped), head " + r.pr7Head[:7],
		"imported acme-widget-9: 1 truth items (0 dropped), head " + r.pr9Head[:7],
		"skipped merge ", ": an octopus merge of 2 branches: no one branch to replay",
		"skipped #11 (merge ", "every feedback hunk was dropped: 1 test data",
		"2 imported, 3 skipped:", "  skipped: 1 no commit of the branch answers review",
	} {
		if !strings.Contains(res.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.err)
		}
	}
	if strings.Contains(res.err, "skipped #8") {
		t.Errorf("a branch without feedback is counted, not listed one by one:\n%s", res.err)
	}

	s := readSample(t, out, "acme-widget-7")
	base := strings.TrimSpace(git(t, r.dir, "rev-parse", s.Head+"^"))
	merge := strings.TrimSpace(git(t, r.dir, "rev-parse", "main~4")) // #7's merge: then #8, #9, the octopus, #11
	if s.Head != r.pr7Head || s.Base != base || s.Merge != merge {
		t.Errorf("base %s head %s merge %s; want %s %s %s", s.Base, s.Head, s.Merge, base, r.pr7Head, merge)
	}
	if s.PR.Number != 7 || s.PR.Title != "Add Cache.Lookup" || s.PR.Author != "dev" || s.PR.BaseRef != "main" ||
		s.PR.URL != "https://github.com/acme/widget/pull/7" || s.PR.Body != "Add Cache.Lookup" ||
		s.Repo.Name != "acme/widget" || s.Repo.Path != r.dir || s.Repo.URL != "https://github.com/acme/widget.git" {
		t.Errorf("pr %+v, repo %+v", s.PR, s.Repo)
	}
	type item struct {
		Path, Author     string
		Start, Line      int
		Fixup, Addresses bool
	}
	var got []item
	for _, tr := range s.Truth {
		got = append(got, item{tr.Path, tr.Author, tr.StartLine, tr.Line,
			strings.Contains(tr.Body, "fixup! Add Cache.Lookup"), strings.Contains(tr.Body, "Address review comments")})
		if tr.Side != "RIGHT" || !tr.Addressed || tr.Kind != "other" || tr.Source != bench.SourceFeedback || !strings.Contains(tr.Body, "```diff\n@@ ") {
			t.Errorf("truth %s: side %s, addressed %v, kind %s, source %q, body:\n%s", tr.ID, tr.Side, tr.Addressed, tr.Kind, tr.Source, tr.Body)
		}
	}
	// cache.go's step15 (line 22 at head: 7 lines before the body); old.go's legacy07 at its
	// path at head, though the feedback renamed it; size.go's comparison, in one hunk with the
	// whitespace change beside it: both feedback commits touched the file, so the item carries
	// both messages and is credited to the first's committer.
	want := []item{
		{"cache.go", "dev", 0, 22, false, true},
		{"old.go", "dev", 0, 9, false, true},
		{"size.go", "dev", 0, 4, true, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("truth (-want +got):\n%s", diff)
	}
	var reasons []string
	for _, d := range s.Dropped {
		reasons = append(reasons, d.Reason)
	}
	slices.Sort(reasons)
	if diff := cmp.Diff([]string{history.DropAddedFile, "binary file", history.DropUntouched, history.DropImports, "test data", "vendored"}, slices.Compact(reasons)); diff != "" {
		t.Errorf("dropped reasons (-want +got):\n%s", diff)
	}
	checkTruthAtHead(t, r.dir, s)

	nine := readSample(t, out, "acme-widget-9")
	// #9 merged main into itself before the review: its base is the main it merged, so the
	// replayed diff is the branch's own change.
	if nine.Head != r.pr9Head || nine.Base != strings.TrimSpace(git(t, r.dir, "rev-parse", r.pr9Head+"^2")) ||
		len(nine.Truth) != 1 || nine.Truth[0].Path != "nine.go" || nine.Truth[0].Line != 4 {
		t.Errorf("#9: base %s head %s truth %+v", nine.Base, nine.Head, nine.Truth)
	}
	if changed := strings.Fields(git(t, r.dir, "diff", "--name-only", nine.Base, nine.Head)); !cmp.Equal(changed, []string{"nine.go"}) {
		t.Errorf("#9's replayed diff changes %v, want only nine.go", changed)
	}
	checkTruthAtHead(t, r.dir, nine)

	log, err := bench.ReadImportLog(out)
	if err != nil {
		t.Fatal(err)
	}
	byReason := map[string]int{}
	for _, e := range log.PRs {
		if e.Merge == "" || e.Repo != "acme/widget" {
			t.Errorf("import.json entry %+v: want the merge and the repository", e)
		}
		key := e.ID
		if key == "" {
			key = e.Reason
		}
		byReason[key]++
	}
	if len(log.PRs) != 5 || byReason["acme-widget-7"] != 1 || byReason[history.SkipNoFeedback] != 1 {
		t.Errorf("import.json: %+v", log.PRs)
	}

	// Again: the samples are kept, and --max counts them.
	again := council(t, nil, "bench", "import", "--git", r.dir, "--name", "acme/widget", "--out", out, "--max", "1")
	if again.code != ExitOK || !strings.Contains(again.err, "kept acme-widget-9: already in") || strings.Contains(again.err, "acme-widget-7") {
		t.Errorf("import again with --max 1: exit %d\n%s", again.code, again.err)
	}

	// --paths: only truth under the globs.
	only := filepath.Join(t.TempDir(), "only")
	res = council(t, nil, "bench", "import", "--git", r.dir, "--name", "acme/widget", "--out", only, "--paths", "*.go", "--paths", "!size.go")
	if res.code != ExitOK {
		t.Fatalf("--paths: exit %d\n%s", res.code, res.err)
	}
	for _, tr := range readSample(t, only, "acme-widget-7").Truth {
		if tr.Path == "size.go" {
			t.Errorf("--paths '!size.go' kept %+v", tr)
		}
	}
}

// checkTruthAtHead checks that every truth line of s exists in its file at s.Head.
func checkTruthAtHead(t *testing.T, dir string, s bench.Sample) {
	t.Helper()
	for _, tr := range s.Truth {
		n := strings.Count(git(t, dir, "show", s.Head+":"+tr.Path), "\n")
		if first, last := tr.Lines(); first < 1 || last > n {
			t.Errorf("%s truth %s: lines %d-%d of %s, which has %d lines at head", s.ID, tr.ID, first, last, tr.Path, n)
		}
	}
}

func TestBenchImportGitBadInput(t *testing.T) {
	t.Parallel()
	r := newFeedbackRepo(t)

	// A shallow clone: the merges within its depth import; those whose branch reaches past it
	// are skipped, saying why; nothing crashes.
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(t, r.dir, "clone", "-q", "--depth", "2", "file://"+r.dir, shallow)
	out := filepath.Join(t.TempDir(), "bench")
	res := council(t, nil, "bench", "import", "--git", shallow, "--name", "acme/widget", "--out", out)
	if res.code != ExitOK || !strings.Contains(res.err, "is a shallow clone") {
		t.Fatalf("shallow: exit %d\n%s", res.code, res.err)
	}
	if !strings.Contains(res.err, history.SkipShallow) {
		t.Errorf("shallow: no merge skipped for its depth:\n%s", res.err)
	}
	if samples, _ := filepath.Glob(filepath.Join(out, "*-*.json")); len(samples) > 0 {
		for _, p := range samples {
			s, err := bench.ReadSample(p)
			if err != nil {
				t.Fatal(err)
			}
			checkTruthAtHead(t, shallow, s)
		}
	}

	// No merge commits at all.
	flat := filepath.Join(t.TempDir(), "flat")
	git(t, r.dir, "clone", "-q", "--no-local", r.dir, flat)
	git(t, flat, "checkout", "-q", "-b", "linear", r.pr7Head)
	res = council(t, nil, "bench", "import", "--git", flat, "--branch", "linear", "--name", "acme/widget", "--out", filepath.Join(t.TempDir(), "b"))
	if res.code != ExitUsage || !strings.Contains(res.err, "no merge commits on linear") || !strings.Contains(res.err, "merged with merge commits") {
		t.Errorf("no merges: exit %d\n%s", res.code, res.err)
	}

	// Not a repository; a repository with no name to give its samples.
	res = council(t, nil, "bench", "import", "--git", t.TempDir(), "--out", filepath.Join(t.TempDir(), "b"))
	if res.code != ExitUsage || !strings.Contains(res.err, "--git") {
		t.Errorf("not a repository: exit %d\n%s", res.code, res.err)
	}
	res = council(t, nil, "bench", "import", "--git", r.dir, "--out", filepath.Join(t.TempDir(), "b"))
	if res.code != ExitUsage || !strings.Contains(res.err, "it has no origin remote): pass --name owner/repo") {
		t.Errorf("no name: exit %d\n%s", res.code, res.err)
	}
}

func TestBenchImportGitFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--git", "d", "--pr", "a/b#1", "--out", "o"}, "cannot be used with --pr or --repo"},
		{[]string{"--git", "d", "--limit", "3", "--out", "o"}, "--max bounds the samples"},
		{[]string{"--git", "d"}, "--out DIR is required"},
		{[]string{"--git", "d", "--out", "o", "--max", "-1"}, "--max -1"},
		{[]string{"--git", "d", "--out", "o", "--name", "nope"}, "--name"},
		{[]string{"--git", "d", "--out", "o", "--until", "June"}, `--until "June"`},
		{[]string{"--git", "d", "--out", "o", "--since", "2026-02-01", "--until", "2026-01-01"}, "is not after --since"},
		{[]string{"--git", "d", "--out", "o", "--paths", "!"}, "--paths"},
		{[]string{"--git", "d", "--out", "o", "--paths", "pkg/[a-"}, `--paths "pkg/[a-": `},
		{[]string{"--repo", "a/b", "--out", "o", "--max", "3"}, "use them with --git DIR"},
	} {
		res := council(t, nil, append([]string{"bench", "import"}, tt.args...)...)
		if res.code != ExitUsage || !strings.Contains(res.err, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tt.args, res.code, tt.want, res.err)
		}
	}
}

// TestBenchGitSampleScores runs a sample imported from git through bench run and score as
// one from GitHub: a finding on the line the feedback changed matches it.
func TestBenchGitSampleScores(t *testing.T) {
	t.Parallel()
	r := newFeedbackRepo(t)
	work := t.TempDir()
	dataset, run := filepath.Join(work, "bench"), filepath.Join(work, "run")
	if res := council(t, nil, "bench", "import", "--git", r.dir, "--name", "acme/widget", "--out", dataset, "--max", "1"); res.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", res.code, res.err)
	}
	s := readSample(t, dataset, "acme-widget-9")
	model := anthropictest.New(t, anthropictest.WithRespond(func(req anthropictest.Request) anthropictest.Reply {
		if isCheck(req) {
			return anthropictest.ToolReply("submit_verdicts", demoVerdict(lastTurnText(req)))
		}
		var findings []any
		if reviewerOf(lastTurnText(req)) == "Correctness" {
			findings = append(findings, map[string]any{
				"path": "nine.go", "line": 4, "quote": "\treturn 9", "severity": "low", "category": "other",
				"title": "Magic number", "body": "Compute nine rather than returning a bare 9.", "confidence": 0.6,
			})
		}
		return anthropictest.ToolReply("submit_review", map[string]any{"findings": findings})
	}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": model.URL}
	if res := council(t, env, "bench", "run", dataset, "--out", run); res.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", res.code, res.err)
	}
	if res := council(t, env, "bench", "score", run, "--truth", dataset); res.code != ExitOK {
		t.Fatalf("score: exit %d\n%s", res.code, res.err)
	}
	var sc bench.Score
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(run, "score.json"))), &sc); err != nil {
		t.Fatal(err)
	}
	if sc.Samples != 1 || sc.TruthItems != len(s.Truth) || len(sc.PerSample) != 1 {
		t.Fatalf("scored %d samples, %d truth items", sc.Samples, sc.TruthItems)
	}
	for _, ts := range sc.Tiers {
		if ts.Tier == bench.TierL1 && ts.TP != 1 {
			t.Errorf("L1: %d matched, want the finding on nine.go:4 to match the feedback there", ts.TP)
		}
	}
}
