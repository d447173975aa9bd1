package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/persona"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// planted is a phrase only the held-out comment holds: it must reach neither the model's
// distillation requests nor the persona.
const planted = "xyzzy-planted-4711"

// heldOutBody is alice's comment on the held-out pull request; the persona's scripted finding
// says the same, the lenses say nothing.
const heldOutBody = "I think when `load` fails this returns with `c.mu` still held, so every later call deadlocks. Unlock before returning. WDYT?"

// seedEval plays four pull requests of acme/widget on the fake, all on the import repository's
// first reviewed commit: alice comments on each, one after the other; on the last (the one
// held out) bob comments too.
func seedEval(t *testing.T) importSetup {
	t.Helper()
	s := newImportSetup(t)
	r := s.repo
	ctx := context.Background()
	at := lineOf(t, r.work, r.head1, "cache.go", `return "", err`)
	for n := 1; n <= 4; n++ {
		s.gh.AddPR("acme", "widget", githubtest.PR{
			Number: n, Title: fmt.Sprintf("Change %d", n), Author: "dev",
			BaseRef: "main", BaseSHA: r.base1, HeadRef: "feature", HeadSHA: r.head1,
		}, r.diff(t, r.base0, r.head1), nil)
		body := fmt.Sprintf("I think change %d drops the error from `Close`. Could we return it? WDYT?", n)
		if n == 4 {
			body = heldOutBody + " " + planted
		}
		if _, err := s.as["alice"].CreateReview(ctx, "acme", "widget", n, github.ReviewRequest{
			CommitID: r.head1, Comments: []github.ReviewComment{{Path: "cache.go", Line: at, Body: body}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.as["bob"].CreateReview(ctx, "acme", "widget", 4, github.ReviewRequest{
		CommitID: r.head1, Comments: []github.ReviewComment{{Path: "size.go", Line: lineOf(t, r.work, r.head1, "size.go", "n, _ := strconv.Atoi(s)"),
			Body: "`strconv.Atoi`'s error is dropped: `parseSize(\"ten\")` returns 0 and the caller cannot tell."}},
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// evalModel answers the distillation (noting every request's text), the validator, and the
// reviewers: the persona (Alice) finds the deadlock alice raised, the lenses find nothing.
type evalModel struct {
	mu      sync.Mutex
	distill []string
	judged  []string // the judge's questions: "same" or "plausible"
}

func (m *evalModel) respond(req anthropictest.Request) anthropictest.Reply {
	text := lastTurnText(req)
	system := ""
	for _, b := range req.System {
		system += b.Text
	}
	switch {
	case strings.Contains(system, "You compare code review comments"):
		m.mu.Lock()
		m.judged = append(m.judged, "same")
		m.mu.Unlock()
		return anthropictest.TextReply(`{"reason": "both say the mutex stays locked when load fails", "same": true}`)
	case strings.Contains(system, "You check findings of an automated code reviewer"):
		m.mu.Lock()
		m.judged = append(m.judged, "plausible")
		m.mu.Unlock()
		return anthropictest.TextReply(`{"reason": "grounded in the quote", "verdict": "plausible"}`)
	case hasTool(req, persona.Tool):
		m.mu.Lock()
		for _, msg := range req.Messages {
			for _, c := range msg.Content {
				m.distill = append(m.distill, c.Text)
			}
		}
		for _, b := range req.System {
			m.distill = append(m.distill, b.Text)
		}
		m.mu.Unlock()
		return personaModel(req)
	case isCheck(req):
		return anthropictest.ToolReply("submit_verdicts", demoVerdict(text))
	case strings.Contains(text, "as Alice now"), strings.Contains(text, "as Sage now"):
		return anthropictest.ToolReply("submit_review", map[string]any{"findings": []any{map[string]any{
			"path": "cache.go", "line": 27, "start_line": 26, "quote": "\tif err != nil {\n\t\treturn \"\", err",
			"severity": "high", "category": "concurrency", "title": "Lookup keeps the mutex locked when load fails",
			"body": heldOutBody, "confidence": 0.9,
		}}})
	}
	return anthropictest.ToolReply("submit_review", map[string]any{"findings": []any{}})
}

func TestPersonaEvalEndToEnd(t *testing.T) {
	t.Parallel()
	s := seedEval(t)
	m := &evalModel{}
	fake := anthropictest.New(t, anthropictest.WithRespond(m.respond))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	for k, v := range s.env {
		env[k] = v
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "eval")
	r := council(t, env, "persona", "eval", "--repo", "acme/widget", "--login", "alice", "--holdout", "1",
		"--cache", filepath.Join(dir, "cache"), "--clone", s.repo.clone, "--out", out, "--record", filepath.Join(dir, "rec"))
	if r.code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}

	// Nothing of the held-out pull request reached the build.
	m.mu.Lock()
	if len(m.distill) == 0 {
		t.Error("no distillation request reached the model")
	}
	for _, text := range m.distill {
		if strings.Contains(text, planted) || strings.Contains(text, "every later call deadlocks") {
			t.Errorf("a distillation request holds the held-out comment:\n%s", text)
		}
	}
	m.mu.Unlock()
	for _, f := range []string{"persona.yaml", "persona.comments.jsonl"} {
		if data := readFile(t, filepath.Join(out, f)); strings.Contains(data, planted) || strings.Contains(data, "every later call deadlocks") {
			t.Errorf("%s holds the held-out comment:\n%s", f, data)
		}
	}

	// The dataset holds the held-out pull request only, with alice's comment as its truth.
	samples, err := bench.LoadDataset(filepath.Join(out, "dataset"))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 1 || samples[0].PR.Number != 4 || len(samples[0].Truth) != 1 || samples[0].Truth[0].Author != "alice" {
		t.Fatalf("dataset %+v: want #4 with alice's comment only", samples)
	}
	dropped := false
	for _, d := range samples[0].Dropped {
		dropped = dropped || (d.Author == "bob" && d.Reason == bench.DropNotByAuthor)
	}
	if !dropped {
		t.Errorf("bob's comment is not dropped as %q: %+v", bench.DropNotByAuthor, samples[0].Dropped)
	}

	var rep evalReport
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	ev := rep.Eval
	l2 := tierOf(ev, bench.TierL2)
	if ev.Persona != "alice" || ev.Samples != 1 || ev.TruthItems != 1 || len(rep.TrainPRs) != 3 || len(rep.HeldPRs) != 1 || rep.HeldPRs[0].Number != 4 {
		t.Errorf("report %+v", rep)
	}
	if l2.PersonaRecall != 1 || l2.LensesRecall != 0 || l2.Adds != 1 || l2.PersonaPrecision != 1 || l2.PersonaFindings != 1 || l2.WithPersonaRecall != 1 {
		t.Errorf("L2 %+v: want the persona's recall 1 and precision 1, the lenses' recall 0, 1 added", l2)
	}
	if len(ev.Adds) != 1 || !strings.Contains(ev.Adds[0].Body, "every later call deadlocks") {
		t.Errorf("adds %+v", ev.Adds)
	}
	// The finding uses "I think" and "WDYT?", the voice the scripted distillation gives.
	if v := ev.Voice; v.Findings != 1 || v.WithMarker != 1 || v.Share != 1 || v.PersonaMedian != len([]rune(heldOutBody)) ||
		v.AuthorMedian != len([]rune(heldOutBody+" "+planted)) {
		t.Errorf("voice %+v", v)
	}
	if !strings.HasPrefix(r.out, "persona alice (L2): recall 1.00 of alice's 1 comment on 1 pull request held out (lenses 0.00); 1 the lenses missed; precision 1.00") {
		t.Errorf("stdout:\n%s", r.out)
	}
	if md := readFile(t, filepath.Join(out, "report.md")); !strings.Contains(md, "| L2 | 1.00 (1) | 1.00 (1 findings) | 0.00 (0) | 1.00 | 1 |") {
		t.Errorf("report.md:\n%s", md)
	}
	for _, p := range []string{"runs/lenses/score.json", "runs/with-persona/score.json", "runs/with-persona/run.json"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Error(err)
		}
	}

	// Replayed offline into another directory: the same headline, no model request.
	calls := fake.Calls()
	again := council(t, env, "persona", "eval", "--repo", "acme/widget", "--login", "alice", "--holdout", "1",
		"--cache", filepath.Join(dir, "cache"), "--clone", s.repo.clone, "--out", filepath.Join(dir, "replayed"), "--replay", filepath.Join(dir, "rec"))
	if again.code != ExitOK || again.out != r.out {
		t.Errorf("replay: exit %d, stdout %q, want %q\nstderr:\n%s", again.code, again.out, r.out, again.err)
	}
	if fake.Calls() != calls {
		t.Errorf("the replay sent %d model requests", fake.Calls()-calls)
	}
}

func TestPersonaEvalJudge(t *testing.T) {
	t.Parallel()
	s := seedEval(t)
	m := &evalModel{}
	fake := anthropictest.New(t, anthropictest.WithRespond(m.respond))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	for k, v := range s.env {
		env[k] = v
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "eval")
	r := council(t, env, "persona", "eval", "--repo", "acme/widget", "--login", "alice", "--holdout", "1",
		"--cache", filepath.Join(dir, "cache"), "--clone", s.repo.clone, "--out", out, "--judge", "anthropic:claude-haiku-4-5",
		"--anonymize", "--name", "sage")
	if r.code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	m.mu.Lock()
	if !slices.Contains(m.judged, "same") {
		t.Errorf("the judge was not asked whether a pair is the same issue: %v", m.judged)
	}
	m.mu.Unlock()
	var rep evalReport
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	if l3 := tierOf(rep.Eval, bench.TierL3); l3.PersonaRecall != 1 || l3.LensesRecall != 0 || l3.Adds != 1 {
		t.Errorf("L3 %+v: want the persona's recall 1, the lenses' 0, 1 added", l3)
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	for _, want := range []string{"| L3 | 1.00 (1) |", "L3: the judge said the same issue"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, p := range []string{"runs/lenses/score.json", "runs/with-persona/score.json"} {
		if sc := readFile(t, filepath.Join(out, p)); !strings.Contains(sc, `"L3"`) {
			t.Errorf("%s has no L3 tier", p)
		}
	}
	// --anonymize: the login appears in none of what the persona and the report say.
	for _, p := range []string{"persona.yaml", "persona.comments.jsonl", "report.json", "report.md"} {
		if data := readFile(t, filepath.Join(out, p)); strings.Contains(strings.ToLower(data), "alice") {
			t.Errorf("%s names the login:\n%s", p, data)
		}
	}
	if rep.Login != "sage" || !strings.HasPrefix(r.out, "persona sage (L2): recall 1.00 of sage's 1 comment") {
		t.Errorf("login %q, stdout:\n%s", rep.Login, r.out)
	}
}

// TestPersonaEvalHoldOutAcrossRepos: with two --repo, the most recent pull requests across both
// are held out, and each is imported from its own repository.
func TestPersonaEvalHoldOutAcrossRepos(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	comments := []persona.Comment{
		{Repo: "acme/api", PR: 1, CreatedAt: at(1)},
		{Repo: "acme/web", PR: 7, CreatedAt: at(2)},
		{Repo: "acme/api", PR: 2, CreatedAt: at(3)},
		{Repo: "acme/web", PR: 8, CreatedAt: at(4)},
	}
	split := persona.HoldOut(comments, 2)
	if d := cmp.Diff([]string{"acme/api#2", "acme/web#8"}, importSpecs(split.HeldPRs)); d != "" {
		t.Errorf("held-out imports (-want +got):\n%s", d)
	}
}

func TestPersonaEvalFlags(t *testing.T) {
	t.Parallel()
	base := []string{"--repo", "o/r", "--login", "Alice", "--holdout", "2", "--out", "d"}
	tests := []struct {
		name string
		args []string
		want string // error substring; empty: accepted
	}{
		{"ok", base, ""},
		{"no repo", []string{"--login", "a", "--holdout", "1", "--out", "d"}, "--repo OWNER/NAME is required"},
		{"bad repo", []string{"--repo", "nope", "--login", "a", "--holdout", "1", "--out", "d"}, "--repo:"},
		{"no login", []string{"--repo", "o/r", "--holdout", "1", "--out", "d"}, "--login is required"},
		{"bot", []string{"--repo", "o/r", "--login", "dependabot[bot]", "--holdout", "1", "--out", "d"}, "is a bot"},
		{"no holdout", []string{"--repo", "o/r", "--login", "a", "--out", "d"}, "--holdout 0"},
		{"no out", []string{"--repo", "o/r", "--login", "a", "--holdout", "1"}, "--out DIR is required"},
		{"bad name", append(cloneArgs(base), "--name", "Not A Name"), "--name"},
		{"provider", append(cloneArgs(base), "--provider", "nope"), "must be one of"},
		{"record and replay", append(cloneArgs(base), "--record", "a", "--replay", "b"), "cannot be used together"},
		{"since", append(cloneArgs(base), "--since", "yesterday"), "--since"},
		{"judge", append(cloneArgs(base), "--judge", "anthropic"), `--judge "anthropic": must be provider:model`},
		{"max age", append(cloneArgs(base), "--max-age", "-1h"), "--max-age -1h0m0s"},
		{"two repos", append(cloneArgs(base), "--repo", "o/s", "--anonymize", "--name", "sage"), ""},
		{"anonymize without a name", append(cloneArgs(base), "--anonymize"), "--anonymize needs --name"},
		{"clone with two repos", append(cloneArgs(base), "--repo", "o/s", "--clone", "c"), "--clone is one repository's clone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *PersonaEvalOptions
			cmd := NewCmdPersonaEval(&Factory{}, func(_ context.Context, o *PersonaEvalOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			err := cmd.Execute()
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && tc.name == "two repos" && (strings.Join(got.Repos, ",") != "o/r,o/s" || !got.Anonymize || got.Name != "sage"):
				t.Errorf("options %+v", got)
			case tc.want == "" && tc.name != "two repos" && (got.Name != "alice" || got.Holdout != 2 || got.MaxAge != defaultMaxAge):
				t.Errorf("options %+v", got)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func cloneArgs(s []string) []string { return append([]string(nil), s...) }
