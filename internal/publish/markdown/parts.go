package markdown

import (
	"fmt"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

// The pieces of the layout that the other renderers of the seeds' layout (GitHub reviews)
// share with this one, so that a reviewer's callout, a location or a code fence reads the
// same wherever it is shown. They produce exactly what Render writes.

// FocusLine is the line inside a reviewer's callout: "Correctness lens · bugs · …" for a
// lens, "Casey · simulated reviewer · …" for a persona.
func FocusLine(rv report.Reviewer) string { return focusLine(rv) }

// Callout is a GitHub alert of the given kind ("CAUTION") saying lead and the errors: on one
// line for one error, as a list for several. It returns the lines of one Markdown block.
func Callout(kind, lead string, errs []string) []string { return callout(kind, lead, errs) }

// Title is the reviewer's display title, or its name when it has none.
func Title(rv report.Reviewer) string { return title(rv) }

// Prefix puts emoji and a space before s; s alone when there is no emoji.
func Prefix(emoji, s string) string { return prefix(emoji, s) }

// Location is "path:line" or "path:start-line", or just the path for a finding about the
// whole file.
func Location(f finding.Finding) string { return location(f) }

// Code wraps s in a code span that s's own backticks cannot close.
func Code(s string) string { return code(s) }

// Fence is a code fence longer than any run of backticks in s, at least three.
func Fence(s string) string { return fenceFor(s) }

// OneLine collapses s to a single line, for places where a line break would end the
// Markdown construct (a heading, a list item, a callout).
func OneLine(s string) string { return oneLine(s) }

// FirstParagraph is the text of body up to its first blank line, on one line.
func FirstParagraph(body string) string { return firstParagraph(body) }

// AlsoRaisedBy lists, by title, the reviewers of r other than its owner that raised f; ""
// when only the owner did.
func AlsoRaisedBy(r report.Report, f finding.Finding) string {
	p := printer{r: r}
	return p.alsoRaisedBy(f)
}

// maxEvidenceLinks is how many of its evidence a nit put up front by an ask learning links.
const maxEvidenceLinks = 3

// NitTitle is the finding's title on one line, with "nit: " before it when an ask learning put
// it up front: it is minor, and says so.
func NitTitle(f finding.Finding) string {
	if f.Learning != nil {
		return "nit: " + oneLine(f.Title)
	}
	return oneLine(f.Title)
}

// AskedLine says why a minor finding is shown up front: what the repository's reviewers ask
// for (the ask learning's text) and links to the evidence that they do; "" for any other
// finding.
func AskedLine(f finding.Finding) string {
	l := f.Learning
	if l == nil {
		return ""
	}
	line := fmt.Sprintf("_nit: reviewers of this repository ask for this (learning %s): %s", code(l.ID), oneLine(l.Text))
	var links []string
	for i, u := range l.Evidence {
		if i == maxEvidenceLinks {
			break
		}
		links = append(links, fmt.Sprintf("[%d](%s)", i+1, strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u)))
	}
	if len(links) > 0 {
		line += " (asked before: " + strings.Join(links, ", ") + ")"
	}
	return line + "_"
}
