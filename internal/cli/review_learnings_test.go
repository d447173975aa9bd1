package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/report"
)

// demoLearnings suppresses the demo's race finding (correctness, concurrency, store.go), tries
// to suppress its critical path traversal (security), and emphasises something on files the
// change does not touch.
const demoLearnings = `learnings:
  - id: no-race-advice
    kind: suppress
    text: Maintainers decline the concurrency findings on the store; it runs single-threaded.
    reviewer: correctness
    category: concurrency
    paths: ["store.go"]
  - id: no-security-noise
    kind: suppress
    text: Security findings on handlers are noise here.
    reviewer: security
    paths: ["handler.go"]
  - id: docs-links
    kind: emphasise
    text: Check that links in the docs resolve.
    paths: ["docs/**"]
`

// commitFile writes file in repo and commits it on a new branch from the given revision.
func commitFile(t *testing.T, repo, branch, from, file, content string) {
	t.Helper()
	git(t, repo, "checkout", "-q", "-b", branch, from)
	if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", file)
	git(t, repo, "commit", "-qm", "add "+file)
}

// reviewPrompts are the cached parts of the reviewers' requests, up to and including the last
// block with a cache_control breakpoint, and everything after it.
func reviewPrompts(t *testing.T, fake *anthropictest.Server) (cached, after []string) {
	t.Helper()
	for _, q := range fake.Requests() {
		if !hasTool(q, "submit_review") {
			continue
		}
		var before, rest strings.Builder
		last := -1
		blocks := q.Messages[0].Content
		for i, b := range blocks {
			if b.CacheControl != nil {
				last = i
			}
		}
		if last < 0 {
			t.Fatal("a reviewer's request has no cache breakpoint in its first message")
		}
		for i, b := range blocks {
			if i <= last {
				before.WriteString(b.Text)
			} else {
				rest.WriteString(b.Text)
			}
		}
		for _, m := range q.Messages[1:] {
			for _, b := range m.Content {
				rest.WriteString(b.Text)
			}
		}
		cached, after = append(cached, before.String()), append(after, rest.String())
	}
	if len(cached) == 0 {
		t.Fatal("no reviewer request reached the fake")
	}
	return cached, after
}

func TestLearningsFromBase(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	commitFile(t, repo, "base2", "v1", ".council/learnings.yaml", demoLearnings)
	git(t, repo, "checkout", "-q", "-b", "pr", "v2")

	fake := anthropicDemo(t)
	out := filepath.Join(t.TempDir(), "out")
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
		"review", "--repo", repo, "--base", "base2", "--head", "pr", "--format", "markdown,json", "--out-dir", out)
	if r.code != ExitFindings && r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	data, err := os.ReadFile(filepath.Join(out, "review.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := decodeReport(t, data)

	// The race is suppressed: filtered, with the learning's id, not dropped.
	race := findingTitled(t, rep, "Reserve can oversell under concurrency")
	if race.Status != finding.Filtered || race.FilterReason != "learning no-race-advice: Maintainers decline the concurrency findings on the store; it runs single-threaded." {
		t.Errorf("race finding: status %s, reason %q; want filtered by learning no-race-advice", race.Status, race.FilterReason)
	}
	// The critical path traversal matches no-security-noise, and is still reported.
	if trav := findingTitled(t, rep, "Path traversal in /export"); trav.Status != finding.Reported {
		t.Errorf("critical finding: status %s, reason %q; a learning must never suppress it", trav.Status, trav.FilterReason)
	}
	want := []report.LearningUse{
		{ID: "no-race-advice", Kind: "suppress", Text: "Maintainers decline the concurrency findings on the store; it runs single-threaded.", Suppressed: 1},
		{ID: "no-security-noise", Kind: "suppress", Text: "Security findings on handlers are noise here.", Suppressed: 0},
	}
	if len(rep.Learnings) != len(want) {
		t.Fatalf("learnings = %+v, want %+v (docs-links applies to no changed file)", rep.Learnings, want)
	}
	for i := range want {
		if rep.Learnings[i] != want[i] {
			t.Errorf("learnings[%d] = %+v, want %+v", i, rep.Learnings[i], want[i])
		}
	}
	if len(rep.Degraded) != 0 {
		t.Errorf("degraded = %q", rep.Degraded)
	}

	// The reviewers were told, inside the cached prefix, the same for each of them.
	cached, after := reviewPrompts(t, fake)
	for i := range cached {
		if !strings.Contains(cached[i], "## What this repository's maintainers taught council") ||
			!strings.Contains(cached[i], "- [no-race-advice] (reviewer correctness, category concurrency, paths store.go) Maintainers decline the concurrency findings") {
			t.Errorf("request %d: the learnings are not in the cached prefix:\n%s", i, cached[i])
		}
		if strings.Contains(cached[i], "docs-links") {
			t.Errorf("request %d: a learning for files the change does not touch reached the prompt", i)
		}
		if strings.Contains(after[i], "no-race-advice") {
			t.Errorf("request %d: the learnings are after the cache breakpoint", i)
		}
		if cached[i] != cached[0] {
			t.Errorf("reviewers' cached prefixes differ")
		}
	}

	md, err := os.ReadFile(filepath.Join(out, "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Learnings applied: `no-race-advice` (suppressed 1), `no-security-noise`\n",
		"Reserve can oversell under concurrency — learning no-race-advice: Maintainers decline",
	} {
		if !strings.Contains(string(md), s) {
			t.Errorf("review.md lacks %q:\n%s", s, md)
		}
	}
}

// TestLearningsFromHeadIgnored: a pull request that adds .council/learnings.yaml cannot use it
// on its own review.
func TestLearningsFromHeadIgnored(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	commitFile(t, repo, "pr", "v2", ".council/learnings.yaml", demoLearnings)

	fake := anthropicDemo(t)
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
		"review", "--repo", repo, "--base", "v1", "--head", "pr", "--format", "json")
	if r.code != ExitFindings && r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	rep := decodeReport(t, []byte(r.out))
	for _, title := range []string{"Path traversal in /export", "Reserve can oversell under concurrency"} {
		if f := findingTitled(t, rep, title); f.Status != finding.Reported {
			t.Errorf("%q: status %s, reason %q; the change's own learnings must not apply", title, f.Status, f.FilterReason)
		}
	}
	if len(rep.Learnings) != 0 {
		t.Errorf("learnings = %+v, want none: they come from the base revision only", rep.Learnings)
	}
	// The file is part of the diff, as data; it is not in the section of learnings.
	cached, _ := reviewPrompts(t, fake)
	for _, p := range cached {
		before, _, _ := strings.Cut(p, "## Diff")
		if strings.Contains(before, "no-race-advice") || strings.Contains(before, "taught council") {
			t.Fatal("the change's own learnings reached the reviewers ahead of the diff")
		}
	}
}

// TestLearningsMalformedAtBase: a learnings file that does not parse costs the learnings, not
// the review.
func TestLearningsMalformedAtBase(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	commitFile(t, repo, "base2", "v1", ".council/learnings.yaml", "learnings:\n  - id: no-race-advice\n    kind: forget\n    text: whatever\n")
	git(t, repo, "checkout", "-q", "-b", "pr", "v2")

	fake := anthropicDemo(t)
	r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL},
		"review", "--repo", repo, "--base", "base2", "--head", "pr", "--format", "json")
	if r.code != ExitFindings && r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	rep := decodeReport(t, []byte(r.out))
	if len(rep.Degraded) != 1 || !strings.HasPrefix(rep.Degraded[0], "learnings not used: .council/learnings.yaml@") ||
		!strings.Contains(rep.Degraded[0], ":3:") || !strings.Contains(rep.Degraded[0], "forget") {
		t.Errorf("degraded = %q, want one note naming .council/learnings.yaml, its line 3 and the bad kind", rep.Degraded)
	}
	if len(rep.Learnings) != 0 || len(rep.Findings) == 0 {
		t.Errorf("learnings = %+v with %d findings; want none, and the review's findings", rep.Learnings, len(rep.Findings))
	}
}

// On a pull request, the summary comment names the learnings that applied, and the finding a
// learning suppressed is not posted.
func TestLearningsInPullRequestSummary(t *testing.T) {
	t.Parallel()
	s := setupPR(t)
	commitFile(t, s.repo, "base2", "v1", ".council/learnings.yaml", demoLearnings)
	base := strings.TrimSpace(git(t, s.repo, "rev-parse", "base2"))
	git(t, s.repo, "checkout", "-q", "-b", "pr", "v2")
	git(t, s.repo, "merge", "-q", "--no-edit", "base2")
	head := strings.TrimSpace(git(t, s.repo, "rev-parse", "HEAD"))
	s.gh.AddPR("acme", "inventory", githubtest.PR{
		Number: 8, Title: "Reserve stock", Author: "dev", State: "open",
		BaseRef: "main", BaseSHA: base, HeadRef: "pr", HeadSHA: head,
	}, git(t, s.repo, "diff", base, head), nil)

	r := council(t, s.env, "review", "--pr", "acme/inventory#8", "--post", "--repo", s.repo)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	bodies := s.gh.IssueCommentBodies("acme", "inventory", 8)
	if len(bodies) != 1 || !strings.Contains(bodies[0], "Learnings applied: `no-race-advice` (suppressed 1), `no-security-noise`") {
		t.Errorf("summary comment does not name the learnings:\n%q", bodies)
	}
	for _, l := range s.gh.Log() {
		if l.Method == "POST" && strings.HasSuffix(l.Path, "/pulls/8/reviews") && strings.Contains(string(l.Body), "oversell") {
			t.Errorf("the suppressed race finding was posted: %s", l.Body)
		}
	}
}
