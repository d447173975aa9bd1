package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		{name: "format enum", args: "--format sarif", wantErr: `--format "sarif": must be one of markdown, json`},
		{name: "fail-on enum", args: "--fail-on blocker", wantErr: "critical, high, medium, low, nit"},
		{name: "concurrency range", args: "--concurrency 100", wantErr: "between 1 and 64"},
		{name: "several formats need a directory", args: "--format markdown,json", wantErr: "add --out-dir DIR"},
		{name: "out and out-dir", args: "--out a --out-dir b", wantErr: "cannot be used together"},
		{name: "record and replay", args: "--record a --replay b", wantErr: "cannot be used together"},
		{name: "dry run and replay", args: "--dry-run --replay b", wantErr: "cannot be used together"},
		{name: "no positional arguments", args: "main", wantErr: "unknown command"},
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
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreUnexported(ReviewOptions{})); d != "" {
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
	for _, s := range []string{"Examples:", "council review --repo ../svc", "ANTHROPIC_API_KEY", "--fail-on"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}
