package anchor

import (
	"regexp"
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// form is one reading of a quote. Models copy code from the numbered diff they were shown,
// sometimes with its line-number column or its "+"/"-" markers; each such reading is tried
// only after the quote as given failed.
type form struct {
	lines   []string
	how     string       // what was stripped, for AnchorNote; "" for the quote as given
	prefer  finding.Side // the side the markers point to; "" when they say nothing
	mixed   bool         // both "-" and "+" lines: match against the hunks as they are
	markers []byte       // the marker of each line, for mixed forms
	prefix  bool         // a form with stripped prefixes; a suggestion may carry the same ones
}

// numbered matches the line-number column of our rendering of a hunk ("  12 | +code",
// "  11  12 |  code"). The marker is captured; a blank context line may have lost its
// trailing spaces.
var numbered = regexp.MustCompile(`^\s*\d*\s+\d*\s\|(?:\s([ +-])|\s?$)`)

// numberedContext matches the prefix of a line shown as context outside the hunks ("  32 :  code"
// in the diff, "  46 : code" in the code beyond it). Such a line is unchanged: a quote of it
// anchors only where the same lines are inside a hunk, and otherwise becomes an other note.
var numberedContext = regexp.MustCompile(`^\s*\d+ :(?: ?$|  ?)`)

const noNewline = `\ No newline at end of file`

// quoteForms returns the readings of q to try, in order, or nil for an empty quote.
func quoteForms(q string) []form {
	for strings.HasSuffix(q, "\n") {
		q = strings.TrimSuffix(strings.TrimSuffix(q, "\n"), "\r")
	}
	if strings.TrimSpace(q) == "" {
		return nil
	}
	all := strings.Split(q, "\n")
	lines := all[:0]
	for _, l := range all {
		// Copied from a rendered diff along with the code; it is not a line of the file.
		if strings.TrimSpace(l) != noNewline {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	forms := []form{{lines: lines}}
	if f, ok := numberedForm(lines); ok {
		forms = append(forms, f)
	}
	if f, ok := markedForm(lines); ok {
		forms = append(forms, f)
	}
	return forms
}

func numberedForm(lines []string) (form, bool) {
	out := make([]string, len(lines))
	markers := make([]byte, len(lines))
	for i, l := range lines {
		markers[i] = ' '
		if m := numbered.FindStringSubmatchIndex(l); m != nil {
			if m[2] >= 0 {
				markers[i] = l[m[2]]
			}
			out[i] = l[m[1]:]
			continue
		}
		m := numberedContext.FindStringIndex(l)
		if m == nil {
			return form{}, false
		}
		out[i] = l[m[1]:]
	}
	return withMarkers(out, markers, "line-number prefixes stripped"), true
}

func markedForm(lines []string) (form, bool) {
	out := make([]string, len(lines))
	markers := make([]byte, len(lines))
	marked := false
	for i, l := range lines {
		if l == "" {
			// A blank context line whose leading space was lost.
			markers[i] = ' '
			continue
		}
		switch l[0] {
		case ' ', '+', '-':
			markers[i] = l[0]
			out[i] = l[1:]
			marked = true
		default:
			return form{}, false
		}
	}
	if !marked {
		return form{}, false
	}
	return withMarkers(out, markers, "diff markers stripped"), true
}

func withMarkers(lines []string, markers []byte, how string) form {
	f := form{lines: lines, how: how, markers: markers, prefix: true}
	added, deleted := false, false
	for _, m := range markers {
		added = added || m == '+'
		deleted = deleted || m == '-'
	}
	switch {
	case added && deleted:
		f.mixed = true
	case added:
		f.prefer = finding.Right
	case deleted:
		f.prefer = finding.Left
	}
	return f
}
