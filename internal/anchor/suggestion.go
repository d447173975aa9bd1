package anchor

import (
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// checkSuggestion keeps f's suggestion only if committing it on GitHub would replace exactly
// the lines it was written for. Otherwise the text moves into the body, where a reader can
// still use it but nobody can commit it onto the wrong lines. It returns a note for
// AnchorNote, or "".
func checkSuggestion(f *finding.Finding, m match, fm form) string {
	if f.Suggestion == "" {
		return ""
	}
	var notes []string
	if fm.prefix {
		// The quote was copied with diff markers; a suggestion copied the same way would
		// commit literal "+" characters.
		if s, ok := stripAdded(f.Suggestion); ok {
			f.Suggestion = s
			notes = append(notes, "diff markers stripped from the suggestion")
		}
	}
	s := trimNewlines(f.Suggestion)
	if s == strings.Join(m.text, "\n") || (m.quote != nil && s == strings.Join(m.quote, "\n")) {
		f.Suggestion = ""
		return strings.Join(append(notes, "suggestion dropped: it does not change the lines"), "; ")
	}
	var why string
	switch {
	case m.side == finding.Left:
		why = "a suggestion cannot replace deleted lines"
	case m.how == howSubstring:
		why = "the quote matched only part of a line"
	case m.quote == nil:
		why = "no quote says which lines it replaces"
	case len(m.quote) != len(m.text):
		why = "the quote does not cover the same lines as the comment"
	}
	if why != "" {
		moveToBody(f)
		notes = append(notes, "suggestion moved to the body: "+why)
	}
	return strings.Join(notes, "; ")
}

// moveToBody appends the suggestion to the body as a plain fenced block and clears it.
func moveToBody(f *finding.Finding) {
	s := trimNewlines(f.Suggestion)
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	var b strings.Builder
	if body := strings.TrimRight(f.Body, "\n"); body != "" {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	b.WriteString("Suggested change:\n\n")
	b.WriteString(fence + "\n" + s + "\n" + fence)
	f.Body = b.String()
	f.Suggestion = ""
}

// stripAdded removes a leading "+" from every line when every non-empty line has one.
func stripAdded(s string) (string, bool) {
	lines := strings.Split(trimNewlines(s), "\n")
	found := false
	for i, l := range lines {
		if l == "" {
			continue
		}
		if l[0] != '+' {
			return s, false
		}
		lines[i] = l[1:]
		found = true
	}
	if !found {
		return s, false
	}
	return strings.Join(lines, "\n"), true
}

func trimNewlines(s string) string {
	for strings.HasSuffix(s, "\n") {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	return s
}
