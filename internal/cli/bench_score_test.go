package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// scoreSetup is a dataset of three samples and a run that reviewed two of them: s1's finding
// f1 says what its human said, two lines off, and f2 is about something else; s2's finding is
// in another file; s3 failed.
type scoreSetup struct {
	dataset, runDir string
}

func setupScore(t *testing.T) scoreSetup {
	t.Helper()
	dir := t.TempDir()
	s := scoreSetup{dataset: filepath.Join(dir, "ds"), runDir: filepath.Join(dir, "run")}
	sha := strings.Repeat("a", 40)
	sample := func(id string, truth ...bench.Truth) bench.Sample {
		return bench.Sample{SampleVersion: bench.SampleVersion, ID: id, Repo: bench.Repo{URL: "https://github.com/acme/svc"},
			PR: bench.PR{Number: 1, Title: "PR " + id}, Base: sha, Head: sha, Truth: truth}
	}
	for _, smp := range []bench.Sample{
		sample("s1",
			bench.Truth{ID: "101", Author: "ann", Path: "a.go", Line: 10, Side: "RIGHT", Kind: "bug",
				Body: "`cfg` is nil when the config file is missing, so `cfg.Timeout` panics."},
			bench.Truth{ID: "102", Author: "bo", Body: "Please add tests for the retry loop.", Kind: "tests", ReviewBody: true}),
		sample("s2", bench.Truth{ID: "201", Author: "ann", Path: "b.go", Line: 3, Kind: "naming", Body: "Rename this to something clearer."}),
		sample("s3", bench.Truth{ID: "301", Author: "ann", Path: "c.go", Line: 3, Kind: "bug", Body: "Off by one."}),
	} {
		if err := bench.WriteSample(s.dataset, smp); err != nil {
			t.Fatal(err)
		}
	}
	reviews := map[string][]finding.Finding{
		"s1": {
			{ID: "f1", Lenses: []string{"correctness"}, Path: "a.go", Line: 12, Side: finding.Right, Severity: finding.High,
				Category: "bug", Title: "Nil cfg panics when the config file is missing", Body: "`cfg.Timeout` dereferences a nil `cfg`.", Status: finding.Reported},
			{ID: "f2", Lenses: []string{"security"}, Path: "a.go", Line: 30, Side: finding.Right, Severity: finding.Low,
				Category: "security", Title: "Token logged", Body: "The API token is written to the log.", Status: finding.Reported},
			{ID: "f3", Lenses: []string{"correctness"}, Path: "a.go", Line: 10, Severity: finding.Nit, Title: "filtered", Body: "x", Status: finding.Filtered},
		},
		"s2": {
			{ID: "f1", Lenses: []string{"correctness"}, Path: "z.go", Line: 3, Side: finding.Right, Severity: finding.Low,
				Category: "naming", Title: "Unclear name", Body: "Rename it.", Status: finding.Reported},
		},
	}
	manifest := bench.RunManifest{RunVersion: bench.RunVersion, Name: "sonnet", Dataset: s.dataset, Provider: "anthropic", Model: "m"}
	for _, id := range []string{"s1", "s2"} {
		rep := report.Report{
			Findings:  reviews[id],
			Reviewers: []report.Reviewer{{Name: "correctness", Kind: "lens"}, {Name: "security", Kind: "lens"}},
		}
		var b bytes.Buffer
		if err := report.WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		writeScoreTestFile(t, filepath.Join(s.runDir, "reviews", id+".json"), b.String())
		manifest.Samples = append(manifest.Samples, bench.RunSample{ID: id, Status: bench.StatusDone, Review: "reviews/" + id + ".json",
			Findings: len(reviews[id]), CostUSD: 0.25, WallSeconds: 40})
	}
	manifest.Samples = append(manifest.Samples, bench.RunSample{ID: "s3", Status: bench.StatusFailed, Error: "clone failed"})
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeScoreTestFile(t, filepath.Join(s.runDir, "run.json"), string(data))
	return s
}

func writeScoreTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readScoreFile(t *testing.T, path string) bench.Score {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc bench.Score
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		t.Fatalf("score.json does not parse: %v\n%s", err, data)
	}
	return sc
}

func TestNewCmdBenchScoreFlags(t *testing.T) {
	t.Parallel()
	ignore := cmpopts.IgnoreUnexported(BenchScoreOptions{})
	tests := []struct {
		name    string
		args    string
		want    BenchScoreOptions
		wantErr string
	}{
		{name: "defaults", args: "runs/a --truth ds", want: BenchScoreOptions{RunDir: "runs/a", Truth: "ds", Bootstrap: 1000, Seed: 1, JudgeConcurrency: 4}},
		{
			name: "everything",
			args: "runs/a --truth ds --out s.json --threshold 0.35 --line-window 5 --bootstrap 200 --seed 9 --judge anthropic:claude-haiku-4-5 --judge-concurrency 16 --config c.yaml --labels l.jsonl",
			want: BenchScoreOptions{RunDir: "runs/a", Truth: "ds", Out: "s.json", Threshold: 0.35, LineWindow: 5, Bootstrap: 200, Seed: 9,
				Judge: "anthropic:claude-haiku-4-5", JudgeConcurrency: 16, ConfigPath: "c.yaml", Labels: "l.jsonl"},
		},
		{name: "a zero threshold is allowed", args: "r --truth ds --threshold 0", want: BenchScoreOptions{RunDir: "r", Truth: "ds", Bootstrap: 1000, Seed: 1, JudgeConcurrency: 4}},
		{name: "judge concurrency range", args: "r --truth ds --judge-concurrency 0", wantErr: "--judge-concurrency 0: must be between 1 and 64"},
		{name: "truth is required", args: "runs/a", wantErr: "--truth DATASET is required"},
		{name: "one run directory", args: "--truth ds", wantErr: "accepts 1 arg(s)"},
		{name: "threshold range", args: "r --truth ds --threshold 1.5", wantErr: "--threshold 1.5: must be between 0 and 1"},
		{name: "line window range", args: "r --truth ds --line-window -1", wantErr: "--line-window -1: must be between 0 and 1000"},
		{name: "bootstrap range", args: "r --truth ds --bootstrap -5", wantErr: "--bootstrap -5: must be between 0 and 100000"},
		{name: "judge provider enum", args: "r --truth ds --judge gemini:pro", wantErr: `--judge "gemini:pro": must be provider:model, the provider one of anthropic, openai`},
		{name: "judge needs a model", args: "r --truth ds --judge anthropic", wantErr: `--judge "anthropic": must be provider:model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *BenchScoreOptions
			cmd := NewCmdBenchScore(&Factory{}, func(_ context.Context, o *BenchScoreOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, *got, ignore); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

type tierRow struct {
	Tier       string
	TP, FP, FN int
}

func tierRows(sc bench.Score) []tierRow {
	var out []tierRow
	for _, t := range sc.Tiers {
		out = append(out, tierRow{t.Tier, t.TP, t.FP, t.FN})
	}
	return out
}

func TestBenchScore(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--bootstrap", "100")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	sc := readScoreFile(t, filepath.Join(s.runDir, "score.json"))
	// s1: f1 hits 101 at every tier, f2 only at L0 (same file) and is then unmatched; 102 is
	// never matched. s2's finding is in another file. Truth: 3 items, findings: 3.
	want := []tierRow{{"L0", 1, 2, 2}, {"L1", 1, 2, 2}, {"L2", 1, 2, 2}}
	if d := cmp.Diff(want, tierRows(sc)); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bench.NotScored{{ID: "s3", Reason: "the review failed: clone failed"}}, sc.NotScored); d != "" {
		t.Errorf("not scored (-want +got):\n%s", d)
	}
	if sc.Run != "sonnet" || sc.Options.Threshold != 0.11 || sc.Options.LineWindow != 3 || sc.Options.Bootstrap != 100 || sc.Cost.Total != 0.5 {
		t.Errorf("score = run %q, options %+v, cost %+v: want sonnet, the defaults with 100 resamples, $0.50", sc.Run, sc.Options, sc.Cost)
	}
	for _, s := range []string{"run sonnet: 2 samples scored, 3 truth items, 3 findings (3 up front, 0 collapsed); 1 not scored",
		"L2    L1 and text similarity >= 0.11", "precision", "s3: the review failed: clone failed", "cost per PR $0.2500 mean"} {
		if !strings.Contains(r.out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.out)
		}
	}
	if !strings.Contains(r.err, "wrote "+filepath.Join(s.runDir, "score.json")) {
		t.Errorf("stderr does not say where the score went:\n%s", r.err)
	}
}

func TestBenchScoreConfigAndOut(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	writeScoreTestFile(t, cfg, "bench:\n  similarity_threshold: 0.95\n  line_window: 20\n")
	out := filepath.Join(t.TempDir(), "s.json")
	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--config", cfg, "--out", out, "--bootstrap", "0")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	sc := readScoreFile(t, out)
	// Within 20 lines f2 is an L1 candidate too, but one-to-one it stays unmatched; nothing is
	// 0.95 similar.
	want := []tierRow{{"L0", 1, 2, 2}, {"L1", 1, 2, 2}, {"L2", 0, 3, 3}}
	if d := cmp.Diff(want, tierRows(sc)); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	if sc.Options.Threshold != 0.95 || sc.Options.LineWindow != 20 {
		t.Errorf("options = %+v, want the config's", sc.Options)
	}
	// Without resamples there are no intervals to print: [0.00, 0.00] would read as one.
	if strings.Contains(r.out, "[0.00, 0.00]") || !strings.Contains(r.out, "no intervals (--bootstrap 0)") {
		t.Errorf("--bootstrap 0 prints intervals:\n%s", r.out)
	}
	// A flag beats the config.
	r = council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--config", cfg, "--out", out, "--threshold", "0.1")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if sc := readScoreFile(t, out); sc.Options.Threshold != 0.1 || sc.Tiers[2].TP != 1 {
		t.Errorf("with --threshold 0.1: options %+v, L2 TP %d", sc.Options, sc.Tiers[2].TP)
	}
}

func TestBenchScoreErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    func(t *testing.T, s scoreSetup) []string
		wantErr string
	}{
		{
			name: "no run.json",
			args: func(t *testing.T, s scoreSetup) []string {
				return []string{t.TempDir(), "--truth", s.dataset}
			},
			wantErr: "has no run.json: give the directory council bench run --out wrote",
		},
		{
			name: "no dataset",
			args: func(t *testing.T, s scoreSetup) []string {
				return []string{s.runDir, "--truth", filepath.Join(t.TempDir(), "nope")}
			},
			wantErr: "read dataset",
		},
		{
			name: "a broken review",
			args: func(t *testing.T, s scoreSetup) []string {
				writeScoreTestFile(t, filepath.Join(s.runDir, "reviews", "s2.json"), "{")
				return []string{s.runDir, "--truth", s.dataset}
			},
			wantErr: "re-run the sample with council bench run --only s2",
		},
		{
			name: "a bad config",
			args: func(t *testing.T, s scoreSetup) []string {
				cfg := filepath.Join(t.TempDir(), "c.yaml")
				writeScoreTestFile(t, cfg, "bench:\n  similarity_threshold: 2\n")
				return []string{s.runDir, "--truth", s.dataset, "--config", cfg}
			},
			wantErr: "similarity_threshold",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setupScore(t)
			r := council(t, nil, append([]string{"bench", "score"}, tt.args(t, s)...)...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q: want %d and %q", r.code, r.err, ExitUsage, tt.wantErr)
			}
		})
	}
}

// fakeJudge answers from fixed verdicts and records what it was asked.
type fakeJudge struct {
	same      map[bench.PairKey]bool
	plausible map[bench.FindingKey]bool
	asked     []bench.PairKey
	labelled  []bench.FindingKey
}

var _ scoreJudge = (*fakeJudge)(nil)

func (j *fakeJudge) Same(_ context.Context, pairs []bench.JudgePair) (map[bench.PairKey]bool, error) {
	out := map[bench.PairKey]bool{}
	for _, p := range pairs {
		j.asked = append(j.asked, p.Key)
		if v, ok := j.same[p.Key]; ok {
			out[p.Key] = v
		}
	}
	return out, nil
}

func (j *fakeJudge) Plausible(_ context.Context, fs []bench.JudgeFinding) (map[bench.FindingKey]bool, error) {
	out := map[bench.FindingKey]bool{}
	for _, f := range fs {
		j.labelled = append(j.labelled, f.Key)
		if v, ok := j.plausible[f.Key]; ok {
			out[f.Key] = v
		}
	}
	return out, nil
}

func (j *fakeJudge) Summary() bench.JudgeSummary {
	return bench.JudgeSummary{Model: "fake", Pairs: len(j.asked), Plausible: 1, Fabricated: 1}
}

func TestBenchScoreJudge(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	j := &fakeJudge{
		same:      map[bench.PairKey]bool{{Sample: "s1", Truth: "101", Finding: "f1"}: true, {Sample: "s1", Truth: "102", Finding: "f2"}: true},
		plausible: map[bench.FindingKey]bool{{Sample: "s2", Finding: "f1"}: false},
	}
	var out, errb bytes.Buffer
	o := &BenchScoreOptions{RunDir: s.runDir, Truth: s.dataset, Judge: "anthropic:judge", Seed: 1, judge: j}
	if err := benchScoreRun(context.Background(), &Factory{Out: &out, Err: &errb}, o); err != nil {
		t.Fatal(err)
	}
	wantAsked := []bench.PairKey{
		{Sample: "s1", Truth: "101", Finding: "f1"}, {Sample: "s1", Truth: "101", Finding: "f2"},
		{Sample: "s1", Truth: "102", Finding: "f1"}, {Sample: "s1", Truth: "102", Finding: "f2"},
	}
	if d := cmp.Diff(wantAsked, j.asked); d != "" {
		t.Errorf("pairs asked (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bench.FindingKey{{Sample: "s2", Finding: "f1"}}, j.labelled); d != "" {
		t.Errorf("findings labelled (-want +got):\n%s", d)
	}
	sc := readScoreFile(t, filepath.Join(s.runDir, "score.json"))
	want := []tierRow{{"L0", 1, 2, 2}, {"L1", 1, 2, 2}, {"L2", 1, 2, 2}, {"L3", 2, 1, 1}}
	if d := cmp.Diff(want, tierRows(sc)); d != "" {
		t.Errorf("tiers (-want +got):\n%s", d)
	}
	if sc.Judge == nil || sc.Judge.Model != "fake" || sc.Options.Judge != "anthropic:judge" {
		t.Errorf("judge = %+v, options %+v: want the judge's summary and the flag", sc.Judge, sc.Options)
	}
	if v := sc.PerSample[1].Findings[0].Verdict; v != "fabricated" {
		t.Errorf("s2's unmatched finding: verdict %q, want fabricated", v)
	}
	if !strings.Contains(out.String(), "L3    the judge said: the same issue") || !strings.Contains(out.String(), "judge fake: 4 pairs") {
		t.Errorf("stdout lacks the judge:\n%s", out.String())
	}
}

func TestBenchScoreJudgeNeedsCredentials(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	r := council(t, map[string]string{}, "bench", "score", s.runDir, "--truth", s.dataset, "--judge", "openai:gpt-4.1-mini")
	if r.code != ExitUsage || !strings.Contains(r.err, "--judge openai:gpt-4.1-mini: no model provider is configured") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
}

// TestBenchScoreLabels: s1's f1 is labelled valid and asks for 101, its f2 wrong; s2's f1 has
// no label; one label is of another run's finding.
func TestBenchScoreLabels(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	writeScoreTestFile(t, labels, `{"sample":"s1","finding":"f1","label":"valid","truth":["101"],"why":"nil cfg"}
{"sample":"s1","finding":"f2","label":"wrong"}
{"sample":"s2","finding":"other-run","label":"minor","truth":["201"]}
`)
	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--labels", labels, "--bootstrap", "0")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	sc := readScoreFile(t, filepath.Join(s.runDir, "score.json"))
	if sc.Labels == nil {
		t.Fatal("score.json has no labels")
	}
	type got struct {
		File              string
		Counted, NotInRun int
		Unlabelled        []bench.FindingRef
		Valid, Useful     bench.Share
		Asks, PRs         bench.Share
	}
	up := sc.Labels.Placements[0]
	want := got{File: labels, Counted: 2, NotInRun: 1,
		Unlabelled: []bench.FindingRef{{Sample: "s2", Finding: "f1", Placement: bench.PlacementUpFront}},
		Valid:      bench.Share{N: 1, Of: 2, Share: 0.5}, Useful: bench.Share{N: 1, Of: 2, Share: 0.5},
		Asks: bench.Share{N: 1, Of: 3, Share: 1.0 / 3}, PRs: bench.Share{N: 1, Of: 2, Share: 0.5}}
	if d := cmp.Diff(want, got{sc.Labels.File, sc.Labels.Counted, sc.Labels.NotInRun, sc.Labels.Unlabelled,
		up.JudgedValid, up.Useful, up.AsksCaught, up.PRsAsksCaught}); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	for _, w := range []string{"Judged valid", "0.50 (1/2)", "0.33 (1/3)"} {
		if !strings.Contains(r.out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.out)
		}
	}
	for _, w := range []string{"1 label of findings this run does not show", "1 shown finding without a label", "  s2 f1 (up front)\n"} {
		if !strings.Contains(r.err, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.err)
		}
	}
}

func TestBenchScoreLabelsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		labels  string
		wantErr string
	}{
		{name: "a bad line", labels: `{"sample":"s1","finding":"f1","label":"valid"}` + "\n{\"sample\":", wantErr: "labels.jsonl:2: unexpected EOF"},
		{name: "a label outside the set", labels: `{"sample":"s1","finding":"f1","label":"great"}`, wantErr: `labels.jsonl:1: label "great": must be one of valid, minor, wrong`},
		{name: "calibrate's labels", labels: `{"sample":"s1","truth":"101","finding":"f1","same":true}`, wantErr: "labels.jsonl:1: a pair label, as bench calibrate --labels reads"},
		{name: "an unknown sample", labels: "\n" + `{"sample":"s9","finding":"f1","label":"valid"}`, wantErr: `labels.jsonl:2: unknown sample "s9"`},
		{name: "an unknown truth item", labels: `{"sample":"s1","finding":"f1","label":"valid","truth":["201"]}`, wantErr: `labels.jsonl:1: unknown truth "201" in sample "s1"`},
		{name: "only a filtered finding", labels: `{"sample":"s1","finding":"f3","label":"wrong"}`, wantErr: "labels.jsonl: none of its 1 labels names a finding run sonnet shows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setupScore(t)
			labels := filepath.Join(t.TempDir(), "labels.jsonl")
			writeScoreTestFile(t, labels, tt.labels)
			r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--labels", labels)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q: want %d and %q", r.code, r.err, ExitUsage, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(s.runDir, "score.json")); !os.IsNotExist(err) {
				t.Errorf("a bad labels file still wrote score.json (stat: %v)", err)
			}
		})
	}
	s := setupScore(t)
	r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--labels", filepath.Join(t.TempDir(), "nope.jsonl"))
	if r.code != ExitUsage || !strings.Contains(r.err, "read the labels") {
		t.Errorf("a missing labels file: exit %d, stderr %q", r.code, r.err)
	}
}

// TestBenchScoreOutputDeterministic: the same inputs print the same bytes and write the same
// score.json.
func TestBenchScoreOutputDeterministic(t *testing.T) {
	t.Parallel()
	s := setupScore(t)
	var outs, files []string
	for range 3 {
		r := council(t, nil, "bench", "score", s.runDir, "--truth", s.dataset, "--bootstrap", "50")
		if r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
		outs = append(outs, r.out)
		files = append(files, readFile(t, filepath.Join(s.runDir, "score.json")))
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] || files[i] != files[0] {
			t.Fatal("two runs of bench score on the same inputs differ")
		}
	}
}
