// Package finding defines what a reviewer reports: one issue, anchored (or not) to the lines of
// a diff. It is a plain value type shared by every stage; it must never do I/O.
package finding

import (
	"fmt"
	"strings"
)

// Severity orders findings; --fail-on and severity floors compare with Rank.
type Severity string

// The severities of the model-facing contract, most severe first.
const (
	Critical Severity = "critical"
	High     Severity = "high"
	Medium   Severity = "medium"
	Low      Severity = "low"
	Nit      Severity = "nit"
)

// Severities lists the allowed values, most severe first.
var Severities = []Severity{Critical, High, Medium, Low, Nit}

// Rank is higher for more severe findings; 0 for an unknown severity.
func (s Severity) Rank() int {
	for i, v := range Severities {
		if v == s {
			return len(Severities) - i
		}
	}
	return 0
}

// ParseSeverity accepts a severity name in any case.
func ParseSeverity(s string) (Severity, error) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	if v.Rank() == 0 {
		return "", fmt.Errorf("unknown severity %q (allowed: %s)", s, joinSeverities())
	}
	return v, nil
}

func joinSeverities() string {
	names := make([]string, len(Severities))
	for i, s := range Severities {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Categories are the short tags of the model-facing contract.
var Categories = []string{"bug", "concurrency", "error-handling", "security", "performance", "tests", "docs", "naming", "api-design", "style", "other"}

// Side says which side of the diff a line number refers to, as GitHub names them.
type Side string

// The two sides of a diff.
const (
	Right Side = "RIGHT" // new file: added and context lines
	Left  Side = "LEFT"  // old file: deleted lines
)

// Status says what became of a finding.
type Status string

// The statuses a finding ends in.
const (
	Reported  Status = "reported"   // anchored to diff lines, shown inline
	OtherNote Status = "other_note" // could not be anchored; shown in the review body with path:line
	Filtered  Status = "filtered"   // removed by a stage, kept in the artifact with FilterReason
	// Minor is true of the code but not worth a maintainer's attention before merging (style,
	// wording, speculative hardening, nits), as the validator judged it: listed once, collapsed,
	// in the review body instead of an inline comment.
	Minor Status = "minor"
)

// Validation is what the validator decided about a finding, and why.
type Validation struct {
	// Decision is keep, lower (kept with a lower severity), narrow (kept with only the claims
	// that hold), reject (then the finding is Filtered) or error (it could not be checked).
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	// SeverityBefore is the reviewer's severity when the validator lowered it.
	SeverityBefore Severity `json:"severity_before,omitempty"`
	// Merged lists the IDs of findings the validator found to make the same point, folded
	// into this one (their reviewers are credited in Lenses).
	Merged []string `json:"merged,omitempty"`
	// Ask is the id of the repository's ask learning ("reviewers here ask for X") that the
	// validator found the finding to be an instance of; "" for none.
	Ask string `json:"ask,omitempty"`
}

// Finding is one issue raised by one or more reviewers.
//
// Line and StartLine start as the model's hint; the anchor stage rewrites them to the lines the
// quote was found on and keeps the hint in HintLine/HintStartLine.
type Finding struct {
	ID            string   `json:"id"`
	Lenses        []string `json:"lenses"` // every reviewer that raised it; the first owns it
	Path          string   `json:"path"`
	Line          int      `json:"line,omitempty"`
	StartLine     int      `json:"start_line,omitempty"`
	Side          Side     `json:"side"`
	Quote         string   `json:"quote,omitempty"`
	Severity      Severity `json:"severity"`
	Category      string   `json:"category"`
	Title         string   `json:"title"`
	Body          string   `json:"body"`
	Suggestion    string   `json:"suggestion,omitempty"` // replacement for exactly the anchored lines
	Confidence    float64  `json:"confidence"`
	FixPrompt     string   `json:"fix_prompt,omitempty"`
	Anchored      bool     `json:"anchored"`
	HintLine      int      `json:"hint_line,omitempty"`
	HintStartLine int      `json:"hint_start_line,omitempty"`
	AnchorNote    string   `json:"anchor_note,omitempty"` // why it is not anchored, or how it was
	Status        Status   `json:"status"`
	FilterReason  string   `json:"filter_reason,omitempty"`
	// Learning is set when an ask learning put this minor finding up front as a nit: what the
	// repository's reviewers ask for, and the evidence that they do.
	Learning *LearningRef `json:"learning,omitempty"`
	// Validation is the validator's verdict, when it checked the finding.
	Validation *Validation `json:"validation,omitempty"`
	// Versions holds every reviewer's version of a finding that merged duplicates, the
	// owner's first, as consolidate found them: the validator is shown them all. Not output.
	Versions []Finding `json:"-"`
}

// Owner is the reviewer that owns the finding (the first to raise it).
func (f Finding) Owner() string {
	if len(f.Lenses) == 0 {
		return ""
	}
	return f.Lenses[0]
}

// LearningRef names the learning that put a finding up front, with what reviewers see of it.
type LearningRef struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Evidence []string `json:"evidence,omitempty"` // URLs of what the reviewers asked for
}
