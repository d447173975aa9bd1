package bench

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text similarity for tier L2. Review comments are Markdown about code, so the tokens are
// identifier-aware: parseConfig and parse_config both say "parse" and "config", and a code
// span is also kept whole, because quoting the same `s.mu.Lock()` is strong evidence that two
// comments are about the same thing.

// tokStopWords are English words too common in review comments to say what one is about.
var tokStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are aren as
		at be been before being below both but by can could couldn did didn do does doesn doing don
		done down during each else etc few for from further had hadn has hasn have haven having he
		her here hers him his how however if in into is isn it its itself just let ll me might mightn
		more most must mustn my needn no nor not now of off on once only or other our ours out over
		own please re same shall shan she should shouldn so some such than that the their theirs them
		then there these they this those through thus to too under until up us ve very was wasn we
		were weren what when where which while who whom why will with won would wouldn yes yet you
		your yours`) {
		m[w] = true
	}
	return m
}()

var (
	tokURLRE    = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>()\[\]]+`)
	tokLinkRE   = regexp.MustCompile(`\]\([^)\s]*\)`) // the target of a Markdown link or image
	tokHTMLRE   = regexp.MustCompile(`<!--[\s\S]*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>`)
	tokEntityRE = regexp.MustCompile(`&(?:[A-Za-z]+|#[0-9]+);`)
	tokSpacesRE = regexp.MustCompile(`\s+`)
	tokFence    = "```"
)

// Tokens splits a review comment into the lowercase tokens text similarity compares: the words
// of the text with camelCase and snake_case identifiers split into their parts, plus each code
// span's content whole. English stop words, one-letter tokens, code-fence markers, and, outside
// code, URLs, link targets, HTML tags and entities are left out.
func Tokens(text string) []string {
	var out []string
	emit := tokEmitter(&out)
	// Code, in a fenced block or a span, is words as written: only prose goes through
	// tokDenoise, which would take `Vec<u8>` for an HTML tag.
	var segs []tokSegment
	for _, block := range tokFencedBlocks(text) {
		if block.code {
			segs = append(segs, block)
			continue
		}
		segs = tokCodeSpans(block.text, segs, func(span string) {
			emit(strings.ToLower(strings.TrimSpace(tokSpacesRE.ReplaceAllString(span, " "))))
		})
	}
	for _, seg := range segs {
		text := seg.text
		if !seg.code {
			text = tokDenoise(text)
		}
		tokEmitWords(text, emit)
	}
	return out
}

// codeTokens are the tokens of code as written, such as a finding's quote: its words, split as
// identifiers. Nothing in code is Markdown, so nothing is taken for markup.
func codeTokens(code string) []string {
	var out []string
	tokEmitWords(code, tokEmitter(&out))
	return out
}

// tokEmitter appends to out each token that is not a stop word or a single letter.
func tokEmitter(out *[]string) func(string) {
	return func(tok string) {
		if utf8.RuneCountInString(tok) < 2 || tokStopWords[tok] {
			return
		}
		*out = append(*out, tok)
	}
}

func tokEmitWords(text string, emit func(string)) {
	for _, w := range tokWords(text) {
		tokSplitIdentifier(w, func(part string) { emit(strings.ToLower(part)) })
	}
}

// tokSegment is a piece of a comment, in order: prose, or code.
type tokSegment struct {
	text string
	code bool
}

// tokFencedBlocks splits s into prose and the code of its fenced code blocks; the ``` lines
// themselves (with their info string, such as "suggestion" or "go") are left out.
func tokFencedBlocks(s string) []tokSegment {
	if !strings.Contains(s, tokFence) {
		return []tokSegment{{text: s}}
	}
	var out []tokSegment
	var cur []string
	code := false
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), tokFence) {
			cur = append(cur, l)
			continue
		}
		out = append(out, tokSegment{text: strings.Join(cur, "\n"), code: code})
		cur, code = nil, !code
	}
	return append(out, tokSegment{text: strings.Join(cur, "\n"), code: code})
}

// tokCodeSpans appends to segs the prose of s and the content of each of its inline code
// spans, in order, and calls span with each span's content.
func tokCodeSpans(s string, segs []tokSegment, span func(string)) []tokSegment {
	if !strings.Contains(s, "`") {
		return append(segs, tokSegment{text: s})
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		end := tokClosingRun(s[i+n:], n)
		if end < 0 { // an unmatched backtick is punctuation
			b.WriteByte(' ')
			i += n
			continue
		}
		content := s[i+n : i+n+end]
		span(content)
		segs = append(segs, tokSegment{text: b.String()}, tokSegment{text: content, code: true})
		b.Reset()
		i += n + end + n
	}
	return append(segs, tokSegment{text: b.String()})
}

// tokClosingRun is the offset in s of the first run of exactly n backticks, or -1.
func tokClosingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// tokDenoise removes what is Markdown or HTML syntax rather than words; the checks before each
// regular expression keep plain comments, the common case, off the slow path.
func tokDenoise(s string) string {
	if strings.Contains(s, "://") || strings.Contains(s, "www.") {
		s = tokURLRE.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "](") {
		s = tokLinkRE.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "<") {
		s = tokHTMLRE.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "&") {
		s = tokEntityRE.ReplaceAllString(s, " ")
	}
	return s
}

// tokWords are the runs of letters, digits and underscores of s.
func tokWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// tokSplitIdentifier calls part with each part of a snake_case or camelCase word: HTTPServer
// gives HTTP and Server, int64Value gives int64 and Value.
func tokSplitIdentifier(w string, part func(string)) {
	for _, seg := range strings.Split(w, "_") {
		start := 0
		var prev rune
		for i, r := range seg {
			if i > 0 && unicode.IsUpper(r) {
				rest := seg[i+utf8.RuneLen(r):]
				next, size := utf8.DecodeRuneInString(rest)
				// A lone s after capitals is an acronym's plural: URLs, IDs, PRs.
				after, _ := utf8.DecodeRuneInString(rest[size:])
				plural := next == 's' && !unicode.IsLower(after)
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next) && !plural) {
					part(seg[start:i])
					start = i
				}
			}
			prev = r
		}
		if start < len(seg) {
			part(seg[start:])
		}
	}
}

// textVec is one text as a set of token ids (sorted) with unit-length TF-IDF weights.
type textVec struct {
	ids []int32
	w   []float64
}

// vectorize turns tokenized texts into TF-IDF vectors, with the IDF over these texts alone.
// Token ids follow the sorted vocabulary, so the vectors (and the order of every sum over
// them) do not depend on the order of the texts.
func vectorize(docs [][]string) []textVec {
	df := map[string]int{}
	seen := map[string]bool{} // reused: one map per text is most of the garbage
	for _, d := range docs {
		clear(seen)
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	vocab := make([]string, 0, len(df))
	for t := range df {
		vocab = append(vocab, t)
	}
	sort.Strings(vocab)
	id := make(map[string]int32, len(vocab))
	idf := make([]float64, len(vocab))
	n := float64(len(docs))
	for i, t := range vocab {
		id[t] = int32(i) //nolint:gosec // a vocabulary never reaches 2^31 tokens
		// Smoothed, as scikit-learn does: a token in every text still weighs a little.
		idf[i] = math.Log((1+n)/(1+float64(df[t]))) + 1
	}
	out := make([]textVec, len(docs))
	tf := map[int32]int{}
	for k, d := range docs {
		clear(tf)
		for _, t := range d {
			tf[id[t]]++
		}
		v := textVec{ids: make([]int32, 0, len(tf)), w: make([]float64, 0, len(tf))}
		for i := range tf {
			v.ids = append(v.ids, i)
		}
		sort.Slice(v.ids, func(a, b int) bool { return v.ids[a] < v.ids[b] })
		var norm float64
		for _, i := range v.ids {
			w := (1 + math.Log(float64(tf[i]))) * idf[i]
			v.w = append(v.w, w)
			norm += w * w
		}
		norm = math.Sqrt(norm)
		for i := range v.w {
			v.w[i] /= norm
		}
		out[k] = v
	}
	return out
}

// textSimilarity is the mean of the token sets' Jaccard index and the TF-IDF cosine: Jaccard
// rewards sharing many words, the cosine sharing rare ones. It is in [0, 1]; 0 when either
// text has no tokens.
func textSimilarity(a, b textVec) float64 {
	if len(a.ids) == 0 || len(b.ids) == 0 {
		return 0
	}
	var inter int
	var dot float64
	for i, j := 0, 0; i < len(a.ids) && j < len(b.ids); {
		switch {
		case a.ids[i] < b.ids[j]:
			i++
		case a.ids[i] > b.ids[j]:
			j++
		default:
			inter++
			dot += a.w[i] * b.w[j]
			i++
			j++
		}
	}
	jaccard := float64(inter) / float64(len(a.ids)+len(b.ids)-inter)
	return (jaccard + math.Min(dot, 1)) / 2
}
