package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// datedDataset is benchDataset's samples of acme/inventory (#1, #2), opened on 2026-03-10
// and 2026-03-12.
func datedDataset(t *testing.T, repo string) string {
	t.Helper()
	dir := benchDataset(t, repo, "acme-inventory-1", "acme-inventory-2")
	samples, err := bench.LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		s.PR.Created = time.Date(2026, 3, 10+2*i, 9, 0, 0, 0, time.UTC)
		if err := bench.WriteSample(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const learningsText = "Do not ask for nil checks on values the constructor guarantees."

// learningsFile writes a learnings file citing the given pull request comment, with
// source.until when until is not "".
func learningsFile(t *testing.T, evidence, until string) string {
	t.Helper()
	src := "source:\n  repos: [acme/inventory]\n  prs: 4\n  signals: 9\n"
	if until != "" {
		src += "  until: \"" + until + "\"\n"
	}
	body := src + `learnings:
  - id: no-redundant-nil-checks
    kind: suppress
    category: bug
    text: "` + learningsText + `"
    evidence:
      - url: ` + evidence + `
        signal: "dismissed: -1 by @maintainer"
`
	path := filepath.Join(t.TempDir(), "learnings.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBenchRunLearningsLeakRefused(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := datedDataset(t, repo)
	earlier := "https://github.com/acme/inventory/pull/1000#discussion_r1"
	tests := []struct {
		name      string
		learnings string
		want      []string
	}{
		{
			name:      "evidence is a comment on a sample's pull request",
			learnings: learningsFile(t, "https://github.com/acme/inventory/pull/2#discussion_r77", "2026-03-01T00:00:00Z"),
			want: []string{`learning "no-redundant-nil-checks": evidence https://github.com/acme/inventory/pull/2#discussion_r77`,
				"the pull request of sample acme-inventory-2", "--allow-learnings-leak"},
		},
		{
			name:      "built from pull requests after the dataset's earliest",
			learnings: learningsFile(t, earlier, "2026-03-11T00:00:00Z"),
			want: []string{"acme-inventory-1: the learnings file's source.until 2026-03-11T00:00:00Z is after acme-inventory-1 was created (2026-03-10T09:00:00Z)",
				"council learn --until 2026-03-10"},
		},
		{
			name:      "no source.until while the samples are dated",
			learnings: learningsFile(t, earlier, ""),
			want:      []string{"acme-inventory-1: the learnings file has no source.until", "council learn --until 2026-03-10"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := anthropicDemo(t)
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
			out := filepath.Join(t.TempDir(), "run")
			r := council(t, env, "bench", "run", data, "--out", out, "--learnings", tt.learnings)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.err)
				}
			}
			if fake.Calls() != 0 {
				t.Errorf("%d model requests: a leaking file must be refused before any review", fake.Calls())
			}
			if _, err := os.Stat(filepath.Join(out, "run.json")); err == nil {
				t.Errorf("a refused run wrote run.json")
			}
		})
	}
}

func TestBenchRunWithLearnings(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := datedDataset(t, repo)
	file := learningsFile(t, "https://github.com/acme/inventory/pull/1000#discussion_r1", "2026-03-01T00:00:00Z")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "with-learnings")

	r := council(t, env, "bench", "run", data, "--out", out, "--learnings", file)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	m := readRun(t, out)
	want := &bench.LearningsUsed{File: file, SHA256: hex.EncodeToString(sum[:]), Learnings: 1, Until: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, m.Learnings); diff != "" {
		t.Errorf("run.json learnings (-want +got):\n%s", diff)
	}
	if got := statuses(m); got["acme-inventory-1"] != bench.StatusDone || got["acme-inventory-2"] != bench.StatusDone {
		t.Errorf("statuses %v: both samples must be reviewed", got)
	}
	sawLearning := false
	for _, req := range fake.Requests() {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		sawLearning = sawLearning || strings.Contains(string(b), learningsText)
	}
	if !sawLearning {
		t.Errorf("no request to the model holds the learning's text: --learnings did not reach the reviewers")
	}

	// The run directory holds one set of learnings: resuming with others is refused.
	r = council(t, env, "bench", "run", data, "--out", out, "--no-learnings")
	if r.code != ExitUsage || !strings.Contains(r.err, "this run would use --no-learnings") {
		t.Errorf("resuming with --no-learnings: exit %d, stderr:\n%s", r.code, r.err)
	}
}

func TestBenchRunAllowLearningsLeak(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := datedDataset(t, repo)
	file := learningsFile(t, "https://github.com/acme/inventory/pull/1#discussion_r5", "")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "leaky")

	r := council(t, env, "bench", "run", data, "--out", out, "--learnings", file, "--allow-learnings-leak", "--only", "acme-inventory-1")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	m := readRun(t, out)
	if m.Learnings == nil || !m.Learnings.LeakAllowed || len(m.Learnings.Leaks) != 2 {
		t.Fatalf("run.json must record the allowed leaks (the evidence and the missing until), got %+v", m.Learnings)
	}
	if !strings.Contains(m.Learnings.Leaks[0], "acme-inventory-1") || !strings.Contains(r.err, "--allow-learnings-leak") {
		t.Errorf("leaks %q, stderr:\n%s", m.Learnings.Leaks, r.err)
	}
}

func TestBenchRunNoLearningsRecorded(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := benchDataset(t, repo, "acme-inventory-1")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "without")
	r := council(t, env, "bench", "run", data, "--out", out, "--no-learnings")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	if m := readRun(t, out); !m.NoLearnings || m.Learnings != nil {
		t.Errorf("run.json: no_learnings %v, learnings %+v", m.NoLearnings, m.Learnings)
	}
}

func TestBenchRunLearningsFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--learnings", "l.yaml", "--no-learnings"}, "--learnings and --no-learnings: choose one"},
		{[]string{"--allow-learnings-leak"}, "--allow-learnings-leak needs --learnings FILE"},
	}
	for _, tt := range tests {
		r := council(t, nil, append([]string{"bench", "run", "ds", "--out", "o"}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
			t.Errorf("%v: exit %d, stderr:\n%s", tt.args, r.code, r.err)
		}
	}
}

func TestBenchScoreAcceptance(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	// Six posted comments: correctness addressed, +1, -1 and nothing; security a heart and a
	// maintainer's reply with no change.
	signals := strings.Join([]string{
		`{"repo":"acme/svc","pr":1,"url":"https://github.com/acme/svc/pull/1#discussion_r1","reviewer":"correctness","path":"a.go","title":"t","addressed":true,"resolved":false}`,
		`{"repo":"acme/svc","pr":1,"url":"https://github.com/acme/svc/pull/1#discussion_r2","reviewer":"correctness","path":"a.go","title":"t","reactions":{"+1":1},"addressed":false,"resolved":false}`,
		`{"repo":"acme/svc","pr":2,"url":"https://github.com/acme/svc/pull/2#discussion_r3","reviewer":"correctness","path":"b.go","title":"t","reactions":{"-1":1},"addressed":false,"resolved":false}`,
		`{"repo":"acme/svc","pr":2,"url":"https://github.com/acme/svc/pull/2#discussion_r4","reviewer":"correctness","path":"b.go","title":"t","addressed":false,"resolved":false}`,
		`{"repo":"acme/svc","pr":3,"url":"https://github.com/acme/svc/pull/3#discussion_r5","reviewer":"security","path":"c.go","title":"t","reactions":{"heart":2},"addressed":false,"resolved":false}`,
		`{"repo":"acme/svc","pr":3,"url":"https://github.com/acme/svc/pull/3#discussion_r6","reviewer":"security","path":"c.go","title":"t","replies":[{"author":"ann","write_access":true,"body":"intended"}],"addressed":false,"resolved":false}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "signals.jsonl")
	writeScoreTestFile(t, path, signals)
	out := filepath.Join(t.TempDir(), "score.json")

	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--out", out, "--bootstrap", "0", "--signals", path)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	want := &bench.Acceptance{
		Signals: path,
		Overall: bench.AcceptanceCount{Accepted: 3, Rejected: 2, Ignored: 1, Total: 6, Rate: 0.5},
		ByReviewer: []bench.AcceptanceCount{
			{Reviewer: "correctness", Accepted: 2, Rejected: 1, Ignored: 1, Total: 4, Rate: 0.5},
			{Reviewer: "security", Accepted: 1, Rejected: 1, Total: 2, Rate: 0.5},
		},
	}
	if diff := cmp.Diff(want, readScoreFile(t, out).Acceptance); diff != "" {
		t.Errorf("score.json acceptance (-want +got):\n%s", diff)
	}
	wantText := "acceptance of posted comments 0.50 (3 of 6 accepted; 2 rejected, 1 ignored), from " + path + "\n" +
		"  correctness            0.50 (2 of 4 accepted; 1 rejected, 1 ignored)\n" +
		"  security               0.50 (1 of 2 accepted; 1 rejected, 0 ignored)\n"
	if !strings.Contains(r.out, wantText) {
		t.Errorf("stdout lacks the acceptance lines\n%s\ngot:\n%s", wantText, r.out)
	}

	// Without --signals, nothing of acceptance appears.
	r = council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--out", out, "--bootstrap", "0")
	if r.code != ExitOK || strings.Contains(r.out, "acceptance") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.out)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"acceptance"`) {
		t.Errorf("score.json without --signals holds acceptance")
	}
}

func TestBenchScoreBadSignals(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	path := filepath.Join(t.TempDir(), "signals.jsonl")
	writeScoreTestFile(t, path, "{not json\n")
	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--out", filepath.Join(t.TempDir(), "s.json"), "--signals", path)
	if r.code != ExitUsage || !strings.Contains(r.err, "--signals "+path) {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.err)
	}
}
