package codecontext

import (
	"slices"
	"strings"
)

// declKind sorts declarations by what they are good for.
type declKind int

const (
	// declFunc is a function or method: the preferred enclosing declaration.
	declFunc declKind = iota
	// declType is a type, class, struct, trait, interface or impl block.
	declType
	// declValue is a variable, constant or macro.
	declValue
	// declContainer is a namespace or module block: it is never shown whole, and only
	// qualifies what it holds.
	declContainer
)

// member is a field or method a type declares, found through a selector (Go only).
type member struct {
	Line int
	Kind string  // "field" or "method"
	Type typeRef // a field's type, or a method's first result type, when it is a named type (Go only)
}

// typeRef is a named Go type as the code spells it: its name, and the import path of the
// package that declares it, "" for the package of the file that spells it. The zero value is
// a type the code does not name (a builtin, a slice, a map, a function).
type typeRef struct {
	Name, Pkg string
}

// decl is one declaration of a file. Lines are 1-based and inclusive. Start includes the doc
// comment, decorators and attributes above the declaration; Sig is the line where the
// declaration itself begins and SigEnd the last line of its signature (the line before the
// body when the body starts on a line of its own).
type decl struct {
	Kind    declKind
	Keyword string   // "func", "class", "def", "fn", ...: the first word of Symbol
	Names   []string // the names it defines, looked up by definitions; none for impl blocks
	Display string   // the name as the code spells it, when not Names[0]: Store::reserve
	Qual    string   // for a type: the name its members are qualified with (impl Foo: Foo)
	Symbol  string   // how a reviewer reads it: "func (*Store) Reserve", "class Store"
	Start   int
	Sig     int
	SigEnd  int
	End     int
	// Go only: a method is found only through a selector; Recv is its receiver's type name,
	// Members the fields and interface methods of a type, Embeds the types a struct or an
	// interface embeds (whose members it promotes), Result the type of a function's first
	// result, and Vars what the code says of the type of each variable of a var declaration
	// (var x T, var x = &T{}, var x = New()).
	Method  bool
	Recv    string
	Members map[string]member
	Embeds  []typeRef
	Result  typeRef
	Vars    map[string]recvRef
}

func (d decl) contains(line int) bool { return d.Start <= line && line <= d.End }

func (d decl) lines() int { return d.End - d.Start + 1 }

// finishOutline sorts decls by position, outermost first, merges declarations of the same
// range (a C typedef of a named struct defines both names), and fills in Symbol for the
// declarations that have none, qualifying a function with the type that holds it:
// "def Store.reserve".
func finishOutline(l language, decls []decl) []decl {
	slices.SortStableFunc(decls, func(a, b decl) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	out := decls[:0]
	for _, d := range decls {
		if n := len(out); n > 0 && out[n-1].Start == d.Start && out[n-1].End == d.End {
			for _, name := range d.Names {
				if !slices.Contains(out[n-1].Names, name) {
					out[n-1].Names = append(out[n-1].Names, name)
				}
			}
			continue
		}
		out = append(out, d)
	}
	for i := range out {
		d := &out[i]
		d.SigEnd = min(max(d.SigEnd, d.Sig), d.End)
		if d.Symbol != "" {
			continue
		}
		name := d.Display
		if name == "" && len(d.Names) > 0 {
			name = d.Names[0]
		}
		if d.Kind == declFunc && !strings.Contains(name, "::") {
			if q := ownerOf(out, i); q != "" {
				name = q + l.memberSep() + name
			}
		}
		if name == "" {
			name = d.Qual
		}
		if name == "" {
			name = "(anonymous)"
		}
		d.Symbol = strings.TrimSpace(d.Keyword + " " + name)
	}
	return out
}

// ownerOf is the name of the innermost type that holds decls[i], or "" if a function or
// nothing holds it first.
func ownerOf(decls []decl, i int) string {
	d := decls[i]
	for j := i - 1; j >= 0; j-- {
		o := decls[j]
		if o.Start > d.Start || o.End < d.End || (o.Start == d.Start && o.End == d.End) {
			continue
		}
		switch o.Kind {
		case declType:
			if o.Qual != "" {
				return o.Qual
			}
			if len(o.Names) > 0 {
				return o.Names[0]
			}
		case declFunc:
			return ""
		}
	}
	return ""
}

// enclosingDecl is the declaration a reviewer needs around line: the outermost function that
// holds it (a method rather than its class, an outer function rather than a closure nested in
// it), else the innermost type or value declaration (a struct whose field changed). It
// reports false when the line is at top level.
func enclosingDecl(decls []decl, line int) (decl, bool) {
	var best decl
	found, foundFunc := false, false
	for _, d := range decls {
		if d.Start > line {
			break
		}
		if !d.contains(line) || d.Kind == declContainer {
			continue
		}
		switch {
		case d.Kind == declFunc && !foundFunc:
			best, found, foundFunc = d, true, true
		case d.Kind != declFunc && !foundFunc:
			// decls are sorted outermost first, so a later one is nested deeper.
			best, found = d, true
		}
	}
	return best, found
}

// span is an inclusive range of lines.
type span struct{ From, To int }

// covered reports whether every line of [from, to] is in one of spans.
func covered(spans []span, from, to int) bool {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return a.From - b.From })
	next := from
	for _, s := range sorted {
		if s.From > next {
			break
		}
		if s.To >= next {
			next = s.To + 1
		}
		if next > to {
			return true
		}
	}
	return next > to
}

// window chooses what to show of a declaration longer than limit lines: its signature (at
// most maxSigLines of it) and, around the focus lines, windows that together fill the rest
// of the limit, widened evenly on both sides and merged where they meet. The result is
// sorted and never longer than limit lines.
func window(d decl, focus []int, limit int) []span {
	sigEnd := min(d.SigEnd, d.Sig+maxSigLines-1)
	sig := span{d.Sig, sigEnd}
	avail := limit - (sigEnd - d.Sig + 1)
	focus = slices.Clone(focus)
	slices.Sort(focus)
	// Clusters of focus lines closer than clusterGap become one window.
	var clusters []span
	for _, f := range focus {
		f = max(f, sigEnd+1)
		if f > d.End {
			continue
		}
		if n := len(clusters); n > 0 && f-clusters[n-1].To <= clusterGap {
			clusters[n-1].To = f
			continue
		}
		clusters = append(clusters, span{f, f})
	}
	if len(clusters) == 0 {
		clusters = []span{{sigEnd + 1, sigEnd + 1}}
	}
	used := 0
	for _, c := range clusters {
		used += c.To - c.From + 1
	}
	pad := max(0, (avail-used)/(2*len(clusters)))
	var out []span
	for _, c := range clusters {
		w := span{max(c.From-pad, sigEnd+1), min(c.To+pad, d.End)}
		if n := len(out); n > 0 && w.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, w.To)
			continue
		}
		out = append(out, w)
	}
	// Spend what clamping at the ends of the declaration left unused, then trim from the end
	// whatever is over the limit.
	total := 0
	for _, w := range out {
		total += w.To - w.From + 1
	}
	if extra := avail - total; extra > 0 {
		last := &out[len(out)-1]
		grow := min(extra, d.End-last.To)
		last.To += grow
		extra -= grow
		first := &out[0]
		first.From = max(sigEnd+1, first.From-extra)
	}
	for total = spansLen(out); total > avail && len(out) > 0; total = spansLen(out) {
		last := &out[len(out)-1]
		if cut := total - avail; last.To-last.From+1 > cut {
			last.To -= cut
		} else {
			out = out[:len(out)-1]
		}
	}
	if len(out) > 0 && out[0].From <= sig.To+1 {
		out[0].From = sig.From
		return out
	}
	return append([]span{sig}, out...)
}

func spansLen(s []span) int {
	n := 0
	for _, x := range s {
		n += x.To - x.From + 1
	}
	return n
}

const (
	maxSigLines = 10 // of a signature shown above a window
	clusterGap  = 40 // focus lines further apart get windows of their own
)
