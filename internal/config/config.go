// Package config is the schema of .council.yaml: its Go types, defaults and validation, and
// the strict YAML decoding that reviewer files share. It is pure: the caller reads the file
// (from the base revision, so that a pull request cannot rewrite its own review rules) and
// hands over the bytes. It must never read files, the environment or the network itself.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/glob"
)

// Config is the content of .council.yaml.
type Config struct {
	CouncilName  string                      `yaml:"council_name"` // display name in headers and footers
	Provider     string                      `yaml:"provider"`     // one of Providers
	Model        string                      `yaml:"model"`        // DefaultModel(Provider) when the file leaves it empty
	BaseURL      string                      `yaml:"base_url"`     // optional; else the provider's environment variable or default
	OpenAIAPI    string                      `yaml:"openai_api"`   // one of OpenAIAPIs; "": COUNCIL_OPENAI_API, else by the base URL
	Lenses       []string                    `yaml:"lenses"`       // built-in (or overridden) lenses to run, by name
	Personas     []string                    `yaml:"personas"`     // persona files in the repo; empty: every file in .council/personas
	Reviewers    map[string]ReviewerOverride `yaml:"reviewers"`    // per-reviewer overrides, by reviewer name
	Concurrency  int                         `yaml:"concurrency"`  // reviewer requests in flight, 1..64
	Budget       Budget                      `yaml:"budget"`
	Prices       map[string]Price            `yaml:"prices"` // by model; overrides the built-in price table
	Paths        Paths                       `yaml:"paths"`
	Comments     Comments                    `yaml:"comments"`
	Output       Output                      `yaml:"output"`
	ContextLines int                         `yaml:"context_lines"` // extra lines of file context around each hunk
	Instructions []Instruction               `yaml:"instructions"`  // path-scoped instructions for the reviewers
	Rules        []Rule                      `yaml:"rules"`         // deterministic checks, run without a model
	Tools        Tools                       `yaml:"tools"`         // read-only repository tools reviewers may call
	Validate     Validate                    `yaml:"validate"`      // the second look at each finding before it is shown
	Bench        Bench                       `yaml:"bench"`         // defaults of council bench
}

// Bench holds the benchmark's defaults: how findings are matched to human comments, and which
// reviewers are not human.
type Bench struct {
	// SimilarityThreshold is tier L2's smallest text similarity (0..1) between a human comment
	// and a finding; council bench calibrate measures the best one on hand labels.
	SimilarityThreshold float64  `yaml:"similarity_threshold"`
	LineWindow          int      `yaml:"line_window"`  // tier L1's largest line distance
	AIReviewers         []string `yaml:"ai_reviewers"` // logins that are bots without saying so (no [bot] suffix)
}

// DefaultSimilarityThreshold is tier L2's threshold when the config sets none: what council
// bench calibrate chose on the hand labels of examples/bench (13 pairs; every threshold from
// 0.09 to 0.13 agrees with all of them). A team should calibrate on labels of its own.
const DefaultSimilarityThreshold = 0.11

// DefaultAIReviewers are AI reviewers whose logins do not end in [bot]; import leaves them out
// of the ground truth like any bot.
var DefaultAIReviewers = []string{"Copilot", "copilot-pull-request-reviewer", "coderabbitai", "gemini-code-assist", "sourcery-ai", "cursor", "greptile-apps", "graphite-app", "ellipsis-dev", "qodo-merge-pro", "korbit-ai"}

// Instruction is maintainers' guidance for the reviewers, given to them for the changed files
// that match one of Paths.
type Instruction struct {
	Paths []string `yaml:"paths"` // globs (see Paths); required
	Text  string   `yaml:"text"`  // required
}

// Rule is a deterministic check of a change. It is one of two kinds:
//   - a co-change rule (WhenChanged and RequireChanged): a change that touches a file matching
//     WhenChanged must also touch a file matching RequireChanged;
//   - a forbid rule (Forbid, optionally Paths): no added line of a file matching Paths may
//     match the regular expression Forbid.
type Rule struct {
	Name           string           `yaml:"name"`            // [a-z0-9-]+, unique among the rules
	WhenChanged    []string         `yaml:"when_changed"`    // globs
	RequireChanged []string         `yaml:"require_changed"` // globs
	Forbid         string           `yaml:"forbid"`          // Go regexp (RE2), matched against each added line
	Paths          []string         `yaml:"paths"`           // globs; forbid rules only; empty: every file
	Message        string           `yaml:"message"`         // required; what the finding says
	Severity       finding.Severity `yaml:"severity"`        // of its findings; medium when left out
}

// Kind says which kind a rule is: "co-change", "forbid", or "" when it is neither or both
// (which Parse rejects).
func (r Rule) Kind() string {
	coChange := len(r.WhenChanged) > 0 || len(r.RequireChanged) > 0
	forbid := r.Forbid != ""
	switch {
	case coChange && !forbid:
		return RuleCoChange
	case forbid && !coChange:
		return RuleForbid
	}
	return ""
}

// The kinds of rule, as Rule.Kind names them.
const (
	RuleCoChange = "co-change"
	RuleForbid   = "forbid"
)

// Tools limits the read-only repository tools (read a file, grep, list files) a reviewer may
// call while it reviews. The limits are per reviewer and review unit.
type Tools struct {
	Enabled       bool `yaml:"enabled"`
	MaxCalls      int  `yaml:"max_calls"`       // tool calls in all
	MaxBytes      int  `yaml:"max_bytes"`       // of one tool result; longer results are cut, saying so
	MaxTotalBytes int  `yaml:"max_total_bytes"` // of all tool results together
	MaxTurns      int  `yaml:"max_turns"`       // model requests, the final answer included
	MaxTokens     int  `yaml:"max_tokens"`      // prompt and answer tokens of one conversation; the next turn must answer
	// DownloadModules lets read_dependency have the go command download a module version
	// go.mod and go.sum pin that the module cache lacks (council serve only with
	// COUNCIL_DOWNLOAD_MODULES too).
	DownloadModules bool `yaml:"download_modules"`
}

// Validate turns the validation stage (is each finding real, new, specific, actionable) on or
// off. A run with it off says so at the top of the review.
type Validate struct {
	Enabled bool `yaml:"enabled"`
}

// ReviewerOverride changes one reviewer's settings.
type ReviewerOverride struct {
	Model string `yaml:"model"` // empty: the config's model
}

// Budget limits what a run may spend. Zero means no limit for MaxUSD and MaxTokens.
type Budget struct {
	TokensPerRequest int     `yaml:"tokens_per_request"` // diff tokens per review unit
	MaxOutputTokens  int     `yaml:"max_output_tokens"`  // per request
	MaxUSD           float64 `yaml:"max_usd"`            // per run; the run stops before exceeding it
	MaxTokens        int64   `yaml:"max_tokens"`         // total tokens per run
}

// Price is what a model costs in USD per million tokens. A rate the file leaves out is 0.
type Price struct {
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// Paths selects the files that are reviewed: those matching an Include pattern and no Exclude
// pattern. Patterns are slash-separated; each segment is a path.Match pattern, and a "**"
// segment matches any number of segments ("**/*.pb.go", "docs/generated/**").
type Paths struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// Comments limits what is posted.
type Comments struct {
	MaxPerReviewer int              `yaml:"max_per_reviewer"` // 0: no cap
	SeverityFloor  finding.Severity `yaml:"severity_floor"`   // findings below it are filtered
	MinConfidence  float64          `yaml:"min_confidence"`   // 0..1
	// MaxAskNits caps the minor findings per change that the repository's ask learnings put
	// up front as nits (the learnings with the most evidence first); 0 shows none up front.
	MaxAskNits int `yaml:"max_ask_nits"`
}

// DefaultMaxAskNits is comments.max_ask_nits when the config leaves it out.
const DefaultMaxAskNits = 3

// Output says what is written and when the run fails.
type Output struct {
	Format []string         `yaml:"format"`  // each one of Formats
	FailOn finding.Severity `yaml:"fail_on"` // exit non-zero for a finding at or above it; "" never
}

// Providers are the allowed values of provider.
var Providers = []string{"anthropic", "openai"}

// OpenAIAPIs are the allowed values of openai_api: the OpenAI API council speaks.
var OpenAIAPIs = []string{"responses", "chat"}

// Formats are the allowed values of output.format.
var Formats = []string{"markdown", "json", "sarif", "rdjson"}

// Limits of the numeric settings.
const (
	MaxConcurrency  = 64
	MaxContextLines = 1000
)

// DefaultModel is the model used with a provider when the config names none; "" for an
// unknown provider.
func DefaultModel(provider string) string {
	switch provider {
	case "anthropic":
		return "claude-sonnet-5-5"
	case "openai":
		return "gpt-6.2-sol"
	}
	return ""
}

// Default is the configuration of a repository without .council.yaml.
func Default() Config {
	return Config{
		CouncilName: "Council",
		// Provider and Model stay empty: the caller picks them from flags, else from the
		// environment (whichever provider has credentials), then DefaultModel.
		Lenses:       []string{"correctness", "security", "maintainability"},
		Concurrency:  4,
		Budget:       Budget{TokensPerRequest: 60000, MaxOutputTokens: 8192},
		Paths:        Paths{Include: []string{"**"}},
		Comments:     Comments{SeverityFloor: finding.Nit, MaxAskNits: DefaultMaxAskNits},
		Output:       Output{Format: []string{"markdown"}},
		ContextLines: 10,
		Tools:        Tools{Enabled: true, MaxCalls: 20, MaxBytes: 20000, MaxTotalBytes: 200000, MaxTurns: 8, MaxTokens: 400000, DownloadModules: true},
		Validate:     Validate{Enabled: true},
		Bench:        Bench{SimilarityThreshold: DefaultSimilarityThreshold, LineWindow: 3, AIReviewers: DefaultAIReviewers},
	}
}

// Parse reads a .council.yaml from data; source names it in errors. Keys the file leaves out
// keep their Default value. An empty file is Default(). Every unknown key and bad value is an
// *Error naming source, line:column and key; when several values are bad, all are reported
// (joined, in file order), each matchable with errors.As.
func Parse(source string, data []byte) (Config, error) {
	doc, err := ParseYAML(source, data)
	if err != nil {
		return Config{}, err
	}
	c := Default()
	if doc.Empty() {
		return c, nil
	}
	if err := doc.Decode(&c); err != nil {
		return Config{}, err
	}
	c.fillRuleDefaults()
	if err := c.validate(doc); err != nil {
		return Config{}, err
	}
	return c, nil
}

// fillRuleDefaults gives rules their defaults. Each list item is decoded into a zero Rule, so
// the defaults cannot be set before decoding as they are for the top-level keys.
func (c *Config) fillRuleDefaults() {
	for i := range c.Rules {
		if c.Rules[i].Severity == "" {
			c.Rules[i].Severity = finding.Medium
		}
	}
}

// nameRE is what a reviewer name looks like; review.Reviewer names follow the same rule.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ValidName reports whether s can name a reviewer: lowercase letters, digits and hyphens,
// not starting with a hyphen, at most 64 bytes.
func ValidName(s string) bool { return len(s) <= 64 && nameRE.MatchString(s) }

// NameRule describes ValidName for error messages.
const NameRule = "lowercase letters, digits and '-' (e.g. \"security\", \"casey\")"

func (c Config) validate(doc *Document) error {
	var errs []*Error
	bad := func(msg string, key ...any) { errs = append(errs, errorNear(doc, msg, key...)) }

	if strings.TrimSpace(c.CouncilName) == "" {
		bad("must not be empty", "council_name")
	}
	if c.Provider != "" && !slices.Contains(Providers, c.Provider) {
		bad(oneOf(c.Provider, Providers), "provider")
	}
	if c.Model != "" && strings.TrimSpace(c.Model) == "" {
		bad("must not be blank", "model")
	}
	if c.BaseURL != "" {
		if msg := checkURL(c.BaseURL); msg != "" {
			bad(msg, "base_url")
		}
	}
	if c.OpenAIAPI != "" && !slices.Contains(OpenAIAPIs, c.OpenAIAPI) {
		bad(oneOf(c.OpenAIAPI, OpenAIAPIs), "openai_api")
	}
	checkNames := func(key string, names []string) {
		seen := map[string]bool{}
		for i, n := range names {
			switch {
			case !ValidName(n):
				bad(fmt.Sprintf("%q is not a reviewer name: use %s", n, NameRule), key, i)
			case seen[n]:
				bad(fmt.Sprintf("%q is listed twice", n), key, i)
			}
			seen[n] = true
		}
	}
	checkNames("lenses", c.Lenses)
	seen := map[string]bool{}
	for i, p := range c.Personas {
		if msg := checkRepoPath(p); msg != "" {
			bad(msg, "personas", i)
		} else if seen[p] {
			bad(fmt.Sprintf("%q is listed twice", p), "personas", i)
		}
		seen[p] = true
	}
	for _, name := range sortedKeys(c.Reviewers) {
		if !ValidName(name) {
			bad(fmt.Sprintf("%q is not a reviewer name: use %s", name, NameRule), "reviewers", name)
		}
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		bad(fmt.Sprintf("must be between 1 and %d (got %d)", MaxConcurrency, c.Concurrency), "concurrency")
	}
	if c.Budget.TokensPerRequest < 1 {
		bad(fmt.Sprintf("must be >= 1 (got %d)", c.Budget.TokensPerRequest), "budget", "tokens_per_request")
	}
	if c.Budget.MaxOutputTokens < 1 {
		bad(fmt.Sprintf("must be >= 1 (got %d)", c.Budget.MaxOutputTokens), "budget", "max_output_tokens")
	}
	if c.Budget.MaxUSD < 0 {
		bad(fmt.Sprintf("must be >= 0 (got %g); 0 means no limit", c.Budget.MaxUSD), "budget", "max_usd")
	}
	if c.Budget.MaxTokens < 0 {
		bad(fmt.Sprintf("must be >= 0 (got %d); 0 means no limit", c.Budget.MaxTokens), "budget", "max_tokens")
	}
	for _, model := range sortedKeys(c.Prices) {
		p := c.Prices[model]
		if strings.TrimSpace(model) == "" {
			bad("a model name must not be blank", "prices", model)
		}
		for _, r := range []struct {
			key string
			v   float64
		}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}} {
			if r.v < 0 {
				bad(fmt.Sprintf("must be >= 0 USD per million tokens (got %g)", r.v), "prices", model, r.key)
			}
		}
	}
	if len(c.Paths.Include) == 0 {
		bad(`must list at least one pattern ("**" for every file)`, "paths", "include")
	}
	for _, list := range []struct {
		key  string
		pats []string
	}{{"include", c.Paths.Include}, {"exclude", c.Paths.Exclude}} {
		for i, p := range list.pats {
			if err := glob.Validate(p); err != nil {
				bad(err.Error(), "paths", list.key, i)
			}
		}
	}
	if c.Comments.MaxAskNits < 0 {
		bad(fmt.Sprintf("must be >= 0 (got %d); 0 shows no minor finding up front", c.Comments.MaxAskNits), "comments", "max_ask_nits")
	}
	if c.Comments.MaxPerReviewer < 0 {
		bad(fmt.Sprintf("must be >= 0 (got %d); 0 means no cap", c.Comments.MaxPerReviewer), "comments", "max_per_reviewer")
	}
	if c.Comments.SeverityFloor.Rank() == 0 {
		bad(oneOf(string(c.Comments.SeverityFloor), severityNames()), "comments", "severity_floor")
	}
	if c.Comments.MinConfidence < 0 || c.Comments.MinConfidence > 1 {
		bad(fmt.Sprintf("must be between 0 and 1 (got %g)", c.Comments.MinConfidence), "comments", "min_confidence")
	}
	if len(c.Output.Format) == 0 {
		bad("must list at least one of "+strings.Join(Formats, ", "), "output", "format")
	}
	seenFormat := map[string]bool{}
	for i, f := range c.Output.Format {
		switch {
		case !slices.Contains(Formats, f):
			bad(oneOf(f, Formats), "output", "format", i)
		case seenFormat[f]:
			bad(fmt.Sprintf("%q is listed twice", f), "output", "format", i)
		}
		seenFormat[f] = true
	}
	if c.Output.FailOn != "" && c.Output.FailOn.Rank() == 0 {
		bad(oneOf(string(c.Output.FailOn), severityNames())+` or "" (never fail)`, "output", "fail_on")
	}
	if c.ContextLines < 0 || c.ContextLines > MaxContextLines {
		bad(fmt.Sprintf("must be between 0 and %d (got %d)", MaxContextLines, c.ContextLines), "context_lines")
	}
	for i, in := range c.Instructions {
		if len(in.Paths) == 0 {
			bad(`must list at least one pattern ("**" for every file)`, "instructions", i, "paths")
		}
		checkGlobs(bad, in.Paths, "instructions", i, "paths")
		if strings.TrimSpace(in.Text) == "" {
			bad("must not be empty: the instruction to give the reviewers", "instructions", i, "text")
		}
	}
	c.validateRules(bad)
	c.validateBench(bad)
	for _, t := range []struct {
		key string
		v   int
	}{{"max_calls", c.Tools.MaxCalls}, {"max_bytes", c.Tools.MaxBytes}, {"max_total_bytes", c.Tools.MaxTotalBytes}, {"max_turns", c.Tools.MaxTurns}, {"max_tokens", c.Tools.MaxTokens}} {
		if t.v < 1 {
			bad(fmt.Sprintf("must be >= 1 (got %d); tools.enabled: false turns the tools off", t.v), "tools", t.key)
		}
	}
	if c.Tools.MaxBytes > c.Tools.MaxTotalBytes && c.Tools.MaxTotalBytes >= 1 {
		bad(fmt.Sprintf("must not exceed tools.max_total_bytes (%d > %d)", c.Tools.MaxBytes, c.Tools.MaxTotalBytes), "tools", "max_bytes")
	}

	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	if len(joined) == 1 {
		return joined[0]
	}
	return errors.Join(joined...)
}

// ruleNameRE is what a rule name looks like; it appears in findings ("rule bpf-design-doc").
var ruleNameRE = regexp.MustCompile(`^[a-z0-9-]+$`)

func (c Config) validateBench(bad func(msg string, key ...any)) {
	if t := c.Bench.SimilarityThreshold; t < 0 || t > 1 {
		bad(fmt.Sprintf("must be between 0 and 1 (got %g)", t), "bench", "similarity_threshold")
	}
	if w := c.Bench.LineWindow; w < 0 || w > 1000 {
		bad(fmt.Sprintf("must be between 0 and 1000 (got %d)", w), "bench", "line_window")
	}
	for i, l := range c.Bench.AIReviewers {
		if strings.TrimSpace(l) == "" {
			bad("must not be blank", "bench", "ai_reviewers", i)
		}
	}
}

func (c Config) validateRules(bad func(msg string, key ...any)) {
	names := map[string]int{}
	for i, r := range c.Rules {
		// A rule is named in the messages about it once it has a usable name.
		what := fmt.Sprintf("rule %q", r.Name)
		switch {
		case r.Name == "":
			bad(`must not be empty: name the rule in lowercase letters, digits and '-' (e.g. "bpf-design-doc")`, "rules", i, "name")
			what = "this rule"
		case !ruleNameRE.MatchString(r.Name) || len(r.Name) > 64:
			bad(fmt.Sprintf(`%q is not a rule name: use lowercase letters, digits and '-' (e.g. "bpf-design-doc"), at most 64 of them`, r.Name), "rules", i, "name")
		default:
			if j, ok := names[r.Name]; ok {
				bad(fmt.Sprintf("%q is the name of rules[%d] too; rule names must be unique", r.Name, j), "rules", i, "name")
			} else {
				names[r.Name] = i
			}
		}
		coChange := len(r.WhenChanged) > 0 || len(r.RequireChanged) > 0
		switch {
		case coChange && r.Forbid != "":
			bad(what+" sets both forbid and when_changed/require_changed; a rule is either a when_changed+require_changed rule or a forbid rule (split it in two)", "rules", i, "forbid")
		case !coChange && r.Forbid == "":
			bad(what+" checks nothing: give it when_changed and require_changed, or forbid", "rules", i)
		case coChange && len(r.WhenChanged) == 0:
			bad(what+" has require_changed but no when_changed: list the files whose change requires it", "rules", i, "when_changed")
		case coChange && len(r.RequireChanged) == 0:
			bad(what+" has when_changed but no require_changed: list the files that must change with them", "rules", i, "require_changed")
		}
		checkGlobs(bad, r.WhenChanged, "rules", i, "when_changed")
		checkGlobs(bad, r.RequireChanged, "rules", i, "require_changed")
		checkGlobs(bad, r.Paths, "rules", i, "paths")
		if coChange && r.Forbid == "" && len(r.Paths) > 0 {
			bad(what+": paths applies to forbid rules only; when_changed already says which files the rule is about", "rules", i, "paths")
		}
		if r.Forbid != "" {
			if re, err := regexp.Compile(r.Forbid); err != nil {
				bad("not a valid Go regular expression (RE2): "+err.Error(), "rules", i, "forbid")
			} else if re.MatchString("") && re.MatchString("\x00") {
				// An unanchored pattern that matches the empty string matches every line ("x*");
				// "^$" and "^\s*$" are left alone, as forbidding blank lines is a choice.
				bad(fmt.Sprintf("%q matches every line (it matches the empty string)", r.Forbid), "rules", i, "forbid")
			}
		}
		if strings.TrimSpace(r.Message) == "" {
			bad(what+" needs a message: what its finding tells the author", "rules", i, "message")
		}
		if r.Severity.Rank() == 0 {
			bad(oneOf(string(r.Severity), severityNames()), "rules", i, "severity")
		}
	}
}

func checkGlobs(bad func(msg string, key ...any), pats []string, key ...any) {
	for i, p := range pats {
		if err := glob.Validate(p); err != nil {
			bad(err.Error(), appendKey(key, i)...)
		}
	}
}

// errorNear is doc.ErrorAt, placed at the nearest enclosing value the document has when it
// lacks key itself: a rule without a message is reported at the rule, not at no line at all.
func errorNear(doc *Document, msg string, key ...any) *Error {
	e := doc.ErrorAt(msg, key...)
	for n := len(key) - 1; e.Line == 0 && n > 0; n-- {
		if at := doc.ErrorAt("", key[:n]...); at.Line > 0 {
			e.Line, e.Column = at.Line, at.Column
		}
	}
	return e
}

func oneOf(got string, allowed []string) string {
	return fmt.Sprintf("%q is not one of %s", got, strings.Join(allowed, ", "))
}

func severityNames() []string {
	names := make([]string, len(finding.Severities))
	for i, s := range finding.Severities {
		names[i] = string(s)
	}
	return names
}

// checkURL validates base_url without ever echoing it: a URL may carry credentials.
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "not a valid URL"
	}
	if u.User != nil {
		return "must not contain credentials; give the API key through the provider's environment variable"
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "must be an http:// or https:// URL"
	}
	if u.Host == "" {
		return "must name a host"
	}
	return ""
}

// checkRepoPath validates a persona file path: it must stay inside the repository.
func checkRepoPath(p string) string {
	switch {
	case strings.TrimSpace(p) == "":
		return "must not be empty"
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`):
		return fmt.Sprintf("%q must be a slash-separated path relative to the repository root", p)
	case path.Clean(p) != p:
		return fmt.Sprintf("%q is not a clean path (write %q)", p, path.Clean(p))
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Sprintf("%q points outside the repository", p)
	}
	if strings.ContainsAny(p, "*?[") {
		return fmt.Sprintf("%q: list files, not patterns (leave personas out to load every file in .council/personas)", p)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
