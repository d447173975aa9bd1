package rdjson

import (
	"bytes"
	"encoding/json"
	"flag"
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

const schemaFile = "testdata/rdjson.schema.json"

// full is a review in miniature: an anchored multi-line finding with a suggestion raised by
// two reviewers, an other note without a line, a filtered finding, a reported finding on
// deleted lines, and a reviewer that failed (which rdjson has no place for).
func full() report.Report {
	return report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "council", Version: "v0.3.1"},
		Reviewers: []report.Reviewer{
			{Name: "correctness", Title: "Correctness", Kind: "lens", Succeeded: true},
			{Name: "security", Title: "Security", Kind: "lens", Errors: []string{"unit 1: overloaded (529) after 3 retries"}},
			{Name: "maintainability", Title: "Maintainability & Tests", Kind: "lens", Succeeded: true},
			{Name: "casey", Title: "Casey", Kind: "persona", Succeeded: true},
		},
		Findings: []finding.Finding{
			{
				ID: "c0ffee01", Lenses: []string{"correctness", "casey"},
				Path: "felix/bpf/conntrack/scanner.go", StartLine: 189, Line: 191, Side: finding.Right,
				Quote:    "if err != nil {\n\tlog.WithError(err).Debug(\"Failed to enqueue\")\n}",
				Severity: finding.High, Category: "error-handling",
				Title:      "Failed enqueue is logged at Debug and the entry leaks",
				Body:       "If `Update` fails, the entry is never cleaned up.\n\n- Impact: expired entries leak <silently>.",
				Suggestion: "if err != nil {\n\tlog.WithError(err).Warn(\"Failed to enqueue entry in cleanup map\")\n}\n",
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
				Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 35, Side: finding.Right,
				Severity: finding.Nit, Category: "naming",
				Title: "camelCase in C", Body: "Prefer is_nat_forward.", Suggestion: "bool is_nat_forward;\n",
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
		},
	}
}

func empty() report.Report {
	r := full()
	r.Findings = nil
	return r
}

func write(t *testing.T, r report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
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
			got := write(t, tt.r)
			golden := filepath.Join("testdata", tt.name+".golden.rdjson")
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
	}{
		{"full", full()},
		{"empty", empty()},
		{"zero report", report.Report{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(sch, write(t, tt.r)); err != nil {
				t.Errorf("output does not validate: %v", err)
			}
		})
	}
}

// mutation breaks one rule of reviewdog's format the output relies on in a valid document.
type mutation struct {
	name   string
	mutate func(d map[string]any)
	// officialRejects is true when reviewdog's published schema rejects the mutation too. That
	// schema requires no field and closes no object, so it checks enums and types only; the
	// rest are rules of the proto's semantics that council's subset holds.
	officialRejects bool
}

func mutations() []mutation {
	diag := func(d map[string]any, i int) map[string]any { return d["diagnostics"].([]any)[i].(map[string]any) }
	loc := func(d map[string]any, i int) map[string]any { return diag(d, i)["location"].(map[string]any) }
	rng := func(d map[string]any, i int) map[string]any { return loc(d, i)["range"].(map[string]any) }
	return []mutation{
		{"bad severity", func(d map[string]any) { diag(d, 0)["severity"] = "HIGH" }, true},
		{"severity in lower case", func(d map[string]any) { diag(d, 0)["severity"] = "error" }, true},
		{"severity number out of range", func(d map[string]any) { diag(d, 0)["severity"] = 4 }, true},
		{"bad result severity", func(d map[string]any) { d["severity"] = "CRITICAL" }, true},
		{"diagnostics not an array", func(d map[string]any) { d["diagnostics"] = diag(d, 0) }, true},
		{"message not a string", func(d map[string]any) { diag(d, 0)["message"] = []any{"a", "b"} }, true},
		{"path not a string", func(d map[string]any) { loc(d, 0)["path"] = 7 }, true},
		{"line as a string", func(d map[string]any) { rng(d, 0)["start"].(map[string]any)["line"] = "189" }, true},
		{"original_output not a string", func(d map[string]any) { diag(d, 0)["original_output"] = map[string]any{} }, true},
		{"location without path", func(d map[string]any) { delete(loc(d, 0), "path") }, false},
		{"diagnostic without location", func(d map[string]any) { delete(diag(d, 0), "location") }, false},
		{"diagnostic without message", func(d map[string]any) { delete(diag(d, 0), "message") }, false},
		{"line 0", func(d map[string]any) { rng(d, 0)["start"].(map[string]any)["line"] = 0 }, false},
		{"column 0", func(d map[string]any) { rng(d, 0)["end"].(map[string]any)["column"] = 0 }, false},
		{"range without start", func(d map[string]any) { delete(rng(d, 0), "start") }, false},
		{"suggestion without text", func(d map[string]any) {
			delete(diag(d, 0)["suggestions"].([]any)[0].(map[string]any), "text")
		}, false},
		{"source without name", func(d map[string]any) { delete(diag(d, 0)["source"].(map[string]any), "name") }, false},
		{"code without value", func(d map[string]any) { delete(diag(d, 0)["code"].(map[string]any), "value") }, false},
		{"misspelt field", func(d map[string]any) { diag(d, 0)["originalOutput"] = "{}" }, false},
	}
}

// TestSchemaRejects shows the schema is not a rubber stamp: each mutation of a valid document
// breaks one rule of reviewdog's format the output relies on.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	tests := append([]mutation{{name: "nothing (control)"}}, mutations()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(write(t, full()), &doc); err != nil {
				t.Fatal(err)
			}
			if tt.mutate != nil {
				tt.mutate(doc)
			}
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			err = validate(sch, b)
			if tt.mutate == nil && err != nil {
				t.Fatalf("unmutated document does not validate: %v", err)
			}
			if tt.mutate != nil && err == nil {
				t.Errorf("schema accepted a document with %s", tt.name)
			}
		})
	}
}

type resultDoc struct {
	Severity    string          `json:"severity"`
	Diagnostics []diagnosticDoc `json:"diagnostics"`
}

type diagnosticDoc struct {
	Message  string `json:"message"`
	Severity string `json:"severity"`
	Location struct {
		Path  string    `json:"path"`
		Range *rangeDoc `json:"range"`
	} `json:"location"`
	Source struct {
		Name string `json:"name"`
	} `json:"source"`
	Code struct {
		Value string `json:"value"`
	} `json:"code"`
	Suggestions []struct {
		Range rangeDoc `json:"range"`
		Text  string   `json:"text"`
	} `json:"suggestions"`
	OriginalOutput string `json:"original_output"`
}

type positionDoc struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type rangeDoc struct {
	Start positionDoc `json:"start"`
	End   positionDoc `json:"end"`
}

func decode(t *testing.T, b []byte) resultDoc {
	t.Helper()
	var doc resultDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestShownFindingsOnly: reported findings and other notes, in report order; filtered ones
// are left out.
func TestShownFindingsOnly(t *testing.T) {
	t.Parallel()
	doc := decode(t, write(t, full()))
	var titles []string
	for _, d := range doc.Diagnostics {
		title, _, _ := strings.Cut(d.Message, "\n")
		titles = append(titles, title)
	}
	want := []string{
		"Failed enqueue is logged at Debug and the entry leaks",
		"CCQ entry survives a failed delete",
		"Document the cleanup queue",
		"The lock that guarded the map is gone",
	}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if doc.Severity != "ERROR" {
		t.Errorf("result severity = %q, want the worst, ERROR", doc.Severity)
	}
}

// TestOriginalOutput checks the one line reviewdog's local reporter prints for a diagnostic
// (TestReviewdogLocal runs reviewdog itself on the full report).
func TestOriginalOutput(t *testing.T) {
	t.Parallel()
	base := finding.Finding{
		ID: "x", Lenses: []string{"correctness", "casey"}, Path: "dir with space/a.go", StartLine: 10, Line: 12,
		Side: finding.Right, Severity: finding.Medium, Title: "Title", Anchored: true, Status: finding.Reported,
	}
	tests := []struct {
		name   string
		mutate func(f *finding.Finding)
		want   string
	}{
		{"range: its start line", func(*finding.Finding) {}, "dir with space/a.go:10: medium: Title (correctness)"},
		{"one line", func(f *finding.Finding) { f.StartLine = 0 }, "dir with space/a.go:12: medium: Title (correctness)"},
		{"start after end is ignored", func(f *finding.Finding) { f.StartLine = 20 }, "dir with space/a.go:12: medium: Title (correctness)"},
		{"no side is the new side", func(f *finding.Finding) { f.Side = "" }, "dir with space/a.go:10: medium: Title (correctness)"},
		{"no line", func(f *finding.Finding) { f.Line, f.StartLine = 0, 0 }, "dir with space/a.go: medium: Title (correctness)"},
		{"old lines", func(f *finding.Finding) { f.Side = finding.Left }, "dir with space/a.go: medium: Title (correctness, old lines 10-12)"},
		{"old line", func(f *finding.Finding) { f.Side, f.StartLine = finding.Left, 12 }, "dir with space/a.go: medium: Title (correctness, old line 12)"},
		{"old side without a line", func(f *finding.Finding) { f.Side, f.Line, f.StartLine = finding.Left, 0, 0 }, "dir with space/a.go: medium: Title (correctness)"},
		{"no owner", func(f *finding.Finding) { f.Lenses = nil }, "dir with space/a.go:10: medium: Title"},
		{"no owner, old lines", func(f *finding.Finding) { f.Lenses, f.Side = nil, finding.Left }, "dir with space/a.go: medium: Title (old lines 10-12)"},
		{"title over lines", func(f *finding.Finding) { f.Title = "  Two\n\tlines  " }, "dir with space/a.go:10: medium: Two lines (correctness)"},
		{"council's severity", func(f *finding.Finding) { f.Severity = finding.Nit }, "dir with space/a.go:10: nit: Title (correctness)"},
		{"unknown severity: reviewdog's level", func(f *finding.Finding) { f.Severity = "major" }, "dir with space/a.go:10: warning: Title (correctness)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := base
			tt.mutate(&f)
			d := decode(t, write(t, report.Report{Findings: []finding.Finding{f}})).Diagnostics[0]
			if d.OriginalOutput != tt.want {
				t.Errorf("original_output = %q, want %q", d.OriginalOutput, tt.want)
			}
		})
	}
}

func TestDiagnostic(t *testing.T) {
	t.Parallel()
	doc := decode(t, write(t, full()))
	type got struct {
		Path, Severity, Source, Code string
		Range                        *rangeDoc
		Suggestions                  int
	}
	want := []got{
		{"felix/bpf/conntrack/scanner.go", "ERROR", "correctness", "error-handling", &rangeDoc{positionDoc{Line: 189}, positionDoc{Line: 191}}, 1},
		{"felix/bpf-gpl/conntrack cleanup.c", "WARNING", "correctness", "bug", &rangeDoc{positionDoc{Line: 77}, positionDoc{Line: 77}}, 0},
		{"docs/réseau.md", "INFO", "maintainability", "docs", nil, 0},
		// Deleted lines have no place in the new file reviewdog comments on.
		{"felix/bpf/conntrack/cleanup.go", "ERROR", "casey", "concurrency", nil, 0},
	}
	var gots []got
	for _, d := range doc.Diagnostics {
		gots = append(gots, got{d.Location.Path, d.Severity, d.Source.Name, d.Code.Value, d.Location.Range, len(d.Suggestions)})
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if msg := doc.Diagnostics[0].Message; !strings.HasPrefix(msg, "Failed enqueue is logged at Debug and the entry leaks\n\nIf `Update` fails") ||
		!strings.HasSuffix(msg, "\n\nAlso raised by: casey") {
		t.Errorf("message = %q, want title, body, then the other reviewers", msg)
	}
}

// TestSuggestionFollowsReviewdog checks the suggestion against how reviewdog uses it. Its
// GitHub reporter posts a suggestion only when the suggestion's lines are the comment's lines
// and builds it line-based only when neither end has a column; a line-wise range includes the
// end line and reviewdog adds the final line break itself.
func TestSuggestionFollowsReviewdog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, suggestion, want string
	}{
		{"final newline", "a()\nb()\n", "a()\nb()"},
		{"no final newline", "a()\nb()", "a()\nb()"},
		{"blank line kept inside", "a()\n\nb()\n", "a()\n\nb()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := report.Report{Findings: []finding.Finding{{
				ID: "x", Lenses: []string{"correctness"}, Path: "a.go", StartLine: 10, Line: 12,
				Side: finding.Right, Severity: finding.Low, Suggestion: tt.suggestion,
				Anchored: true, Status: finding.Reported,
			}}}
			d := decode(t, write(t, r)).Diagnostics[0]
			if len(d.Suggestions) != 1 {
				t.Fatalf("suggestions = %d, want 1", len(d.Suggestions))
			}
			s := d.Suggestions[0]
			if d.Location.Range == nil || s.Range != *d.Location.Range {
				t.Errorf("suggestion range %+v, want the diagnostic's %+v", s.Range, d.Location.Range)
			}
			if s.Range.Start.Column != 0 || s.Range.End.Column != 0 {
				t.Errorf("suggestion range %+v has columns, want line-wise", s.Range)
			}
			if s.Range.Start.Line != 10 || s.Range.End.Line != 12 {
				t.Errorf("suggestion lines %d-%d, want 10-12", s.Range.Start.Line, s.Range.End.Line)
			}
			if s.Text != tt.want {
				t.Errorf("text = %q, want %q", s.Text, tt.want)
			}
			// What reviewdog renders line-based: the text and one line break in place of
			// lines 10-12.
			if got := applyLineWise("l9\nl10\nl11\nl12\nl13\n", s.Range, s.Text); got != "l9\n"+tt.want+"\nl13\n" {
				t.Errorf("applied: %q", got)
			}
		})
	}
}

// applyLineWise replaces whole lines start..end (inclusive) with text and a line break.
func applyLineWise(src string, r rangeDoc, text string) string {
	lines := strings.SplitAfter(src, "\n")
	first := 9 // src starts at line 9
	var b strings.Builder
	for i, l := range lines {
		n := first + i
		switch {
		case n == r.Start.Line:
			b.WriteString(text + "\n")
		case n > r.Start.Line && n <= r.End.Line:
		default:
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestNoSuggestion(t *testing.T) {
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
			d := decode(t, write(t, report.Report{Findings: []finding.Finding{f}})).Diagnostics[0]
			if len(d.Suggestions) != 0 {
				t.Errorf("suggestions = %d, want none", len(d.Suggestions))
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sev  finding.Severity
		want string
	}{
		{finding.Critical, "ERROR"},
		{finding.High, "ERROR"},
		{finding.Medium, "WARNING"},
		{finding.Low, "INFO"},
		{finding.Nit, "INFO"},
		{"", "WARNING"},
	}
	for _, tt := range tests {
		t.Run(string(tt.sev), func(t *testing.T) {
			t.Parallel()
			if got := severity(tt.sev); got != tt.want {
				t.Errorf("severity(%q) = %q, want %q", tt.sev, got, tt.want)
			}
		})
	}
}

func TestWriteDeterministicAndPure(t *testing.T) {
	t.Parallel()
	r := full()
	first := write(t, r)
	if diff := cmp.Diff(full(), r); diff != "" {
		t.Errorf("Write changed its input (-before +after):\n%s", diff)
	}
	for range 5 {
		if got := write(t, full()); !bytes.Equal(first, got) {
			t.Fatal("two writes of the same report differ")
		}
	}
}
