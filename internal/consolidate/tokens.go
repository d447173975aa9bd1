package consolidate

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokens splits text into the lowercased words and identifier parts it is about: "userID"
// and "user_id" both give "user" and "id", so two reviewers naming the same code the same way
// share tokens however they spell it. Stopwords, one-letter words and bare numbers (often line
// numbers) carry no meaning here and are dropped. The result is sorted and unique.
func tokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = appendParts(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = appendParts(out, s[start:])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendParts splits the word w at camelCase and PascalCase boundaries, keeping acronyms
// whole ("parseHTTPRequest" gives "parse", "http", "request") and digits with the letters
// before them ("int64"), and appends the parts worth keeping.
func appendParts(out []string, w string) []string {
	keep := func(part string) {
		t := strings.ToLower(part)
		if len(t) < 2 || stopwords[t] || isNumber(t) {
			return
		}
		out = append(out, t)
	}
	start := 0
	var prev rune = -1
	for i, cur := range w {
		if prev >= 0 {
			lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
			acronymEnd := false
			if unicode.IsUpper(prev) && unicode.IsUpper(cur) {
				next, _ := utf8.DecodeRuneInString(w[i+utf8.RuneLen(cur):])
				acronymEnd = unicode.IsLower(next)
			}
			if lowerToUpper || acronymEnd {
				keep(w[start:i])
				start = i
			}
		}
		prev = cur
	}
	keep(w[start:])
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// jaccard is |a ∩ b| / |a ∪ b| for sorted, unique slices; 0 when both are empty.
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			inter++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// stopwords are English words too common in review comments to say which issue one is about.
// Contractions arrive split at the apostrophe ("don't" gives "don").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about above after again against all also am an and any are as at be because been
		before being below between both but by can could did do does doing done down during each
		else even ever few for from further get gets got had has have having he her here hers him
		his how however if in into is it its itself just let may me might more most much must my
		no nor not now of off on once one only or other our out over own per same she should
		since so some such than that the their them then there these they this those though
		through thus to too under until up upon us use used uses using very via was we were what
		when where whether which while who whom why will with within without would yet you your
		aren couldn didn doesn don isn shouldn wasn won wouldn
		consider instead maybe probably currently here's line lines code`) {
		m[w] = true
	}
	return m
}()
