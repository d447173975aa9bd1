package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
	"github.com/council-dev/council/internal/bench/benchreport"
)

func TestNewCmdBenchReportFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		want    BenchReportOptions
		wantErr string
	}{
		{name: "markdown on stdout", args: "runs/a", want: BenchReportOptions{Runs: []string{"runs/a"}, Format: "markdown"}},
		{name: "html by extension", args: "runs/a runs/b --out r.html",
			want: BenchReportOptions{Runs: []string{"runs/a", "runs/b"}, Out: "r.html", Format: "html"}},
		{name: "markdown by extension", args: "runs/a --out r.MD", want: BenchReportOptions{Runs: []string{"runs/a"}, Out: "r.MD", Format: "markdown"}},
		{name: "format overrides the extension", args: "runs/a --out r.txt --format html",
			want: BenchReportOptions{Runs: []string{"runs/a"}, Out: "r.txt", Format: "html"}},
		{name: "html and a markdown copy", args: "runs/a --out r.html --markdown r.md",
			want: BenchReportOptions{Runs: []string{"runs/a"}, Out: "r.html", Markdown: "r.md", Format: "html"}},
		{name: "unknown extension", args: "runs/a --out r.txt", wantErr: "name it .html or .md, or add --format html|markdown"},
		{name: "format enum", args: "runs/a --format pdf", wantErr: `--format "pdf": must be one of html, markdown`},
		{name: "a run is needed", args: "--out r.html", wantErr: "requires at least 1 arg(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *BenchReportOptions
			cmd := NewCmdBenchReport(&Factory{}, func(_ context.Context, o *BenchReportOptions) error {
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
			if d := cmp.Diff(tt.want, *got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// writeScore writes a small score.json for run name under dir and returns dir.
func writeScore(t *testing.T, dir, name string, judge bool) string {
	t.Helper()
	tier := func(n string, p, r float64) bench.TierScore {
		return bench.TierScore{Tier: n, TP: 1, FP: 1, FN: 1, Micro: bench.Metrics{Precision: p, Recall: r, F1: 2 * p * r / (p + r),
			PrecisionCI: [2]float64{p - 0.1, p + 0.1}, RecallCI: [2]float64{r - 0.1, r + 0.1}}}
	}
	s := bench.Score{ScoreVersion: bench.ScoreVersion, Run: name, Truth: "bench/acme", Model: "m-" + name,
		Tiers:   []bench.TierScore{tier(bench.TierL0, 0.6, 0.7), tier(bench.TierL1, 0.5, 0.5), tier(bench.TierL2, 0.3, 0.4)},
		Samples: 1, TruthItems: 1, Findings: 2,
		ByKind: map[string][]bench.Rate{bench.TierL0: {{Group: "bug", Hits: 1, Total: 1, Recall: 1}}},
		PerSample: []bench.SampleScore{{ID: "acme-svc-1", Title: "Fix the race",
			Truth: []bench.TruthOutcome{{ID: "c1", Author: "alice", Path: "a.go", Line: 3, Kind: "bug",
				Body: "<script>alert(1)</script>", Matches: map[string]string{bench.TierL0: "f1"}}},
			Findings: []bench.FindingOutcome{
				{ID: "f1", Reviewers: []string{"correctness"}, Path: "a.go", Line: 4, Title: "Race on x", Body: "Lock it.",
					Matches: map[string]string{bench.TierL0: "c1"}},
				{ID: "f2", Reviewers: []string{"security"}, Path: "b.go", Line: 9, Title: "Unchecked input", Body: "Validate it.",
					Matches: map[string]string{}},
			}}},
	}
	if judge {
		s.Tiers = append(s.Tiers, tier(bench.TierL3, 0.5, 0.6))
		s.Judge = &bench.JudgeSummary{Model: "anthropic:judge", Pairs: 2}
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "score.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBenchReportWritesHTMLAndMarkdown(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	a := writeScore(t, filepath.Join(tmp, "runs", "sonnet"), "sonnet", true)
	b := writeScore(t, filepath.Join(tmp, "runs", "haiku"), "haiku", false)
	html, md := filepath.Join(tmp, "out", "report.html"), filepath.Join(tmp, "out", "report.md")

	// One run by directory, one by its score.json.
	r := council(t, nil, "bench", "report", a, filepath.Join(b, "score.json"), "--out", html, "--markdown", md)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if r.out != "" {
		t.Errorf("stdout %q, want nothing: the report went to --out", r.out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `id="headline-table"`, `data-run="sonnet"`, `data-run="haiku"`,
		"&lt;script&gt;alert(1)&lt;/script&gt;", "Race on x"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# council bench report", "| L3 | sonnet |", "| L3 | haiku | – |", "anthropic:judge"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report.md lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(r.err, "wrote "+html) {
		t.Errorf("stderr %q does not say where the report went", r.err)
	}
}

func TestBenchReportMarkdownOnStdout(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// Two runs named the same: the directory names tell them apart.
	a := writeScore(t, filepath.Join(tmp, "a"), "sonnet", false)
	b := writeScore(t, filepath.Join(tmp, "b"), "sonnet", false)
	r := council(t, nil, "bench", "report", a, b)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.out, "| Run | Model |") || !strings.Contains(r.out, "| sonnet (a) |") || !strings.Contains(r.out, "| sonnet (b) |") {
		t.Errorf("stdout is not the Markdown report with both runs named apart:\n%s", r.out)
	}
}

func TestBenchReportMissingScore(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	a := writeScore(t, filepath.Join(tmp, "a"), "sonnet", false)
	unscored := filepath.Join(tmp, "unscored")
	if err := os.MkdirAll(unscored, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "report.html")
	r := council(t, nil, "bench", "report", a, unscored, "--out", out)
	if r.code != ExitUsage {
		t.Errorf("exit %d, want %d", r.code, ExitUsage)
	}
	want := "run `council bench score " + unscored + " --truth DATASET` first"
	if !strings.Contains(r.err, want) {
		t.Errorf("stderr %q, want it to contain %q", r.err, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written although a run had no score")
	}
	missing := filepath.Join(tmp, "typo")
	r = council(t, nil, "bench", "report", missing)
	if want := missing + " does not exist: give a run directory"; r.code != ExitUsage || !strings.Contains(r.err, want) {
		t.Errorf("exit %d, stderr %q, want %d and %q", r.code, r.err, ExitUsage, want)
	}
}

func TestBenchReportDisambiguate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		names []string
		dirs  []string
		want  []string
	}{
		{"distinct", []string{"a", "b"}, []string{"x/a", "x/b"}, []string{"a", "b"}},
		{"same name", []string{"s", "s", "h"}, []string{"r/one", "r/two", "r/h"}, []string{"s (one)", "s (two)", "h"}},
		{"same base", []string{"s", "s"}, []string{"x/run", "y/run"}, []string{"s (x/run)", "s (y/run)"}},
		{"same directory twice", []string{"s", "s"}, []string{"r", "r/"}, []string{"s (r) #1", "s (r) #2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := make([]benchreport.Run, len(tt.names))
			for i, n := range tt.names {
				runs[i].Name = n
			}
			disambiguate(runs, tt.dirs)
			got := make([]string, len(runs))
			for i, r := range runs {
				got[i] = r.Name
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("names (-want +got):\n%s", d)
			}
		})
	}
}
