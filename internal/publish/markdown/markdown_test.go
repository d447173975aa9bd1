package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func lenses() []report.Reviewer {
	return []report.Reviewer{
		{
			Name: "correctness", Title: "Correctness", Emoji: "🔎", Kind: "lens", Alert: "NOTE",
			Focus: []string{"bugs", "completeness", "concurrency", "edge cases"},
			Noun:  "correctness issue", Model: "claude-sonnet-4-5", Units: 2, Raised: 3,
			Usage:    provider.Usage{Requests: 2, InputTokens: 1200, OutputTokens: 900, CacheReadTokens: 30000, CacheWriteTokens: 15000, CostUSD: 0.0821},
			WallSecs: 21.5, Succeeded: true,
		},
		{
			Name: "security", Title: "Security", Emoji: "🛡️", Kind: "lens", Alert: "IMPORTANT",
			Focus: []string{"validation", "secrets", "authorization", "isolation"},
			Noun:  "security issue", Model: "claude-sonnet-4-5", Units: 2,
			Usage:    provider.Usage{Requests: 2, InputTokens: 600, OutputTokens: 200, CacheReadTokens: 30000, CostUSD: 0.0190},
			WallSecs: 9, Succeeded: true,
		},
		{
			Name: "maintainability", Title: "Maintainability & Tests", Emoji: "🧪", Kind: "lens", Alert: "TIP",
			Focus: []string{"simplicity", "tests", "docs", "idioms"},
			Noun:  "maintainability issue", Model: "claude-sonnet-4-5", Units: 2, Raised: 1,
			Usage:    provider.Usage{Requests: 2, InputTokens: 1100, OutputTokens: 400, CacheReadTokens: 30000, CostUSD: 0.0402},
			WallSecs: 14.25, Succeeded: true,
		},
	}
}

func base() report.Report {
	return report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "council", Version: "v0.3.1", Council: "Council of Claudes"},
		Change: report.Change{
			Repo: "projectcalico/calico", Base: "origin/master", Head: "HEAD",
			BaseSHA: "ff1cb542767734dbb433d129e7f6f94e2e72774d",
			HeadSHA: "dad1adeeb46fcf9084f85100ab7b17fb5bbf511c",
			Title:   "eBPF: Hybrid conntrack cleaner",
			Files: []report.ChangeFile{
				{Path: "felix/bpf/conntrack/scanner.go", Status: "modified", Added: 41, Deleted: 12},
				{Path: "felix/bpf-gpl/conntrack_cleanup.c", Status: "modified", Added: 30, Deleted: 9},
				{Path: "felix/bpf-gpl/bin/conntrack_cleanup.o", Status: "modified", Binary: true},
				{Path: "go.sum", Status: "modified", Added: 4, Deleted: 4},
			},
		},
		Reviewers: lenses(),
		Coverage: report.Coverage{
			Reviewed: []string{"felix/bpf/conntrack/scanner.go", "felix/bpf-gpl/conntrack_cleanup.c"},
			Skipped: []report.Skipped{
				{Path: "felix/bpf-gpl/bin/conntrack_cleanup.o", Reason: "binary"},
				{Path: "go.sum", Reason: "lock file"},
			},
			Units: []report.Unit{
				{Files: []string{"felix/bpf/conntrack/scanner.go"}, EstimatedTokens: 14000},
				{Files: []string{"felix/bpf-gpl/conntrack_cleanup.c"}, EstimatedTokens: 9000},
			},
		},
		Usage: report.Usage{
			Usage:       provider.Usage{Requests: 6, InputTokens: 2900, OutputTokens: 1500, CacheReadTokens: 90000, CacheWriteTokens: 15000, CostUSD: 0.1413},
			WallSeconds: 36.4,
		},
	}
}

// full is the seeds' review in miniature: three lenses and a persona, an anchored multi-line
// finding whose suggestion contains a code fence, one credited to a second reviewer, other
// notes, a filtered finding, a reviewer that failed outright, skipped files.
func full() report.Report {
	r := base()
	r.Reviewers[0].Summary = "- The userspace scanner no longer deletes entries during iteration and relies on the BPF cleaner.\n- CCQ entries are only removed when the deletion succeeds."
	r.Reviewers[1].Errors = []string{"unit 1: anthropic: overloaded (529) after 3 retries", "unit 2: malformed answer: no findings array"}
	r.Reviewers[1].Succeeded = false
	r.Reviewers[2].Summary = "The new cleanup queue needs documentation; the rest reads well."
	r.Reviewers = append(r.Reviewers, report.Reviewer{
		Name: "casey", Title: "Casey", Kind: "persona", Alert: "WARNING",
		Focus: []string{"testing discipline", "API design", "simplicity", "robustness"},
		Noun:  "", Model: "claude-opus-4-1", Units: 2, Raised: 2,
		Summary:  "I think the hybrid approach makes sense overall. I am a little bit skeptical about removing the auto-resize logic without a replacement. WDYT?",
		Usage:    provider.Usage{Requests: 2, InputTokens: 900, OutputTokens: 700, CacheReadTokens: 30000, CostUSD: 0.0890},
		WallSecs: 25.1, Succeeded: true,
	})
	r.Findings = []finding.Finding{
		{
			ID: "f1", Lenses: []string{"correctness", "casey"},
			Path: "felix/bpf/conntrack/scanner.go", StartLine: 189, Line: 191, Side: finding.Right,
			Severity: finding.High, Category: "error-handling",
			Title:      "Failed enqueue is logged at Debug and the entry leaks",
			Body:       "If `Update` fails, the entry is never cleaned up.\n\n- Impact: expired entries leak silently.\n- Suggested fix: log at Warn, and say so in the doc comment:",
			Suggestion: "if err != nil {\n\t// See ```cleanup``` in the design doc.\n\tlog.WithError(err).Warn(\"Failed to enqueue entry in cleanup map\")\n}\n",
			FixPrompt:  "In felix/bpf/conntrack/scanner.go, log a failed cleanup-map update at Warn and count it.",
			Confidence: 0.82, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "f2", Lenses: []string{"correctness"},
			Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 77, Side: finding.Right,
			Severity: finding.Medium, Category: "bug",
			Title:      "CCQ entry survives a failed delete",
			Body:       "The queue entry is only removed when `cali_ct_delete_elem` succeeds.",
			Confidence: 0.7, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "f3", Lenses: []string{"correctness", "maintainability"},
			Path: "felix/bpf-gpl/conntrack_cleanup.h", Line: 30, Side: finding.Right,
			Severity: finding.Medium, Category: "docs",
			Title:      "Stale comment on the CCQ value",
			Body:       "The header still documents the old value\nas the NAT forward key.\n\nSecond paragraph, not shown in the note.",
			Confidence: 0.6, AnchorNote: "file not in the diff", Status: finding.OtherNote,
		},
		{
			ID: "f4", Lenses: []string{"maintainability"},
			Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 35, Side: finding.Left,
			Severity: finding.Nit, Category: "naming",
			Title: "camelCase in C", Body: "Prefer is_nat_forward.",
			Confidence: 0.4, Anchored: true, Status: finding.Filtered,
			FilterReason: "validate: below severity floor (low)",
		},
		{
			ID: "f5", Lenses: []string{"maintainability"},
			Path: "felix/bpf/conntrack/cleanupv1/map.go", Line: 40, Side: finding.Right,
			Severity: finding.Low, Category: "docs",
			Title: "Explain UpdatedByBPF=false", Body: "Add a note that userspace writes values and BPF only reads and deletes.",
			Confidence: 0.5, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "f6", Lenses: []string{"casey"},
			Path: "felix/fv/bpf_map_resize_test.go", Line: 248, Side: finding.Right,
			Severity: finding.Low, Category: "tests",
			Title: "Doubling the FV loop", Body: "This doubles the entries inserted to 20k. Do you know what was slow here?",
			Confidence: 0.5, AnchorNote: "line outside the diff", Status: finding.OtherNote,
		},
		{
			ID: "f7", Lenses: []string{"casey"},
			Path: "felix/bpf/conntrack/scanner.go", Line: 180, Side: finding.Right,
			Severity: finding.Nit, Category: "style",
			Title: "Unused debug variable", Body: "nit: debug is only read once.",
			Confidence: 0.3, Status: finding.Filtered,
		},
	}
	r.Degraded = []string{"budget.max_usd reached: 2 requests not sent"}
	r.Instructions = []report.Instruction{{Source: "AGENTS.md", AppliesTo: []string{"a.go", "b.go"}}, {Source: "felix/CLAUDE.md", AppliesTo: []string{"felix/x.go"}}}
	r.Context = report.Context{Snippets: []report.ContextSnippet{{Path: "felix/x.go", Side: "head", StartLine: 10, EndLine: 30, Kind: "enclosing"}}, Omitted: []string{"type Big: over budget"}}
	r.Validation = report.Validation{Enabled: true, Checked: 6, Rejected: 1, Errors: []string{"finding 4: overloaded"}}
	r.Reviewers[0].Examined = []string{"felix/bpf/conntrack/cleanup.go@head:1-80"}
	r.Reviewers[1].Missed = []string{"felix/bpf-gpl/conntrack_cleanup.c"}
	r.Reviewers[0].ToolCalls = []report.ToolCall{
		{Tool: "read_file", Input: `{"path":"felix/bpf/conntrack/cleanup.go","end_line":80}`, Bytes: 3120},
		{Tool: "read_file", Input: `{"path":"../../etc/passwd"}`, Error: "path escapes the repository"},
	}
	r.Reviewers[0].Warnings = []string{`finding 3: unknown severity "major" read as high`}
	return r
}

func empty() report.Report {
	r := base()
	for i := range r.Reviewers {
		r.Reviewers[i].Raised = 0
	}
	return r
}

func dryRun() report.Report {
	r := base()
	r.DryRun = true
	for i := range r.Reviewers {
		r.Reviewers[i].Raised = 0
		r.Reviewers[i].Succeeded = false
		r.Reviewers[i].Usage = provider.Usage{}
		r.Reviewers[i].WallSecs = 0
	}
	r.Usage = report.Usage{WallSeconds: 0.3}
	r.Estimate = &report.Estimate{
		Usage:                  provider.Usage{Requests: 5, InputTokens: 1200, OutputTokens: 6001, CacheReadTokens: 16000, CacheWriteTokens: 4000, CostUSD: 0.1234},
		OutputTokensPerRequest: 1500,
	}
	return r
}

func render(t *testing.T, r report.Report, o Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, r, o); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    report.Report
		o    Options
	}{
		{"full", full(), Options{}},
		{"empty", empty(), Options{Council: "Council"}},
		{"dry_run", dryRun(), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(t, tt.r, tt.o)
			golden := filepath.Join("testdata", tt.name+".golden.md")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render mismatch (-want +got), run with -update if intended:\n%s", diff)
			}
		})
	}
}

// TestRenderShowsEveryFinding: whatever its status, each finding's title is in the output.
func TestRenderShowsEveryFinding(t *testing.T) {
	t.Parallel()
	r := full()
	r.Findings = append(r.Findings,
		finding.Finding{ID: "g1", Lenses: []string{"ghost"}, Path: "a.go", Line: 3, Title: "Owned by a reviewer not in the run", Status: finding.Reported},
		finding.Finding{ID: "g2", Path: "b.go", Title: "Owned by nobody", Status: finding.OtherNote},
		finding.Finding{ID: "g3", Lenses: []string{"ghost"}, Path: "c.go", Title: "Filtered and orphaned", Status: finding.Filtered, FilterReason: "dedupe"},
	)
	got := render(t, r, Options{})
	for _, f := range r.Findings {
		if !strings.Contains(got, f.Title) {
			t.Errorf("output lacks finding %s (%s, %q)", f.ID, f.Status, f.Title)
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	r := full()
	r.Usage.Stages = map[string]float64{"plan": 1, "review": 2, "anchor": 3, "publish": 4}
	first := render(t, r, Options{})
	for range 20 {
		if got := render(t, r, Options{}); got != first {
			t.Fatalf("two renders of the same report differ:\n%s", cmp.Diff(first, got))
		}
	}
}

func TestRenderNoANSI(t *testing.T) {
	t.Parallel()
	for _, r := range []report.Report{full(), empty(), dryRun()} {
		if got := render(t, r, Options{}); strings.Contains(got, "\x1b") {
			t.Errorf("output contains an escape sequence:\n%q", got)
		}
	}
}

func TestRenderOptions(t *testing.T) {
	t.Parallel()
	noName := full()
	noName.Tool.Council = ""
	partial := full()
	partial.Reviewers[1].Succeeded = true
	partial.Findings = append(partial.Findings, finding.Finding{
		ID: "s1", Lenses: []string{"security"}, Path: "x.go", Line: 1, Severity: finding.Low, Category: "security",
		Title: "t", Body: "b", Status: finding.Reported,
	})

	tests := []struct {
		name    string
		r       report.Report
		o       Options
		want    []string
		notWant []string
	}{
		{
			name: "council from the report",
			r:    full(),
			want: []string{"# 🤖 Council of Claudes review of ff1cb54..dad1ade", "## 🔎 Council of Claudes · Correctness", "🤖 Council of Claudes · 2 inline comment(s)"},
		},
		{
			name: "council from options",
			r:    full(),
			o:    Options{Council: "Review Board"},
			want: []string{"# 🤖 Review Board review of", "## 🧪 Review Board · Maintainability & Tests"},
		},
		{
			name: "council default",
			r:    noName,
			want: []string{"# 🤖 Council review of", "## Council · Casey"},
		},
		{
			name:    "filtered collapsed",
			r:       full(),
			want:    []string{"<details><summary>Filtered (1)</summary>", "- `felix/bpf/conntrack/scanner.go:180` — Unused debug variable — no reason recorded"},
			notWant: []string{"<details open>"},
		},
		{
			name: "filtered expanded",
			r:    full(),
			o:    Options{ShowFiltered: true},
			want: []string{"<details open><summary>Filtered (1)</summary>"},
		},
		{
			name:    "failed reviewer with nothing to show",
			r:       full(),
			want:    []string{"> [!CAUTION]\n> This reviewer failed:\n> - unit 1: anthropic: overloaded (529) after 3 retries\n> - unit 2: malformed answer: no findings array", "> - Reviewer Security failed: unit 1"},
			notWant: []string{"No security issues found"},
		},
		{
			name:    "partly failed reviewer keeps its count",
			r:       partial,
			want:    []string{"**1 potential security issue**", "> Part of this review failed, so it may be incomplete:", "> - Reviewer Security partly failed: unit 1"},
			notWant: []string{"This reviewer failed"},
		},
		{
			name: "persona",
			r:    full(),
			want: []string{"## Council of Claudes · Casey\n\n> [!WARNING]\n> Casey · simulated reviewer · testing discipline · API design · simplicity · robustness\n\n**1 potential issue**"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(t, tt.r, tt.o)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("output has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestHeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		noun string
		n    int
		want string
	}{
		{"correctness issue", 3, "3 potential correctness issues"},
		{"security issue", 1, "1 potential security issue"},
		{"correctness issue", 0, "No correctness issues found"},
		{"", 2, "2 potential issues"},
		{"  ", 0, "No issues found"},
	}
	for _, tt := range tests {
		if got := Headline(tt.noun, tt.n); got != tt.want {
			t.Errorf("Headline(%q, %d) = %q, want %q", tt.noun, tt.n, got, tt.want)
		}
	}
}

func TestLedger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		u    report.Usage
		want string
	}{
		{
			report.Usage{Usage: provider.Usage{Requests: 8, InputTokens: 2900, OutputTokens: 1300, CacheReadTokens: 1075000, CacheWriteTokens: 15000, CostUSD: 0.12234}, WallSeconds: 36.44},
			"Usage: 8 requests · input 2,900 · output 1,300 · cache read 1,075,000 · cache write 15,000 tokens · $0.1223 · 36.4s",
		},
		{
			report.Usage{Usage: provider.Usage{Requests: 1, InputTokens: 999, OutputTokens: 1000}},
			"Usage: 1 request · input 999 · output 1,000 · cache read 0 · cache write 0 tokens · $0.0000 · 0.0s",
		},
	}
	for _, tt := range tests {
		if got := Ledger(tt.u); got != tt.want {
			t.Errorf("Ledger() = %q\nwant       %q", got, tt.want)
		}
	}
}

func TestFences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s         string
		wantFence string
		wantCode  string
	}{
		{"plain", "```", "`plain`"},
		{"a `b` c", "```", "``a `b` c``"},
		{"x ``` y", "````", "````x ``` y````"},
		{"`edge`", "```", "`` `edge` ``"},
	}
	for _, tt := range tests {
		if got := fenceFor(tt.s); got != tt.wantFence {
			t.Errorf("fenceFor(%q) = %q, want %q", tt.s, got, tt.wantFence)
		}
		if got := code(tt.s); got != tt.wantCode {
			t.Errorf("code(%q) = %q, want %q", tt.s, got, tt.wantCode)
		}
	}
}

func TestEveryReviewerFailed(t *testing.T) {
	t.Parallel()
	r := empty()
	for i := range r.Reviewers {
		r.Reviewers[i].Succeeded = false
		r.Reviewers[i].Errors = []string{"anthropic: authentication failed (401)"}
	}
	got := render(t, r, Options{})
	if strings.Contains(got, "No issues found") || !strings.Contains(got, "every reviewer failed") {
		t.Errorf("a review where every reviewer failed must not read as clean:\n%s", got)
	}
}

func TestRenderMinorNotes(t *testing.T) {
	t.Parallel()
	r := full()
	owner := r.Reviewers[0].Name
	r.Findings = append(r.Findings,
		finding.Finding{ID: "m1", Lenses: []string{owner}, Path: "a.go", Line: 3, Severity: finding.Nit, Title: "Comment still says one value", Body: "The doc comment is stale.", Status: finding.Minor},
		finding.Finding{ID: "m2", Lenses: []string{"ghost"}, Path: "b.go", Line: 4, Severity: finding.Low, Title: "Orphaned minor note", Status: finding.Minor},
	)
	got := render(t, r, Options{})
	for _, want := range []string{"<details><summary>Minor notes (1)</summary>", "- `a.go:3` — Comment still says one value: The doc comment is stale.", "Orphaned minor note", "2 minor notes"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(got, "### `a.go:3`") {
		t.Error("a minor note is rendered as an inline finding")
	}
}

func TestRenderLearnings(t *testing.T) {
	t.Parallel()
	r := full()
	owner := r.Reviewers[0].Name
	r.Findings = append(r.Findings, finding.Finding{ID: "l1", Lenses: []string{owner}, Path: "a.go", Line: 3, Severity: finding.Low,
		Title: "Consider logging", Status: finding.Filtered, FilterReason: "learning no-logging: the team does not want logging advice"})
	r.Learnings = []report.LearningUse{
		{ID: "no-logging", Kind: "suppress", Text: "the team does not want logging advice", Suppressed: 1},
		{ID: "check-locks", Kind: "emphasise", Text: "look at lock scope"},
	}
	got := render(t, r, Options{})
	for _, want := range []string{
		"Learnings applied: `no-logging` (suppressed 1), `check-locks`\n",
		"Consider logging — learning no-logging: the team does not want logging advice",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	r.Learnings = nil
	if got := render(t, r, Options{}); strings.Contains(got, "Learnings") {
		t.Error("a run without learnings mentions them")
	}
}
