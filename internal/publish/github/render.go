package ghreview

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
)

// notesHeading opens a reviewer's other notes; Demote finds the list by it.
const notesHeading = "**Other notes (not anchored to a diff line):**"

// alert is the reviewer's callout with its focus line, as in the seeds.
func (b *builder) alert(rv report.Reviewer) string {
	kind := strings.ToUpper(strings.TrimSpace(rv.Alert))
	if kind == "" {
		kind = "NOTE"
	}
	return "> [!" + kind + "]\n> " + markdown.FocusLine(rv)
}

// degraded says at the top of a review that the run was degraded, if it was.
func (b *builder) degraded() []string {
	if len(b.r.Degraded) == 0 {
		return nil
	}
	return []string{strings.Join(markdown.Callout("WARNING", "This run was degraded, so the review may be incomplete", PublicWarnings(b.r.Degraded)), "\n")}
}

// rawErrorAfter lists the warnings of a degraded run (report.Degraded, as the engine writes
// them) that end in an error as the model provider returned it, by the text before the error.
var rawErrorAfter = []string{
	"prompt cache warm-up failed, so reviewers may have paid for the whole prompt: ",
	"validator's prompt cache warm-up failed: ",
}

// PublicWarnings is what a pull request is told of a degraded run: each warning of degraded,
// without the model provider's raw error when it ends in one (the run's log and its JSON
// output keep the full text), and each said once.
func PublicWarnings(degraded []string) []string {
	var out []string
	for _, d := range degraded {
		for _, p := range rawErrorAfter {
			if strings.HasPrefix(d, p) {
				d = strings.TrimSuffix(p, ": ") + " (the error is in the run's log)"
				break
			}
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// partlyFailed is the caution of a reviewer that failed on part of the change. It does not
// quote the errors: they are the provider's raw words, for the run's log, not the pull request.
const partlyFailed = "> [!CAUTION]\n> Part of this review failed, so it may be incomplete; the errors are in the run's log."

func (b *builder) footer(inline int) string {
	return fmt.Sprintf("🤖 %s · %d inline comment(s)", b.o.Council, inline)
}

// hint ends every inline comment, small and in the footer's words: a reply or a reaction on
// the comment is the feedback council learns from (the marker after the hint says which
// finding, reviewer, category and severity it is about), and a question in a reply is answered
// on the next posting run. It is said where a reader has something to say, not in the body.
func (b *builder) hint() string {
	return fmt.Sprintf("<sub>🤖 %s · reply or react 👍/👎 to teach it about this repository</sub>", b.o.Council)
}

// sectionBody is what a reviewer says in the body, between its callout and the footer: the
// headline count, a partial failure, the summary and the other notes.
func (b *builder) sectionBody(s *section) []string {
	rv := s.rv
	tally := b.r.Counts()[rv.Name]
	// A reviewer that failed with nothing to show has no section (worthPosting): one here
	// that failed did so on part of the change only.
	blocks := []string{"**" + markdown.Headline(rv.Noun, tally.Shown()) + "**"}
	if len(rv.Errors) > 0 {
		blocks = append(blocks, partlyFailed)
	}
	switch {
	case s.posted == 1:
		blocks = append(blocks, "_1 finding was posted on an earlier run and is not repeated._")
	case s.posted > 1:
		blocks = append(blocks, fmt.Sprintf("_%d findings were posted on an earlier run and are not repeated._", s.posted))
	}
	if summary := strings.TrimSpace(rv.Summary); summary != "" {
		blocks = append(blocks, summary)
	}
	if len(rv.Missed) > 0 {
		missed := make([]string, len(rv.Missed))
		for i, m := range rv.Missed {
			missed[i] = markdown.Code(m)
		}
		blocks = append(blocks, fmt.Sprintf("**Not reviewed by %s** (its part of the change failed): %s", markdown.Title(rv), strings.Join(missed, ", ")))
	}
	if len(s.notes) > 0 {
		lines := make([]string, len(s.notes))
		for i, e := range s.notes {
			lines[i] = noteLine(b.noteText(e.f), e.reason, findingMarker(e.f, ownerName(e.f)))
		}
		blocks = append(blocks, notesHeading, strings.Join(lines, "\n"))
	}
	if len(s.minor) > 0 {
		lines := make([]string, len(s.minor))
		for i, e := range s.minor {
			lines[i] = noteLine(b.noteText(e.f), "", findingMarker(e.f, ownerName(e.f)))
		}
		blocks = append(blocks, fmt.Sprintf("<details><summary>Minor notes (%d)</summary>\n\n%s\n\n</details>", len(lines), strings.Join(lines, "\n")))
	}
	return blocks
}

// noteLine is one item of the other notes: the note, why it is not inline (when it was meant
// to be), and the finding's marker.
func noteLine(note, reason, marker string) string {
	line := "- " + note
	if reason != "" {
		line += " (not inline: " + markdown.OneLine(reason) + ")"
	}
	return line + " " + marker
}

// noteText is a finding as an other note: "[`path:line`](permalink) — title: first paragraph".
func (b *builder) noteText(f finding.Finding) string {
	text := markdown.OneLine(f.Title)
	if para := markdown.FirstParagraph(f.Body); para != "" {
		if text != "" {
			text += ": "
		}
		text += para
	}
	note := b.link(f) + " — " + text
	if also := markdown.AlsoRaisedBy(b.r, f); also != "" {
		note += " (also raised by " + also + ")"
	}
	return note
}

// link is the finding's location, linked to its lines at the reviewed revision when the
// repository is known.
func (b *builder) link(f finding.Finding) string {
	f.Path = b.canonical(f.Path)
	text := markdown.Code(markdown.Location(f))
	if u := b.permalink(f); u != "" {
		return "[" + text + "](" + u + ")"
	}
	return text
}

// canonical is the path GitHub knows the file by in this pull request: a finding may cite a
// renamed file by its old path.
func (b *builder) canonical(path string) string {
	if i, ok := b.ix.File(path); ok {
		return b.o.Diff[i].Path()
	}
	return path
}

// permalink is RepoURL/blob/<sha>/<path>#L<start>-L<end>: the head for new-side lines, the
// base (and the old path) for old-side lines.
func (b *builder) permalink(f finding.Finding) string {
	if b.o.RepoURL == "" || f.Path == "" {
		return ""
	}
	rev, path := b.o.HeadSHA, f.Path
	if sideOf(f) == finding.Left {
		rev = b.r.Change.BaseSHA
		if i, ok := b.ix.File(f.Path); ok && b.o.Diff[i].OldPath != "" {
			path = b.o.Diff[i].OldPath
		}
	}
	if rev == "" {
		return ""
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := b.o.RepoURL + "/blob/" + url.PathEscape(rev) + "/" + strings.Join(segs, "/")
	switch {
	case f.Line <= 0:
	case f.StartLine > 0 && f.StartLine < f.Line:
		u += "#L" + strconv.Itoa(f.StartLine) + "-L" + strconv.Itoa(f.Line)
	default:
		u += "#L" + strconv.Itoa(f.Line)
	}
	// A parenthesis would end the Markdown link early.
	return strings.NewReplacer("(", "%28", ")", "%29").Replace(u)
}

// commentBody is an inline comment: "<emoji> **<Title>** — <title>" and the body for a lens
// ("**<Name>** — <body>" for a persona, in its own voice), a committable suggestion, the
// prompt for a coding agent, the other reviewers that raised it, the feedback hint, and the
// marker last.
func (b *builder) commentBody(rv report.Reviewer, f finding.Finding) string {
	who := markdown.Prefix(rv.Emoji, "**"+markdown.Title(rv)+"**")
	body := strings.TrimSpace(f.Body)
	var blocks []string
	if rv.Kind == "persona" && body != "" && !startsBlock(body) {
		blocks = append(blocks, who+" — "+body)
	} else {
		blocks = append(blocks, who+" — "+markdown.NitTitle(f))
		if body != "" {
			blocks = append(blocks, body)
		}
	}
	if s := strings.TrimRight(f.Suggestion, "\r\n"); f.Suggestion != "" {
		fence := markdown.Fence(s)
		if sideOf(f) == finding.Right {
			blocks = append(blocks, fence+"suggestion\n"+s+"\n"+fence)
		} else {
			// GitHub cannot commit a suggestion onto deleted lines; show it as plain code.
			blocks = append(blocks, "Suggested change:", fence+"\n"+s+"\n"+fence)
		}
	}
	if asked := markdown.AskedLine(f); asked != "" {
		blocks = append(blocks, asked)
	}
	if prompt := strings.TrimSpace(f.FixPrompt); prompt != "" {
		fence := markdown.Fence(prompt)
		blocks = append(blocks, "<details><summary>Prompt for a coding agent</summary>", fence+"text\n"+prompt+"\n"+fence, "</details>")
	}
	if also := markdown.AlsoRaisedBy(b.r, f); also != "" {
		blocks = append(blocks, "Also raised by: "+also)
	}
	blocks = append(blocks, b.hint(), findingMarker(f, ownerName(f)))
	return strings.Join(blocks, "\n\n")
}

// startsBlock reports whether text opens with a Markdown block (a list, a quote, a fence, a
// heading, a table) that would break if it followed "Name — " on the same line.
func startsBlock(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSpace(first)
	if strings.ContainsAny(first[:1], "-*+>#|`~") {
		return true
	}
	digits := strings.TrimLeft(first, "0123456789")
	return len(digits) < len(first) && (strings.HasPrefix(digits, ".") || strings.HasPrefix(digits, ")"))
}
