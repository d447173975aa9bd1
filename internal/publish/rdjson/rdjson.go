// Package rdjson renders a report in reviewdog's Diagnostic Format as a single JSON document
// (rdjson, the DiagnosticResult message of reviewdog's proto/rdf/reviewdog.proto), so that
// `reviewdog -f=rdjson` can post the council's findings with any of its reporters.
//
// Only the findings the review shows are written: reported ones and other notes. reviewdog
// has no way to carry a suppressed diagnostic, so filtered findings are left out here; they
// stay in the JSON and SARIF outputs with their reasons. Line numbers in rdjson refer to the
// new file, so a finding on deleted lines is located by its path alone (its old lines are named
// in original_output).
//
// original_output is one line in the form a linter prints, `path:line: severity: title
// (reviewer)`, because that is what reviewdog's local reporter prints for each diagnostic. The
// whole finding is in the JSON output.
//
// A suggestion anchored on the new side becomes a reviewdog suggestion over exactly the
// finding's lines, written line-wise (no columns): reviewdog then replaces those whole lines
// and its GitHub reporter turns it into a committable suggestion over the same lines as the
// comment.
//
// It is pure: a report in, JSON out, the same bytes for the same report. It must never read
// files or decide what a finding means.
package rdjson

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// SourceURL is the URL of the result's source.
const SourceURL = "https://github.com/council-dev/council"

// Write writes the report's shown findings to w as an indented rdjson document. The output
// depends on r alone.
func Write(w io.Writer, r report.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Messages are Markdown and suggestions are code; \u003c in place of < helps nobody.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(build(r)); err != nil {
		return fmt.Errorf("write rdjson: %w", err)
	}
	return nil
}

// The types below mirror reviewdog.rdf messages in their JSON form; field names follow the
// proto, not Go conventions.

type diagnosticResult struct {
	Source      source       `json:"source"`
	Severity    string       `json:"severity,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type source struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type diagnostic struct {
	Message        string       `json:"message"`
	Location       location     `json:"location"`
	Severity       string       `json:"severity"`
	Source         *source      `json:"source,omitempty"`
	Code           *code        `json:"code,omitempty"`
	Suggestions    []suggestion `json:"suggestions,omitempty"`
	OriginalOutput string       `json:"original_output,omitempty"`
}

type location struct {
	Path  string `json:"path"`
	Range *span  `json:"range,omitempty"`
}

// span is reviewdog's Range. With no columns on either end it is line-wise and includes the
// end line.
type span struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type position struct {
	Line   int `json:"line"`
	Column int `json:"column,omitempty"`
}

type code struct {
	Value string `json:"value"`
}

type suggestion struct {
	Range span   `json:"range"`
	Text  string `json:"text"`
}

// Severities in rdjson's spelling.
const (
	sevError   = "ERROR"
	sevWarning = "WARNING"
	sevInfo    = "INFO"
)

func build(r report.Report) diagnosticResult {
	res := diagnosticResult{
		Source:      source{Name: "council", URL: SourceURL},
		Diagnostics: []diagnostic{},
	}
	worst := 0
	for _, f := range r.Findings {
		if f.Status != finding.Reported && f.Status != finding.OtherNote {
			continue
		}
		d := diagnosticFor(f)
		if rank := sevRank(d.Severity); rank > worst {
			worst, res.Severity = rank, d.Severity
		}
		res.Diagnostics = append(res.Diagnostics, d)
	}
	return res
}

func diagnosticFor(f finding.Finding) diagnostic {
	side := f.Side
	if side == "" {
		side = finding.Right
	}
	d := diagnostic{
		Message:        text(f),
		Location:       location{Path: f.Path},
		Severity:       severity(f.Severity),
		OriginalOutput: originalOutput(f, side),
	}
	if o := f.Owner(); o != "" {
		d.Source = &source{Name: o}
	}
	if f.Category != "" {
		d.Code = &code{Value: f.Category}
	}
	start, end := lines(f)
	if end == 0 || side != finding.Right {
		return d
	}
	lineWise := span{Start: position{Line: start}, End: position{Line: end}}
	d.Location.Range = &lineWise
	if f.Suggestion != "" && f.Anchored {
		// Line-wise, the range ends at the end line's last character, not after its line
		// break, and reviewdog adds the break back when it renders the suggestion: the text
		// must not end with one.
		d.Suggestions = []suggestion{{Range: lineWise, Text: strings.TrimSuffix(f.Suggestion, "\n")}}
	}
	return d
}

// originalOutput is the line `reviewdog -reporter=local` prints for the finding. With
// -f=rdjson that reporter prints original_output verbatim, and when it is empty reviewdog
// fills it with the protobuf debug text of the whole diagnostic, so the line is written here,
// after the convention reviewdog follows when it makes one itself (its checkstyle parser):
// `path:line: severity: message (rule)`.
//
// The line is the range's start line, as in reviewdog's own `path:line:` output (its unified
// writer) and in compilers' messages, so that an editor's jump lands on the first line of the
// finding. The severity is council's own (critical … nit), which keeps apart what reviewdog's
// three levels merge; the diagnostic's severity field carries reviewdog's level. The "rule" is
// the reviewer that owns the finding, as in SARIF's ruleId.
func originalOutput(f finding.Finding, side finding.Side) string {
	var b strings.Builder
	b.WriteString(f.Path)
	start, end := lines(f)
	if start > 0 && side == finding.Right {
		fmt.Fprintf(&b, ":%d", start)
	}
	sev := string(f.Severity)
	if f.Severity.Rank() == 0 {
		sev = strings.ToLower(severity(f.Severity))
	}
	b.WriteString(": " + sev + ": " + oneLine(f.Title))
	var notes []string
	if o := f.Owner(); o != "" {
		notes = append(notes, o)
	}
	// rdjson's lines are the new file's, so old lines cannot go in front as path:line; they
	// are named here instead, as they cannot be found anywhere else in the diagnostic.
	if start > 0 && side != finding.Right {
		if start == end {
			notes = append(notes, fmt.Sprintf("old line %d", start))
		} else {
			notes = append(notes, fmt.Sprintf("old lines %d-%d", start, end))
		}
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	return b.String()
}

// oneLine collapses runs of white space, line breaks included: a line break would split the
// diagnostic over two lines of reviewdog's output.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
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

// severity maps a council severity to reviewdog's. An unknown one is a warning, as in SARIF.
func severity(s finding.Severity) string {
	switch s {
	case finding.Critical, finding.High:
		return sevError
	case finding.Low, finding.Nit:
		return sevInfo
	default:
		return sevWarning
	}
}

func sevRank(s string) int {
	switch s {
	case sevError:
		return 3
	case sevWarning:
		return 2
	case sevInfo:
		return 1
	}
	return 0
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
