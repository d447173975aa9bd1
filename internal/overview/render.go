package overview

import (
	"fmt"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
)

// Reviewer is the name the overview review carries in its marker.
const Reviewer = "overview"

// Render is the body of the overview review: the summary, the main changes, a table with every
// changed file of the report (a skipped file says why it was not reviewed), what the council
// covered, and the review marker a later run reads back. Text from the model is kept from
// closing the Markdown it sits in and from forging markers.
func Render(o Overview, rep report.Report) string {
	var b strings.Builder
	b.WriteString("## Pull request overview\n\n")
	if s := text(o.Summary); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	if len(o.Changes) > 0 {
		b.WriteString("**Changes:**\n\n")
		for _, c := range o.Changes {
			b.WriteString("- " + text(markdown.OneLine(c)) + "\n")
		}
		b.WriteString("\n")
	}
	if len(rep.Change.Files) > 0 {
		described := make(map[string]string, len(o.Files))
		for _, f := range o.Files {
			described[f.Path] = f.Description
		}
		skipped := make(map[string]string, len(rep.Coverage.Skipped))
		for _, s := range rep.Coverage.Skipped {
			skipped[s.Path] = s.Reason
		}
		reviewed := make(map[string]bool, len(rep.Coverage.Reviewed))
		for _, p := range rep.Coverage.Reviewed {
			reviewed[p] = true
		}
		b.WriteString("| File | Description |\n| --- | --- |\n")
		for _, f := range rep.Change.Files {
			fmt.Fprintf(&b, "| %s | %s |\n", fileCell(f), cell(describe(f.Path, described, skipped, reviewed)))
		}
		b.WriteString("\n")
	}
	comments := 0
	for _, f := range rep.Findings {
		if f.Status == finding.Reported || f.Status == finding.OtherNote {
			comments++
		}
	}
	noun := "comments"
	if comments == 1 {
		noun = "comment"
	}
	fmt.Fprintf(&b, "Council reviewed %d of %d changed files in this pull request and generated %d %s.\n\n",
		len(rep.Coverage.Reviewed), len(rep.Change.Files), comments, noun)
	b.WriteString(ghreview.ReviewMarker(Reviewer, rep.Change.HeadSHA))
	b.WriteString("\n")
	return b.String()
}

// describe is a file's description: why the plan skipped it, what the model said of it, or
// what is known without either.
func describe(path string, described, skipped map[string]string, reviewed map[string]bool) string {
	if reason, ok := skipped[path]; ok {
		if reason == "" {
			return "(not reviewed)"
		}
		return "(not reviewed: " + reason + ")"
	}
	if d := described[path]; d != "" {
		return d
	}
	if reviewed[path] {
		return PathOnly
	}
	return "(not reviewed)"
}

// fileCell names a file in a table cell: its path, or old → new for a rename or copy.
func fileCell(f report.ChangeFile) string {
	s := markdown.Code(markdown.OneLine(f.Path))
	if f.OldPath != "" && f.OldPath != f.Path {
		s = markdown.Code(markdown.OneLine(f.OldPath)) + " → " + s
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// cell puts s on one line of a table cell: a pipe, escaped, no longer ends the cell (GitHub
// honours the escape inside code spans too).
func cell(s string) string {
	return strings.ReplaceAll(text(markdown.OneLine(s)), "|", `\|`)
}

// text keeps model-written s from opening an HTML comment: a forged council marker would make
// a later run believe a review or a finding was already posted.
func text(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "<!--", "&lt;!--")
}
