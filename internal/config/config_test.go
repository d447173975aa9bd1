package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/finding"
)

const fullConfig = `# every key, none at its default
council_name: "Council of Claudes"
provider: openai
model: gpt-4.1-mini
base_url: "https://llm.internal.example.com/v1"
openai_api: responses
lenses: [correctness, security]
personas:
  - .council/personas/casey.yaml
  - .council/personas/nell.md
reviewers:
  security: { model: o3 }
  casey:
    model: gpt-4.1
concurrency: 8
budget:
  tokens_per_request: 40000
  max_output_tokens: 4096
  max_usd: 2.5
  max_tokens: 1000000
prices:
  my-model: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }
  "gpt-4.1-mini":
    input: 0.4
    output: 1.6
paths:
  include: ["**"]
  exclude: ["docs/generated/**", "**/*.pb.go"]
comments:
  max_per_reviewer: 10
  severity_floor: low
  min_confidence: 0.4
  max_ask_nits: 2
output:
  format: [markdown, json]
  fail_on: high
context_lines: 20
instructions:
  - paths: ["felix/bpf-gpl/**"]
    text: "BPF maps written by the dataplane must set UpdatedByBPF."
rules:
  - name: bpf-design-doc
    when_changed: ["felix/bpf-gpl/**"]
    require_changed: ["felix/design/bpf-*.md"]
    message: "A change to the BPF programs must update the design doc."
    severity: high
  - name: no-debug-print
    forbid: 'fmt\.Print(ln|f)?\('
    paths: ["**/*.go"]
    message: "Use the logger, not fmt.Print."
    severity: low
tools:
  enabled: false
  max_calls: 5
  max_bytes: 1000
  max_total_bytes: 4000
  max_turns: 3
  max_tokens: 50000
  download_modules: false
validate:
  enabled: false
bench:
  similarity_threshold: 0.35
  line_window: 5
  ai_reviewers: [review-helper]
`

func TestParseFull(t *testing.T) {
	t.Parallel()
	got, err := Parse(".council.yaml", []byte(fullConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		CouncilName: "Council of Claudes",
		Provider:    "openai",
		Model:       "gpt-4.1-mini",
		BaseURL:     "https://llm.internal.example.com/v1",
		OpenAIAPI:   "responses",
		Lenses:      []string{"correctness", "security"},
		Personas:    []string{".council/personas/casey.yaml", ".council/personas/nell.md"},
		Reviewers: map[string]ReviewerOverride{
			"security": {Model: "o3"},
			"casey":    {Model: "gpt-4.1"},
		},
		Concurrency: 8,
		Budget:      Budget{TokensPerRequest: 40000, MaxOutputTokens: 4096, MaxUSD: 2.5, MaxTokens: 1000000},
		Prices: map[string]Price{
			"my-model":     {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
			"gpt-4.1-mini": {Input: 0.4, Output: 1.6},
		},
		Paths:        Paths{Include: []string{"**"}, Exclude: []string{"docs/generated/**", "**/*.pb.go"}},
		Comments:     Comments{MaxPerReviewer: 10, SeverityFloor: finding.Low, MinConfidence: 0.4, MaxAskNits: 2},
		Output:       Output{Format: []string{"markdown", "json"}, FailOn: finding.High},
		ContextLines: 20,
		Instructions: []Instruction{
			{Paths: []string{"felix/bpf-gpl/**"}, Text: "BPF maps written by the dataplane must set UpdatedByBPF."},
		},
		Rules: []Rule{
			{
				Name:           "bpf-design-doc",
				WhenChanged:    []string{"felix/bpf-gpl/**"},
				RequireChanged: []string{"felix/design/bpf-*.md"},
				Message:        "A change to the BPF programs must update the design doc.",
				Severity:       finding.High,
			},
			{
				Name:     "no-debug-print",
				Forbid:   `fmt\.Print(ln|f)?\(`,
				Paths:    []string{"**/*.go"},
				Message:  "Use the logger, not fmt.Print.",
				Severity: finding.Low,
			},
		},
		Tools:    Tools{Enabled: false, MaxCalls: 5, MaxBytes: 1000, MaxTotalBytes: 4000, MaxTurns: 3, MaxTokens: 50000},
		Validate: Validate{Enabled: false},
		Bench:    Bench{SimilarityThreshold: 0.35, LineWindow: 5, AIReviewers: []string{"review-helper"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
	}
}

func TestDefaultToolsAndValidate(t *testing.T) {
	t.Parallel()
	d := Default()
	want := Tools{Enabled: true, MaxCalls: 20, MaxBytes: 20000, MaxTotalBytes: 200000, MaxTurns: 8, MaxTokens: 400000, DownloadModules: true}
	if diff := cmp.Diff(want, d.Tools); diff != "" {
		t.Errorf("Default().Tools mismatch (-want +got):\n%s", diff)
	}
	if !d.Validate.Enabled {
		t.Error("Default().Validate.Enabled = false, want true")
	}
}

func TestParseRuleDefaults(t *testing.T) {
	t.Parallel()
	in := "rules:\n" +
		"  - name: bpf-design-doc\n" +
		"    when_changed: [\"felix/bpf-gpl/**\"]\n" +
		"    require_changed: [\"felix/design/bpf-*.md\"]\n" +
		"    message: Update the design doc.\n" +
		"  - name: no-todo\n" +
		"    forbid: TODO\n" +
		"    message: No TODOs.\n"
	got, err := Parse(".council.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{
			Name:           "bpf-design-doc",
			WhenChanged:    []string{"felix/bpf-gpl/**"},
			RequireChanged: []string{"felix/design/bpf-*.md"},
			Message:        "Update the design doc.",
			Severity:       finding.Medium,
		},
		{Name: "no-todo", Forbid: "TODO", Message: "No TODOs.", Severity: finding.Medium},
	}
	if diff := cmp.Diff(want, got.Rules); diff != "" {
		t.Errorf("Rules mismatch (-want +got):\n%s", diff)
	}
	for i, k := range []string{RuleCoChange, RuleForbid} {
		if got.Rules[i].Kind() != k {
			t.Errorf("Rules[%d].Kind() = %q, want %q", i, got.Rules[i].Kind(), k)
		}
	}
}

func TestRuleKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rule Rule
		want string
	}{
		{"co-change", Rule{WhenChanged: []string{"a"}, RequireChanged: []string{"b"}}, RuleCoChange},
		{"half a co-change rule is still one", Rule{WhenChanged: []string{"a"}}, RuleCoChange},
		{"forbid", Rule{Forbid: "x"}, RuleForbid},
		{"forbid with paths", Rule{Forbid: "x", Paths: []string{"**/*.go"}}, RuleForbid},
		{"both", Rule{Forbid: "x", WhenChanged: []string{"a"}}, ""},
		{"neither", Rule{Name: "r", Message: "m"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.rule.Kind(); got != tt.want {
				t.Errorf("Kind() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	openai := Default()
	openai.Provider = "openai" // the model is chosen by the engine, after flags
	partial := Default()
	partial.Budget.MaxUSD = 1
	partial.Paths.Exclude = []string{"vendor/**"}
	noLenses := Default()
	noLenses.Lenses = []string{}

	tests := []struct {
		name string
		in   string
		want Config
	}{
		{name: "empty file", in: "", want: Default()},
		{name: "only comments", in: "# nothing configured yet\n", want: Default()},
		{name: "document marker only", in: "---\n", want: Default()},
		{name: "provider alone leaves the model to the engine", in: "provider: openai\n", want: openai},
		{name: "null keeps the default", in: "lenses:\nbudget:\n", want: Default()},
		{name: "empty list is explicit", in: "lenses: []\n", want: noLenses},
		{
			name: "nested keys keep their siblings' defaults",
			in:   "budget:\n  max_usd: 1\npaths:\n  exclude: [vendor/**]\n",
			want: partial,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(".council.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDefaultIsValid(t *testing.T) {
	t.Parallel()
	doc, err := ParseYAML("default", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Default().validate(doc); err != nil {
		t.Errorf("Default() does not validate: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		// want is the whole message of the first error; key its Key.
		want string
		key  string
	}{
		{
			name: "unknown top-level key",
			in:   "council_name: x\nlense: [security]\n",
			want: ".council.yaml:2:1: lense: unknown key (allowed: council_name, provider, model, base_url, openai_api, lenses, personas, reviewers, concurrency, budget, prices, paths, comments, output, context_lines, instructions, rules, tools, validate, bench)",
			key:  "lense",
		},
		{
			name: "unknown nested key",
			in:   "budget:\n  max_dollars: 3\n",
			want: ".council.yaml:2:3: budget.max_dollars: unknown key (allowed: tokens_per_request, max_output_tokens, max_usd, max_tokens)",
			key:  "budget.max_dollars",
		},
		{
			name: "unknown key in a map value",
			in:   "reviewers:\n  security: { modle: o3 }\n", //nolint:misspell // the typo is the test
			want: ".council.yaml:2:15: reviewers.security.modle: unknown key (allowed: model)",
			key:  "reviewers.security.modle",
		},
		{
			name: "negative budget",
			in:   "council_name: x\nprovider: anthropic\nmodel: m\nbase_url: \"\"\nconcurrency: 2\nbudget:\n  max_usd: -1\n",
			want: ".council.yaml:7:12: budget.max_usd: must be >= 0 (got -1); 0 means no limit",
			key:  "budget.max_usd",
		},
		{
			name: "negative token limit",
			in:   "budget:\n  max_tokens: -5\n",
			want: ".council.yaml:2:15: budget.max_tokens: must be >= 0 (got -5); 0 means no limit",
			key:  "budget.max_tokens",
		},
		{
			name: "zero output tokens",
			in:   "budget:\n  max_output_tokens: 0\n",
			want: ".council.yaml:2:22: budget.max_output_tokens: must be >= 1 (got 0)",
			key:  "budget.max_output_tokens",
		},
		{
			name: "string for an integer",
			in:   "concurrency: four\n",
			want: `.council.yaml:1:14: concurrency: must be an integer (got string "four")`,
			key:  "concurrency",
		},
		{
			name: "fraction for an integer",
			in:   "context_lines: 1.5\n",
			want: ".council.yaml:1:16: context_lines: must be an integer (got 1.5)",
			key:  "context_lines",
		},
		{
			name: "integer too large",
			in:   "budget:\n  max_tokens: 99999999999999999999999\n",
			want: ".council.yaml:2:15: budget.max_tokens: must be an integer (got string \"99999999999999999999999\")",
			key:  "budget.max_tokens",
		},
		{
			name: "number for a string",
			in:   "model: 4\n",
			want: ".council.yaml:1:8: model: must be a string (got integer 4; quote it)",
			key:  "model",
		},
		{
			name: "scalar for a list",
			in:   "lenses: security\n",
			want: `.council.yaml:1:9: lenses: must be a list (got string "security")`,
			key:  "lenses",
		},
		{
			name: "list for a mapping",
			in:   "budget: [1]\n",
			want: ".council.yaml:1:9: budget: must be a mapping (got a list)",
			key:  "budget",
		},
		{
			name: "infinite number",
			in:   "budget:\n  max_usd: .inf\n",
			want: ".council.yaml:2:12: budget.max_usd: must be a finite number (got .inf)",
			key:  "budget.max_usd",
		},
		{
			name: "provider",
			in:   "provider: gemini\n",
			want: `.council.yaml:1:11: provider: "gemini" is not one of anthropic, openai`,
			key:  "provider",
		},
		{
			name: "severity floor",
			in:   "comments:\n  severity_floor: minor\n",
			want: `.council.yaml:2:19: comments.severity_floor: "minor" is not one of critical, high, medium, low, nit`,
			key:  "comments.severity_floor",
		},
		{
			name: "fail on",
			in:   "output:\n  fail_on: error\n",
			want: `.council.yaml:2:12: output.fail_on: "error" is not one of critical, high, medium, low, nit or "" (never fail)`,
			key:  "output.fail_on",
		},
		{
			name: "format",
			in:   "output:\n  format: [markdown, html]\n",
			want: `.council.yaml:2:22: output.format[1]: "html" is not one of markdown, json, sarif, rdjson`,
			key:  "output.format[1]",
		},
		{
			name: "no format",
			in:   "output:\n  format: []\n",
			want: `.council.yaml:2:11: output.format: must list at least one of markdown, json, sarif, rdjson`,
			key:  "output.format",
		},
		{
			name: "duplicate format",
			in:   "output:\n  format:\n    - json\n    - json\n",
			want: `.council.yaml:4:7: output.format[1]: "json" is listed twice`,
			key:  "output.format[1]",
		},
		{
			name: "concurrency zero",
			in:   "concurrency: 0\n",
			want: ".council.yaml:1:14: concurrency: must be between 1 and 64 (got 0)",
			key:  "concurrency",
		},
		{
			name: "concurrency too high",
			in:   "concurrency: 65\n",
			want: ".council.yaml:1:14: concurrency: must be between 1 and 64 (got 65)",
			key:  "concurrency",
		},
		{
			name: "min confidence",
			in:   "comments:\n  min_confidence: 2\n",
			want: ".council.yaml:2:19: comments.min_confidence: must be between 0 and 1 (got 2)",
			key:  "comments.min_confidence",
		},
		{
			name: "negative ask nits",
			in:   "comments:\n  max_ask_nits: -1\n",
			want: ".council.yaml:2:17: comments.max_ask_nits: must be >= 0 (got -1); 0 shows no minor finding up front",
			key:  "comments.max_ask_nits",
		},
		{
			name: "bench threshold",
			in:   "bench:\n  similarity_threshold: 1.5\n",
			want: ".council.yaml:2:25: bench.similarity_threshold: must be between 0 and 1 (got 1.5)",
			key:  "bench.similarity_threshold",
		},
		{
			name: "bench window",
			in:   "bench:\n  line_window: -2\n",
			want: ".council.yaml:2:16: bench.line_window: must be between 0 and 1000 (got -2)",
			key:  "bench.line_window",
		},
		{
			name: "context lines",
			in:   "context_lines: -1\n",
			want: ".council.yaml:1:16: context_lines: must be between 0 and 1000 (got -1)",
			key:  "context_lines",
		},
		{
			name: "bad glob",
			in:   "paths:\n  exclude:\n    - \"docs/[\"\n",
			want: `.council.yaml:3:7: paths.exclude[0]: "docs/[" is not a valid glob: syntax error in pattern (segment "[")`,
			key:  "paths.exclude[0]",
		},
		{
			name: "double star inside a segment",
			in:   "paths:\n  include: [\"src**\"]\n",
			want: `.council.yaml:2:13: paths.include[0]: "src**": "**" must be a whole path segment ("a/**/b", not "a**")`,
			key:  "paths.include[0]",
		},
		{
			name: "no include",
			in:   "paths:\n  include: []\n",
			want: `.council.yaml:2:12: paths.include: must list at least one pattern ("**" for every file)`,
			key:  "paths.include",
		},
		{
			name: "lens name",
			in:   "lenses: [correctness, Security]\n",
			want: `.council.yaml:1:23: lenses[1]: "Security" is not a reviewer name: use ` + NameRule,
			key:  "lenses[1]",
		},
		{
			name: "duplicate lens",
			in:   "lenses: [security, security]\n",
			want: `.council.yaml:1:20: lenses[1]: "security" is listed twice`,
			key:  "lenses[1]",
		},
		{
			name: "reviewer override name",
			in:   "reviewers:\n  Sec_Lens: { model: o3 }\n",
			want: `.council.yaml:2:3: reviewers.Sec_Lens: "Sec_Lens" is not a reviewer name: use ` + NameRule,
			key:  "reviewers.Sec_Lens",
		},
		{
			name: "negative price",
			in:   "prices:\n  gpt-4.1:\n    input: -2\n",
			want: `.council.yaml:3:12: prices."gpt-4.1".input: must be >= 0 USD per million tokens (got -2)`,
			key:  `prices."gpt-4.1".input`,
		},
		{
			name: "persona outside the repository",
			in:   "personas: [../other/casey.yaml]\n",
			want: `.council.yaml:1:12: personas[0]: "../other/casey.yaml" points outside the repository`,
			key:  "personas[0]",
		},
		{
			name: "persona glob",
			in:   "personas: [\".council/personas/*.yaml\"]\n",
			want: `.council.yaml:1:12: personas[0]: ".council/personas/*.yaml": list files, not patterns (leave personas out to load every file in .council/personas)`,
			key:  "personas[0]",
		},
		{
			name: "absolute persona path",
			in:   "personas: [/etc/passwd]\n",
			want: `.council.yaml:1:12: personas[0]: "/etc/passwd" must be a slash-separated path relative to the repository root`,
			key:  "personas[0]",
		},
		{
			name: "base url scheme",
			in:   "base_url: ftp://example.com\n",
			want: ".council.yaml:1:11: base_url: must be an http:// or https:// URL",
			key:  "base_url",
		},
		{
			name: "openai api",
			in:   "openai_api: completions\n",
			want: `.council.yaml:1:13: openai_api: "completions" is not one of responses, chat`,
			key:  "openai_api",
		},
		{
			name: "empty council name",
			in:   "council_name: \"  \"\n",
			want: ".council.yaml:1:15: council_name: must not be empty",
			key:  "council_name",
		},
		{
			name: "top level is not a mapping",
			in:   "- correctness\n",
			want: ".council.yaml:1:1: must be a mapping (got a list)",
		},
		{
			name: "syntax error",
			in:   "lenses: [security\n",
			want: ".council.yaml:1:9: sequence end token ']' not found",
		},
		{
			name: "duplicate key",
			in:   "concurrency: 2\nconcurrency: 3\n",
			want: `.council.yaml:2:1: mapping key "concurrency" already defined at [1:1]`,
		},
		{
			name: "two documents",
			in:   "concurrency: 2\n---\nconcurrency: 3\n",
			want: `.council.yaml:2:1: more than one YAML document (a second "---"); expected one`,
		},
		{
			name: "alias",
			in:   "model: &m claude-opus-4-1\nreviewers:\n  security: { model: *m }\n",
			want: ".council.yaml:3:22: reviewers.security.model: aliases (*name) are not supported; write the value out",
			key:  "reviewers.security.model",
		},
		{
			name: "tag",
			in:   "concurrency: !!int 4\n",
			want: ".council.yaml:1:14: concurrency: YAML tags other than !!str are not supported",
			key:  "concurrency",
		},
		{
			name: "tag without a value",
			in:   "lenses: !00\n",
			want: ".council.yaml:1:9: lenses: YAML tags other than !!str are not supported",
			key:  "lenses",
		},
		{
			name: "unknown instruction key",
			in:   "instructions:\n  - paths: [\"**\"]\n    txt: hi\n",
			want: ".council.yaml:3:5: instructions[0].txt: unknown key (allowed: paths, text)",
			key:  "instructions[0].txt",
		},
		{
			name: "instruction without paths",
			in:   "instructions:\n  - text: Prefer table tests.\n",
			want: `.council.yaml:2:9: instructions[0].paths: must list at least one pattern ("**" for every file)`,
			key:  "instructions[0].paths",
		},
		{
			name: "instruction with empty paths",
			in:   "instructions:\n  - paths: []\n    text: Prefer table tests.\n",
			want: `.council.yaml:2:12: instructions[0].paths: must list at least one pattern ("**" for every file)`,
			key:  "instructions[0].paths",
		},
		{
			name: "instruction with a bad glob",
			in:   "instructions:\n  - paths: [\"felix/**\", \"src**\"]\n    text: x\n",
			want: `.council.yaml:2:25: instructions[0].paths[1]: "src**": "**" must be a whole path segment ("a/**/b", not "a**")`,
			key:  "instructions[0].paths[1]",
		},
		{
			name: "instruction without text",
			in:   "instructions:\n  - paths: [\"**\"]\n    text: \"  \"\n",
			want: ".council.yaml:3:11: instructions[0].text: must not be empty: the instruction to give the reviewers",
			key:  "instructions[0].text",
		},
		{
			name: "instruction text is not a string",
			in:   "instructions:\n  - paths: [\"**\"]\n    text: [a]\n",
			want: ".council.yaml:3:11: instructions[0].text: must be a string (got a list)",
			key:  "instructions[0].text",
		},
		{
			name: "unknown rule key",
			in:   "rules:\n  - name: r\n    forbids: x\n",
			want: ".council.yaml:3:5: rules[0].forbids: unknown key (allowed: name, when_changed, require_changed, forbid, paths, message, severity)",
			key:  "rules[0].forbids",
		},
		{
			name: "rule without a name",
			in:   "rules:\n  - forbid: x\n    message: m\n",
			want: `.council.yaml:2:11: rules[0].name: must not be empty: name the rule in lowercase letters, digits and '-' (e.g. "bpf-design-doc")`,
			key:  "rules[0].name",
		},
		{
			name: "rule name",
			in:   "rules:\n  - name: No_Print\n    forbid: x\n    message: m\n",
			want: `.council.yaml:2:11: rules[0].name: "No_Print" is not a rule name: use lowercase letters, digits and '-' (e.g. "bpf-design-doc"), at most 64 of them`,
			key:  "rules[0].name",
		},
		{
			name: "duplicate rule name",
			in:   "rules:\n  - name: r\n    forbid: x\n    message: m\n  - name: r\n    forbid: y\n    message: m\n",
			want: `.council.yaml:5:11: rules[1].name: "r" is the name of rules[0] too; rule names must be unique`,
			key:  "rules[1].name",
		},
		{
			name: "rule of both kinds",
			in:   "rules:\n  - name: r\n    when_changed: [a]\n    require_changed: [b]\n    forbid: x\n    message: m\n",
			want: `.council.yaml:5:13: rules[0].forbid: rule "r" sets both forbid and when_changed/require_changed; a rule is either a when_changed+require_changed rule or a forbid rule (split it in two)`,
			key:  "rules[0].forbid",
		},
		{
			name: "rule of neither kind",
			in:   "rules:\n  - { name: r, message: m }\n",
			want: `.council.yaml:2:5: rules[0]: rule "r" checks nothing: give it when_changed and require_changed, or forbid`,
			key:  "rules[0]",
		},
		{
			name: "when_changed without require_changed",
			in:   "rules:\n  - { name: r, when_changed: [a], message: m }\n",
			want: `.council.yaml:2:5: rules[0].require_changed: rule "r" has when_changed but no require_changed: list the files that must change with them`,
			key:  "rules[0].require_changed",
		},
		{
			name: "require_changed without when_changed",
			in:   "rules:\n  - { name: r, when_changed: [], require_changed: [b], message: m }\n",
			want: `.council.yaml:2:30: rules[0].when_changed: rule "r" has require_changed but no when_changed: list the files whose change requires it`,
			key:  "rules[0].when_changed",
		},
		{
			name: "rule with a bad glob",
			in:   "rules:\n  - name: r\n    when_changed: [\"felix/bpf-gpl/**\"]\n    require_changed: [\"felix/design/[\"]\n    message: m\n",
			want: `.council.yaml:4:23: rules[0].require_changed[0]: "felix/design/[" is not a valid glob: syntax error in pattern (segment "[")`,
			key:  "rules[0].require_changed[0]",
		},
		{
			name: "paths on a co-change rule",
			in:   "rules:\n  - name: r\n    when_changed: [a]\n    require_changed: [b]\n    paths: [c]\n    message: m\n",
			want: `.council.yaml:5:12: rules[0].paths: rule "r": paths applies to forbid rules only; when_changed already says which files the rule is about`,
			key:  "rules[0].paths",
		},
		{
			name: "bad regexp",
			in:   "rules:\n  - name: r\n    forbid: 'fmt\\.Print('\n    message: m\n",
			want: ".council.yaml:3:13: rules[0].forbid: not a valid Go regular expression (RE2): error parsing regexp: missing closing ): `fmt\\.Print(`",
			key:  "rules[0].forbid",
		},
		{
			name: "regexp without RE2 support",
			in:   "rules:\n  - name: r\n    forbid: '(?!x)y'\n    message: m\n",
			want: ".council.yaml:3:13: rules[0].forbid: not a valid Go regular expression (RE2): error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
			key:  "rules[0].forbid",
		},
		{
			name: "regexp matching every line",
			in:   "rules:\n  - name: r\n    forbid: 'x*'\n    message: m\n",
			want: `.council.yaml:3:13: rules[0].forbid: "x*" matches every line (it matches the empty string)`,
			key:  "rules[0].forbid",
		},
		{
			name: "rule without a message",
			in:   "rules:\n  - name: r\n    forbid: x\n",
			want: `.council.yaml:2:9: rules[0].message: rule "r" needs a message: what its finding tells the author`,
			key:  "rules[0].message",
		},
		{
			name: "rule severity",
			in:   "rules:\n  - name: r\n    forbid: x\n    message: m\n    severity: warning\n",
			want: `.council.yaml:5:15: rules[0].severity: "warning" is not one of critical, high, medium, low, nit`,
			key:  "rules[0].severity",
		},
		{
			name: "rules is not a list",
			in:   "rules:\n  name: r\n",
			want: ".council.yaml:2:7: rules: must be a list (got a mapping)",
			key:  "rules",
		},
		{
			name: "unknown tools key",
			in:   "tools:\n  max_call: 3\n",
			want: ".council.yaml:2:3: tools.max_call: unknown key (allowed: enabled, max_calls, max_bytes, max_total_bytes, max_turns, max_tokens, download_modules)",
			key:  "tools.max_call",
		},
		{
			name: "tools enabled is not a bool",
			in:   "tools:\n  enabled: yes please\n",
			want: `.council.yaml:2:12: tools.enabled: must be true or false (got string "yes please")`,
			key:  "tools.enabled",
		},
		{
			name: "zero tool calls",
			in:   "tools:\n  max_calls: 0\n",
			want: ".council.yaml:2:14: tools.max_calls: must be >= 1 (got 0); tools.enabled: false turns the tools off",
			key:  "tools.max_calls",
		},
		{
			name: "negative tool turns",
			in:   "tools:\n  max_turns: -1\n",
			want: ".council.yaml:2:14: tools.max_turns: must be >= 1 (got -1); tools.enabled: false turns the tools off",
			key:  "tools.max_turns",
		},
		{
			name: "tool result over the total",
			in:   "tools:\n  max_total_bytes: 10000\n",
			want: ".council.yaml:1:1: tools.max_bytes: must not exceed tools.max_total_bytes (20000 > 10000)",
			key:  "tools.max_bytes",
		},
		{
			name: "unknown validate key",
			in:   "validate:\n  enable: false\n",
			want: ".council.yaml:2:3: validate.enable: unknown key (allowed: enabled)",
			key:  "validate.enable",
		},
		{
			name: "merge key",
			in:   "budget:\n  <<: { max_usd: 1 }\n",
			want: ".council.yaml:2:3: budget: merge keys (<<) are not supported; write the keys out",
			key:  "budget",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(".council.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) = nil error, want %q", tt.in, tt.want)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%q) error %T %v is not a *config.Error", tt.in, err, err)
			}
			if ce.Error() != tt.want {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, ce.Error(), tt.want)
			}
			if ce.File != ".council.yaml" || ce.Key != tt.key {
				t.Errorf("Parse(%q) error File, Key = %q, %q; want .council.yaml, %q", tt.in, ce.File, ce.Key, tt.key)
			}
		})
	}
}

func TestParseReportsEveryBadValue(t *testing.T) {
	t.Parallel()
	in := "concurrency: 0\nbudget:\n  max_usd: -1\nprovider: gemini\n"
	_, err := Parse("repo/.council.yaml", []byte(in))
	if err == nil {
		t.Fatal("Parse() = nil error")
	}
	want := strings.Join([]string{
		"repo/.council.yaml:1:14: concurrency: must be between 1 and 64 (got 0)",
		"repo/.council.yaml:3:12: budget.max_usd: must be >= 0 (got -1); 0 means no limit",
		`repo/.council.yaml:4:11: provider: "gemini" is not one of anthropic, openai`,
	}, "\n")
	if err.Error() != want {
		t.Errorf("Parse() error:\n got %s\nwant %s", err, want)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "concurrency" {
		t.Errorf("errors.As(*Error) = %v, want the first error (concurrency)", ce)
	}
}

func TestParseNeverEchoesCredentials(t *testing.T) {
	t.Parallel()
	in := "base_url: https://bot:sk-live-secret@llm.example.com/v1\n"
	_, err := Parse(".council.yaml", []byte(in))
	if err == nil {
		t.Fatal("Parse() = nil error, want a credentials error")
	}
	if strings.Contains(err.Error(), "sk-live-secret") {
		t.Errorf("error leaks the secret: %v", err)
	}
	if !strings.Contains(err.Error(), "base_url: must not contain credentials") {
		t.Errorf("error = %v, want base_url: must not contain credentials", err)
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: ".council.yaml", Line: 7, Column: 3, Key: "budget.max_usd", Msg: "must be >= 0 (got -1)"}, ".council.yaml:7:3: budget.max_usd: must be >= 0 (got -1)"},
		{Error{File: "p.yaml", Key: "title", Msg: "required"}, "p.yaml: title: required"},
		{Error{File: "p.yaml", Line: 1, Column: 2, Msg: "syntax"}, "p.yaml:1:2: syntax"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDecodeStringTag(t *testing.T) {
	t.Parallel()
	got, err := Parse(".council.yaml", []byte("model: !!str 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "4" {
		t.Errorf("Model = %q, want \"4\"", got.Model)
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"correctness": true, "casey": true, "nell-2": true, "a": true,
		"": false, "Casey": false, "-x": false, "a_b": false, "a b": false, "ü": false,
		strings.Repeat("a", 65): false,
	} {
		if got := ValidName(s); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", s, got, want)
		}
	}
}
