// Package sarif renders a report as a SARIF 2.1.0 log (OASIS Static Analysis Results
// Interchange Format), the format GitHub code scanning, IDE viewers and many dashboards read.
//
// The log has one run. Each reviewer that owns a finding is a rule; each finding is a result
// under its owner's rule, located by path and lines and fingerprinted by the finding's stable
// ID, so that consumers can follow it from one run to the next. A suggestion anchored on the
// new side of the diff becomes a fix. Filtered findings stay in the log as suppressed results
// with the filter's reason, and a reviewer that failed makes the invocation unsuccessful, with
// one notification per error: nothing in the report is dropped on the way.
//
// It is pure: a report in, JSON out, the same bytes for the same report. It must never read
// files, decide what a finding means, or leave a finding out.
package sarif

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// The identifiers of the format and of the values this package writes.
const (
	// SchemaURI is the JSON schema the log names in its $schema property.
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	// Version is the SARIF version written.
	Version = "2.1.0"
	// FingerprintKey names the finding ID in each result's partialFingerprints. The version
	// suffix changes if the way finding IDs are computed ever does.
	FingerprintKey = "councilFinding/v1"
	// SrcRoot is the uriBaseId of every artifact location: paths are relative to the root of
	// the repository reviewed.
	SrcRoot = "%SRCROOT%"
)

// Options controls Write.
type Options struct {
	// ToolVersion is the driver's version. Empty means the report's Tool.Version.
	ToolVersion string
	// InformationURI is an absolute URI where users can read about the tool. Empty omits it.
	InformationURI string
}

// Write writes r to w as an indented SARIF 2.1.0 log. The output depends on r and o alone.
func Write(w io.Writer, r report.Report, o Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Messages are Markdown and suggestions are code; \u003c in place of < helps nobody.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(build(r, o)); err != nil {
		return fmt.Errorf("write sarif: %w", err)
	}
	return nil
}

// The types below mirror the parts of the SARIF object model this package writes; field
// names and omissions follow the specification, not Go conventions.

type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []run  `json:"runs"`
}

type run struct {
	Tool        tool         `json:"tool"`
	Invocations []invocation `json:"invocations"`
	// columnKind is required whenever results is non-empty. No column this package writes
	// is other than 1, which means the same in either unit.
	ColumnKind string        `json:"columnKind"`
	Results    []result      `json:"results"`
	Properties runProperties `json:"properties"`
}

type runProperties struct {
	Base    string `json:"base,omitempty"`
	Head    string `json:"head,omitempty"`
	BaseSHA string `json:"baseSha,omitempty"`
	HeadSHA string `json:"headSha,omitempty"`
	DryRun  bool   `json:"dryRun,omitempty"`
}

type tool struct {
	Driver driver `json:"driver"`
}

type driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []rule `json:"rules"`
}

type rule struct {
	ID               string         `json:"id"`
	Name             string         `json:"name,omitempty"`
	ShortDescription message        `json:"shortDescription"`
	Properties       ruleProperties `json:"properties"`
}

type ruleProperties struct {
	Kind string `json:"kind,omitempty"`
}

// message serves as both a message and a multiformatMessageString: plain text only.
type message struct {
	Text string `json:"text"`
}

type invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ToolExecutionNotifications []notification `json:"toolExecutionNotifications,omitempty"`
}

type notification struct {
	Level      string                 `json:"level"`
	Message    message                `json:"message"`
	Properties notificationProperties `json:"properties"`
}

type notificationProperties struct {
	Reviewer string `json:"reviewer,omitempty"`
	Source   string `json:"source"` // "reviewer", "validation" or "run"
}

type result struct {
	RuleID              string            `json:"ruleId,omitempty"`
	RuleIndex           *int              `json:"ruleIndex,omitempty"` // 0 is a valid index
	Level               string            `json:"level"`
	Message             message           `json:"message"`
	Locations           []location        `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Fixes               []fix             `json:"fixes,omitempty"`
	Suppressions        []suppression     `json:"suppressions,omitempty"`
	Properties          resultProperties  `json:"properties"`
}

type resultProperties struct {
	Severity   string   `json:"severity"`
	Category   string   `json:"category"`
	Confidence float64  `json:"confidence"`
	Lenses     []string `json:"lenses"`
	Status     string   `json:"status"`
	Anchored   bool     `json:"anchored"`
	Side       string   `json:"side"`
	// A finding on deleted lines has no place in the new file; its old line numbers are
	// kept here instead of in a region that would point at the wrong code.
	BaseStartLine int    `json:"baseStartLine,omitempty"`
	BaseEndLine   int    `json:"baseEndLine,omitempty"`
	FixPrompt     string `json:"fixPrompt,omitempty"`
}

type location struct {
	PhysicalLocation physicalLocation `json:"physicalLocation"`
}

type physicalLocation struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Region           *region          `json:"region,omitempty"`
}

type artifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type fix struct {
	Description     message          `json:"description"`
	ArtifactChanges []artifactChange `json:"artifactChanges"`
}

type artifactChange struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Replacements     []replacement    `json:"replacements"`
}

type replacement struct {
	DeletedRegion   region          `json:"deletedRegion"`
	InsertedContent artifactContent `json:"insertedContent"`
}

type artifactContent struct {
	Text string `json:"text"`
}

type suppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

func build(r report.Report, o Options) sarifLog {
	version := o.ToolVersion
	if version == "" {
		version = r.Tool.Version
	}
	rules, index := rulesFor(r)
	results := make([]result, 0, len(r.Findings))
	for _, f := range r.Findings {
		results = append(results, resultFor(f, index))
	}
	return sarifLog{
		Schema:  SchemaURI,
		Version: Version,
		Runs: []run{{
			Tool: tool{Driver: driver{
				Name:           "council",
				Version:        version,
				InformationURI: o.InformationURI,
				Rules:          rules,
			}},
			Invocations: []invocation{invocationFor(r)},
			ColumnKind:  "unicodeCodePoints",
			Results:     results,
			Properties: runProperties{
				Base: r.Change.Base, Head: r.Change.Head,
				BaseSHA: r.Change.BaseSHA, HeadSHA: r.Change.HeadSHA,
				DryRun: r.DryRun,
			},
		}},
	}
}

// rulesFor returns one rule per reviewer that owns a finding, in the report's reviewer order,
// then owners the report has no reviewer for, in order of appearance; and each rule's index.
func rulesFor(r report.Report) ([]rule, map[string]int) {
	owners := map[string]bool{}
	var order []string
	for _, f := range r.Findings {
		if o := f.Owner(); o != "" && !owners[o] {
			owners[o] = true
			order = append(order, o)
		}
	}
	rules := []rule{}
	index := map[string]int{}
	add := func(rl rule) {
		index[rl.ID] = len(rules)
		rules = append(rules, rl)
	}
	for _, rv := range r.Reviewers {
		if !owners[rv.Name] {
			continue
		}
		if _, dup := index[rv.Name]; dup {
			continue
		}
		desc := strings.Join(rv.Focus, ", ")
		if desc == "" {
			desc = firstNonEmpty(rv.Title, rv.Name)
		}
		add(rule{
			ID:               rv.Name,
			Name:             rv.Title,
			ShortDescription: message{Text: desc},
			Properties:       ruleProperties{Kind: rv.Kind},
		})
	}
	for _, o := range order {
		if _, ok := index[o]; !ok {
			add(rule{ID: o, Name: o, ShortDescription: message{Text: o}})
		}
	}
	return rules, index
}

func resultFor(f finding.Finding, index map[string]int) result {
	side := f.Side
	if side == "" {
		side = finding.Right
	}
	res := result{
		Level:   level(f.Severity),
		Message: message{Text: text(f)},
		Properties: resultProperties{
			Severity:   string(f.Severity),
			Category:   f.Category,
			Confidence: f.Confidence,
			Lenses:     orEmpty(f.Lenses),
			Status:     string(f.Status),
			Anchored:   f.Anchored,
			Side:       string(side),
			FixPrompt:  f.FixPrompt,
		},
	}
	if o := f.Owner(); o != "" {
		i := index[o]
		res.RuleID, res.RuleIndex = o, &i
	}
	start, end := lines(f)
	if f.Path != "" {
		art := artifactLocation{URI: uri(f.Path), URIBaseID: SrcRoot}
		loc := location{PhysicalLocation: physicalLocation{ArtifactLocation: art}}
		switch {
		case end == 0:
		case side == finding.Left:
			res.Properties.BaseStartLine, res.Properties.BaseEndLine = start, end
		default:
			loc.PhysicalLocation.Region = &region{StartLine: start, EndLine: end}
		}
		res.Locations = []location{loc}
		if f.Suggestion != "" && f.Anchored && side == finding.Right && end > 0 {
			res.Fixes = []fix{{
				Description: message{Text: "Apply the suggested change"},
				ArtifactChanges: []artifactChange{{
					ArtifactLocation: art,
					Replacements: []replacement{{
						// Whole lines with their line breaks: from column 1 of the first line
						// to column 1 of the line after the last (SARIF 2.1.0, text regions).
						DeletedRegion:   region{StartLine: start, StartColumn: 1, EndLine: end + 1, EndColumn: 1},
						InsertedContent: artifactContent{Text: strings.TrimSuffix(f.Suggestion, "\n") + "\n"},
					}},
				}},
			}}
		}
	}
	if f.Status == finding.Minor {
		res.Level = "note" // true but minor, whatever its severity
	}
	if f.ID != "" {
		res.PartialFingerprints = map[string]string{FingerprintKey: f.ID}
	}
	if f.Status == finding.Filtered {
		res.Suppressions = []suppression{{
			Kind:          "external",
			Status:        "accepted",
			Justification: firstNonEmpty(f.FilterReason, "filtered; no reason recorded"),
		}}
	}
	return res
}

// lines returns the finding's first and last line, or 0, 0 when it has none.
func lines(f finding.Finding) (start, end int) {
	if f.Line <= 0 {
		return 0, 0
	}
	start = f.StartLine
	if start <= 0 || start > f.Line {
		start = f.Line
	}
	return start, f.Line
}

// level maps a severity to a SARIF level. An unknown severity gets SARIF's default, warning.
func level(s finding.Severity) string {
	switch s {
	case finding.Critical, finding.High:
		return "error"
	case finding.Low, finding.Nit:
		return "note"
	default:
		return "warning"
	}
}

func text(f finding.Finding) string {
	var b strings.Builder
	b.WriteString(f.Title)
	if body := strings.TrimSpace(f.Body); body != "" {
		b.WriteString("\n\n")
		b.WriteString(body)
	}
	if len(f.Lenses) > 1 {
		b.WriteString("\n\nAlso raised by: ")
		b.WriteString(strings.Join(f.Lenses[1:], ", "))
	}
	return b.String()
}

// uri turns a repository path into a relative URI reference: each segment percent-encoded,
// so that spaces and non-ASCII names stay valid, the slashes kept. A colon in the first
// segment is encoded too, or "a:b.go" would read as a URI with the scheme "a".
func uri(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	segs[0] = strings.ReplaceAll(segs[0], ":", "%3A")
	return strings.Join(segs, "/")
}

func invocationFor(r report.Report) invocation {
	inv := invocation{ExecutionSuccessful: true}
	for _, rv := range r.Reviewers {
		for _, e := range rv.Errors {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, notification{
				Level:      "error",
				Message:    message{Text: rv.Name + ": " + e},
				Properties: notificationProperties{Reviewer: rv.Name, Source: "reviewer"},
			})
		}
	}
	for _, rv := range r.Reviewers {
		for _, w := range rv.Warnings {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, notification{
				Level:      "warning",
				Message:    message{Text: rv.Name + ": " + w},
				Properties: notificationProperties{Reviewer: rv.Name, Source: "reviewer"},
			})
		}
	}
	for _, e := range r.Validation.Errors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, notification{
			Level:      "warning",
			Message:    message{Text: "validation: " + e},
			Properties: notificationProperties{Source: "validation"},
		})
	}
	for _, d := range r.Degraded {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, notification{
			Level:      "warning",
			Message:    message{Text: d},
			Properties: notificationProperties{Source: "run"},
		})
	}
	return inv
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
