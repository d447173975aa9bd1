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

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

func TestNewCmdReviewFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		want    ReviewOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: "",
			want: ReviewOptions{Repo: ".", Head: "HEAD", Formats: []string{"markdown"}},
		},
		{
			name: "everything",
			args: "--repo ../svc --base v1.2.0 --head feature --provider openai --model gpt-4.1 --lenses correctness,security " +
				"--personas a.yaml,b.md --format markdown,json --out-dir out --fail-on high --concurrency 8 --allow-partial " +
				"--config c.yaml --record rec --max-usd 2.5",
			want: ReviewOptions{
				Repo: "../svc", Base: "v1.2.0", Head: "feature", Provider: "openai", Model: "gpt-4.1",
				Lenses: []string{"correctness", "security"}, Personas: []string{"a.yaml", "b.md"},
				Formats: []string{"markdown", "json"}, OutDir: "out", FailOn: "high", Concurrency: 8,
				AllowPartial: true, ConfigPath: "c.yaml", RecordDir: "rec", MaxUSD: 2.5,
			},
		},
		{name: "provider enum", args: "--provider gemini", wantErr: `--provider "gemini": must be one of anthropic, openai`},
		{name: "format enum", args: "--format yaml", wantErr: `--format "yaml": must be one of markdown, json, sarif, rdjson`},
		{name: "format enum is case-sensitive", args: "--format SARIF", wantErr: `--format "SARIF": must be one of markdown, json, sarif, rdjson`},
		{
			name: "sarif format",
			args: "--format sarif --out review.sarif",
			want: ReviewOptions{Repo: ".", Head: "HEAD", Formats: []string{"sarif"}, Out: "review.sarif"},
		},
		{
			name: "rdjson format",
			args: "--format rdjson",
			want: ReviewOptions{Repo: ".", Head: "HEAD", Formats: []string{"rdjson"}},
		},
		{
			name: "every format",
			args: "--format markdown,json,sarif,rdjson --out-dir out",
			want: ReviewOptions{Repo: ".", Head: "HEAD", Formats: []string{"markdown", "json", "sarif", "rdjson"}, OutDir: "out"},
		},
		{name: "sarif and rdjson need a directory", args: "--format sarif,rdjson", wantErr: "add --out-dir DIR"},
		{name: "fail-on enum", args: "--fail-on blocker", wantErr: "critical, high, medium, low, nit"},
		{name: "concurrency range", args: "--concurrency 100", wantErr: "between 1 and 64"},
		{name: "several formats need a directory", args: "--format markdown,json", wantErr: "add --out-dir DIR"},
		{name: "out and out-dir", args: "--out a --out-dir b", wantErr: "cannot be used together"},
		{name: "record and replay", args: "--record a --replay b", wantErr: "cannot be used together"},
		{name: "dry run and replay", args: "--dry-run --replay b", wantErr: "cannot be used together"},
		{name: "no positional arguments", args: "main", wantErr: "unknown command"},
		{
			name: "pull request",
			args: "--pr acme/svc#7 --post --layout consolidated --check-run --full",
			want: ReviewOptions{Repo: ".", Head: "HEAD", Formats: []string{"markdown"}, PR: "acme/svc#7", Post: true, Layout: "consolidated", CheckRun: true, Full: true},
		},
		{name: "post needs a pull request", args: "--post", wantErr: "need --pr"},
		{name: "layout enum", args: "--pr a/b#1 --layout grouped", wantErr: "--layout"},
		{name: "a pull request has its own base", args: "--pr a/b#1 --base main", wantErr: "drop --base and --head"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *ReviewOptions
			cmd := NewCmdReview(&Factory{}, func(_ context.Context, o *ReviewOptions) error {
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
			want := tt.want
			if want.Layout == "" {
				want.Layout = "per-reviewer" // the default, left out of the table
			}
			if d := cmp.Diff(want, *got, cmpopts.IgnoreUnexported(ReviewOptions{})); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	code := Run(context.Background(), &Factory{Out: &out, Err: &out, Getenv: func(string) string { return "" }}, []string{"review", "--help"})
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{"Examples:", "council review --repo ../svc", "ANTHROPIC_API_KEY", "--fail-on", "markdown|json|sarif|rdjson"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}

// TestWriteOutputsFormats: each format goes to its own file under --out-dir, or alone to
// stdout, and the machine formats are the documents their consumers expect.
func TestWriteOutputsFormats(t *testing.T) {
	t.Parallel()
	rep := report.Report{
		Tool:      report.Tool{Name: "council", Version: "v1"},
		Reviewers: []report.Reviewer{{Name: "correctness", Title: "Correctness", Kind: "lens", Succeeded: true}},
		Findings: []finding.Finding{{
			ID: "f1", Lenses: []string{"correctness"}, Path: "a.go", Line: 3, Side: finding.Right,
			Severity: finding.High, Category: "bug", Title: "t", Body: "b", Anchored: true, Status: finding.Reported,
		}},
	}
	isSARIF := func(t *testing.T, b []byte) {
		t.Helper()
		var doc struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 1 {
			t.Errorf("not a SARIF 2.1.0 log with one result (%v):\n%s", err, b)
		}
	}
	isRDJSON := func(t *testing.T, b []byte) {
		t.Helper()
		var doc struct {
			Diagnostics []struct {
				Severity string `json:"severity"`
			} `json:"diagnostics"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Diagnostics) != 1 || doc.Diagnostics[0].Severity != "ERROR" {
			t.Errorf("not an rdjson result with one ERROR diagnostic (%v):\n%s", err, b)
		}
	}
	tests := []struct {
		name   string
		format string
		file   string
		check  func(*testing.T, []byte)
	}{
		{"sarif", "sarif", "review.sarif", isSARIF},
		{"rdjson", "rdjson", "review.rdjson", isRDJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name+" in a directory", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var stdout bytes.Buffer
			o := &ReviewOptions{Formats: []string{"markdown", tt.format}, OutDir: dir}
			if err := writeOutputs(&Factory{Out: &stdout}, o, rep, "Council"); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, b)
			if _, err := os.Stat(filepath.Join(dir, "review.md")); err != nil {
				t.Errorf("markdown beside it: %v", err)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing with --out-dir", stdout.String())
			}
		})
		t.Run(tt.name+" on stdout", func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			if err := writeOutputs(&Factory{Out: &stdout}, &ReviewOptions{Formats: []string{tt.format}}, rep, "Council"); err != nil {
				t.Fatal(err)
			}
			tt.check(t, stdout.Bytes())
		})
	}
}
