package bench

import (
	"path"
	"regexp"
	"strings"
	"unicode"
)

// The import's filters and classification are keyword heuristics over a comment's text:
// deterministic, so that importing a pull request twice gives the same sample, and cheap. They
// are meant to be read and argued with, not to be clever.
//
// Filters (DropReason), in order:
//   - praise or acknowledgement: once code, punctuation and emoji are removed, every word is
//     a word of praise or thanks ("lgtm", "thanks", "nice", "+1", "looks good", "ship it") or
//     filler around one ("this", "really", "to", "me"), and there is at least one such word;
//     a comment of emoji alone counts too.
//   - too short: fewer than 10 words outside code, and no code: no backtick (inline code, a
//     ```suggestion block) and no code-looking token (a call "f(x)", a selector "pkg.Name",
//     snake_case or camelCase identifiers, operators such as := == != && -> ::).
//
// Kinds (Classify): each kind of kindKeywords has a list of keywords; every occurrence in the
// text outside code scores a point for its kind. The kind with the most points wins; a tie
// goes to the kind listed first (security, concurrency, bug, tests, error-handling,
// performance, api-design, docs, naming, style, praise): "add a test for the error case" is
// about tests. With no keyword at all: "tests" for a comment on a test file, "docs" for one on
// documentation, "question" for a question, "other" otherwise.
//
// Questions (Question): a sentence outside code and quotes ends in "?", or the text opens
// with an asking phrase ("why", "what if", "could we", "wdyt").

// kindKeywords are the keywords of each kind, in tie-break order.
var kindKeywords = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"security", keywordRE(`inject\w*`, `xss`, `csrf`, `ssrf`, `secrets?`, `credentials?`, `passwords?`, `vulnerab\w*`,
		`cve-\d+`, `sanitiz\w*`, `traversal`, `privilege\w*`, `authori[sz]\w*`, `authenticat\w*`, `attackers?`,
		`exploit\w*`, `untrusted`, `malicious`, `tls`, `certificates?`, `permissions?`, `security`, `insecure`,
		`leaks? (the )?(token|key|secret)s?`)},
	{"concurrency", keywordRE(`races?`, `racy`, `data race`, `mutex\w*`, `locks?`, `locked`, `locking`, `unlock\w*`,
		`deadlock\w*`, `goroutines?`, `threads?`, `thread-safe`, `atomic\w*`, `concurren\w*`, `parallel\w*`,
		`channels?`, `waitgroup`, `sync\.\w+`, `semaphores?`)},
	{"bug", keywordRE(`bugs?`, `buggy`, `wrong`, `incorrect\w*`, `broken`, `breaks`, `crash\w*`, `off[- ]by[- ]one`,
		`nil (pointer|dereference|map)`, `null pointer`, `overflow\w*`, `infinite loop`, `never (reached|set|runs?)`,
		`always (true|false)`, `regression`, `does(n't| not) work`, `will fail`, `fails? to`, `corrupt\w*`)},
	{"tests", keywordRE(`tests?`, `testing`, `tested`, `untested`, `coverage`, `assert\w*`, `mocks?`, `fixtures?`,
		`test ?cases?`, `\w+_test\.go`, `flaky`)},
	{"error-handling", keywordRE(`errors?`, `err`, `panic\w*`, `exceptions?`, `unchecked`, `swallow\w*`, `recover`,
		`errors\.(is|as)`, `fmt\.errorf`, `retry`, `retries`, `fallback`, `handle (it|this|that|the failure)`)},
	{"performance", keywordRE(`perf\w*`, `slow\w*`, `faster`, `latency`, `allocat\w*`, `allocs?`, `quadratic`,
		`complexity`, `inefficien\w*`, `expensive`, `cach(e|es|ed|ing)`, `memory`, `cpu`, `benchmark\w*`,
		`hot path`, `n\+1`, `throughput`)},
	{"api-design", keywordRE(`apis?`, `interfaces?`, `signatures?`, `breaking( changes?)?`, `backwards?[- ]compat\w*`,
		`exported`, `public`, `abstraction\w*`, `design`, `coupl\w*`, `responsibilit\w*`, `parameters?`,
		`return types?`, `options struct`, `constructors?`)},
	{"docs", keywordRE(`docs?`, `documentation`, `document\w*`, `comments?`, `godoc`, `readme`, `changelog`,
		`docstrings?`, `typos?`, `spelling`, `misspell\w*`, `grammar`)},
	{"naming", keywordRE(`names?`, `naming`, `renam\w*`, `identifiers?`, `call it`)},
	{"style", keywordRE(`style`, `nits?`, `nitpick\w*`, `format\w*`, `gofmt`, `lint\w*`, `indent\w*`, `whitespace`,
		`readab\w*`, `simplif\w*`, `idiomatic`, `unused`, `dead code`, `redundant`, `unnecessary`, `clean ?up`,
		`consisten\w*`, `early return`)},
	{"praise", keywordRE(`lgtm`, `nice`, `great`, `awesome`, `love`, `excellent`, `neat`, `thanks`, `thank you`,
		`well done`, `good job`, `looks good`)},
}

// keywordRE is a case-insensitive regexp for any of the alternatives as whole words.
func keywordRE(alts ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^\w])(` + strings.Join(alts, "|") + `)($|[^\w])`)
}

// countKeywords counts re's non-overlapping matches; each match consumes its neighbouring separator,
// so adjacent keywords are counted by scanning from the end of the keyword itself.
func countKeywords(re *regexp.Regexp, text string) int {
	n := 0
	for text != "" {
		loc := re.FindStringSubmatchIndex(text)
		if loc == nil {
			return n
		}
		n++
		text = text[loc[5]:] // past the keyword, before its trailing separator
	}
	return n
}

var (
	fencedCodeRE     = regexp.MustCompile("(?s)```.*?(```|$)")
	inlineCodeSpanRE = regexp.MustCompile("`[^`\n]*`")
	quotedLineRE     = regexp.MustCompile(`(?m)^\s*>.*$`)
	commentLinkRE    = regexp.MustCompile(`https?://\S+`)
	// codeLookingRE matches what reads as code in running text.
	codeLookingRE = regexp.MustCompile(`\b[A-Za-z_]\w*\([^()\s]*\)` + // f(x), f()
		`|\b[A-Za-z_]\w+\.[A-Za-z_]\w+\b` + // pkg.Name, file.go
		`|\b[a-z]+_[a-z0-9_]+\b` + // snake_case
		`|\b[a-z]+[A-Z][A-Za-z0-9]*\b` + // camelCase
		`|:=|==|!=|&&|\|\||->|::|\[\]|\+\+`)
	// askEndingRE is a question mark that ends a sentence (not one inside a word, such as "?x=1").
	askEndingRE  = regexp.MustCompile(`\?+(\s|$|[)"'*_])`)
	askOpeningRE = regexp.MustCompile(`(?i)^(why|what if|what about|how about|how come|could we|could you|can we|can you|should we|should this|should it|shouldn't|is there|is this|are we|do we|does this|would it|wdyt)\b|\bwdyt\b|\bwhat do you think\b`)
)

// commentProse is a comment without its code, quoted lines and links: the words a person wrote.
func commentProse(body string) string {
	s := fencedCodeRE.ReplaceAllString(body, " ")
	s = inlineCodeSpanRE.ReplaceAllString(s, " ")
	s = quotedLineRE.ReplaceAllString(s, " ")
	return commentLinkRE.ReplaceAllString(s, " ")
}

// holdsCode reports whether a comment holds code: a backtick, or a code-looking token outside
// links and quotes.
func holdsCode(body string) bool {
	if strings.Contains(body, "`") {
		return true
	}
	s := quotedLineRE.ReplaceAllString(body, " ")
	return codeLookingRE.MatchString(commentLinkRE.ReplaceAllString(s, " "))
}

// praiseVocab are the words of praise and acknowledgement; fillerVocab may surround them.
var (
	praiseVocab = wordSet("lgtm", "thanks", "thank", "thx", "ty", "nice", "great", "good", "awesome", "cool", "perfect",
		"excellent", "neat", "love", "like", "+1", "approved", "approve", "ship", "shipit", "well", "done", "catch",
		"fine", "ok", "okay", "yes", "yep", "sure", "agreed", "agree", "ack", "noted", "works", "fixed", "beautiful",
		"clean", "wonderful", "amazing", "brilliant", "sweet", "looks", "look", "lg")
	fillerVocab = wordSet("this", "is", "very", "really", "so", "for", "the", "me", "to", "you", "a", "all", "much",
		"again", "overall", "now", "i", "it", "that", "pr", "change", "changes", "and", "lot", "work", "job", "just",
		"will", "do", "here", "too", "of", "indeed", "way", "better", "with", "from", "on", "our", "we", "doing",
		"taking", "care", "contribution", "effort", "update", "quick", "addressing", "feedback")
)

func wordSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// praiseOnly reports whether a comment is praise or acknowledgement and nothing else.
func praiseOnly(body string) bool {
	if holdsCode(body) {
		return false
	}
	var fields []string
	for f := range strings.FieldsSeq(strings.ToLower(commentProse(body))) {
		f = strings.TrimFunc(f, func(r rune) bool { return r != '+' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f != "" {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return strings.TrimSpace(body) != "" // emoji or punctuation alone: a reaction
	}
	praise := false
	for _, f := range fields {
		switch {
		case praiseVocab[f]:
			praise = true
		case !fillerVocab[f]:
			return false
		}
	}
	return praise
}

// MinWords is the fewest words a comment without code needs to be ground truth.
const MinWords = 10

// Drop reasons, as Sample.Dropped records them.
const (
	DropPraise = "praise or acknowledgement only"
	DropShort  = "fewer than 10 words and no code"
)

// DropReason says why a human comment is not ground truth on its own merits (DropPraise,
// DropShort), or "" when it is.
func DropReason(body string) string {
	switch {
	case praiseOnly(body):
		return DropPraise
	case !holdsCode(body) && len(strings.Fields(commentProse(body))) < MinWords:
		return DropShort
	}
	return ""
}

// Question reports whether a comment asks something.
func Question(body string) bool {
	text := commentProse(body)
	for line := range strings.SplitSeq(text, "\n") {
		if askOpeningRE.MatchString(strings.TrimSpace(line)) {
			return true
		}
	}
	return askEndingRE.MatchString(text)
}

// Classify gives a comment its kind (one of Kinds) and whether it asks a question; path is
// the commented file ("" for a review body). The rules are at the top of this file.
func Classify(body, path string) (kind string, question bool) {
	question = Question(body)
	text := strings.ToLower(commentProse(body))
	best, bestScore := "", 0
	for _, r := range kindKeywords {
		if n := countKeywords(r.re, text); n > bestScore {
			best, bestScore = r.kind, n
		}
	}
	switch {
	case best != "":
		return best, question
	case testFile(path):
		return "tests", question
	case docFile(path):
		return "docs", question
	case question:
		return "question", question
	}
	return "other", question
}

func testFile(p string) bool {
	if p == "" {
		return false
	}
	base := strings.ToLower(path.Base(p))
	return strings.HasSuffix(base, "_test.go") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasPrefix(base, "test_") || strings.Contains("/"+strings.ToLower(p), "/testdata/") ||
		strings.Contains("/"+strings.ToLower(p), "/tests/")
}

func docFile(p string) bool {
	if p == "" {
		return false
	}
	lower := strings.ToLower(p)
	switch path.Ext(lower) {
	case ".md", ".rst", ".adoc", ".txt":
		return true
	}
	return strings.HasPrefix(lower, "docs/") || strings.Contains(lower, "/docs/")
}
