package persona

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/review"
)

// MaxHunkLines bounds the diff shown with a comment: the last lines of GitHub's hunk, which
// end at the commented line, under the hunk's header.
const MaxHunkLines = 12

// maxBodyRunes bounds a comment's text in a prompt; exemplars are quoted whole.
const maxBodyRunes = 3000

// TrimHunk keeps a diff hunk's "@@" header and its last lines, at most MaxHunkLines in all.
func TrimHunk(h string) string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(h, "\r\n", "\n"), "\n"), "\n")
	if len(lines) <= MaxHunkLines {
		return strings.Join(lines, "\n")
	}
	if strings.HasPrefix(lines[0], "@@") {
		return lines[0] + "\n" + strings.Join(lines[len(lines)-MaxHunkLines+1:], "\n")
	}
	return strings.Join(lines[len(lines)-MaxHunkLines:], "\n")
}

var commentTag = regexp.MustCompile(`(?i)<(/?)(comment)`)

// neutralize keeps untrusted text from closing or opening the tags that delimit it.
func neutralize(s string) string {
	return commentTag.ReplaceAllString(s, "‹$1$2")
}

// renderComment shows comment i to the model, marked as untrusted data.
func renderComment(i int, c Comment) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<comment index=\"%d\">\n", i)
	where := "a review's top-level text (no file)"
	if c.Path != "" {
		where = "file " + c.Path
		if c.Line > 0 {
			where += fmt.Sprintf(", line %d", c.Line)
		}
	}
	fmt.Fprintf(&b, "On %s#%d, %s.\n", c.Repo, c.PR, neutralize(where))
	if h := strings.TrimSpace(c.DiffHunk); h != "" {
		h = neutralize(TrimHunk(c.DiffHunk))
		f := review.Fence(h)
		fmt.Fprintf(&b, "%sdiff\n%s\n%s\n", f, h, f)
	}
	body := review.Excerpt(c.Body, maxBodyRunes)
	b.WriteString(neutralize(body))
	b.WriteString("\n</comment>\n")
	return b.String()
}

// estimate is provider.EstimateTokens' rule for one text.
func estimate(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
