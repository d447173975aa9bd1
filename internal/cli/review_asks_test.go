package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// demoAsks are what the demo repository's reviewers ask for: parse errors checked (three
// pull requests of evidence), constructors that take their initial state (two), and docs
// whose category no demo finding has.
const demoAsks = `learnings:
  - id: check-parse-errors
    kind: ask
    text: Check the error of every strconv parse and answer a bad value with 400.
    category: error-handling
    evidence:
      - url: https://github.com/acme/inventory/commit/aaa#diff-1R3
        signal: "changed on #3 in answer to review: Address review comments"
      - url: https://github.com/acme/inventory/commit/bbb#diff-2R9
        signal: "changed on #5 in answer to review: Review markups"
      - url: https://github.com/acme/inventory/commit/ccc#diff-3R1
        signal: "changed on #7 in answer to review: Address review comments"
  - id: constructors-take-state
    kind: ask
    text: Let constructors take their initial state instead of setting fields after.
    paths: ["store.go"]
    evidence:
      - url: https://github.com/acme/inventory/commit/ddd#diff-4R2
        signal: "changed on #4 in answer to review: Address review comments"
      - url: https://github.com/acme/inventory/commit/eee#diff-5R8
        signal: "changed on #6 in answer to review: nit: constructor"
  - id: doc-exported
    kind: ask
    text: Give new exported functions a doc comment.
    category: docs
    evidence:
      - url: https://github.com/acme/inventory/commit/fff#diff-6R1
        signal: "changed on #2 in answer to review: Address review comments"
      - url: https://github.com/acme/inventory/commit/ggg#diff-7R1
        signal: "changed on #9 in answer to review: Address review comments"
`

// askVerdicts answers the validator as demoReply does, but calls three findings minor, each
// naming an ask: the parse error (check-parse-errors matches: error-handling), NewStore
// (constructors-take-state matches: store.go), and the race (doc-exported: its category is
// docs, so its scope does not match a concurrency finding, whatever the validator said).
func askVerdicts(req anthropictest.Request) anthropictest.Reply {
	if !isCheck(req) {
		return demoReply(req)
	}
	v := demoVerdict(lastTurnText(req))
	for _, item := range v["verdicts"].([]any) {
		m := item.(map[string]any)
		title := issueTitle(lastTurnText(req), m["issue"].(int))
		switch {
		case strings.Contains(title, "parse error"):
			m["attention"], m["ask"] = false, "check-parse-errors"
		case strings.Contains(title, "NewStore"):
			m["attention"], m["ask"] = false, "constructors-take-state"
		case strings.Contains(title, "oversell"):
			m["attention"], m["ask"] = false, "doc-exported"
		case strings.Contains(title, "Parse errors of n"):
			m["attention"] = false
		}
	}
	return anthropictest.ToolReply("submit_verdicts", v)
}

func issueTitle(text string, n int) string {
	for _, m := range demoIssue.FindAllStringSubmatch(text, -1) {
		if m[1] == strconv.Itoa(n) {
			return m[3]
		}
	}
	return ""
}

func TestAskLearningsPutMinorFindingsUpFront(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	commitFile(t, repo, "base2", "v1", ".council/learnings.yaml", demoAsks)
	git(t, repo, "checkout", "-q", "-b", "pr", "v2")
	oneNit := filepath.Join(t.TempDir(), "council.yaml")
	if err := os.WriteFile(oneNit, []byte("comments:\n  max_ask_nits: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		args     []string
		promoted map[string]string // finding title -> learning id; every other finding keeps its status
	}{
		{name: "default", promoted: map[string]string{"The quantity's parse error is ignored": "check-parse-errors", "NewStore could take initial stock": "constructors-take-state"}},
		{name: "one nit: the learning with more evidence", args: []string{"--config", oneNit}, promoted: map[string]string{"The quantity's parse error is ignored": "check-parse-errors"}},
		{name: "no learnings", args: []string{"--no-learnings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := anthropictest.New(t, anthropictest.WithRespond(askVerdicts))
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"review", "--repo", repo, "--base", "base2", "--head", "pr", "--format", "markdown,json", "--out-dir", out}, tt.args...)
			r := council(t, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}, args...)
			if r.code != ExitFindings && r.code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
			}
			data, err := os.ReadFile(filepath.Join(out, "review.json"))
			if err != nil {
				t.Fatal(err)
			}
			rep := decodeReport(t, data)
			for _, f := range rep.Findings {
				id, up := tt.promoted[f.Title]
				switch {
				case up && (f.Learning == nil || f.Learning.ID != id):
					t.Errorf("%q: learning %+v, want %s", f.Title, f.Learning, id)
				case up && f.Status != finding.Reported && f.Status != finding.OtherNote:
					t.Errorf("%q: status %s, want up front", f.Title, f.Status)
				case !up && f.Learning != nil:
					t.Errorf("%q: put up front by %s, want not", f.Title, f.Learning.ID)
				}
			}
			if race := findingTitled(t, rep, "Reserve can oversell under concurrency"); race.Status != finding.Minor {
				t.Errorf("race: status %s, want minor: the ask the validator named does not cover its category", race.Status)
			}
			if trav := findingTitled(t, rep, "Path traversal in /export"); trav.Status != finding.Reported || trav.Severity != finding.Critical || trav.Learning != nil {
				t.Errorf("critical finding changed: %+v", trav)
			}
			if nit := findingTitled(t, rep, "NewStore could take initial stock"); tt.promoted[nit.Title] != "" && nit.Severity != finding.Low {
				t.Errorf("NewStore: severity %s; putting a finding up front must not change its severity", nit.Severity)
			}

			asksShown := false
			for _, q := range fake.Requests() {
				if isCheck(q) && strings.Contains(q.Messages[0].Content[0].Text, "[check-parse-errors]") {
					asksShown = true
				}
			}
			if want := tt.name != "no learnings"; asksShown != want {
				t.Errorf("the validator was shown the asks: %v, want %v", asksShown, want)
			}

			md, err := os.ReadFile(filepath.Join(out, "review.md"))
			if err != nil {
				t.Fatal(err)
			}
			nit := "_nit: reviewers of this repository ask for this (learning `check-parse-errors`): Check the error of every strconv parse and answer a bad value with 400. (asked before: [1](https://github.com/acme/inventory/commit/aaa#diff-1R3), [2](https://github.com/acme/inventory/commit/bbb#diff-2R9), [3](https://github.com/acme/inventory/commit/ccc#diff-3R1))_"
			if got := strings.Contains(string(md), nit) && strings.Contains(string(md), "— nit: The quantity's parse error is ignored"); got != (len(tt.promoted) > 0) {
				t.Errorf("review.md shows the parse error as a nit with its learning: %v, want %v:\n%s", got, len(tt.promoted) > 0, md)
			}
		})
	}
}
