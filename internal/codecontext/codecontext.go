package codecontext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/council-dev/council/internal/diff"
)

// Source reads the repository at a revision; *source.Git satisfies it.
type Source interface {
	// ReadFile returns a file's content at rev, or an error wrapping fs.ErrNotExist.
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
	// ListFiles lists the files under dir ("." for the whole tree) at rev, recursively, as
	// paths from the repository's root.
	ListFiles(ctx context.Context, rev, dir string) ([]string, error)
}

// Finder is what a Source may also do, checked with a type assertion: list the files that
// hold some words without reading them through ReadFile; *source.Git does, with one git grep.
// With it the definition search reads only the files that hold a name it looks for, so that
// the read limit is spent on files that may define it, and allows maxFoundReads of them.
type Finder interface {
	// FindWords lists, for each of words, the files at rev that hold it as a whole word
	// (between characters other than letters, digits and underscores), as paths from the
	// repository's root; a word no file holds may be absent. dirs limits the search to the
	// files directly in those directories ("." for the root's own), nil means the whole tree.
	FindWords(ctx context.Context, rev string, words, dirs []string) (map[string][]string, error)
}

// Options bound the work and the output.
type Options struct {
	BudgetTokens int // total tokens of snippets (estimate: ceil(chars/4)); <=0 means 8000; see Budget
	MaxFileBytes int // files larger are not parsed; <=0 means 1 MiB
}

// Budget is the context budget for a unit whose rendered diff is unitTokens tokens: a floor of
// 8,000 tokens, plus 40% of the diff, up to 40,000.
//
// The floor is what one small change needs: a few enclosing functions and the types and
// helpers they use. Beyond it, what a reviewer needs grows with the change: every changed
// function brings its own callees, types and fields, and a 17-file change left 47 of them out
// of a fixed 8,000 tokens. Two tokens of context for five of diff gives a full unit of the
// planner's default 60,000 tokens 32,000 tokens of context, so that diff and context stay
// within about 92,000 tokens, inside every context window council supports with room for the
// instructions and the answer. The ceiling holds for a unit the planner let grow past its
// budget (one huge hunk): context beyond 40,000 tokens would crowd out the diff it explains.
func Budget(unitTokens int) int {
	return min(maxBudgetTokens, defaultBudgetTokens+max(0, unitTokens)*2/5)
}

// Sides and kinds of a Snippet.
const (
	SideHead = "head"
	SideBase = "base"

	KindEnclosing  = "enclosing"  // the declaration around a hunk
	KindDefinition = "definition" // the definition of a name the added lines use
)

// Snippet is a run of lines of one file at one revision.
type Snippet struct {
	Path      string
	Side      string // SideHead or SideBase
	StartLine int
	EndLine   int
	Kind      string // KindEnclosing or KindDefinition
	Symbol    string // "func (*Store) Reserve", "type Store", "def Store.reserve"
	Reason    string // "encloses hunk @@ -37,3 +40,18 @@", "used at store.go:46, not shown in the diff"
	Text      string // the lines, verbatim, without a final newline
}

// Result is the context of one change: the snippets that fit the budget, enclosing
// declarations first (in the order of the diff), then the small definitions, then the large
// ones (each most used first), and what was left out, each with why.
type Result struct {
	Snippets []Snippet
	Omitted  []string
}

const (
	defaultBudgetTokens = 8000
	maxBudgetTokens     = 40000
	defaultMaxFileBytes = 1 << 20
	// maxSnippetLines caps one declaration; a longer one shows its signature and a window.
	maxSnippetLines = 200
	// maxSearchReads caps the files read to find definitions for one change, beyond the
	// changed files themselves; maxFoundReads replaces it when the Source is a Finder, as
	// every file read then holds a name looked up; maxSearchReadsPerName caps those spent on
	// one name outside its own directory.
	maxSearchReads        = 200
	maxFoundReads         = 1000
	maxSearchReadsPerName = 50
	// maxDefsPerName caps the definitions shown for one name (a method name several types
	// share).
	maxDefsPerName = 2
	// binarySniff is how much of a file is checked for a NUL byte, as git does.
	binarySniff = 8000
)

// Build assembles the context of a change: files as parsed from the diff of baseRev..headRev,
// read through src. It fails only when ctx is done; a file it cannot read or parse is listed
// in Result.Omitted.
func Build(ctx context.Context, src Source, files []diff.File, baseRev, headRev string, o Options) (Result, error) {
	if o.BudgetTokens <= 0 {
		o.BudgetTokens = defaultBudgetTokens
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = defaultMaxFileBytes
	}
	b := &builder{
		ctx:     ctx,
		src:     src,
		holders: make(map[string]map[string][]string),
		revs:    map[string]string{SideHead: headRev, SideBase: baseRev},
		o:       o,
		files:   make(map[fileKey]*file),
		dirs:    make(map[string][]string),
		shown:   make(map[string][]span),
		offered: make(map[fileKey][]span),
	}
	b.finder, _ = src.(Finder)
	enclosing, err := b.enclosing(files)
	if err != nil {
		return Result{}, err
	}
	lookups, err := b.definitions(files)
	if err != nil {
		return Result{}, err
	}
	// Definitions the enclosing snippets would show are not offered again; an enclosing
	// snippet the budget then leaves out costs at most such a definition.
	for _, c := range enclosing {
		b.markShown(c.pieces)
	}
	b.pack(enclosing, b.definitionCandidates(lookups))
	return b.res, nil
}

type builder struct {
	ctx  context.Context
	src  Source
	revs map[string]string
	o    Options

	files       map[fileKey]*file
	dirs        map[string][]string // directory -> its files at head, recursively
	searchReads int
	finder      Finder                         // nil when src is not one, or once it failed
	holders     map[string]map[string][]string // directory ("" for the tree) -> word -> files at head that hold it
	module      string                         // the Go module path at the root, once read
	moduleRead  bool
	allFiles    map[string]bool // the files at head, once listed for #include

	res     Result
	used    int                // tokens of res.Snippets
	shown   map[string][]span  // head path -> lines the prompt shows: hunks, enclosing snippets
	offered map[fileKey][]span // declarations offered as enclosing snippets, shown or not
}

type fileKey struct{ side, path string }

// file is one file at one revision, read once.
type file struct {
	path, side string
	lang       language
	data       []byte
	lines      []string
	skip       string // why it is not parsed; "" when it is
	decls      []decl
	outlined   bool
	gof        *goFile
	code       []string // lines with comments and literals blanked, for lexical uses

	includes     []string // C and C++: the headers of the repository it includes, with theirs
	includesDone bool
}

// errReadLimit stops a definition search at the read limit.
var errReadLimit = errors.New("read limit reached")

// readLimit is how many files the definition search may read.
func (b *builder) readLimit() int {
	if b.finder != nil {
		return maxFoundReads
	}
	return maxSearchReads
}

// load reads a file once. A search read counts against the read limit; the changed files do
// not.
func (b *builder) load(side, path string, search bool) (*file, error) {
	k := fileKey{side, path}
	if f, ok := b.files[k]; ok {
		return f, nil
	}
	if search {
		if b.searchReads >= b.readLimit() {
			return nil, errReadLimit
		}
		b.searchReads++
	}
	f := &file{path: path, side: side, lang: languageOf(path)}
	data, err := b.src.ReadFile(b.ctx, b.revs[side], path)
	switch {
	case b.ctx.Err() != nil:
		return nil, fmt.Errorf("read %s at %s: %w", path, side, b.ctx.Err())
	case errors.Is(err, fs.ErrNotExist):
		f.skip = "not found"
	case err != nil:
		f.skip = "unreadable (" + err.Error() + ")"
	case len(data) > b.o.MaxFileBytes:
		f.skip = fmt.Sprintf("%s, over the %s limit", byteSize(len(data)), byteSize(b.o.MaxFileBytes))
	case bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0:
		f.skip = "binary"
	default:
		f.data = data
		f.lines = splitLines(data)
	}
	b.files[k] = f
	return f, nil
}

func byteSize(n int) string {
	unit := func(v float64, u string) string {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + u
	}
	switch {
	case n >= 1<<20:
		return unit(float64(n)/(1<<20), "MiB")
	case n >= 1<<10:
		return unit(float64(n)/(1<<10), "KiB")
	}
	return fmt.Sprintf("%d bytes", n)
}

// outline parses a file once: Go with go/parser (a file it rejects with the heuristic),
// anything else with outline.
func (b *builder) outline(f *file) []decl {
	if f.outlined {
		return f.decls
	}
	f.outlined = true
	if f.lang == langGo {
		if g, err := parseGo(f.path, f.data); err == nil {
			f.gof = g
			f.decls = g.outline()
			return f.decls
		}
		f.decls = heuristicOutline(langGo, f.data)
		return f.decls
	}
	f.decls = outline(f.lang, f.data)
	return f.decls
}

func (b *builder) omit(s string) { b.res.Omitted = append(b.res.Omitted, s) }

func (b *builder) markShown(pieces []Snippet) {
	for _, p := range pieces {
		if p.Side == SideHead {
			b.shown[p.Path] = append(b.shown[p.Path], span{p.StartLine, p.EndLine})
		}
	}
}

// tokens estimates the tokens of a text: a quarter of its characters, rounded up.
func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// hunkHeader is the @@ line of a hunk, without its section text.
func hunkHeader(h diff.Hunk) string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
}

// hunkSpan is the lines a hunk shows of one side.
func hunkSpan(h diff.Hunk, side string) span {
	if side == SideBase {
		return span{h.OldStart, h.OldStart + h.OldLines - 1}
	}
	return span{h.NewStart, h.NewStart + h.NewLines - 1}
}

// changedLines are the lines a hunk adds (head) or deletes (base).
func changedLines(h diff.Hunk, side string) []int {
	var out []int
	for _, l := range h.Lines {
		switch {
		case side == SideHead && l.Op == diff.Add:
			out = append(out, l.New)
		case side == SideBase && l.Op == diff.Delete:
			out = append(out, l.Old)
		}
	}
	return out
}

// enclosing finds the declarations around the hunks: at head around added lines, at base
// around deleted lines. A declaration the hunks show entirely is skipped (there is nothing
// more to see), and so is the base version of a declaration whose head version is shown or
// visible: the hunk already shows what it lost.
func (b *builder) enclosing(files []diff.File) ([]candidate, error) {
	var out []candidate
	for _, f := range files {
		if len(f.Hunks) == 0 {
			continue
		}
		if f.Binary {
			b.omit(fmt.Sprintf("%s: binary file, not parsed", f.Path()))
			continue
		}
		var headSyms map[string]bool
		for _, side := range []string{SideHead, SideBase} {
			p := f.NewPath
			if side == SideBase {
				p = f.OldPath
			}
			if p == "" {
				continue
			}
			if side == SideHead {
				for _, h := range f.Hunks {
					b.shown[p] = append(b.shown[p], hunkSpan(h, side))
				}
			}
			cands, syms, err := b.enclosingSide(f, p, side, headSyms)
			if err != nil {
				return nil, err
			}
			if side == SideHead {
				headSyms = syms
			}
			out = append(out, cands...)
		}
	}
	return out, nil
}

func (b *builder) enclosingSide(f diff.File, p, side string, headSyms map[string]bool) ([]candidate, map[string]bool, error) {
	changed := 0
	for _, h := range f.Hunks {
		changed += len(changedLines(h, side))
	}
	if changed == 0 {
		return nil, nil, nil
	}
	fl, err := b.load(side, p, false)
	if err != nil {
		return nil, nil, err
	}
	if fl.skip != "" {
		b.omit(fmt.Sprintf("%s at %s: %s, not parsed", p, side, fl.skip))
		return nil, nil, nil
	}
	decls := b.outline(fl)
	type hit struct {
		d     decl
		hunks []int
		lines []int
	}
	var hits []*hit
	byRange := make(map[span]*hit)
	var spans []span
	for hi, h := range f.Hunks {
		spans = append(spans, hunkSpan(h, side))
		for _, ln := range changedLines(h, side) {
			d, ok := enclosingDecl(decls, ln)
			if !ok {
				continue
			}
			k := span{d.Start, d.End}
			x := byRange[k]
			if x == nil {
				x = &hit{d: d}
				byRange[k] = x
				hits = append(hits, x)
			}
			if len(x.hunks) == 0 || x.hunks[len(x.hunks)-1] != hi {
				x.hunks = append(x.hunks, hi)
			}
			x.lines = append(x.lines, ln)
		}
	}
	slices.SortFunc(hits, func(a, b *hit) int { return a.d.Start - b.d.Start })
	syms := make(map[string]bool)
	var out []candidate
	for _, x := range hits {
		syms[x.d.Symbol] = true
		if covered(spans, x.d.Start, x.d.End) || (side == SideBase && headSyms[x.d.Symbol]) {
			continue
		}
		var hs []string
		for _, hi := range x.hunks {
			hs = append(hs, hunkHeader(f.Hunks[hi]))
		}
		reason := "encloses hunk " + strings.Join(hs, ", ")
		if len(hs) > 1 {
			reason = "encloses hunks " + strings.Join(hs, ", ")
		}
		if side == SideBase {
			reason = "at base, encloses the lines deleted by hunk " + strings.Join(hs, ", ")
		}
		out = append(out, makeCandidate(fl, x.d, KindEnclosing, reason, x.lines, snippetCap(b.o.BudgetTokens)))
		b.offered[fileKey{side, p}] = append(b.offered[fileKey{side, p}], span{x.d.Start, x.d.End})
	}
	return out, syms, nil
}
