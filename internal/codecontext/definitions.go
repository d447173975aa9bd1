package codecontext

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/diff"
)

// use is one occurrence, on an added line, of a name that may be defined out of sight.
type use struct {
	name      string
	path      string
	line      int
	seq       int     // order of appearance in the change
	member    bool    // reached through a selector or a struct literal's key: a field or method (s.mu, self.release())
	qualified bool    // Go: pkg.Name, pkg a package of this module in qualDir
	qualDir   string  // the directory of that package
	recv      recvRef // Go: what the code says of the type of the selector's operand
	called    bool    // followed by "(" (other languages)
	unchanged bool    // on an unchanged line of a hunk, not an added one
}

// lookupKey is what a definition is looked up by: the same name used the same way from the
// same file is looked up once.
type lookupKey struct {
	path, name        string
	member, qualified bool
	qualDir           string
	recv              recvRef
}

type lookup struct {
	key       lookupKey
	lang      language
	uses      []use
	hits      []defHit
	done      bool
	cut       bool // the read limit stopped the search
	ambiguous bool // Go: a member several types have, on an operand of a type the code does not say
}

// Localities of a definition relative to its use, best first.
const (
	sameFile = iota
	sameDir
	elsewhere
)

type defHit struct {
	path     string
	d        decl
	locality int
}

// definitions finds, for the names the hunks' lines use, the definitions the prompt does not
// show yet; see the package documentation for the rules. The names the added lines use are
// looked up before those only the unchanged lines use, so that the read limit cuts the
// latter.
func (b *builder) definitions(files []diff.File) ([]*lookup, error) {
	lookups, err := b.collectUses(files)
	if err != nil {
		return nil, err
	}
	if err := b.findAll(lookups); err != nil {
		return nil, err
	}
	split := slices.IndexFunc(lookups, func(lk *lookup) bool { return !lk.changed() })
	if split < 0 {
		split = len(lookups)
	}
	for _, part := range [][]*lookup{lookups[:split], lookups[split:]} {
		if err := b.lookUp(part); err != nil {
			return nil, err
		}
	}
	var cut, ambiguous []string
	for _, lk := range lookups {
		if !lk.done && lk.cut && !slices.Contains(cut, lk.key.name) {
			cut = append(cut, lk.key.name)
		}
		if lk.ambiguous && !slices.Contains(ambiguous, lk.key.name) {
			ambiguous = append(ambiguous, lk.key.name)
		}
	}
	if len(cut) > 0 {
		b.omit(fmt.Sprintf("definitions of %s: not looked up, the %d-file read limit was reached", nameList(cut), b.readLimit()))
	}
	if len(ambiguous) > 0 {
		b.omit(fmt.Sprintf("definitions of the members %s: not linked, several types have them and the code does not say which one the operand is", nameList(ambiguous)))
	}
	return lookups, nil
}

// lookUp searches for the definitions of lookups: the cheap places first for every name (the
// use's own file), then the nearer ones (a C file's includes, the directory, a Go member's
// type), then the rest of the repository, so that the read limit cuts the least likely
// searches.
func (b *builder) lookUp(lookups []*lookup) error {
	for _, lk := range lookups {
		if !goMemberLookup(lk) {
			b.inFile(lk)
		}
	}
	for _, lk := range lookups {
		var err error
		switch {
		case lk.done:
		case goMemberLookup(lk):
			err = b.goMember(lk)
		case lk.lang.family() == langC:
			if err = b.inIncludes(lk); err == nil && !lk.done {
				err = b.inDir(lk)
			}
		default:
			err = b.inDir(lk)
		}
		if err != nil {
			return err
		}
	}
	var far []*lookup
	var names []string
	for _, lk := range lookups {
		if !lk.done && lk.lang != langGo && searchElsewhere(lk) {
			far = append(far, lk)
			names = append(names, lk.key.name)
		}
	}
	if err := b.find(nil, names); err != nil {
		return err
	}
	for _, lk := range far {
		if err := b.elsewhere(lk); err != nil {
			return err
		}
	}
	return nil
}

// findAll asks the Finder, in one search, which files of the directories the lookups will
// search hold the names they will look for: the use's directory, a qualified name's package,
// and in Go the packages of the module the use's file imports and the names of the types
// and fields its operand's type is worked out through.
func (b *builder) findAll(lookups []*lookup) error {
	if b.finder == nil {
		return nil
	}
	var dirs, words []string
	for _, lk := range lookups {
		dirs = append(dirs, path.Dir(lk.key.path))
		words = append(words, lk.key.name)
		if lk.key.qualified {
			dirs = append(dirs, lk.key.qualDir)
		}
		if lk.lang != langGo {
			continue
		}
		if r := lk.key.recv; r.kind != recvUnknown {
			words = append(words, r.name)
			for step := range strings.SplitSeq(r.chain, ".") {
				words = append(words, strings.TrimSuffix(step, "()")) // "" for no chain: find skips it
			}
		}
		if f := b.files[fileKey{SideHead, lk.key.path}]; f != nil && f.gof != nil {
			for _, ip := range f.gof.imports {
				if d := b.moduleDir(ip); d != "" {
					dirs = append(dirs, d)
				}
			}
		}
	}
	return b.find(dirs, words)
}

// find asks the Finder which files of dirs (the whole tree when nil) hold each of words not
// asked about yet, in one search. A search that fails is reported, and the Finder is not
// used again: the definitions are then searched by reading files.
func (b *builder) find(dirs, words []string) error {
	if b.finder == nil || len(words) == 0 {
		return nil
	}
	if dirs != nil {
		dirs = slices.Compact(slices.Sorted(slices.Values(dirs)))
	}
	keys := dirs
	if dirs == nil {
		keys = []string{""}
	}
	var ask []string
	for _, w := range slices.Compact(slices.Sorted(slices.Values(words))) {
		for _, d := range keys {
			if _, known := b.holders[d][w]; !known && w != "" {
				ask = append(ask, w)
				break
			}
		}
	}
	if len(ask) == 0 {
		return nil
	}
	found, err := b.finder.FindWords(b.ctx, b.revs[SideHead], ask, dirs)
	if b.ctx.Err() != nil {
		return fmt.Errorf("find names at head: %w", b.ctx.Err())
	}
	if err != nil {
		b.omit(fmt.Sprintf("the search for names failed (%v): definitions were searched by reading files instead, at most %d", err, maxSearchReads))
		b.finder = nil
		return nil
	}
	for _, d := range keys {
		if b.holders[d] == nil {
			b.holders[d] = make(map[string][]string)
		}
	}
	for _, w := range ask {
		for _, d := range keys {
			b.holders[d][w] = nil
		}
		for _, p := range found[w] {
			d := path.Dir(p)
			if dirs == nil {
				d = ""
			}
			if hs, ok := b.holders[d]; ok {
				hs[w] = append(hs[w], p)
			}
		}
	}
	return nil
}

// searchList lists the files under dir ("." for the tree) at head that the search for words
// may read: with a Finder, those in dir that hold one of them (the tree's for "."), asking it
// about what it was not asked yet; without, every file under dir.
func (b *builder) searchList(dir string, words []string) ([]string, error) {
	key, dirs := dir, []string{dir}
	if dir == "." {
		key, dirs = "", nil
	}
	if err := b.find(dirs, words); err != nil {
		return nil, err
	}
	if b.finder == nil {
		return b.listDir(dir)
	}
	var out []string
	for _, w := range words {
		out = append(out, b.holders[key][w]...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// goMemberLookup reports whether lk is a Go field or method, looked up by goMember.
func goMemberLookup(lk *lookup) bool { return lk.lang == langGo && lk.key.member }

func nameList(names []string) string {
	const show = 20
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

// changed reports whether an added line uses the name, not only unchanged ones.
func (lk *lookup) changed() bool { return changedUses(lk.uses) > 0 }

// changedUses counts the uses on added lines.
func changedUses(us []use) int {
	n := 0
	for _, u := range us {
		if !u.unchanged {
			n++
		}
	}
	return n
}

// collectUses lists the names the hunks' lines use, grouped into lookups: those an added line
// uses first, ordered by how often added lines use them, then the others by how often they
// are used; then by first use in their file, the files taking turns.
func (b *builder) collectUses(files []diff.File) ([]*lookup, error) {
	var uses []use
	var langs []language
	for _, f := range files {
		if f.NewPath == "" || f.Status == diff.Deleted || f.Binary {
			continue
		}
		l := languageOf(f.NewPath)
		if l == langUnknown {
			continue
		}
		// The lines of the hunks at head, added (true) or unchanged (false).
		added := make(map[int]bool)
		var lines []int
		changes := false
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Op != diff.Delete {
					added[l.New] = l.Op == diff.Add
					lines = append(lines, l.New)
					changes = changes || l.Op == diff.Add
				}
			}
		}
		if !changes {
			continue
		}
		fl, err := b.load(SideHead, f.NewPath, false)
		if err != nil {
			return nil, err
		}
		if fl.skip != "" {
			continue
		}
		b.outline(fl)
		var us []use
		if fl.gof != nil {
			if err := b.readModule(); err != nil {
				return nil, err
			}
			us = fl.gof.uses(fl.path, added, b.moduleDir)
		} else {
			us = lexicalUses(fl, lines) // also Go that go/parser rejects
		}
		for _, u := range us {
			u.seq, u.unchanged = len(uses), !added[u.line]
			uses = append(uses, u)
			langs = append(langs, l)
		}
	}
	byKey := make(map[lookupKey]*lookup)
	var out []*lookup
	for i, u := range uses {
		k := lookupKey{path: u.path, name: u.name, member: u.member, qualified: u.qualified, qualDir: u.qualDir, recv: u.recv}
		lk := byKey[k]
		if lk == nil {
			lk = &lookup{key: k, lang: langs[i]}
			byKey[k] = lk
			out = append(out, lk)
		}
		lk.uses = append(lk.uses, u)
	}
	// Those the added lines use first, most used first; among equals, the changed files take
	// turns, so that a read limit reached on a large change cuts every file's least used
	// names, not the last files'.
	round := make(map[*lookup]int, len(out))
	perFile := make(map[string]int)
	for _, lk := range out {
		round[lk] = perFile[lk.key.path]
		perFile[lk.key.path]++
	}
	slices.SortStableFunc(out, func(a, b *lookup) int {
		return cmp.Or(cmp.Compare(changedUses(b.uses), changedUses(a.uses)), cmp.Compare(len(b.uses), len(a.uses)), cmp.Compare(round[a], round[b]))
	})
	return out, nil
}

// identRe matches identifiers in code with comments and literals blanked.
var identRe = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// lexicalUses finds the names on the given lines of a file in a language other than Go:
// every identifier that is not a keyword, a builtin or shorter than three characters. Locals
// are not told apart; they rarely match a declaration, and when they do, the budget and the
// ranking keep the cost small.
func lexicalUses(f *file, lines []int) []use {
	if f.code == nil {
		f.code = codeLines(f.lang, f.lines)
	}
	var out []use
	for _, ln := range lines {
		if ln < 1 || ln > len(f.code) {
			continue
		}
		c := f.code[ln-1]
		for _, m := range identRe.FindAllStringIndex(c, -1) {
			s, e := m[0], m[1]
			if s > 0 && isWordByte(c[s-1]) { // the tail of a number: 0x1f
				continue
			}
			name := c[s:e]
			if ignored(f.lang, name) {
				continue
			}
			before := strings.TrimRight(c[:s], " \t")
			after := strings.TrimLeft(c[e:], " \t")
			out = append(out, use{
				name:   name,
				path:   f.path,
				line:   ln,
				member: strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") || strings.HasSuffix(before, "::"),
				called: strings.HasPrefix(after, "("),
			})
		}
	}
	return out
}

// readModule reads the module path from go.mod at the root of head, once.
func (b *builder) readModule() error {
	if b.moduleRead {
		return nil
	}
	b.moduleRead = true
	f, err := b.load(SideHead, "go.mod", true)
	if errors.Is(err, errReadLimit) {
		return nil
	}
	if err != nil {
		return err
	}
	if f.skip == "" {
		b.module = modulePath(f.data)
	}
	return nil
}

// moduleDir is the directory of a package of the module at the root, or "" for a package
// from elsewhere.
func (b *builder) moduleDir(importPath string) string {
	switch {
	case b.module == "":
		return ""
	case importPath == b.module:
		return "."
	case strings.HasPrefix(importPath, b.module+"/"):
		return strings.TrimPrefix(importPath, b.module+"/")
	}
	return ""
}

// matches reports whether d defines the name lk looks up. A Go field or method is looked up
// by goMember instead; in Go a plain name never reaches a method, and other languages are not
// told apart that finely.
func matches(lk *lookup, d decl) bool {
	name := lk.key.name
	if d.Kind == declContainer {
		return false
	}
	if lk.lang != langGo {
		return slices.Contains(d.Names, name)
	}
	return !d.Method && slices.Contains(d.Names, name)
}

// pick looks for lk in one file's declarations; it reports whether the search is over.
func (lk *lookup) pick(p string, decls []decl, locality int) bool {
	var hits []defHit
	for _, d := range decls {
		if matches(lk, d) {
			hits = append(hits, defHit{path: p, d: d, locality: locality})
		}
	}
	if len(hits) == 0 {
		return false
	}
	lk.hits = hits[:min(len(hits), maxDefsPerName)]
	lk.done = true
	return true
}

// inFile looks in the file of the use.
func (b *builder) inFile(lk *lookup) {
	if lk.key.qualified {
		return
	}
	f := b.files[fileKey{SideHead, lk.key.path}]
	lk.pick(f.path, b.outline(f), sameFile)
}

// inDir looks in the other files of the use's directory (its package in Go), or for a Go
// name of another package, in that package's directory.
func (b *builder) inDir(lk *lookup) error {
	dir := path.Dir(lk.key.path)
	locality := sameDir
	if lk.key.qualified {
		if lk.key.qualDir != dir {
			locality = elsewhere
		}
		dir = lk.key.qualDir
	}
	all, err := b.searchList(dir, []string{lk.key.name})
	if err != nil {
		return err
	}
	useFile := b.files[fileKey{SideHead, lk.key.path}]
	isTest := strings.HasSuffix(lk.key.path, "_test.go")
	var paths []string
	for _, p := range all {
		if path.Dir(p) != dir || p == lk.key.path || languageOf(p).family() != lk.lang.family() {
			continue
		}
		if lk.lang == langGo && strings.HasSuffix(p, "_test.go") && (!isTest || lk.key.qualified) {
			continue
		}
		paths = append(paths, p)
	}
	accept := func(f *file) bool {
		if lk.lang != langGo || f.gof == nil {
			return true
		}
		if lk.key.qualified {
			return !strings.HasSuffix(f.gof.pkg, "_test")
		}
		return useFile.gof == nil || f.gof.pkg == useFile.gof.pkg
	}
	return b.search(lk, orderFor(paths, lk.key.name, nil, dir), locality, 0, accept)
}

// searchElsewhere reports whether a name is worth a search beyond its directory: it is
// called or capitalised (a type), which a local variable rarely is.
func searchElsewhere(lk *lookup) bool {
	n := lk.key.name
	if n[0] >= 'A' && n[0] <= 'Z' {
		return true
	}
	for _, u := range lk.uses {
		if u.called {
			return true
		}
	}
	return false
}

// elsewhere scans the rest of the repository for a name of another language than Go, files
// the use's file imports or includes first, then files named like the name, nearest first.
func (b *builder) elsewhere(lk *lookup) error {
	all, err := b.searchList(".", []string{lk.key.name})
	if err != nil {
		return err
	}
	dir := path.Dir(lk.key.path)
	var paths []string
	for _, p := range all {
		if path.Dir(p) != dir && languageOf(p).family() == lk.lang.family() {
			paths = append(paths, p)
		}
	}
	useFile := b.files[fileKey{SideHead, lk.key.path}]
	imported := importStems(useFile)
	return b.search(lk, orderFor(paths, lk.key.name, imported, dir), elsewhere, maxSearchReadsPerName, nil)
}

// search reads paths in order until one defines the name.
func (b *builder) search(lk *lookup, paths []string, locality, limit int, accept func(*file) bool) error {
	name := []byte(lk.key.name)
	reads := 0
	for _, p := range paths {
		if limit > 0 && reads >= limit {
			return nil
		}
		if _, cached := b.files[fileKey{SideHead, p}]; !cached {
			reads++
		}
		f, err := b.load(SideHead, p, true)
		if errors.Is(err, errReadLimit) {
			lk.cut = true
			return nil
		}
		if err != nil {
			return err
		}
		if f.skip != "" || !bytes.Contains(f.data, name) {
			continue
		}
		decls := b.outline(f)
		if accept != nil && !accept(f) {
			continue
		}
		if lk.pick(p, decls, locality) {
			return nil
		}
	}
	return nil
}

// listDir lists the files under dir at head, once. A listing that fails is reported and
// taken as empty.
func (b *builder) listDir(dir string) ([]string, error) {
	if ps, ok := b.dirs[dir]; ok {
		return ps, nil
	}
	ps, err := b.src.ListFiles(b.ctx, b.revs[SideHead], dir)
	if b.ctx.Err() != nil {
		return nil, fmt.Errorf("list %s: %w", dir, b.ctx.Err())
	}
	if err != nil {
		b.omit(fmt.Sprintf("%s at head: not listed, its definitions were not searched (%v)", dir, err))
		ps = nil
	}
	b.dirs[dir] = ps
	return ps, nil
}

// orderFor orders the files to search for a name: those whose stem an import names first,
// then those whose stem and the name contain one another (lock.go for releaseLock), then the
// rest; within each, the files nearest to dir first, then by path.
func orderFor(paths []string, name string, imported map[string]bool, dir string) []string {
	n := normalize(name)
	type ranked struct {
		path       string
		rank, near int
	}
	rs := make([]ranked, len(paths))
	for i, p := range paths {
		stem := normalize(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		r := 2
		switch {
		case imported[stem]:
			r = 0
		case len(stem) >= 3 && (strings.Contains(n, stem) || strings.Contains(stem, n)):
			r = 1
		}
		rs[i] = ranked{p, r, commonDirs(p, dir)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(b.near, a.near), cmp.Compare(a.path, b.path))
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.path
	}
	return out
}

// commonDirs counts the leading directories p shares with dir.
func commonDirs(p, dir string) int {
	if dir == "." {
		return 0
	}
	ps, ds := strings.Split(path.Dir(p), "/"), strings.Split(dir, "/")
	n := 0
	for n < len(ps) && n < len(ds) && ps[n] == ds[n] {
		n++
	}
	return n
}

// normalize lowercases a name and drops what separates words, and a test suffix.
func normalize(s string) string {
	s = strings.TrimSuffix(strings.ToLower(s), "_test")
	return separators.Replace(s)
}

var separators = strings.NewReplacer("_", "", "-", "", ".", "")

var (
	// importLine matches a line that imports or includes another file.
	importLine = regexp.MustCompile(`^\s*(?:#\s*include|import|from|use|mod|using|require)\b|\brequire\s*\(`)
	importWord = regexp.MustCompile(`[A-Za-z_][\w-]*`)
)

// importStems are the normalized words of a file's import and include lines: the stems of
// the files it most likely takes names from.
func importStems(f *file) map[string]bool {
	m := make(map[string]bool)
	if f == nil {
		return m
	}
	for _, l := range f.lines {
		if !importLine.MatchString(l) {
			continue
		}
		for _, w := range importWord.FindAllString(l, -1) {
			if len(w) >= 3 {
				m[normalize(w)] = true
			}
		}
	}
	return m
}

// defCand is a definition found for one or more lookups.
type defCand struct {
	hit   defHit
	uses  []use
	first int // seq of its first use
}

// definitionCandidates merges the hits into one candidate per declaration, drops those the
// prompt already shows (or that the budget already refused as enclosing snippets) or that
// hold the use itself (a recursive call, a method's own class), and ranks them: those an
// added line uses first, most such uses first, then most uses, then same file, same
// directory, elsewhere, then first use.
func (b *builder) definitionCandidates(lookups []*lookup) []candidate {
	type key struct {
		path       string
		start, end int
	}
	byKey := make(map[key]*defCand)
	var cands []*defCand
	for _, lk := range lookups {
		for _, h := range lk.hits {
			k := key{h.path, h.d.Start, h.d.End}
			c := byKey[k]
			if c == nil {
				c = &defCand{hit: h, first: lk.uses[0].seq}
				byKey[k] = c
				cands = append(cands, c)
			}
			c.hit.locality = min(c.hit.locality, h.locality)
			c.uses = append(c.uses, lk.uses...)
			c.first = min(c.first, lk.uses[0].seq)
		}
	}
	cands = slices.DeleteFunc(cands, func(c *defCand) bool {
		d := c.hit.d
		if covered(b.shown[c.hit.path], d.Start, d.End) || slices.Contains(b.offered[fileKey{SideHead, c.hit.path}], span{d.Start, d.End}) {
			return true // shown, or offered as an enclosing snippet and left out for the budget
		}
		for _, u := range c.uses {
			if u.path == c.hit.path && d.contains(u.line) {
				return true
			}
		}
		return false
	})
	cands = mergeNested(cands)
	slices.SortStableFunc(cands, func(x, y *defCand) int {
		return cmp.Or(
			cmp.Compare(changedUses(y.uses), changedUses(x.uses)),
			cmp.Compare(len(y.uses), len(x.uses)),
			cmp.Compare(x.hit.locality, y.hit.locality),
			cmp.Compare(x.first, y.first),
			cmp.Compare(x.hit.path, y.hit.path),
			cmp.Compare(x.hit.d.Start, y.hit.d.Start),
		)
	})
	out := make([]candidate, 0, len(cands))
	for _, c := range cands {
		slices.SortStableFunc(c.uses, func(x, y use) int { return x.seq - y.seq })
		f := b.files[fileKey{SideHead, c.hit.path}]
		var focus []int
		for _, u := range c.uses {
			if m, ok := c.hit.d.Members[u.name]; ok {
				focus = append(focus, m.Line)
			}
		}
		cand := makeCandidate(f, c.hit.d, KindDefinition, defReason(c.hit.d, c.uses), focus, snippetCap(b.o.BudgetTokens))
		cand.unchanged = changedUses(c.uses) == 0
		out = append(out, cand)
	}
	return out
}

// mergeNested folds a definition that another one holds (a method of a class also shown)
// into the holder, when the holder is short enough to read whole.
func mergeNested(cands []*defCand) []*defCand {
	drop := make(map[*defCand]bool)
	for _, in := range cands {
		for _, out := range cands {
			a, b := out.hit.d, in.hit.d
			if in == out || drop[out] || out.hit.path != in.hit.path || a.lines() > maxGroupLines ||
				a.Start > b.Start || a.End < b.End || a.Start == b.Start && a.End == b.End {
				continue
			}
			out.uses = append(out.uses, in.uses...)
			out.first = min(out.first, in.first)
			out.hit.locality = min(out.hit.locality, in.hit.locality)
			drop[in] = true
			break
		}
	}
	return slices.DeleteFunc(cands, func(c *defCand) bool { return drop[c] })
}

// defReason says where a definition is used: "used at store.go:46, not shown in the diff",
// "field mu used at store.go:40; field reserved used at store.go:41, not shown in the diff",
// "used at store.go:44 (unchanged), not shown in the diff", naming at most three names and
// three places for each.
func defReason(d decl, uses []use) string {
	var names []string
	sites := make(map[string][]string)
	for _, u := range uses {
		if !slices.Contains(names, u.name) {
			names = append(names, u.name)
		}
		s := fmt.Sprintf("%s:%d", u.path, u.line)
		if u.unchanged {
			s += " (unchanged)"
		}
		if !slices.Contains(sites[u.name], s) {
			sites[u.name] = append(sites[u.name], s)
		}
	}
	const showNames = 3
	var parts []string
	for _, n := range names[:min(len(names), showNames)] {
		prefix := ""
		if m, ok := d.Members[n]; ok && !slices.Contains(d.Names, n) {
			prefix = m.Kind + " " + n + " "
		} else if len(names) > 1 {
			prefix = n + " "
		}
		s := sites[n]
		list := strings.Join(s[:min(len(s), 3)], ", ")
		if len(s) > 3 {
			list += fmt.Sprintf(" and %d more", len(s)-3)
		}
		parts = append(parts, prefix+"used at "+list)
	}
	if len(names) > showNames {
		parts = append(parts, fmt.Sprintf("and %d more of its names", len(names)-showNames))
	}
	return strings.Join(parts, "; ") + ", not shown in the diff"
}
