package codecontext

import (
	"fmt"
	"strings"
)

// Packing. What a review hinges on is most often a small definition (a helper, a struct, a
// constant), and a large one crowds out many of them, so the budget is spent in this order:
//
//  1. The enclosing declarations of the hunks, in the order of the diff, each capped at
//     snippetCap tokens (a longer one shows its signature and a window around the changed
//     lines, and says so), within the budget less a reserve for small definitions.
//  2. The small definitions (at most smallDefTokens each) that an added line uses, most used
//     first.
//  3. The enclosing declarations that did not fit in step 1, now within the whole budget.
//  4. The large definitions that an added line uses, most used first: each first as its
//     signature and a window around the members used (a function's signature and doc
//     comment), so that every one gets in before any is shown whole; then whole (capped at
//     snippetCap like the enclosing ones), as far as the budget goes.
//  5. Steps 2 and 4 again for the definitions that only unchanged lines of the hunks use: what
//     the change itself calls is never left out for what only its surroundings do.
//
// A candidate that fits nowhere is listed in Result.Omitted with its size and the budget.

const (
	// smallDefTokens is the size up to which a definition counts as small: a struct of a
	// dozen fields, a helper of fifteen lines.
	smallDefTokens = 200
	// smallReservePercent of the budget is kept from the enclosing declarations for the small
	// definitions, when they need that much.
	smallReservePercent = 25
	// minSnippetCap is the least snippetCap, for tiny budgets.
	minSnippetCap = 500
	// minWindowLines is the least a capped declaration shows around the changed lines.
	minWindowLines = 20
	// shortWindowLines is what the short form of a declaration shows: its signature and
	// windows around the lines that matter.
	shortWindowLines = 30
)

// snippetCap is the most tokens one snippet may take: an eighth of the budget, so that one
// huge declaration (a 111-line test table) cannot eat it.
func snippetCap(budget int) int { return max(minSnippetCap, budget/8) }

// candidate is a snippet, or a signature and windows of one long declaration, waiting for
// the budget. short, when set, is a smaller form of the same declaration to fall back on.
type candidate struct {
	label     string // what it is, for Omitted
	pieces    []Snippet
	tokens    int
	short     *candidate
	unchanged bool // a definition only unchanged lines use
}

// makeCandidate shows d whole, or when it is longer than maxSnippetLines or capTokens, its
// signature and the lines around focus, and offers a short form (the signature and a small
// window, or for a declaration without focus lines its doc comment and signature) when that
// is much smaller.
func makeCandidate(f *file, d decl, kind, reason string, focus []int, capTokens int) candidate {
	d.End = min(d.End, len(f.lines))
	d.Start = max(1, min(d.Start, d.End))
	d.Sig = min(max(d.Sig, d.Start), d.End)
	d.SigEnd = min(max(d.SigEnd, d.Sig), d.End)
	label := fmt.Sprintf("%s %s (%s:%d-%d at %s)", kind, d.Symbol, f.path, d.Start, d.End, f.side)
	build := func(spans []span, why string) candidate {
		c := candidate{label: label}
		for _, s := range spans {
			text := strings.Join(f.lines[s.From-1:s.To], "\n")
			c.pieces = append(c.pieces, Snippet{
				Path: f.path, Side: f.side, StartLine: s.From, EndLine: s.To,
				Kind: kind, Symbol: d.Symbol, Reason: reason + why, Text: text,
			})
			c.tokens += tokens(text)
		}
		return c
	}
	var c candidate
	if d.lines() > maxSnippetLines {
		spans := window(d, focus, maxSnippetLines)
		c = build(spans, fmt.Sprintf("; it is %d lines long (%d-%d), so only lines %s are shown", d.lines(), d.Start, d.End, spanList(spans)))
	} else {
		c = build([]span{{d.Start, d.End}}, "")
	}
	whole := c.tokens
	if d.lines() > maxSnippetLines {
		whole = tokens(strings.Join(f.lines[d.Start-1:d.End], "\n"))
	}
	if capTokens > 0 && c.tokens > capTokens {
		limit := min(d.lines(), maxSnippetLines)
		for c.tokens > capTokens && limit > minWindowLines {
			limit = max(minWindowLines, min(limit-1, limit*capTokens/c.tokens))
			spans := window(d, focus, limit)
			c = build(spans, fmt.Sprintf("; it is %d lines long (%d-%d, %d tokens), more than one snippet may take (%d tokens), so only lines %s are shown",
				d.lines(), d.Start, d.End, whole, capTokens, spanList(spans)))
		}
	}
	if spans := shortSpans(d, focus); spans != nil {
		s := build(spans, fmt.Sprintf("; the budget had no room for all of its %d lines (%d-%d, %d tokens), so only lines %s are shown",
			d.lines(), d.Start, d.End, whole, spanList(spans)))
		if s.tokens*3 < c.tokens*2 {
			c.short = &s
		}
	}
	return c
}

// shortSpans is the short form of a declaration: with focus lines, its signature and a
// window of shortWindowLines around them; without, its doc comment and signature.
func shortSpans(d decl, focus []int) []span {
	if d.lines() <= shortWindowLines {
		return nil
	}
	var inBody []int
	for _, l := range focus {
		if l > d.SigEnd && l <= d.End {
			inBody = append(inBody, l)
		}
	}
	if len(inBody) > 0 {
		return window(d, inBody, shortWindowLines)
	}
	from := max(d.Start, d.Sig-maxSigLines)
	return []span{{from, min(d.SigEnd, d.Sig+maxSigLines-1)}}
}

func spanList(spans []span) string {
	var shown []string
	for _, s := range spans {
		shown = append(shown, fmt.Sprintf("%d-%d", s.From, s.To))
	}
	return strings.Join(shown, ", ")
}

// slot is a candidate and the form of it the budget took: none, short or whole.
type slot struct {
	c           *candidate
	short, full bool
}

func (s *slot) taken() *candidate {
	switch {
	case s.full:
		return s.c
	case s.short:
		return s.c.short
	}
	return nil
}

// pack spends the budget on the candidates in the order the package's packing rules give, and
// writes the result: the enclosing snippets in the order of the diff, then the small
// definitions, then the large ones, each most used first, those an added line uses before the
// others; then what was left out.
func (b *builder) pack(enclosing, defs []candidate) {
	budget := b.o.BudgetTokens
	encl := make([]slot, len(enclosing))
	for i := range enclosing {
		encl[i].c = &enclosing[i]
	}
	// small[0], large[0]: definitions an added line uses; small[1], large[1]: the others.
	var small, large [2][]slot
	reserve := 0
	for i := range defs {
		tier := 0
		if defs[i].unchanged {
			tier = 1
		}
		if defs[i].tokens <= smallDefTokens {
			small[tier] = append(small[tier], slot{c: &defs[i]})
			if tier == 0 {
				reserve += defs[i].tokens
			}
		} else {
			large[tier] = append(large[tier], slot{c: &defs[i]})
		}
	}
	reserve = min(reserve, budget*smallReservePercent/100)

	fits := func(n, limit int) bool { return b.used+n <= limit }
	// fit takes the whole candidate, else its short form, within limit.
	fit := func(s *slot, limit int) {
		switch {
		case s.full || s.short:
		case fits(s.c.tokens, limit):
			s.full, b.used = true, b.used+s.c.tokens
		case s.c.short != nil && fits(s.c.short.tokens, limit):
			s.short, b.used = true, b.used+s.c.short.tokens
		}
	}
	// fitLarge takes every large definition short, then as many as fit whole.
	fitLarge := func(large []slot) {
		for i := range large {
			s := &large[i]
			if s.c.short != nil && fits(s.c.short.tokens, budget) {
				s.short, b.used = true, b.used+s.c.short.tokens
			}
		}
		for i := range large {
			s := &large[i]
			switch {
			case s.full:
			case s.short && fits(s.c.tokens-s.c.short.tokens, budget):
				s.short, s.full, b.used = false, true, b.used+s.c.tokens-s.c.short.tokens
			case !s.short:
				fit(s, budget)
			}
		}
	}
	for i := range encl {
		fit(&encl[i], budget-reserve)
	}
	for i := range small[0] {
		fit(&small[0][i], budget)
	}
	for i := range encl {
		fit(&encl[i], budget)
	}
	fitLarge(large[0])
	for i := range small[1] {
		fit(&small[1][i], budget)
	}
	fitLarge(large[1])
	groups := [][]slot{encl, small[0], large[0], small[1], large[1]}
	for _, group := range groups {
		for i := range group {
			if c := group[i].taken(); c != nil {
				b.res.Snippets = append(b.res.Snippets, c.pieces...)
			}
		}
	}
	for _, group := range groups {
		for _, s := range group {
			if s.taken() != nil {
				continue
			}
			size := fmt.Sprintf("%d tokens", s.c.tokens)
			if s.c.short != nil {
				size = fmt.Sprintf("%d tokens, %d as its signature and a window", s.c.tokens, s.c.short.tokens)
			}
			b.omit(fmt.Sprintf("%s: %s, over the %d-token budget (%d used)", s.c.label, size, budget, b.used))
		}
	}
}
