package ghreview

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/publish/markdown"
)

var footerRE = regexp.MustCompile(`🤖 [^\n]* · (\d+) inline comment\(s\)`)

// Demote returns rv with the comments at the given indexes moved into its body's other notes,
// each with the reason GitHub gave, and the footer's count updated. It is for the rare comment
// GitHub still answers with a 422 although Build checked it against the diff (the PR moved on
// meanwhile): the finding is then shown in the body rather than lost. Indexes out of range
// are ignored; rv itself is not modified.
func Demote(rv Review, bad map[int]string) Review {
	out := rv
	out.Comments = make([]Comment, 0, len(rv.Comments))
	body := rv.Body
	for i, c := range rv.Comments {
		reason, ok := bad[i]
		if !ok {
			out.Comments = append(out.Comments, c)
			continue
		}
		note := c.Note
		if note == "" {
			note = markdown.Code(c.Path + ":" + strconv.Itoa(c.Line))
		}
		why := "GitHub rejected the comment"
		if reason = markdown.OneLine(reason); reason != "" {
			why += ": " + reason
		}
		marker := Marker(MarkerInfo{ID: c.FindingID, Reviewer: c.Reviewer, Category: c.Category, Severity: c.Severity})
		body = addNote(body, c.Reviewer, noteLine(note, why, marker))
	}
	out.Body = setFooter(body, len(out.Comments))
	return out
}

// addNote appends line to reviewer's other notes in body, starting the list if the reviewer
// has none. A reviewer's part of a body ends with its review marker (a per-reviewer review
// has its footer just before it); the part starts after the previous review marker.
func addNote(body, reviewer, line string) string {
	end := len(body)
	if i := strings.Index(body, "<!-- "+markerTag+" review reviewer="+escape(reviewer)+" "); i >= 0 {
		end = i
	}
	start := 0
	if i := strings.LastIndex(body[:end], "<!-- "+markerTag+" review "); i >= 0 {
		start = i + strings.Index(body[i:], "-->") + len("-->")
	}
	part := body[start:end]

	if h := strings.LastIndex(part, notesHeading+"\n\n"); h >= 0 {
		list := start + h + len(notesHeading) + 2
		at := end
		if i := strings.Index(body[list:end], "\n\n"); i >= 0 {
			at = list + i
		}
		return body[:at] + "\n" + line + body[at:]
	}

	at := end
	if locs := footerRE.FindAllStringIndex(part, -1); len(locs) > 0 {
		at = start + locs[len(locs)-1][0]
	}
	block := notesHeading + "\n\n" + line
	switch {
	case at == len(body):
		return strings.TrimRight(body, "\n") + "\n\n" + block
	default:
		return body[:at] + block + "\n\n" + body[at:]
	}
}

// setFooter sets the count of the body's footer, the last one if there are several.
func setFooter(body string, n int) string {
	locs := footerRE.FindAllStringSubmatchIndex(body, -1)
	if len(locs) == 0 {
		return body
	}
	last := locs[len(locs)-1]
	return body[:last[2]] + strconv.Itoa(n) + body[last[3]:]
}
