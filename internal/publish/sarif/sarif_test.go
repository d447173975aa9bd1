package sarif

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const schemaFile = "testdata/sarif-2.1.0-subset.schema.json"

// full is a review in miniature: an anchored multi-line finding with a suggestion raised by
// two reviewers, a finding in a path with a space, an other note without a line in a
// non-ASCII path, a filtered finding on a deleted line, a reported finding on deleted lines,
// a finding whose owner has no reviewer entry, and a reviewer that failed.
func full() report.Report {
	return report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "council", Version: "v0.3.1", Council: "Council of Claudes"},
		Change: report.Change{
			Repo: "projectcalico/calico", Base: "origin/master", Head: "HEAD",
			BaseSHA: "ff1cb542767734dbb433d129e7f6f94e2e72774d",
			HeadSHA: "dad1adeeb46fcf9084f85100ab7b17fb5bbf511c",
		},
		Reviewers: []report.Reviewer{
			{
				Name: "correctness", Title: "Correctness", Kind: "lens", Alert: "NOTE",
				Focus: []string{"bugs", "completeness", "concurrency", "edge cases"}, Succeeded: true,
				Warnings: []string{`finding 3: unknown severity "major" read as high`},
			},
			{
				Name: "security", Title: "Security", Kind: "lens", Alert: "IMPORTANT",
				Focus:  []string{"validation", "secrets", "authorization", "isolation"},
				Errors: []string{"unit 1: anthropic: overloaded (529) after 3 retries", "unit 2: malformed answer: no findings array"},
			},
			{
				Name: "maintainability", Title: "Maintainability & Tests", Kind: "lens", Alert: "TIP",
				Focus: []string{"simplicity", "tests", "docs", "idioms"}, Succeeded: true,
			},
			{Name: "casey", Title: "Casey", Kind: "persona", Alert: "WARNING", Succeeded: true},
		},
		Findings: []finding.Finding{
			{
				ID: "c0ffee01", Lenses: []string{"correctness", "casey"},
				Path: "felix/bpf/conntrack/scanner.go", StartLine: 189, Line: 191, Side: finding.Right,
				Severity: finding.High, Category: "error-handling",
				Title:      "Failed enqueue is logged at Debug and the entry leaks",
				Body:       "If `Update` fails, the entry is never cleaned up.\n\n- Impact: expired entries leak silently.",
				Suggestion: "if err != nil {\n\tlog.WithError(err).Warn(\"Failed to enqueue entry in cleanup map\")\n}\n",
				FixPrompt:  "In felix/bpf/conntrack/scanner.go, log a failed cleanup-map update at Warn.",
				Confidence: 0.82, Anchored: true, Status: finding.Reported,
			},
			{
				ID: "c0ffee02", Lenses: []string{"correctness"},
				Path: "felix/bpf-gpl/conntrack cleanup.c", Line: 77, Side: finding.Right,
				Severity: finding.Medium, Category: "bug",
				Title:      "CCQ entry survives a failed delete",
				Body:       "The queue entry is only removed when `cali_ct_delete_elem` succeeds.",
				Confidence: 0.7, Anchored: true, Status: finding.Reported,
			},
			{
				ID: "c0ffee03", Lenses: []string{"maintainability"},
				Path: "docs/réseau.md", Side: finding.Right,
				Severity: finding.Low, Category: "docs",
				Title: "Document the cleanup queue", Body: "Nobody will know the queue exists.",
				Confidence: 0.6, AnchorNote: "file not in the diff", Status: finding.OtherNote,
			},
			{
				ID: "c0ffee04", Lenses: []string{"maintainability"},
				Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 35, Side: finding.Left,
				Severity: finding.Nit, Category: "naming",
				Title: "camelCase in C", Body: "Prefer is_nat_forward.",
				Confidence: 0.4, Anchored: true, Status: finding.Filtered,
				FilterReason: "validate: below severity floor (low)",
			},
			{
				ID: "c0ffee05", Lenses: []string{"casey"},
				Path: "felix/bpf/conntrack/cleanup.go", StartLine: 40, Line: 42, Side: finding.Left,
				Severity: finding.Critical, Category: "concurrency",
				Title: "The lock that guarded the map is gone", Body: "Deleting these lines leaves the map unguarded.",
				Confidence: 0.9, Anchored: true, Status: finding.Reported,
			},
			{
				ID: "c0ffee06", Lenses: []string{"no-todo"},
				Path: "felix/bpf/conntrack/scanner.go", Line: 12, Side: finding.Right,
				Severity: finding.Nit, Category: "style",
				Title: "TODO without an issue", Body: "Rule no-todo: link an issue.",
				Confidence: 1, Anchored: true, Status: finding.Reported,
			},
		},
		Validation: report.Validation{Enabled: true, Checked: 5, Errors: []string{"finding 4: overloaded"}},
		Degraded:   []string{"budget.max_usd reached: 2 requests not sent"},
	}
}

// empty is a clean run: every reviewer answered and found nothing.
func empty() report.Report {
	r := full()
	r.Findings = nil
	r.Degraded = nil
	r.Validation = report.Validation{}
	r.Reviewers[0].Warnings = nil
	r.Reviewers[1].Errors = nil
	r.Reviewers[1].Succeeded = true
	return r
}

var opts = Options{ToolVersion: "v0.3.1", InformationURI: "https://github.com/council-dev/council"}

func write(t *testing.T, r report.Report, o Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r, o); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func validate(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    report.Report
	}{
		{"full", full()},
		{"empty", empty()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := write(t, tt.r, opts)
			golden := filepath.Join("testdata", tt.name+".golden.sarif")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Write mismatch (-want +got), run with -update if intended:\n%s", diff)
			}
		})
	}
}

func TestWriteValidates(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	tests := []struct {
		name string
		r    report.Report
		o    Options
	}{
		{"full", full(), opts},
		{"empty", empty(), opts},
		{"no options", full(), Options{}},
		{"zero report", report.Report{}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(sch, write(t, tt.r, tt.o)); err != nil {
				t.Errorf("output does not validate: %v", err)
			}
		})
	}
}

// mutation breaks one SARIF requirement the output relies on in a valid log.
type mutation struct {
	name   string
	mutate func(d map[string]any)
	// officialRejects is true when the OASIS schema rejects the mutation too, false where the
	// rule is one only council's subset holds (see TestOfficialSchemaRejects).
	officialRejects bool
}

func mutations() []mutation {
	result := func(d map[string]any, i int) map[string]any { return docRun(d)["results"].([]any)[i].(map[string]any) }
	return []mutation{
		{"bad level", func(d map[string]any) { result(d, 0)["level"] = "warn" }, true},
		{"level in capitals", func(d map[string]any) { result(d, 0)["level"] = "ERROR" }, true},
		{"result without message", func(d map[string]any) { delete(result(d, 0), "message") }, true},
		{"message without text or id", func(d map[string]any) { result(d, 0)["message"] = map[string]any{"markdown": "x"} }, true},
		{"driver without name", func(d map[string]any) { delete(docDriver(d), "name") }, true},
		{"rule without id", func(d map[string]any) { delete(docDriver(d)["rules"].([]any)[0].(map[string]any), "id") }, true},
		{"rule description without text", func(d map[string]any) {
			docDriver(d)["rules"].([]any)[0].(map[string]any)["shortDescription"] = map[string]any{}
		}, true},
		{"run without tool", func(d map[string]any) { delete(docRun(d), "tool") }, true},
		{"log without version", func(d map[string]any) { delete(d, "version") }, true},
		{"other version", func(d map[string]any) { d["version"] = "2.0.0" }, true},
		// A relative reference where the schemas ask for format uri: shows format is asserted.
		{"$schema not an absolute URI", func(d map[string]any) { d["$schema"] = "sarif-2.1.0.json" }, true},
		{"results without columnKind", func(d map[string]any) { delete(docRun(d), "columnKind") }, false},
		{"invocation without executionSuccessful", func(d map[string]any) {
			delete(docRun(d)["invocations"].([]any)[0].(map[string]any), "executionSuccessful")
		}, true},
		{"startLine 0", func(d map[string]any) { docRegion(result(d, 0))["startLine"] = 0 }, true},
		{"region without start", func(d map[string]any) { delete(docRegion(result(d, 0)), "startLine") }, true},
		{"uri with a raw space", func(d map[string]any) { docArtifact(result(d, 1))["uri"] = "felix/bpf-gpl/conntrack cleanup.c" }, false},
		{"negative ruleIndex", func(d map[string]any) { result(d, 0)["ruleIndex"] = -2 }, true},
		{"fingerprint not a string", func(d map[string]any) { result(d, 0)["partialFingerprints"] = map[string]any{FingerprintKey: 1} }, true},
		{"fix without changes", func(d map[string]any) {
			result(d, 0)["fixes"].([]any)[0].(map[string]any)["artifactChanges"] = []any{}
		}, true},
		{"replacement without deletedRegion", func(d map[string]any) {
			change := result(d, 0)["fixes"].([]any)[0].(map[string]any)["artifactChanges"].([]any)[0].(map[string]any)
			delete(change["replacements"].([]any)[0].(map[string]any), "deletedRegion")
		}, true},
		{"suppression without kind", func(d map[string]any) { delete(docSuppression(result(d, 3)), "kind") }, true},
		{"bad suppression kind", func(d map[string]any) { docSuppression(result(d, 3))["kind"] = "config" }, true},
		{"bad suppression status", func(d map[string]any) { docSuppression(result(d, 3))["status"] = "approved" }, true},
		{"suppression state (a pre-release name)", func(d map[string]any) {
			s := docSuppression(result(d, 3))
			s["state"] = s["status"]
			delete(s, "status")
		}, true},
		{"misspelt result property", func(d map[string]any) { result(d, 0)["partialFingerPrints"] = map[string]any{} }, true},
	}
}

// TestSchemaRejects shows the schema is not a rubber stamp: each mutation of a valid log
// breaks one SARIF requirement the output relies on.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	tests := append([]mutation{{name: "nothing (control)"}}, mutations()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(write(t, full(), opts), &doc); err != nil {
				t.Fatal(err)
			}
			if tt.mutate == nil {
				if err := validate(sch, mustMarshal(t, doc)); err != nil {
					t.Fatalf("unmutated log does not validate: %v", err)
				}
				return
			}
			tt.mutate(doc)
			if err := validate(sch, mustMarshal(t, doc)); err == nil {
				t.Errorf("schema accepted a log with %s", tt.name)
			}
		})
	}
}

func docRun(d map[string]any) map[string]any { return d["runs"].([]any)[0].(map[string]any) }

func docDriver(d map[string]any) map[string]any {
	return docRun(d)["tool"].(map[string]any)["driver"].(map[string]any)
}

func docPhysical(res map[string]any) map[string]any {
	return res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}

func docRegion(res map[string]any) map[string]any { return docPhysical(res)["region"].(map[string]any) }

func docArtifact(res map[string]any) map[string]any {
	return docPhysical(res)["artifactLocation"].(map[string]any)
}

func docSuppression(res map[string]any) map[string]any {
	return res["suppressions"].([]any)[0].(map[string]any)
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Small decoding types for the round trip: only what a consumer would read.
type logDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []resultDoc `json:"results"`
	} `json:"runs"`
}

type resultDoc struct {
	RuleID    string `json:"ruleId"`
	RuleIndex *int   `json:"ruleIndex"`
	Level     string `json:"level"`
	Locations []struct {
		PhysicalLocation struct {
			ArtifactLocation artifactDoc `json:"artifactLocation"`
			Region           *regionDoc  `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Fixes               []struct {
		ArtifactChanges []struct {
			ArtifactLocation artifactDoc `json:"artifactLocation"`
			Replacements     []struct {
				DeletedRegion   regionDoc `json:"deletedRegion"`
				InsertedContent struct {
					Text string `json:"text"`
				} `json:"insertedContent"`
			} `json:"replacements"`
		} `json:"artifactChanges"`
	} `json:"fixes"`
	Suppressions []struct {
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	} `json:"suppressions"`
}

type artifactDoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type regionDoc struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// TestRoundTrip decodes the log as a consumer would and checks every finding comes back
// where it was: same order, path, lines, fingerprint, rule, fix and suppression.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	r := full()
	var doc logDoc
	if err := json.Unmarshal(write(t, r, opts), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("runs = %d, want 1", len(doc.Runs))
	}
	got := doc.Runs[0]
	if len(got.Results) != len(r.Findings) {
		t.Fatalf("results = %d, want one per finding (%d)", len(got.Results), len(r.Findings))
	}
	var ruleIDs []string
	for _, rl := range got.Tool.Driver.Rules {
		ruleIDs = append(ruleIDs, rl.ID)
	}
	// Reviewers that own findings in report order, then owners without a reviewer; security
	// owns nothing.
	if diff := cmp.Diff([]string{"correctness", "maintainability", "casey", "no-todo"}, ruleIDs); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	for i, f := range r.Findings {
		res := got.Results[i]
		t.Run(f.ID, func(t *testing.T) {
			if res.RuleID != f.Owner() || res.RuleIndex == nil || ruleIDs[*res.RuleIndex] != f.Owner() {
				t.Errorf("rule = %q at %v, want %q", res.RuleID, res.RuleIndex, f.Owner())
			}
			if got := res.PartialFingerprints[FingerprintKey]; got != f.ID {
				t.Errorf("fingerprint = %q, want %q", got, f.ID)
			}
			if len(res.Locations) != 1 {
				t.Fatalf("locations = %d, want 1", len(res.Locations))
			}
			loc := res.Locations[0].PhysicalLocation
			if p, err := url.PathUnescape(loc.ArtifactLocation.URI); err != nil || p != f.Path {
				t.Errorf("uri %q unescapes to %q (%v), want %q", loc.ArtifactLocation.URI, p, err, f.Path)
			}
			if loc.ArtifactLocation.URIBaseID != SrcRoot {
				t.Errorf("uriBaseId = %q, want %q", loc.ArtifactLocation.URIBaseID, SrcRoot)
			}
			var want *regionDoc
			if f.Line > 0 && f.Side == finding.Right {
				want = &regionDoc{StartLine: f.StartLine, EndLine: f.Line}
				if f.StartLine == 0 {
					want.StartLine = f.Line
				}
			}
			if diff := cmp.Diff(want, loc.Region); diff != "" {
				t.Errorf("region (-want +got):\n%s", diff)
			}
			wantFix := f.Suggestion != "" && f.Anchored && f.Side == finding.Right
			if (len(res.Fixes) == 1) != wantFix {
				t.Fatalf("fixes = %d, want a fix: %v", len(res.Fixes), wantFix)
			}
			if wantFix {
				ch := res.Fixes[0].ArtifactChanges[0]
				if ch.ArtifactLocation != loc.ArtifactLocation {
					t.Errorf("fix artifact %+v, want the result's %+v", ch.ArtifactLocation, loc.ArtifactLocation)
				}
				rp := ch.Replacements[0]
				wantDel := regionDoc{StartLine: f.StartLine, StartColumn: 1, EndLine: f.Line + 1, EndColumn: 1}
				if diff := cmp.Diff(wantDel, rp.DeletedRegion); diff != "" {
					t.Errorf("deleted region (-want +got):\n%s", diff)
				}
				if rp.InsertedContent.Text != f.Suggestion {
					t.Errorf("inserted %q, want the suggestion %q", rp.InsertedContent.Text, f.Suggestion)
				}
			}
			if filtered := f.Status == finding.Filtered; (len(res.Suppressions) == 1) != filtered {
				t.Fatalf("suppressions = %d, filtered: %v", len(res.Suppressions), filtered)
			}
			if len(res.Suppressions) == 1 {
				s := res.Suppressions[0]
				if s.Kind != "external" || s.Status != "accepted" || s.Justification != f.FilterReason {
					t.Errorf("suppression = %+v, want external, accepted, %q", s, f.FilterReason)
				}
			}
		})
	}
}

// TestApplyFix applies the fix the way a SARIF consumer must (whole lines from column 1 to
// column 1 of the next line) and checks the file ends up with exactly the suggestion in place
// of the anchored lines, the lines around untouched.
func TestApplyFix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		suggestion string
	}{
		{"suggestion with final newline", "a := 1\nb := 2\n"},
		{"suggestion without final newline", "a := 1\nb := 2"},
		{"one line", "x()"},
	}
	src := "line1\nline2\nline3\nline4\nline5\n"
	want := "line1\n%s\nline5\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := report.Report{Findings: []finding.Finding{{
				ID: "x", Lenses: []string{"correctness"}, Path: "a.go", StartLine: 2, Line: 4,
				Side: finding.Right, Severity: finding.Low, Suggestion: tt.suggestion,
				Anchored: true, Status: finding.Reported,
			}}}
			var doc logDoc
			if err := json.Unmarshal(write(t, r, Options{}), &doc); err != nil {
				t.Fatal(err)
			}
			rp := doc.Runs[0].Results[0].Fixes[0].ArtifactChanges[0].Replacements[0]
			got := applyLines(src, rp.DeletedRegion, rp.InsertedContent.Text)
			if w := strings.Replace(want, "%s", strings.TrimSuffix(tt.suggestion, "\n"), 1); got != w {
				t.Errorf("applied fix gives %q, want %q", got, w)
			}
		})
	}
}

// applyLines replaces a region given by whole-line positions (columns 1 only) in src.
func applyLines(src string, reg regionDoc, insert string) string {
	lines := strings.SplitAfter(src, "\n")
	offset := func(line int) int {
		n := 0
		for _, l := range lines[:line-1] {
			n += len(l)
		}
		return n
	}
	return src[:offset(reg.StartLine)] + insert + src[offset(reg.EndLine):]
}

func TestNoFix(t *testing.T) {
	t.Parallel()
	base := finding.Finding{
		ID: "x", Lenses: []string{"correctness"}, Path: "a.go", StartLine: 2, Line: 4, Side: finding.Right,
		Severity: finding.Low, Suggestion: "y()\n", Anchored: true, Status: finding.Reported,
	}
	tests := []struct {
		name   string
		mutate func(f *finding.Finding)
	}{
		{"left side", func(f *finding.Finding) { f.Side = finding.Left }},
		{"not anchored", func(f *finding.Finding) { f.Anchored = false; f.Status = finding.OtherNote }},
		{"no line", func(f *finding.Finding) { f.Line, f.StartLine = 0, 0 }},
		{"no suggestion", func(f *finding.Finding) { f.Suggestion = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := base
			tt.mutate(&f)
			var doc logDoc
			if err := json.Unmarshal(write(t, report.Report{Findings: []finding.Finding{f}}, Options{}), &doc); err != nil {
				t.Fatal(err)
			}
			if n := len(doc.Runs[0].Results[0].Fixes); n != 0 {
				t.Errorf("fixes = %d, want none", n)
			}
		})
	}
}

func TestLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sev  finding.Severity
		want string
	}{
		{finding.Critical, "error"},
		{finding.High, "error"},
		{finding.Medium, "warning"},
		{finding.Low, "note"},
		{finding.Nit, "note"},
		{"", "warning"},
	}
	for _, tt := range tests {
		t.Run(string(tt.sev), func(t *testing.T) {
			t.Parallel()
			if got := level(tt.sev); got != tt.want {
				t.Errorf("level(%q) = %q, want %q", tt.sev, got, tt.want)
			}
		})
	}
}

func TestInvocation(t *testing.T) {
	t.Parallel()
	type note struct{ Level, Text string }
	type inv struct {
		ExecutionSuccessful        bool `json:"executionSuccessful"`
		ToolExecutionNotifications []struct {
			Level   string `json:"level"`
			Message struct {
				Text string `json:"text"`
			} `json:"message"`
		} `json:"toolExecutionNotifications"`
	}
	tests := []struct {
		name      string
		r         report.Report
		wantOK    bool
		wantNotes []note
	}{
		{
			name:   "a reviewer failed",
			r:      full(),
			wantOK: false,
			wantNotes: []note{
				{"error", "security: unit 1: anthropic: overloaded (529) after 3 retries"},
				{"error", "security: unit 2: malformed answer: no findings array"},
				{"warning", `correctness: finding 3: unknown severity "major" read as high`},
				{"warning", "validation: finding 4: overloaded"},
				{"warning", "budget.max_usd reached: 2 requests not sent"},
			},
		},
		{name: "clean run", r: empty(), wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc struct {
				Runs []struct {
					Invocations []inv `json:"invocations"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(write(t, tt.r, opts), &doc); err != nil {
				t.Fatal(err)
			}
			got := doc.Runs[0].Invocations[0]
			if got.ExecutionSuccessful != tt.wantOK {
				t.Errorf("executionSuccessful = %v, want %v", got.ExecutionSuccessful, tt.wantOK)
			}
			var notes []note
			for _, n := range got.ToolExecutionNotifications {
				notes = append(notes, note{n.Level, n.Message.Text})
			}
			if diff := cmp.Diff(tt.wantNotes, notes); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}

func TestURI(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, want string }{
		{"a/b.go", "a/b.go"},
		{"dir with space/ünï.go", "dir%20with%20space/%C3%BCn%C3%AF.go"},
		{"a:b/c.go", "a%3Ab/c.go"},
		{"x/100%.txt", "x/100%25.txt"},
		{"q/a?b#c.go", "q/a%3Fb%23c.go"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got := uri(tt.path)
			if got != tt.want {
				t.Errorf("uri(%q) = %q, want %q", tt.path, got, tt.want)
			}
			u, err := url.Parse(got)
			if err != nil || u.Scheme != "" || u.Path != tt.path {
				t.Errorf("%q parses to %+v (%v), want a relative reference to %q", got, u, err, tt.path)
			}
		})
	}
}

func TestWriteDeterministicAndPure(t *testing.T) {
	t.Parallel()
	r := full()
	first := write(t, r, opts)
	if diff := cmp.Diff(full(), r); diff != "" {
		t.Errorf("Write changed its input (-before +after):\n%s", diff)
	}
	for range 5 {
		if got := write(t, full(), opts); !bytes.Equal(first, got) {
			t.Fatal("two writes of the same report differ")
		}
	}
}

func TestToolVersionFallsBackToReport(t *testing.T) {
	t.Parallel()
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version        string `json:"version"`
					InformationURI string `json:"informationUri"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(write(t, full(), Options{}), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Runs[0].Tool.Driver
	if d.Version != "v0.3.1" || d.InformationURI != "" {
		t.Errorf("driver = %+v, want the report's version and no informationUri", d)
	}
}

func TestMinorIsANote(t *testing.T) {
	t.Parallel()
	r := full()
	r.Findings = []finding.Finding{{ID: "m1", Lenses: []string{r.Reviewers[0].Name}, Path: "a.go", Line: 3, Severity: finding.High,
		Category: "docs", Title: "Stale comment", Body: "b", Status: finding.Minor}}
	var doc map[string]any
	if err := json.Unmarshal(write(t, r, Options{}), &doc); err != nil {
		t.Fatal(err)
	}
	res := docRun(doc)["results"].([]any)[0].(map[string]any)
	if res["level"] != "note" || res["properties"].(map[string]any)["status"] != "minor" {
		t.Errorf("minor finding: level %v, properties %v; want level note, status minor", res["level"], res["properties"])
	}
}
