package persona

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/council-dev/council/internal/review"
)

// Stats are the figures of a set of comments computed without a model.
type Stats = review.HistoryStats

// Labels of comments without a directory.
const (
	TopLevel   = "(top level)"   // a file at the repository root
	ReviewText = "(review body)" // a review's top-level text, on no file
)

const topN = 10

// ComputeStats computes the statistics of comments exactly. Path prefixes are the first
// segment of a path with a directory, TopLevel for a file at the root and ReviewText for a
// comment on no file. Lengths count the characters of the trimmed body; the median is the
// lower median and p90 the nearest rank (the ceil(0.9·n)-th smallest). A question has a "?"
// ending a sentence outside code; a suggestion has a ```suggestion block; a nit starts with
// "nit" followed by a non-letter, "nits" or "nitpick". Openings are the first two and three
// words of a comment's first line that is not a quote, lowercased and stripped of punctuation;
// those said at least twice, and a two-word opening only when no three-word one that extends it
// is as frequent. Counted lists are ordered by count, then longest, then alphabetically; the
// top 10 are kept.
func ComputeStats(comments []Comment) Stats {
	s := Stats{Comments: len(comments)}
	if len(comments) == 0 {
		return s
	}
	prs := map[string]bool{}
	paths := map[string]int{}
	openings := map[string]int{}
	lengths := make([]int, 0, len(comments))
	first, last := comments[0].CreatedAt, comments[0].CreatedAt
	for _, c := range comments {
		prs[fmt.Sprintf("%s#%d", c.Repo, c.PR)] = true
		paths[pathPrefix(c)]++
		if c.CreatedAt.Before(first) {
			first = c.CreatedAt
		}
		if c.CreatedAt.After(last) {
			last = c.CreatedAt
		}
		body := strings.TrimSpace(c.Body)
		lengths = append(lengths, utf8.RuneCountInString(body))
		if IsQuestion(body) {
			s.Questions++
		}
		if strings.Contains(body, "```suggestion") {
			s.Suggestions++
		}
		if IsNit(body) {
			s.Nits++
		}
		for _, o := range Openings(body) {
			openings[o]++
		}
	}
	s.PullRequests = len(prs)
	s.From, s.To = first.UTC().Format("2006-01-02"), last.UTC().Format("2006-01-02")
	s.Paths = top(paths, 1)

	slices.Sort(lengths)
	n := len(lengths)
	s.Length = review.Lengths{Min: lengths[0], Median: lengths[(n-1)/2], P90: lengths[(9*n+9)/10-1], Max: lengths[n-1]}

	// A two-word opening adds nothing when a three-word one extending it is as frequent.
	for o, k := range openings {
		if strings.Count(o, " ") != 2 {
			continue
		}
		two := o[:strings.LastIndex(o, " ")]
		if openings[two] == k {
			delete(openings, two)
		}
	}
	s.Openings = top(openings, 2)
	return s
}

// top lists the entries of counts of at least least, most frequent first, then longest, then
// alphabetically, at most topN of them.
func top(counts map[string]int, least int) []review.Count {
	var out []review.Count
	for k, v := range counts {
		if v >= least {
			out = append(out, review.Count{Name: k, Count: v})
		}
	}
	slices.SortFunc(out, func(a, b review.Count) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(len(b.Name), len(a.Name)), cmp.Compare(a.Name, b.Name))
	})
	if len(out) > topN {
		out = out[:topN]
	}
	return out
}

func pathPrefix(c Comment) string {
	p := strings.TrimPrefix(strings.TrimSpace(c.Path), "/")
	switch {
	case p == "":
		return ReviewText
	case !strings.Contains(p, "/"):
		return TopLevel
	default:
		return p[:strings.Index(p, "/")]
	}
}

var (
	fenced     = regexp.MustCompile("(?s)```.*?(```|$)")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	questionRE = regexp.MustCompile(`\?+([\s)"'*_]|$)`)
)

// IsQuestion reports whether a comment asks something: a "?" that ends a sentence (followed
// by a space, a closing quote or parenthesis, emphasis or the end), outside code.
func IsQuestion(body string) bool {
	body = inlineCode.ReplaceAllString(fenced.ReplaceAllString(body, " "), " ")
	return questionRE.MatchString(body)
}

// IsNit reports whether a comment is marked as a nit: it starts with "nit" (any case) followed
// by a non-letter ("nit:", "Nit -"), or with "nits" or "nitpick".
func IsNit(body string) bool {
	b := strings.ToLower(strings.TrimLeft(strings.TrimSpace(body), "*_(["))
	for _, p := range []string{"nitpick", "nits", "nit"} {
		if rest, ok := strings.CutPrefix(b, p); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			return rest == "" || !unicode.IsLetter(r)
		}
	}
	return false
}

// Openings returns a comment's opening phrases: its first two and first three words (one
// when it has only two), lowercased and stripped of surrounding punctuation, from its first
// line that is neither blank nor a quote ("> ...").
func Openings(body string) []string {
	var first string
	for line := range strings.Lines(body) {
		l := strings.TrimSpace(line)
		if l != "" && !strings.HasPrefix(l, ">") && !strings.HasPrefix(l, "```") {
			first = l
			break
		}
	}
	var words []string
	for _, w := range strings.Fields(strings.ToLower(first)) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
		if w == "" {
			break // a word of punctuation alone ("-", "—") ends the phrase
		}
		words = append(words, w)
		if len(words) == 3 {
			break
		}
	}
	switch len(words) {
	case 0, 1:
		return nil
	case 2:
		return []string{strings.Join(words, " ")}
	default:
		return []string{strings.Join(words[:2], " "), strings.Join(words, " ")}
	}
}

// RenderStats writes stats as a few readable lines, for the terminal.
func RenderStats(s Stats) string {
	var b strings.Builder
	if s.Comments == 0 {
		return "no comments\n"
	}
	fmt.Fprintf(&b, "comments: %d on %d pull requests, %s to %s\n", s.Comments, s.PullRequests, s.From, s.To)
	if len(s.Paths) > 0 {
		fmt.Fprintf(&b, "where: %s\n", joinCounts(s.Paths))
	}
	fmt.Fprintf(&b, "length (characters): min %d, median %d, p90 %d, max %d\n", s.Length.Min, s.Length.Median, s.Length.P90, s.Length.Max)
	fmt.Fprintf(&b, "questions: %s · suggestions: %s · nits: %s\n", share(s.Questions, s.Comments), share(s.Suggestions, s.Comments), share(s.Nits, s.Comments))
	if len(s.Openings) > 0 {
		fmt.Fprintf(&b, "openings: %s\n", joinCounts(quoteNames(s.Openings)))
	}
	return b.String()
}

func share(n, of int) string {
	return fmt.Sprintf("%d (%d%%)", n, (n*100+of/2)/of)
}

func joinCounts(cs []review.Count) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.Name, c.Count)
	}
	return strings.Join(parts, ", ")
}

func quoteNames(cs []review.Count) []review.Count {
	out := make([]review.Count, len(cs))
	for i, c := range cs {
		out[i] = review.Count{Name: fmt.Sprintf("%q", c.Name), Count: c.Count}
	}
	return out
}
