// Package report is the result of one review run as a stable, versioned document: the change,
// the findings, what each reviewer said or failed with, what was and was not reviewed, and what
// it cost. Every output format renders this one value; the JSON form is documented by
// schema.json beside this file. It must never do I/O beyond the writer it is given.
package report

import (
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/provider"
)

// SchemaVersion is bumped on any incompatible change to the JSON document.
const SchemaVersion = "1"

// Report is one review run.
type Report struct {
	SchemaVersion string            `json:"schema_version"`
	Tool          Tool              `json:"tool"`
	Change        Change            `json:"change"`
	Findings      []finding.Finding `json:"findings"`
	Reviewers     []Reviewer        `json:"reviewers"`
	Coverage      Coverage          `json:"coverage"`
	Usage         Usage             `json:"usage"`
	Instructions  []Instruction     `json:"instructions"`        // repository instructions the reviewers were given
	Learnings     []LearningUse     `json:"learnings,omitempty"` // the base revision's learnings that applied to the change
	Context       Context           `json:"context"`
	Validation    Validation        `json:"validation"`
	Degraded      []string          `json:"degraded,omitempty"` // said at the top of every output
	DryRun        bool              `json:"dry_run,omitempty"`
	Estimate      *Estimate         `json:"estimate,omitempty"` // set by a dry run only
}

// Instruction is one repository instruction source the reviewers were told to follow.
type Instruction struct {
	Source    string   `json:"source"`     // "AGENTS.md", ".github/instructions/x.instructions.md", ".council.yaml instructions[0]"
	AppliesTo []string `json:"applies_to"` // the changed files it applies to
}

// LearningUse is one learning of .council/learnings.yaml (at the base revision) that applied
// to the change: given to the reviewers, and for a suppress learning, applied to their
// findings after the review.
type LearningUse struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"` // "suppress", "emphasise" or "ask"
	Text       string `json:"text"`
	Suppressed int    `json:"suppressed"`         // findings it moved to filtered
	Promoted   int    `json:"promoted,omitempty"` // minor findings it put up front as nits (ask learnings)
}

// Context is what the context engine added around the hunks.
type Context struct {
	Snippets []ContextSnippet `json:"snippets"`
	Omitted  []string         `json:"omitted,omitempty"` // what did not fit its budget, and why
}

// ContextSnippet is one piece of code shown to every reviewer beyond the hunks.
type ContextSnippet struct {
	Path      string `json:"path"`
	Side      string `json:"side"` // "head" or "base"
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Kind      string `json:"kind"` // "enclosing" or "definition"
	Symbol    string `json:"symbol,omitempty"`
}

// Validation is what the validator did.
type Validation struct {
	Enabled  bool           `json:"enabled"`
	Checked  int            `json:"checked"`          // findings that got a verdict
	Rejected int            `json:"rejected"`         // of them, filtered with the validator's reason
	Lowered  int            `json:"lowered"`          // kept with a lower severity
	Narrowed int            `json:"narrowed"`         // kept with only the claims that hold
	Minor    int            `json:"minor"`            // true but minor: moved from inline to the minor notes
	Merged   int            `json:"merged"`           // found to make the same point as another finding, and folded into it
	Requests int            `json:"requests"`         // checks sent, one per batch of a file's findings
	Errors   []string       `json:"errors,omitempty"` // checks that failed: those findings are shown unchecked
	Usage    provider.Usage `json:"usage"`
}

// Estimate is what a dry run expects the real run to use.
type Estimate struct {
	Usage                  provider.Usage `json:"usage"`
	OutputTokensPerRequest int            `json:"output_tokens_per_request"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`    // "council"
	Version string `json:"version"` // build version
	Council string `json:"council"` // display name of the council, e.g. "Council of Claudes"
}

// Change is what was reviewed.
type Change struct {
	Repo    string       `json:"repo,omitempty"` // local path or owner/name
	Base    string       `json:"base"`           // the revision as given, e.g. "origin/main"
	Head    string       `json:"head"`
	BaseSHA string       `json:"base_sha"`
	HeadSHA string       `json:"head_sha"`
	Title   string       `json:"title,omitempty"`
	Files   []ChangeFile `json:"files"`
}

// ChangeFile is one file of the change.
type ChangeFile struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"` // set for renames and copies
	Status  string `json:"status"`             // added, deleted, modified, renamed, copied
	Binary  bool   `json:"binary,omitempty"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
}

// Reviewer is one lens or persona's part of the run.
type Reviewer struct {
	Name      string         `json:"name"` // "correctness", or the persona's name
	Title     string         `json:"title"`
	Emoji     string         `json:"emoji,omitempty"`
	Kind      string         `json:"kind"`  // "lens", "persona" or "rules"
	Alert     string         `json:"alert"` // NOTE, TIP, IMPORTANT, WARNING, CAUTION
	Focus     []string       `json:"focus"`
	Noun      string         `json:"noun"` // what it counts, singular: "correctness issue"
	Model     string         `json:"model"`
	Summary   string         `json:"summary,omitempty"`
	Errors    []string       `json:"errors,omitempty"`   // a failed unit or a malformed answer
	Warnings  []string       `json:"warnings,omitempty"` // findings the answer parser dropped or repaired
	Units     int            `json:"units"`              // review units sent
	Raised    int            `json:"raised"`             // findings returned by the model
	Usage     provider.Usage `json:"usage"`
	WallSecs  float64        `json:"wall_seconds"`
	Succeeded bool           `json:"succeeded"`            // at least one unit answered and parsed
	Given     []GivenFile    `json:"given"`                // files and hunks it was given
	Missed    []string       `json:"missed,omitempty"`     // files of units it failed on
	Examined  []string       `json:"examined"`             // "path@rev:start-end" it read through tools
	ToolCalls []ToolCall     `json:"tool_calls,omitempty"` // every repository tool call, refused ones included
}

// GivenFile is a file a reviewer was given, with the hunks it saw.
type GivenFile struct {
	Path  string   `json:"path"`
	Hunks []string `json:"hunks"` // "-37,3 +40,18", as in the hunk headers
}

// ToolCall is one repository tool call of a reviewer.
type ToolCall struct {
	Tool      string `json:"tool"`
	Input     string `json:"input"` // the arguments, as compact JSON
	Bytes     int    `json:"bytes"` // returned to the model
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"` // why it was refused or failed
	// Download is the module version read_dependency had the go command download for the
	// call (or waited for), and DownloadMS how long the call waited.
	Download   string `json:"download,omitempty"`
	DownloadMS int64  `json:"download_ms,omitempty"`
}

// Coverage is the manifest of what was and was not reviewed.
type Coverage struct {
	Reviewed []string  `json:"reviewed"`
	Skipped  []Skipped `json:"skipped"`
	Units    []Unit    `json:"units"`
}

// Skipped is a file the plan left out, with why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Unit is one group of files reviewed in one request per reviewer.
type Unit struct {
	Files           []string `json:"files"`
	EstimatedTokens int      `json:"estimated_tokens"`
}

// Usage is the run's ledger.
type Usage struct {
	provider.Usage
	WallSeconds float64            `json:"wall_seconds"`
	Stages      map[string]float64 `json:"stages_seconds"` // wall seconds per pipeline stage
	// CacheWarmup is the part of the total spent on requests that only write the prompt cache
	// for the reviewers that follow; it belongs to no reviewer.
	CacheWarmup provider.Usage `json:"cache_warmup"`
}
