package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sample is a realistic run: three lenses, one of which failed outright; an anchored
// multi-line finding raised by two reviewers, an other note, a filtered finding; skipped
// files and a ledger.
func sample() Report {
	return Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "council", Version: "v0.3.1", Council: "Council of Claudes"},
		Change: Change{
			Repo:    "projectcalico/calico",
			Base:    "origin/master",
			Head:    "HEAD",
			BaseSHA: "ff1cb542767734dbb433d129e7f6f94e2e72774d",
			HeadSHA: "dad1adeeb46fcf9084f85100ab7b17fb5bbf511c",
			Title:   "eBPF: Hybrid conntrack cleaner",
			Files: []ChangeFile{
				{Path: "felix/bpf/conntrack/scanner.go", Status: "modified", Added: 41, Deleted: 12},
				{Path: "felix/bpf-gpl/conntrack_cleanup.c", Status: "modified", Added: 30, Deleted: 9},
				{Path: "felix/bpf/conntrack/cleanupv1/map6.go", OldPath: "felix/bpf/conntrack/cleanupv1/map_v6.go", Status: "renamed", Added: 2, Deleted: 2},
				{Path: "felix/bpf-gpl/bin/conntrack_cleanup.o", Status: "modified", Binary: true},
				{Path: "go.sum", Status: "modified", Added: 4, Deleted: 4},
			},
		},
		Findings: []finding.Finding{
			{
				ID:         "c0ffee01",
				Lenses:     []string{"correctness", "security"},
				Path:       "felix/bpf/conntrack/scanner.go",
				Line:       191,
				StartLine:  189,
				Side:       finding.Right,
				Quote:      "if err != nil {\n\tlog.Debugf(\"error updating cleanup map. Entry may not be cleaned up %v\", err)\n}",
				Severity:   finding.High,
				Category:   "error-handling",
				Title:      "Failed enqueue is logged at Debug and the entry leaks",
				Body:       "If `Update` fails the entry is never cleaned.\n\n- Impact: conntrack entries leak silently.\n- Suggested fix: log at Warn and count the failure.",
				Suggestion: "if err != nil {\n\tlog.WithError(err).Warn(\"Failed to enqueue entry in cleanup map; entry may not be cleaned up.\")\n}",
				Confidence: 0.82,
				FixPrompt:  "In felix/bpf/conntrack/scanner.go, log a failed cleanup-map update at Warn and add a counter.",
				Anchored:   true,
				HintLine:   190,
				AnchorNote: "quote found 1 line below the hint",
				Status:     finding.Reported,
			},
			{
				ID:         "c0ffee02",
				Lenses:     []string{"correctness"},
				Path:       "felix/bpf-gpl/conntrack_cleanup.h",
				Line:       30,
				Side:       finding.Right,
				Severity:   finding.Medium,
				Category:   "docs",
				Title:      "Stale comment on the CCQ value",
				Body:       "The header still documents the old value as the NAT forward key.",
				Confidence: 0.7,
				AnchorNote: "file not in the diff",
				Status:     finding.OtherNote,
			},
			{
				ID:           "c0ffee03",
				Lenses:       []string{"maintainability"},
				Path:         "felix/bpf-gpl/conntrack_cleanup.c",
				Line:         35,
				Side:         finding.Left,
				Severity:     finding.Nit,
				Category:     "naming",
				Title:        "camelCase in C",
				Body:         "Prefer is_nat_forward.",
				Confidence:   0.4,
				Anchored:     true,
				Status:       finding.Filtered,
				FilterReason: "validate: below severity floor (low)",
			},
		},
		Reviewers: []Reviewer{
			{
				Name: "correctness", Title: "Correctness", Emoji: "🔎", Kind: "lens", Alert: "NOTE",
				Focus: []string{"bugs", "completeness", "concurrency", "edge cases"},
				Noun:  "correctness issue", Model: "claude-sonnet-4-5",
				Summary: "- The scanner no longer deletes inline.",
				Units:   2, Raised: 3,
				Usage:    provider.Usage{Requests: 2, InputTokens: 1200, OutputTokens: 900, CacheReadTokens: 30000, CacheWriteTokens: 15000, CostUSD: 0.0821},
				WallSecs: 21.5, Succeeded: true,
				Given: []GivenFile{{Path: "a.go", Hunks: []string{"-3,4 +3,6"}}}, Missed: []string{"b.go"}, Examined: []string{"lock.go@head:1-40"},
				ToolCalls: []ToolCall{{Tool: "read_file", Input: `{"path":"lock.go"}`, Bytes: 900}, {Tool: "grep", Input: `{"pattern":"(a+)+$"}`, Error: "pattern took too long"}},
			},
			{
				Name: "security", Title: "Security", Emoji: "🛡️", Kind: "lens", Alert: "IMPORTANT",
				Focus: []string{"validation", "secrets", "authorization", "isolation"},
				Noun:  "security issue", Model: "claude-sonnet-4-5",
				Errors: []string{"unit 1: anthropic: overloaded (529) after 3 retries"},
				Units:  2,
				Usage:  provider.Usage{Requests: 4, InputTokens: 600, CacheReadTokens: 15000},
			},
			{
				Name: "maintainability", Title: "Maintainability & Tests", Emoji: "🧪", Kind: "lens", Alert: "TIP",
				Focus: []string{"simplicity", "tests", "docs", "idioms"},
				Noun:  "maintainability issue", Model: "claude-sonnet-4-5",
				Units: 2, Raised: 1,
				Usage:    provider.Usage{Requests: 2, InputTokens: 1100, OutputTokens: 400, CacheReadTokens: 30000, CostUSD: 0.0402},
				WallSecs: 14.25, Succeeded: true,
			},
		},
		Coverage: Coverage{
			Reviewed: []string{"felix/bpf/conntrack/scanner.go", "felix/bpf-gpl/conntrack_cleanup.c", "felix/bpf/conntrack/cleanupv1/map6.go"},
			Skipped: []Skipped{
				{Path: "felix/bpf-gpl/bin/conntrack_cleanup.o", Reason: "binary"},
				{Path: "go.sum", Reason: "lock file"},
			},
			Units: []Unit{
				{Files: []string{"felix/bpf/conntrack/scanner.go", "felix/bpf/conntrack/cleanupv1/map6.go"}, EstimatedTokens: 14000},
				{Files: []string{"felix/bpf-gpl/conntrack_cleanup.c"}, EstimatedTokens: 9000},
			},
		},
		Usage: Usage{
			Usage:       provider.Usage{Requests: 8, InputTokens: 2900, OutputTokens: 1300, CacheReadTokens: 75000, CacheWriteTokens: 15000, CostUSD: 0.1223},
			WallSeconds: 36.4,
			Stages:      map[string]float64{"plan": 0.02, "context": 0.4, "review": 33.1, "anchor": 0.01, "consolidate": 0.001, "publish": 0.003},
		},
		Degraded:     []string{"validation is off: findings were not checked"},
		Instructions: []Instruction{{Source: "AGENTS.md", AppliesTo: []string{"a.go"}}},
		Context: Context{
			Snippets: []ContextSnippet{{Path: "a.go", Side: "base", StartLine: 3, EndLine: 9, Kind: "definition", Symbol: "func releaseLock"}},
			Omitted:  []string{"type Big (a.go): over the 8000-token budget"},
		},
		Validation: Validation{Enabled: true, Checked: 3, Rejected: 1, Errors: []string{"finding 2: overloaded"},
			Usage: provider.Usage{Requests: 3, InputTokens: 10, OutputTokens: 5}},
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatalf("add schema: %v", err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func writeJSON(t *testing.T, r Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	return buf.Bytes()
}

func validate(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestWriteJSONGolden(t *testing.T) {
	t.Parallel()
	got := writeJSON(t, sample())
	golden := filepath.Join("testdata", "report.golden.json")
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
		t.Errorf("WriteJSON mismatch (-want +got), run with -update if intended:\n%s", diff)
	}
}

func TestWriteJSONValidates(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)

	unset := sample()
	unset.SchemaVersion = ""
	unset.Findings[0].Side = ""
	unset.Findings[0].Lenses = nil
	unset.Reviewers[1].Focus = nil
	unset.Coverage.Units[0].Files = nil
	unset.Usage.Stages = nil

	tests := []struct {
		name string
		r    Report
	}{
		{"sample", sample()},
		{"zero", Report{}},
		{"nil lists", unset},
		{"dry run", Report{DryRun: true, Reviewers: []Reviewer{{Name: "correctness", Title: "Correctness", Kind: "lens", Alert: "NOTE"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := writeJSON(t, tt.r)
			if err := validate(sch, doc); err != nil {
				t.Errorf("document does not match schema.json:\n%v\n%s", err, doc)
			}
			if bytes.Contains(doc, []byte("null")) {
				t.Errorf("document has a null; lists must be written as []:\n%s", doc)
			}
			if !bytes.Contains(doc, []byte(`"schema_version": "`+SchemaVersion+`"`)) {
				t.Errorf("document lacks schema_version %q:\n%s", SchemaVersion, doc)
			}
		})
	}
}

func TestWriteJSONLeavesInputAlone(t *testing.T) {
	t.Parallel()
	r := sample()
	r.Findings[0].Side = ""
	r.Findings[1].Lenses = nil
	want := sample()
	want.Findings[0].Side = ""
	want.Findings[1].Lenses = nil

	writeJSON(t, r)
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("WriteJSON changed its input (-want +got):\n%s", diff)
	}
}

// TestSchemaRejects proves the schema is strict: each mutation of a valid document must fail.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)

	tests := []struct {
		name   string
		mutate func(doc map[string]any)
	}{
		{"unknown top-level field", func(d map[string]any) { d["verdict"] = "ship it" }},
		{"unknown finding field", func(d map[string]any) { at(d, "findings", 0)["posted_url"] = "https://example.com" }},
		{"unknown reviewer usage field", func(d map[string]any) { at(d, "reviewers", 0)["usage"].(map[string]any)["reasoning_tokens"] = 3 }},
		{"unknown coverage field", func(d map[string]any) { d["coverage"].(map[string]any)["hidden"] = []any{} }},
		{"bad severity", func(d map[string]any) { at(d, "findings", 0)["severity"] = "blocker" }},
		{"severity in capitals", func(d map[string]any) { at(d, "findings", 0)["severity"] = "HIGH" }},
		{"bad status", func(d map[string]any) { at(d, "findings", 0)["status"] = "posted" }},
		{"bad side", func(d map[string]any) { at(d, "findings", 0)["side"] = "right" }},
		{"bad category", func(d map[string]any) { at(d, "findings", 0)["category"] = "correctness" }},
		{"bad alert", func(d map[string]any) { at(d, "reviewers", 0)["alert"] = "note" }},
		{"bad kind", func(d map[string]any) { at(d, "reviewers", 0)["kind"] = "bot" }},
		{"bad file status", func(d map[string]any) { at(d["change"].(map[string]any), "files", 0)["status"] = "touched" }},
		{"filtered without reason", func(d map[string]any) { delete(at(d, "findings", 2), "filter_reason") }},
		{"confidence above 1", func(d map[string]any) { at(d, "findings", 0)["confidence"] = 1.5 }},
		{"missing required field", func(d map[string]any) { delete(at(d, "findings", 0), "id") }},
		{"null list", func(d map[string]any) { d["findings"] = nil }},
		{"other schema version", func(d map[string]any) { d["schema_version"] = "0" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(writeJSON(t, sample()), &doc); err != nil {
				t.Fatal(err)
			}
			tt.mutate(doc)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(sch, b); err == nil {
				t.Errorf("schema accepted a document with %s", tt.name)
			}
		})
	}
}

func at(d map[string]any, key string, i int) map[string]any {
	return d[key].([]any)[i].(map[string]any)
}

// TestSchemaMatchesTypes walks the Go types and the schema side by side: every JSON field
// must be a documented property, every property a field, and exactly the fields written
// without omitempty are required. This is what makes an undocumented new field fail, even
// one the sample leaves empty.
func TestSchemaMatchesTypes(t *testing.T) {
	t.Parallel()
	var schema schemaObject
	if err := json.Unmarshal(Schema, &schema); err != nil {
		t.Fatalf("parse schema: %v", err)
	}

	tests := []struct {
		def string // "" for the root
		typ reflect.Type
	}{
		{"", reflect.TypeFor[Report]()},
		{"tool", reflect.TypeFor[Tool]()},
		{"change", reflect.TypeFor[Change]()},
		{"changeFile", reflect.TypeFor[ChangeFile]()},
		{"finding", reflect.TypeFor[finding.Finding]()},
		{"reviewer", reflect.TypeFor[Reviewer]()},
		{"providerUsage", reflect.TypeFor[provider.Usage]()},
		{"coverage", reflect.TypeFor[Coverage]()},
		{"skipped", reflect.TypeFor[Skipped]()},
		{"unit", reflect.TypeFor[Unit]()},
		{"usage", reflect.TypeFor[Usage]()},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			t.Parallel()
			obj := schema
			if tt.def != "" {
				var ok bool
				if obj, ok = schema.Defs[tt.def]; !ok {
					t.Fatalf("schema has no $defs/%s", tt.def)
				}
			}
			if string(obj.AdditionalProperties) != "false" {
				t.Errorf("$defs/%s must set additionalProperties: false", tt.def)
			}
			if obj.Description == "" {
				t.Errorf("$defs/%s has no description", tt.def)
			}
			fields, required := jsonFields(tt.typ)
			var props []string
			for name, p := range obj.Properties {
				props = append(props, name)
				if p.Description == "" {
					t.Errorf("property %s of %s has no description", name, tt.typ)
				}
			}
			slices.Sort(props)
			if diff := cmp.Diff(fields, props); diff != "" {
				t.Errorf("properties of %s differ from its JSON fields (-fields +schema):\n%s", tt.typ, diff)
			}
			got := slices.Sorted(slices.Values(obj.Required))
			if diff := cmp.Diff(required, got); diff != "" {
				t.Errorf("required of %s differs from its fields without omitempty (-fields +schema):\n%s", tt.typ, diff)
			}
		})
	}
}

func TestSchemaEnumsMatchFinding(t *testing.T) {
	t.Parallel()
	var schema schemaObject
	if err := json.Unmarshal(Schema, &schema); err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	props := schema.Defs["finding"].Properties

	var severities []string
	for _, s := range finding.Severities {
		severities = append(severities, string(s))
	}
	if diff := cmp.Diff(severities, props["severity"].Enum); diff != "" {
		t.Errorf("severity enum differs from finding.Severities (-go +schema):\n%s", diff)
	}
	if diff := cmp.Diff(finding.Categories, props["category"].Enum); diff != "" {
		t.Errorf("category enum differs from finding.Categories (-go +schema):\n%s", diff)
	}
	statuses := []string{string(finding.Reported), string(finding.OtherNote), string(finding.Minor), string(finding.Filtered)}
	if diff := cmp.Diff(statuses, props["status"].Enum); diff != "" {
		t.Errorf("status enum differs from finding's statuses (-go +schema):\n%s", diff)
	}
	sides := []string{string(finding.Right), string(finding.Left)}
	if diff := cmp.Diff(sides, props["side"].Enum); diff != "" {
		t.Errorf("side enum differs from finding's sides (-go +schema):\n%s", diff)
	}
}

type schemaObject struct {
	Description          string                  `json:"description"`
	AdditionalProperties json.RawMessage         `json:"additionalProperties"`
	Required             []string                `json:"required"`
	Properties           map[string]schemaObject `json:"properties"`
	Enum                 []string                `json:"enum"`
	Defs                 map[string]schemaObject `json:"$defs"`
}

// jsonFields returns the sorted JSON names of t's fields (embedded structs flattened, as
// encoding/json does) and the sorted names of those without omitempty.
func jsonFields(t reflect.Type) (fields, required []string) {
	for f := range t.Fields() {
		if f.Anonymous && f.Tag.Get("json") == "" {
			fs, rs := jsonFields(f.Type)
			fields = append(fields, fs...)
			required = append(required, rs...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields = append(fields, name)
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			required = append(required, name)
		}
	}
	slices.Sort(fields)
	slices.Sort(required)
	return fields, required
}

func TestCounts(t *testing.T) {
	t.Parallel()
	got := sample().Counts()
	want := map[string]Tally{
		"correctness":     {Reported: 1, OtherNote: 1},
		"security":        {Credited: 1},
		"maintainability": {Filtered: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Tally{Reported: 1, OtherNote: 1, Filtered: 1, Credited: 1}, sample().Totals()); diff != "" {
		t.Errorf("Totals (-want +got):\n%s", diff)
	}
}

func TestCountsUnknownOwner(t *testing.T) {
	t.Parallel()
	r := sample()
	r.Findings = append(r.Findings,
		finding.Finding{ID: "x", Lenses: []string{"ghost"}, Status: finding.OtherNote},
		finding.Finding{ID: "y", Status: finding.Reported},
	)
	counts := r.Counts()
	if diff := cmp.Diff(Tally{OtherNote: 1}, counts["ghost"]); diff != "" {
		t.Errorf("Counts[ghost] (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Tally{Reported: 1}, counts[""]); diff != "" {
		t.Errorf("Counts[\"\"] (-want +got):\n%s", diff)
	}
	var ids []string
	for _, f := range r.Unowned() {
		ids = append(ids, f.ID)
	}
	if diff := cmp.Diff([]string{"x", "y"}, ids); diff != "" {
		t.Errorf("Unowned (-want +got):\n%s", diff)
	}
}

func TestOwned(t *testing.T) {
	t.Parallel()
	r := sample()
	tests := []struct {
		reviewer string
		status   finding.Status
		want     []string
	}{
		{"correctness", finding.Reported, []string{"c0ffee01"}},
		{"correctness", finding.OtherNote, []string{"c0ffee02"}},
		{"security", finding.Reported, nil}, // credited only: the owner shows it
		{"maintainability", finding.Filtered, []string{"c0ffee03"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range r.Owned(tt.reviewer, tt.status) {
			got = append(got, f.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Owned(%s, %s) (-want +got):\n%s", tt.reviewer, tt.status, diff)
		}
	}
}

func TestMaxSeverity(t *testing.T) {
	t.Parallel()
	f := func(s finding.Severity, st finding.Status) finding.Finding {
		return finding.Finding{Severity: s, Status: st}
	}
	tests := []struct {
		name     string
		findings []finding.Finding
		want     finding.Severity
	}{
		{"none", nil, ""},
		{"reported", []finding.Finding{f(finding.Low, finding.Reported), f(finding.High, finding.Reported)}, finding.High},
		{"other note counts", []finding.Finding{f(finding.Low, finding.Reported), f(finding.Critical, finding.OtherNote)}, finding.Critical},
		{"filtered does not", []finding.Finding{f(finding.Nit, finding.Reported), f(finding.Critical, finding.Filtered)}, finding.Nit},
		{"only filtered", []finding.Finding{f(finding.High, finding.Filtered)}, ""},
		{"unknown severity ignored", []finding.Finding{f("blocker", finding.Reported)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (Report{Findings: tt.findings}).MaxSeverity(); got != tt.want {
				t.Errorf("MaxSeverity() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFailed(t *testing.T) {
	t.Parallel()
	var names []string
	for _, rv := range sample().Failed() {
		names = append(names, rv.Name)
	}
	if diff := cmp.Diff([]string{"security"}, names); diff != "" {
		t.Errorf("Failed (-want +got):\n%s", diff)
	}
	if got := (Report{}).Failed(); got != nil {
		t.Errorf("Failed of an empty report = %v, want nil", got)
	}
}
