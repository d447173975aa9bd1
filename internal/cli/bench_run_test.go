package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// benchDataset writes samples of the demo repository (v1..v2) to a new dataset directory; a
// sample named "missing" points at a head the repository does not have.
func benchDataset(t *testing.T, repo string, ids ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dataset")
	base := strings.TrimSpace(git(t, repo, "rev-parse", "v1^{commit}"))
	head := strings.TrimSpace(git(t, repo, "rev-parse", "v2^{commit}"))
	for i, id := range ids {
		s := bench.Sample{
			SampleVersion: bench.SampleVersion, ID: id,
			Repo: bench.Repo{Path: repo, Name: "acme/inventory"},
			PR:   bench.PR{Number: i + 1, Title: "Add export and item lookup", Author: "dev", BaseRef: "main"},
			Base: base, Head: head,
			Truth: []bench.Truth{{ID: "1", Author: "maintainer", Path: "server.go", Line: 3, Side: "RIGHT", Body: "Validate the name before using it as a path.", Kind: "security"}},
		}
		if id == "missing" {
			s.Head = strings.Repeat("ab", 20)
		}
		if err := bench.WriteSample(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readRun(t *testing.T, dir string) bench.RunManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m bench.RunManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func statuses(m bench.RunManifest) map[string]string {
	out := map[string]string{}
	for _, s := range m.Samples {
		out[s.ID] = s.Status
	}
	return out
}

func TestBenchRunReviewsEverySampleAndResumes(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "runs", "sonnet")

	r := council(t, env, "bench", "run", data, "--out", out, "--concurrency", "2")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	m := readRun(t, out)
	if m.Name != "sonnet" || m.Provider != "anthropic" || m.Model == "" || len(m.Reviewers) != 3 {
		t.Errorf("run.json says name %q, provider %q, model %q, reviewers %v", m.Name, m.Provider, m.Model, m.Reviewers)
	}
	want := map[string]string{"acme-inventory-1": bench.StatusDone, "acme-inventory-2": bench.StatusDone}
	if got := statuses(m); len(got) != 2 || got["acme-inventory-1"] != want["acme-inventory-1"] || got["acme-inventory-2"] != want["acme-inventory-2"] {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	for _, s := range m.Samples {
		raw, err := os.ReadFile(filepath.Join(out, s.Review))
		if err != nil {
			t.Fatal(err)
		}
		rep := decodeReport(t, raw)
		if rep.Change.Title != "Add export and item lookup" {
			t.Errorf("%s was reviewed with title %q: the sample's PR title must be the change's", s.ID, rep.Change.Title)
		}
		if s.Findings == 0 || s.CostUSD <= 0 {
			t.Errorf("%s: %d findings, $%v: the demo model raises findings and is priced", s.ID, s.Findings, s.CostUSD)
		}
	}
	if !strings.Contains(r.err, "council: bench [2/2]") {
		t.Errorf("no plain progress lines on a non-terminal:\n%s", r.err)
	}

	calls := fake.Calls()
	r = council(t, env, "bench", "run", data, "--out", out)
	if r.code != ExitOK {
		t.Fatalf("resumed run: exit %d, stderr:\n%s", r.code, r.err)
	}
	if fake.Calls() != calls {
		t.Errorf("the resumed run sent %d requests: samples already done must be skipped", fake.Calls()-calls)
	}
	if !strings.Contains(r.err, "2 already done, 0 to review") {
		t.Errorf("stderr does not say what was skipped:\n%s", r.err)
	}
}

func TestBenchRunFailedSampleIsRecordedAndRetried(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "missing")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := t.TempDir()

	r := council(t, env, "bench", "run", data, "--out", out)
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
	}
	m := readRun(t, out)
	if got := statuses(m); got["acme-inventory-1"] != bench.StatusDone || got["missing"] != bench.StatusFailed {
		t.Fatalf("statuses %v", got)
	}
	for _, s := range m.Samples {
		if s.ID == "missing" && !strings.Contains(s.Error, "no repo.url to fetch them from") {
			t.Errorf("the failed sample's error does not say why: %q", s.Error)
		}
	}
	r = council(t, env, "bench", "run", data, "--out", out)
	if !strings.Contains(r.err, "1 already done, 1 to review") {
		t.Errorf("a failed sample must be retried by the next run:\n%s", r.err)
	}
}

func TestBenchRunMaxCostStopsBeforeSpending(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := t.TempDir()

	r := council(t, env, "bench", "run", data, "--out", out, "--max-cost", "0.0001", "--concurrency", "1")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
	}
	if fake.Calls() != 0 {
		t.Errorf("%d requests sent: a sample whose estimate exceeds --max-cost must not start", fake.Calls())
	}
	if !strings.Contains(r.err, "raise it and run the same command again") {
		t.Errorf("stderr does not say how to go on:\n%s", r.err)
	}
	m := readRun(t, out)
	if got := statuses(m); got["acme-inventory-1"] != bench.StatusStopped {
		t.Errorf("statuses %v, want the first sample stopped", got)
	}
}

func TestBenchRunRecordThenReplayOffline(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	rec := filepath.Join(t.TempDir(), "rec")

	first := filepath.Join(t.TempDir(), "first")
	if r := council(t, env, "bench", "run", data, "--out", first, "--record", rec); r.code != ExitOK {
		t.Fatalf("record: exit %d\n%s", r.code, r.err)
	}
	if _, err := os.Stat(filepath.Join(rec, "acme-inventory-1")); err != nil {
		t.Fatalf("recordings are not kept per sample: %v", err)
	}
	second := filepath.Join(t.TempDir(), "second")
	r := council(t, map[string]string{}, "bench", "run", data, "--out", second, "--replay", rec)
	if r.code != ExitOK {
		t.Fatalf("replay without credentials: exit %d\n%s", r.code, r.err)
	}
	a, b := readRun(t, first).Samples[0], readRun(t, second).Samples[0]
	if a.Findings != b.Findings || a.CostUSD != b.CostUSD {
		t.Errorf("replay gave %d findings ($%v), the recorded run %d ($%v)", b.Findings, b.CostUSD, a.Findings, a.CostUSD)
	}
}

func TestNewCmdBenchRunFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"data"}, "--out DIR is required"},
		{[]string{"data", "--out", "o", "--concurrency", "0"}, "--concurrency 0: must be between 1 and 64"},
		{[]string{"data", "--out", "o", "--provider", "x"}, `--provider "x": must be one of anthropic, openai`},
		{[]string{"data", "--out", "o", "--max-cost", "-1"}, "--max-cost must be >= 0"},
		{[]string{"--out", "o"}, "accepts 1 arg(s), received 0"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := NewCmdBenchRun(&Factory{}, func(_ context.Context, _ *BenchRunOptions) error { return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestBenchRunMaxCostStopsDuringAReview(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := t.TempDir()

	// The demo's estimate (about $0.07) fits, but each reviewer request may cost up to $0.09 (its
	// prompt and a full 8,192-token answer): the budget refuses one rather than risk passing $0.11.
	r := council(t, env, "bench", "run", data, "--out", out, "--max-cost", "0.11", "--concurrency", "1")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
	}
	m := readRun(t, out)
	if len(m.Samples) != 2 || m.Samples[0].Status != bench.StatusStopped || !strings.Contains(m.Samples[0].Error, "--max-cost $0.11 was reached during its review") ||
		m.Samples[1].Status != bench.StatusStopped || !strings.HasPrefix(m.Samples[1].Error, "not started") {
		t.Fatalf("samples %+v: want the first stopped during its review, the second not started", m.Samples)
	}
	if _, err := os.Stat(filepath.Join(out, "reviews", "acme-inventory-1.json")); err == nil {
		t.Error("a review the budget cut short was saved as if done")
	}
}

func TestBenchRunKeepsOneModelPerRunDirectory(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := t.TempDir()

	if r := council(t, env, "bench", "run", data, "--out", out, "--only", "acme-inventory-1"); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	r := council(t, env, "bench", "run", data, "--out", out, "--model", "claude-haiku-4-5")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d\n%s", r.code, ExitIncomplete, r.err)
	}
	m := readRun(t, out)
	if m.Model != "claude-sonnet-5-5" || m.Samples[1].Status != bench.StatusFailed ||
		!strings.Contains(m.Samples[1].Error, "this run is on anthropic claude-sonnet-5-5 (run.json), this sample would run on anthropic claude-haiku-4-5") {
		t.Errorf("run.json: model %q, samples %+v: a second model must not join the run", m.Model, m.Samples)
	}
}

func TestBenchProgressBarOnATerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	p := &progress{w: &b, terminal: true, total: 4, start: time.Now().Add(-20 * time.Second)}
	p.done(bench.RunSample{ID: "a", Status: bench.StatusDone, Findings: 3, CostUSD: 0.5}, 0.5)
	p.done(bench.RunSample{ID: "b", Status: bench.StatusFailed, Error: "clone failed"}, 0.5)
	p.finish()
	out := b.String()
	// Redrawn in place; a failure is printed on a line of its own above the bar.
	for _, want := range []string{"\r\033[K[#######.......................] 1/4  ETA ", "\r\033[Kcouncil: b failed: clone failed\n", "] 2/4  ETA ", "$0.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar's line is not ended after the run: %q", out)
	}
}

func TestBenchRunMaxCostCountsEarlierSpending(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := t.TempDir()

	if r := council(t, env, "bench", "run", data, "--out", out, "--only", "acme-inventory-1"); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	spent := readRun(t, out).SpentUSD
	if spent <= 0 {
		t.Fatalf("run.json spent_usd = %v after a review", spent)
	}
	// $0.10 would fit the second sample's estimate ($0.067) alone, but not after what the
	// first invocation spent ($0.043).
	calls := fake.Calls()
	r := council(t, env, "bench", "run", data, "--out", out, "--max-cost", "0.10")
	if r.code != ExitIncomplete || fake.Calls() != calls {
		t.Fatalf("exit %d, %d requests: the resumed run must count the $%.4f already spent\n%s", r.code, fake.Calls()-calls, spent, r.err)
	}
	if m := readRun(t, out); m.SpentUSD != spent || statuses(m)["acme-inventory-2"] != bench.StatusStopped {
		t.Errorf("spent_usd %v (want %v), statuses %v", m.SpentUSD, spent, statuses(m))
	}
}
