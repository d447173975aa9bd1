package review

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// Excerpt shortens author text (a change's description, a reviewer's comment) to at most limit
// characters for a prompt, and says what it left out. Text within the limit comes back
// trimmed and whole. Longer text is cut at the last paragraph break within the limit, or when
// that would keep less than half of it, at the last sentence end, or else at the last word
// boundary (a space, or between two CJK characters, which are written without spaces); never
// inside a word or a URL, even when that keeps nothing. A note follows the cut:
// "[… 2 more paragraphs, 1,234 characters, not shown]", or "[… the rest of this paragraph and
// 1 more paragraph, 1,234 characters, not shown]" after a cut inside a paragraph.
func Excerpt(s string, limit int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	end := len(s)
	for i := range s {
		if limit == 0 {
			end = i
			break
		}
		limit--
	}
	at := cutAt(s, end)
	kept := strings.TrimRightFunc(s[:at], unicode.IsSpace)
	rest := strings.TrimLeftFunc(s[at:], unicode.IsSpace)
	inParagraph := kept != "" && !paragraphBreak.MatchString(s[len(kept):len(s)-len(rest)])

	more := len(paragraphBreak.Split(rest, -1))
	what := strings.Replace(plural(more, "paragraph"), " ", " more ", 1)
	switch {
	case kept == "":
		what = plural(more, "paragraph")
	case inParagraph:
		what = "the rest of this paragraph"
		if more--; more > 0 {
			what += " and " + strings.Replace(plural(more, "paragraph"), " ", " more ", 1)
		}
	}
	n := utf8.RuneCountInString(rest)
	chars := " characters"
	if n == 1 {
		chars = " character"
	}
	note := "[… " + what + ", " + humanize.Comma(int64(n)) + chars + ", not shown]"
	switch {
	case kept == "":
		return note
	case inParagraph:
		return kept + " " + note
	}
	return kept + "\n\n" + note
}

var (
	paragraphBreak = regexp.MustCompile(`\n[ \t\r]*\n\s*`)
	// sentenceEnd is the end of a sentence: a full stop, question or exclamation mark with
	// what may close it (a quote, a bracket), then a space; or a CJK one, which needs none.
	sentenceEnd = regexp.MustCompile(`[.!?]["'”’)\]]*\s|[。！？]`)
)

// cutAt is the byte offset where s is cut to keep at most s[:end].
func cutAt(s string, end int) int {
	head := s[:end]
	half := len(head) / 2
	if locs := paragraphBreak.FindAllStringIndex(s[:min(len(s), end+1)], -1); len(locs) > 0 {
		if at := locs[len(locs)-1][0]; at >= half {
			return at
		}
	}
	if locs := sentenceEnd.FindAllStringIndex(s[:min(len(s), end+1)], -1); len(locs) > 0 {
		if at := locs[len(locs)-1][1]; at <= end && at >= half {
			return at
		}
	}
	// The last word boundary: a space, or between two CJK characters.
	for at := end; at > 0; {
		r, _ := utf8.DecodeRuneInString(s[at:])
		before, size := utf8.DecodeLastRuneInString(s[:at])
		if unicode.IsSpace(r) || unicode.IsSpace(before) || cjk(before) && cjk(r) {
			return at
		}
		at -= size
	}
	return 0
}

// cjk reports whether r belongs to a script written without spaces between words.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}
