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

// learningsFile writes a learnings file of acme/inventory citing the given pull request
// comment, with source.until when until is not "".
func learningsFile(t *testing.T, evidence, until string) string {
	t.Helper()
	return writeLearnings(t, []string{"acme/inventory"}, learningsText, evidence, until)
}

// writeLearnings writes a learnings file built from repos (a hand-written one, without a
// source block, when repos is empty) holding one learning that says text and cites
// evidence, with source.until when until is not "".
func writeLearnings(t *testing.T, repos []string, text, evidence, until string) string {
	t.Helper()
	src := ""
	if len(repos) > 0 {
		src = "source:\n  repos: [" + strings.Join(repos, ", ") + "]\n  prs: 4\n  signals: 9\n"
		if until != "" {
			src += "  until: \"" + until + "\"\n"
		}
	}
	body := src + `learnings:
  - id: no-redundant-nil-checks
    kind: suppress
    category: bug
    text: "` + text + `"
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
			learningsRefused(t, data, []string{tt.learnings}, tt.want)
		})
	}
}

// learningsRefused runs bench run on data with the learnings files and checks that it is
// refused before any review, saying each of want.
func learningsRefused(t *testing.T, data string, files, want []string) {
	t.Helper()
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"bench", "run", data, "--out", out}
	for _, f := range files {
		args = append(args, "--learnings", f)
	}
	r := council(t, env, args...)
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.err)
	}
	for _, w := range want {
		if !strings.Contains(r.err, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.err)
		}
	}
	if fake.Calls() != 0 {
		t.Errorf("%d model requests: the learnings must be refused before any review", fake.Calls())
	}
	if _, err := os.Stat(filepath.Join(out, "run.json")); err == nil {
		t.Errorf("a refused run wrote run.json")
	}
}

func TestBenchRunWithLearnings(t *testing.T) {
	t.Parallel()
	repo := demoRepo(t)
	data := datedDataset(t, repo)
	file := learningsFile(t, "https://github.com/acme/inventory/pull/1000#discussion_r1", "2026-03-01T00:00:00Z")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "with-learnings")

	r := council(t, env, "bench", "run", data, "--out", out, "--learnings", file)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	m := readRun(t, out)
	want := &bench.LearningsUsed{File: file, SHA256: sha256Of(t, file), Learnings: 1, Until: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
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

// Each repository's samples are reviewed with its own learnings file, never another's.
const (
	inventoryText = "Inventory maintainers do not want nil checks on values the constructor guarantees."
	billingText   = "Billing maintainers do not want comments on log wording."
	ledgerOwnText = "Ledger maintainers decline every finding about error wrapping."
)

// multiRepoDataset is a dataset of three repositories, one sample each, each titled after its
// repository: acme/inventory (opened 2026-03-10), acme/billing and acme/ledger (2026-04-01).
// acme/ledger's base revision has its own .council/learnings.yaml.
func multiRepoDataset(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dataset")
	ledger := demoRepo(t)
	commitFile(t, ledger, "base2", "v1", ".council/learnings.yaml",
		"learnings:\n  - id: ledger-own\n    kind: suppress\n    category: bug\n    text: \""+ledgerOwnText+"\"\n")
	for _, s := range []struct {
		id, name, repo, base string
		created              time.Time
	}{
		{"inventory-1", "acme/inventory", demoRepo(t), "v1", time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)},
		{"billing-1", "acme/billing", demoRepo(t), "v1", time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)},
		{"ledger-1", "acme/ledger", ledger, "base2", time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)},
	} {
		err := bench.WriteSample(dir, bench.Sample{
			SampleVersion: bench.SampleVersion, ID: s.id,
			Repo: bench.Repo{Path: s.repo, Name: s.name},
			PR:   bench.PR{Number: 1, Title: "Change to " + s.name, Author: "dev", BaseRef: "main", Created: s.created},
			Base: strings.TrimSpace(git(t, s.repo, "rev-parse", s.base+"^{commit}")),
			Head: strings.TrimSpace(git(t, s.repo, "rev-parse", "v2^{commit}")),
			Truth: []bench.Truth{{ID: "1", Author: "maintainer", Path: "server.go", Line: 3, Side: "RIGHT",
				Body: "Validate the name before using it as a path.", Kind: "security"}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// reviewerRequests are the reviewers' requests to the fake, as JSON.
func reviewerRequests(t *testing.T, fake *anthropictest.Server) []string {
	t.Helper()
	var bodies []string
	for _, req := range fake.Requests() {
		if !hasTool(req, "submit_review") {
			continue
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	return bodies
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

func TestBenchRunLearningsPerRepository(t *testing.T) {
	t.Parallel()
	data := multiRepoDataset(t)
	earlier := "https://github.com/acme/other/pull/9#discussion_r1"
	inventory := writeLearnings(t, []string{"acme/inventory"}, inventoryText, earlier, "2026-03-01T00:00:00Z")
	// After inventory-1 was opened, before billing-1: the leak check holds a file to the
	// samples it is for.
	billing := writeLearnings(t, []string{"ACME/Billing"}, billingText, earlier, "2026-03-20T00:00:00Z")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "each-own")

	r := council(t, env, "bench", "run", data, "--out", out, "--learnings", inventory, "--learnings", billing)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "no --learnings file names the repository of 1 sample, reviewed with no learnings: acme/ledger 1") {
		t.Errorf("stderr does not say which samples get no learnings:\n%s", r.err)
	}

	// Each reviewer of a sample reads its own repository's learnings, and no other's; the
	// sample of a repository no file names reads none, not even its base revision's own.
	want := map[string]string{"acme/inventory": inventoryText, "acme/billing": billingText, "acme/ledger": ""}
	seen := map[string]int{}
	for _, body := range reviewerRequests(t, fake) {
		repo := ""
		for name := range want {
			if strings.Contains(body, "Change to "+name) {
				repo = name
			}
		}
		if repo == "" {
			t.Fatalf("a reviewer's request names no sample's title")
		}
		seen[repo]++
		for _, text := range []string{inventoryText, billingText, ledgerOwnText} {
			if got, should := strings.Contains(body, text), text == want[repo]; got != should {
				t.Errorf("a reviewer of %s's sample: holds %q: %v, want %v", repo, text, got, should)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("reviewer requests per repository %v: every sample must be reviewed", seen)
	}

	m := readRun(t, out)
	wantFiles := []bench.LearningsFileUsed{
		{LearningsUsed: bench.LearningsUsed{File: inventory, SHA256: sha256Of(t, inventory), Learnings: 1, Until: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, Repos: []string{"acme/inventory"}},
		{LearningsUsed: bench.LearningsUsed{File: billing, SHA256: sha256Of(t, billing), Learnings: 1, Until: time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)}, Repos: []string{"ACME/Billing"}},
	}
	if diff := cmp.Diff(wantFiles, m.LearningsFiles); diff != "" {
		t.Errorf("run.json learnings_files (-want +got):\n%s", diff)
	}
	if m.Learnings != nil || m.NoLearnings {
		t.Errorf("run.json: learnings %+v, no_learnings %v: several files are recorded in learnings_files only", m.Learnings, m.NoLearnings)
	}

	// Resuming with the same files, in another order, skips what is done.
	calls := fake.Calls()
	r = council(t, env, "bench", "run", data, "--out", out, "--learnings", billing, "--learnings", inventory)
	if r.code != ExitOK || !strings.Contains(r.err, "3 already done, 0 to review") || fake.Calls() != calls {
		t.Errorf("resuming with the same files: exit %d, %d requests, stderr:\n%s", r.code, fake.Calls()-calls, r.err)
	}
	// With another set it is refused.
	r = council(t, env, "bench", "run", data, "--out", out, "--learnings", inventory)
	if r.code != ExitUsage || !strings.Contains(r.err, "this run would use --learnings "+inventory+" (sha256") || fake.Calls() != calls {
		t.Errorf("resuming with one of the files: exit %d, %d requests, stderr:\n%s", r.code, fake.Calls()-calls, r.err)
	}
}

func TestBenchRunLearningsPerRepositoryRefused(t *testing.T) {
	t.Parallel()
	data := multiRepoDataset(t)
	earlier := "https://github.com/acme/other/pull/9#discussion_r1"
	until := "2026-03-01T00:00:00Z"
	inventory := writeLearnings(t, []string{"acme/inventory"}, inventoryText, earlier, until)
	handWritten := writeLearnings(t, nil, billingText, earlier, "")
	twice := writeLearnings(t, []string{"acme/billing", "Acme/Inventory"}, billingText, earlier, until)
	// Evidence from billing-1's own pull request.
	leaky := writeLearnings(t, []string{"acme/billing"}, billingText, "https://github.com/acme/billing/pull/1#discussion_r3", until)
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{
			name:  "a file without source.repos among several",
			files: []string{inventory, handWritten},
			want:  []string{"--learnings " + handWritten + " has no source.repos", "give this one alone"},
		},
		{
			name:  "two files name the same repository",
			files: []string{inventory, twice},
			want:  []string{"--learnings " + inventory + " and --learnings " + twice + " both name repository Acme/Inventory"},
		},
		{
			name:  "one file could know its samples' answers",
			files: []string{inventory, leaky},
			want: []string{"--learnings " + leaky + " could know the answers of dataset",
				"the pull request of sample billing-1", "--allow-learnings-leak"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			learningsRefused(t, data, tt.files, tt.want)
		})
	}
}

// A file without source.repos, given alone, is for every sample, whatever its repository.
func TestBenchRunHandWrittenLearningsForEverySample(t *testing.T) {
	t.Parallel()
	data := multiRepoDataset(t)
	handWritten := writeLearnings(t, nil, billingText, "https://github.com/acme/other/pull/9#discussion_r1", "")
	fake := anthropicDemo(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": fake.URL}
	out := filepath.Join(t.TempDir(), "hand-written")

	r := council(t, env, "bench", "run", data, "--out", out, "--learnings", handWritten, "--allow-learnings-leak", "--only", "ledger-1")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	reviewers := reviewerRequests(t, fake)
	if len(reviewers) == 0 {
		t.Fatal("no reviewer request reached the fake")
	}
	for _, body := range reviewers {
		if !strings.Contains(body, billingText) || strings.Contains(body, ledgerOwnText) {
			t.Errorf("a reviewer of acme/ledger's sample must read the given file's learnings and not its base revision's")
		}
	}
	if m := readRun(t, out); m.Learnings == nil || m.Learnings.File != handWritten || m.LearningsFiles != nil {
		t.Errorf("run.json: learnings %+v, learnings_files %+v: one file is recorded in learnings", m.Learnings, m.LearningsFiles)
	}
}
