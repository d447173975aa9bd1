package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// widgetReply is a scripted model for acme/widget#7 as its first reviewer saw it: Correctness
// finds the lock held on the error path (which alice raised), Maintainability the dropped Atoi
// error (which bob raised); nobody sees the size limit alice asked about.
func widgetReply(req anthropictest.Request) anthropictest.Reply {
	text := lastTurnText(req)
	if isCheck(req) {
		return anthropictest.ToolReply("submit_verdicts", demoVerdict(text))
	}
	var findings []any
	switch reviewerOf(text) {
	case "Correctness":
		findings = append(findings, map[string]any{
			"path": "cache.go", "line": 27, "start_line": 26, "quote": "\tif err != nil {\n\t\treturn \"\", err",
			"severity": "high", "category": "concurrency", "title": "Lookup keeps the mutex locked when load fails",
			"body":       "When `load` returns an error, `Lookup` returns with `c.mu` still held, so every later call deadlocks. Unlock before returning.",
			"confidence": 0.9,
		})
	case "Maintainability & Tests":
		findings = append(findings, map[string]any{
			"path": "size.go", "line": 7, "quote": "\tn, _ := strconv.Atoi(s)",
			"severity": "medium", "category": "error-handling", "title": "parseSize drops the Atoi error",
			"body":       "`strconv.Atoi`'s error is discarded: `parseSize(\"ten\")` returns 0 and the caller cannot tell.",
			"confidence": 0.8,
		})
	}
	return anthropictest.ToolReply("submit_review", map[string]any{"findings": findings})
}

// TestBenchEndToEnd runs the benchmark as a user does, on fakes: import a pull request from
// GitHub, review the sample, score it against the humans, and report.
func TestBenchEndToEnd(t *testing.T) {
	t.Parallel()
	s := newImportSetup(t)
	s.reviewPR7(t)
	model := anthropictest.New(t, anthropictest.WithRespond(widgetReply))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": model.URL}
	for k, v := range s.env {
		env[k] = v
	}
	work := t.TempDir()
	dataset, run := filepath.Join(work, "bench"), filepath.Join(work, "runs", "widget")

	if r := council(t, env, "bench", "import", "--pr", "acme/widget#7", "--clone", s.repo.clone, "--out", dataset); r.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", r.code, r.err)
	}
	if r := council(t, env, "bench", "run", dataset, "--out", run); r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.err)
	}
	r := council(t, env, "bench", "score", run, "--truth", dataset)
	if r.code != ExitOK {
		t.Fatalf("score: exit %d\n%s", r.code, r.err)
	}
	data, err := os.ReadFile(filepath.Join(run, "score.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc bench.Score
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	// The sample's 4 truth items: alice's review body, her deadlock and size-limit comments,
	// bob's Atoi comment. The two findings match the deadlock and the Atoi comment.
	if sc.Samples != 1 || sc.TruthItems != 4 || sc.Findings != 2 || len(sc.NotScored) != 0 {
		t.Fatalf("scored %d samples, %d truth items, %d findings, not scored %v\n%s", sc.Samples, sc.TruthItems, sc.Findings, sc.NotScored, r.out)
	}
	matched := map[string]string{}
	for _, tr := range sc.PerSample[0].Truth {
		matched[tr.ID] = tr.Matches[bench.TierL2]
	}
	byTitle := map[string]string{}
	for _, f := range sc.PerSample[0].Findings {
		byTitle[f.Title] = f.ID
	}
	if matched["1007"] != byTitle["Lookup keeps the mutex locked when load fails"] || matched["1012"] != byTitle["parseSize drops the Atoi error"] ||
		matched["1008"] != "" || matched["1006"] != "" {
		t.Errorf("L2 matches %v, findings %v: want the deadlock and the Atoi comments matched, the others missed", matched, byTitle)
	}
	for _, ts := range sc.Tiers {
		if ts.Tier == bench.TierL2 && (ts.Micro.Recall != 0.5 || ts.Micro.Precision != 1) {
			t.Errorf("L2 precision %v, recall %v: want 1 and 0.5", ts.Micro.Precision, ts.Micro.Recall)
		}
	}

	// --by-author: alice wrote 3 of the truth items (1 matched at L2), bob 1 (matched).
	ba := council(t, env, "bench", "score", run, "--truth", dataset, "--by-author", "--out", filepath.Join(work, "by-author.json"))
	if ba.code != ExitOK {
		t.Fatalf("score --by-author: exit %d\n%s", ba.code, ba.err)
	}
	rows := map[string]string{}
	_, table, _ := strings.Cut(ba.out, "recall by truth author:")
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	if !strings.Contains(rows["author"], "L2") || !strings.HasSuffix(strings.TrimSpace(rows["alice"]), "0.33 (1/3)") ||
		!strings.HasSuffix(strings.TrimSpace(rows["bob"]), "1.00 (1/1)") {
		t.Errorf("--by-author table:\n%s", ba.out)
	}

	// The judge (L3), on the same fake: it says the lock comment and the lock finding are the
	// same issue, nothing else is, and the Atoi finding nobody matched at L3 is plausible.
	model.SetRespond(func(req anthropictest.Request) anthropictest.Reply {
		text := lastTurnText(req)
		switch {
		case strings.Contains(text, "same underlying issue? Answer"):
			same := strings.Contains(text, "still held") && strings.Contains(text, "Lookup keeps the mutex")
			return anthropictest.TextReply(fmt.Sprintf(`{"reason": "scripted", "same": %v}`, same))
		case strings.Contains(text, "plausible or fabricated? Answer"):
			return anthropictest.TextReply(`{"reason": "scripted", "verdict": "plausible"}`)
		}
		return anthropictest.TextReply("not a judge question")
	})
	judged := filepath.Join(work, "judged.json")
	if r := council(t, env, "bench", "score", run, "--truth", dataset, "--judge", "anthropic:claude-haiku-4-5", "--out", judged); r.code != ExitOK {
		t.Fatalf("score --judge: exit %d\n%s", r.code, r.err)
	}
	var js bench.Score
	if err := json.Unmarshal([]byte(readFile(t, judged)), &js); err != nil {
		t.Fatal(err)
	}
	l3 := js.Tiers[len(js.Tiers)-1]
	if l3.Tier != bench.TierL3 || l3.TP != 1 || js.Judge == nil || js.Judge.Errors != 0 || js.Judge.Plausible != 1 || js.Judge.Pairs == 0 {
		t.Errorf("L3 %+v, judge %+v: want the lock pair matched and the Atoi finding plausible", l3, js.Judge)
	}
	calls := model.Calls()
	if r := council(t, env, "bench", "score", run, "--truth", dataset, "--judge", "anthropic:claude-haiku-4-5", "--out", judged); r.code != ExitOK {
		t.Fatalf("score --judge again: exit %d\n%s", r.code, r.err)
	}
	if model.Calls() != calls {
		t.Errorf("scoring again asked the judge %d more times: its answers are cached", model.Calls()-calls)
	}

	report := filepath.Join(work, "report.html")
	if r := council(t, env, "bench", "report", run, "--out", report); r.code != ExitOK {
		t.Fatalf("report: exit %d\n%s", r.code, r.err)
	}
	if html := readFile(t, report); !strings.Contains(html, "Lookup keeps the mutex locked when load fails") {
		t.Error("the report's drill-down does not show the matched finding")
	}
}
