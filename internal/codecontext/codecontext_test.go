package codecontext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
)

const goMod = "module example.com/shop\n\ngo 1.22\n"

// The store package of the lock case: Reserve takes s.mu, and the change makes it release the
// lock through releaseLock, a helper in another file that the diff does not show.
const (
	storeBase = `package store

import "sync"

// Store holds reservations.
type Store struct {
	mu       sync.Mutex
	reserved map[string]int
}

// Reserve reserves n units of id. It takes s.mu; releaseLock releases it.
func (s *Store) Reserve(id string, n int) error {
	if id == "" {
		return errNoID
	}
	s.mu.Lock()
	s.reserved[id] += n
	s.mu.Unlock()
	return nil
}

// Reserved is how much of id is reserved.
func (s *Store) Reserved(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserved[id]
}
`
	storeHead = `package store

import "sync"

// Store holds reservations.
type Store struct {
	mu       sync.Mutex
	reserved map[string]int
}

// Reserve reserves n units of id. It takes s.mu; releaseLock releases it.
func (s *Store) Reserve(id string, n int) error {
	if id == "" {
		return errNoID
	}
	s.mu.Lock()
	if n <= 0 {
		s.releaseLock()
		return errBadAmount
	}
	s.reserved[id] += n
	s.releaseLock()
	return nil
}

// Reserved is how much of id is reserved.
func (s *Store) Reserved(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserved[id]
}
`
	lockGo = `package store

// releaseLock releases s.mu, which Reserve takes.
func (s *Store) releaseLock() {
	s.mu.Unlock()
}
`
	errorsGo = `package store

import "errors"

var (
	errNoID      = errors.New("no id")
	errBadAmount = errors.New("bad amount")
)
`
)

// The counter package of the struct field case: a.go and b.go both write Counter.total; the
// change touches a.go only.
const (
	counterGo = `package counter

// Counter counts hits per key.
type Counter struct {
	hits  map[string]int
	total int // sum of hits, kept by every writer
}
`
	aBase = `package counter

// RecordA records one hit of k.
func RecordA(c *Counter, k string) {
	if k == "" {
		return
	}
	if c.hits == nil {
		c.hits = make(map[string]int)
	}
	c.hits[k]++
}
`
	aHead = `package counter

// RecordA records one hit of k.
func RecordA(c *Counter, k string) {
	if k == "" {
		return
	}
	if c.hits == nil {
		c.hits = make(map[string]int)
	}
	c.hits[k]++
	c.total++
}
`
	bGo = `package counter

// RecordB records two hits of k.
func RecordB(c *Counter, k string) {
	c.hits[k] += 2
	c.total += 2
}
`
)

// The api package of the cross-package case: it calls store.New and a method of the
// *store.Store it gets; fmt is outside the module and never looked up.
const (
	newGo = `package store

// New returns an empty Store.
func New() *Store {
	return &Store{reserved: make(map[string]int)}
}
`
	apiBase = `package api

import (
	"fmt"

	"example.com/shop/store"
)

func handle() {
	fmt.Println("ok")
}
`
	apiHead = `package api

import (
	"fmt"

	"example.com/shop/store"
)

func handle() {
	s := store.New()
	fmt.Println(s.Reserved("x"))
}
`
)

func TestBuildGo(t *testing.T) {
	t.Parallel()
	twoHunks := strings.NewReplacer("\tx += 3\n", "\tx += 33\n", "\tx += 25\n", "\tx += 255\n").Replace(longFunc(30, -1))
	tests := []struct {
		name    string
		base    map[string]string
		changes map[string]string
		want    Result
	}{
		{
			name: "hunk inside a method gets the whole method",
			base: map[string]string{"go.mod": goMod, "store/store.go": storeBase},
			changes: map[string]string{"store/store.go": strings.Replace(storeBase,
				"\ts.reserved[id] += n\n", "\ts.reserved[id] += 2 * n\n", 1)},
			want: Result{Snippets: []Snippet{
				{
					Path: "store/store.go", Side: SideHead, StartLine: 11, EndLine: 20, Kind: KindEnclosing,
					Symbol: "func (*Store) Reserve", Reason: "encloses hunk @@ -14,7 +14,7 @@",
					Text: lines(strings.Replace(storeBase, "+= n", "+= 2 * n", 1), 11, 20),
				},
				{
					Path: "store/store.go", Side: SideHead, StartLine: 5, EndLine: 9, Kind: KindDefinition,
					Symbol: "type Store", Reason: "field reserved used at store/store.go:17, not shown in the diff",
					Text: lines(storeBase, 5, 9),
				},
			}},
		},
		{
			name: "deleted lines get the base-side enclosing function",
			base: map[string]string{"go.mod": goMod, "store/store.go": storeBase},
			changes: map[string]string{"store/store.go": strings.Replace(storeBase,
				"\tif id == \"\" {\n\t\treturn errNoID\n\t}\n", "", 1)},
			want: Result{Snippets: []Snippet{{
				Path: "store/store.go", Side: SideBase, StartLine: 11, EndLine: 20, Kind: KindEnclosing,
				Symbol: "func (*Store) Reserve", Reason: "at base, encloses the lines deleted by hunk @@ -10,9 +10,6 @@",
				Text: lines(storeBase, 11, 20),
			}}},
		},
		{
			name: "lock taken in the changed function is released in a helper the diff does not show",
			base: map[string]string{
				"go.mod": goMod, "store/store.go": storeBase, "store/lock.go": lockGo, "store/errors.go": errorsGo,
			},
			changes: map[string]string{"store/store.go": storeHead},
			want: Result{Snippets: []Snippet{
				{
					Path: "store/store.go", Side: SideHead, StartLine: 11, EndLine: 24, Kind: KindEnclosing,
					Symbol: "func (*Store) Reserve", Reason: "encloses hunk @@ -14,8 +14,12 @@",
					Text: lines(storeHead, 11, 24),
				},
				{
					Path: "store/lock.go", Side: SideHead, StartLine: 3, EndLine: 6, Kind: KindDefinition,
					Symbol: "func (*Store) releaseLock",
					Reason: "used at store/store.go:18, store/store.go:22, not shown in the diff",
					Text:   lines(lockGo, 3, 6),
				},
				{
					Path: "store/errors.go", Side: SideHead, StartLine: 5, EndLine: 8, Kind: KindDefinition,
					Symbol: "var (errNoID, errBadAmount)",
					Reason: "errNoID used at store/store.go:14 (unchanged); errBadAmount used at store/store.go:19, not shown in the diff",
					Text:   lines(errorsGo, 5, 8),
				},
				{
					// Only an unchanged line of the hunk uses it: last.
					Path: "store/store.go", Side: SideHead, StartLine: 5, EndLine: 9, Kind: KindDefinition,
					Symbol: "type Store", Reason: "field reserved used at store/store.go:21 (unchanged), not shown in the diff",
					Text: lines(storeHead, 5, 9),
				},
			}},
		},
		{
			name: "a struct field written by two callers shows the struct",
			base: map[string]string{
				"go.mod": goMod, "counter/counter.go": counterGo, "counter/a.go": aBase, "counter/b.go": bGo,
			},
			changes: map[string]string{"counter/a.go": aHead},
			want: Result{Snippets: []Snippet{
				{
					Path: "counter/a.go", Side: SideHead, StartLine: 3, EndLine: 13, Kind: KindEnclosing,
					Symbol: "func RecordA", Reason: "encloses hunk @@ -9,4 +9,5 @@",
					Text: lines(aHead, 3, 13),
				},
				{
					Path: "counter/counter.go", Side: SideHead, StartLine: 3, EndLine: 7, Kind: KindDefinition,
					Symbol: "type Counter",
					Reason: "field hits used at counter/a.go:9 (unchanged), counter/a.go:11 (unchanged); field total used at counter/a.go:12, not shown in the diff",
					Text:   lines(counterGo, 3, 7),
				},
			}},
		},
		{
			name: "names of another package of the module are found in that package",
			base: map[string]string{
				"go.mod":         goMod,
				"store/new.go":   newGo,
				"store/store.go": storeBase,
				"api/api.go":     apiBase,
			},
			changes: map[string]string{"api/api.go": apiHead},
			want: Result{Snippets: []Snippet{
				{
					Path: "store/new.go", Side: SideHead, StartLine: 3, EndLine: 6, Kind: KindDefinition,
					Symbol: "func New", Reason: "used at api/api.go:10, not shown in the diff",
					Text: lines(newGo, 3, 6),
				},
				{
					Path: "store/store.go", Side: SideHead, StartLine: 22, EndLine: 27, Kind: KindDefinition,
					Symbol: "func (*Store) Reserved", Reason: "used at api/api.go:11, not shown in the diff",
					Text: lines(storeBase, 22, 27),
				},
			}},
		},
		{
			name:    "two hunks in one function give one snippet",
			base:    map[string]string{"go.mod": goMod, "long/long.go": longFunc(30, -1)},
			changes: map[string]string{"long/long.go": twoHunks},
			want: Result{Snippets: []Snippet{{
				Path: "long/long.go", Side: SideHead, StartLine: 3, EndLine: 37, Kind: KindEnclosing,
				Symbol: "func sum", Reason: "encloses hunks @@ -5,7 +5,7 @@, @@ -27,7 +27,7 @@",
				Text: lines(twoHunks, 3, 37),
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, files := repo(tt.base, tt.changes)
			got := build(t, src, files, Options{})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Build mismatch (-want +got):\n%s\n%s", d, Render(got))
			}
			if p, n := src.maxReads(); n > 1 {
				t.Errorf("%s read %d times, want once", p, n)
			}
		})
	}
}

// longFunc is a package with one function of n statements "x += i" (lines 6 to n+5), with a
// comment on line 3 and the signature on line 4; mark, if not -1, adds "_ = x" after that
// statement.
func longFunc(n, mark int) string {
	var sb strings.Builder
	sb.WriteString("package long\n\n// sum adds.\nfunc sum() int {\n\tx := 0\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "\tx += %d\n", i)
		if i == mark {
			sb.WriteString("\t_ = x\n")
		}
	}
	sb.WriteString("\treturn x\n}\n")
	return sb.String()
}

// A function longer than the 200-line cap shows its signature and a window around the hunk.
func TestBuildLongFunction(t *testing.T) {
	t.Parallel()
	base := longFunc(400, -1)
	head := longFunc(400, 300)
	src, files := repo(map[string]string{"long/long.go": base}, map[string]string{"long/long.go": head})
	got := build(t, src, files, Options{})
	// The function is lines 3-408 at head; line 306 is added. The signature (line 4) and 199
	// lines around 306 fill the 200-line cap.
	reason := "encloses hunk @@ -303,6 +303,7 @@; it is 406 lines long (3-408), so only lines 4-4, 207-405 are shown"
	want := Result{Snippets: []Snippet{
		{
			Path: "long/long.go", Side: SideHead, StartLine: 4, EndLine: 4, Kind: KindEnclosing,
			Symbol: "func sum", Reason: reason, Text: lines(head, 4, 4),
		},
		{
			Path: "long/long.go", Side: SideHead, StartLine: 207, EndLine: 405, Kind: KindEnclosing,
			Symbol: "func sum", Reason: reason, Text: lines(head, 207, 405),
		},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", d)
	}
}

// A budget too small for everything keeps the enclosing function and the most used
// definition, and says what it left out.
func TestBuildBudget(t *testing.T) {
	t.Parallel()
	src, files := repo(map[string]string{
		"go.mod": goMod, "store/store.go": storeBase, "store/lock.go": lockGo, "store/errors.go": errorsGo,
	}, map[string]string{"store/store.go": storeHead})
	full := build(t, src, files, Options{})
	if len(full.Snippets) != 4 {
		t.Fatalf("without a budget cut, got %d snippets, want 4", len(full.Snippets))
	}
	budget := tokens(full.Snippets[0].Text) + tokens(full.Snippets[1].Text) + 1
	got := build(t, src, files, Options{BudgetTokens: budget})
	want := Result{
		Snippets: full.Snippets[:2],
		Omitted: []string{
			fmt.Sprintf("definition var (errNoID, errBadAmount) (store/errors.go:5-8 at head): %d tokens, over the %d-token budget (%d used)",
				tokens(full.Snippets[2].Text), budget, budget-1),
			fmt.Sprintf("definition type Store (store/store.go:5-9 at head): %d tokens, over the %d-token budget (%d used)",
				tokens(full.Snippets[3].Text), budget, budget-1),
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", d)
	}
}

// Binary files and files over MaxFileBytes are not parsed, and the result says so.
func TestBuildSkippedFiles(t *testing.T) {
	t.Parallel()
	big := "package big\n\nfunc f() {\n" + strings.Repeat("\t_ = 1\n", 200) + "}\n"
	src, files := repo(map[string]string{
		"big/big.go":  big,
		"img/a.dat":   "\x00\x01\x02 old",
		"img/b.png":   "PNG",
		"gen/data.go": "package gen\n",
	}, map[string]string{
		"big/big.go":  strings.Replace(big, "\t_ = 1\n", "\t_ = 2\n", 1),
		"img/a.dat":   "\x00\x01\x02 new",
		"gen/data.go": "package gen\n\nvar x = 1\n",
	})
	files = append(files, diff.File{OldPath: "img/b.png", NewPath: "img/b.png", Status: diff.Modified, Binary: true,
		Hunks: []diff.Hunk{{}}})
	got := build(t, src, files, Options{MaxFileBytes: 1000})
	want := Result{Omitted: []string{
		"big/big.go at head: 1.4 KiB, over the 1000 bytes limit, not parsed",
		"big/big.go at base: 1.4 KiB, over the 1000 bytes limit, not parsed",
		"img/a.dat at head: binary, not parsed",
		"img/a.dat at base: binary, not parsed",
		"img/b.png: binary file, not parsed",
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", d)
	}
}

// A change whose names are defined nowhere the search may read stops at the read limit and
// says which names it did not look up: maxSearchReads files read blind, or with a Finder,
// maxFoundReads files that hold the name.
func TestBuildReadLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		finder bool
		limit  int
	}{{"reading files", false, maxSearchReads}, {"with a Finder", true, maxFoundReads}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := map[string]string{"go.mod": goMod}
			for i := range tt.limit + 50 {
				base[fmt.Sprintf("big/f%04d.go", i)] = fmt.Sprintf("package big\n\n// helper%04d mentions missingName.\nfunc helper%04d() {}\n", i, i)
			}
			base["big/main.go"] = "package big\n\nfunc run() {\n}\n"
			mem, files := repo(base, map[string]string{"big/main.go": "package big\n\nfunc run() {\n\tmissingName()\n}\n"})
			var src Source = plainSource{mem}
			if tt.finder {
				src = mem
			}
			got := build(t, src, files, Options{})
			want := Result{Omitted: []string{
				fmt.Sprintf("definitions of missingName: not looked up, the %d-file read limit was reached", tt.limit),
			}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Build mismatch (-want +got):\n%s", d)
			}
			mem.mu.Lock()
			reads := len(mem.reads)
			mem.mu.Unlock()
			// The changed file at both sides, go.mod, and the other search reads.
			if reads > tt.limit+2 {
				t.Errorf("read %d files, want at most %d", reads, tt.limit+2)
			}
		})
	}
}

// In a package of 1,500 files, a change that uses four names finds their definitions with a
// Finder, reading only the files that hold them; reading files blind, the read limit stops it.
func TestBuildFinderInALargePackage(t *testing.T) {
	t.Parallel()
	base := map[string]string{"go.mod": goMod}
	for i := range 1500 {
		base[fmt.Sprintf("big/f%04d.go", i)] = fmt.Sprintf("package big\n\n// helper%04d helps.\nfunc helper%04d() int { return %d }\n", i, i, i)
	}
	base["big/main.go"] = "package big\n\nfunc run() int {\n\treturn 0\n}\n"
	head := "package big\n\nfunc run() int {\n\treturn helper0007() + helper0700() + helper1400() + helper1499()\n}\n"
	mem, files := repo(base, map[string]string{"big/main.go": head})

	got := build(t, mem, files, Options{})
	var defs []string
	for _, s := range got.Snippets {
		defs = append(defs, s.Symbol)
	}
	if d := cmp.Diff([]string{"func helper0007", "func helper0700", "func helper1400", "func helper1499"}, defs); d != "" || len(got.Omitted) > 0 {
		t.Errorf("with a Finder: definitions (-want +got):\n%s\nomitted %q", d, got.Omitted)
	}
	mem.mu.Lock()
	reads, finds := len(mem.reads), mem.finds
	mem.mu.Unlock()
	// main.go at both sides, go.mod and the four files that hold the names, in one search.
	if reads != 7 || finds != 1 {
		t.Errorf("with a Finder: read %d files in %d searches, want 7 in 1", reads, finds)
	}

	blind := build(t, plainSource{mem}, files, Options{})
	if len(blind.Omitted) != 1 || !strings.Contains(blind.Omitted[0], "read limit was reached") {
		t.Errorf("reading blind: omitted %q, want the read limit reached", blind.Omitted)
	}
	// A Finder that fails is reported, and the search reads files instead.
	broken := build(t, brokenFinder{mem}, files, Options{})
	want := []string{"the search for names failed (git grep: killed): definitions were searched by reading files instead, at most 200", blind.Omitted[0]}
	if d := cmp.Diff(want, broken.Omitted); d != "" || len(broken.Snippets) != len(blind.Snippets) {
		t.Errorf("with a failing Finder: omitted (-want +got):\n%s", d)
	}
}

// A reason names at most three names, and three places for each.
func TestDefReason(t *testing.T) {
	t.Parallel()
	typ := decl{Names: []string{"Store"}, Members: map[string]member{
		"mu": {Kind: "field"}, "a": {Kind: "field"}, "b": {Kind: "field"}, "c": {Kind: "field"},
	}}
	at := func(name string, line int) use { return use{name: name, path: "s.go", line: line} }
	tests := []struct {
		name string
		d    decl
		uses []use
		want string
	}{
		{
			name: "one name",
			d:    decl{Names: []string{"releaseLock"}},
			uses: []use{at("releaseLock", 18), at("releaseLock", 22), at("releaseLock", 22)},
			want: "used at s.go:18, s.go:22, not shown in the diff",
		},
		{
			name: "places past three",
			d:    decl{Names: []string{"f"}},
			uses: []use{at("f", 1), at("f", 2), at("f", 3), at("f", 4), at("f", 5)},
			want: "used at s.go:1, s.go:2, s.go:3 and 2 more, not shown in the diff",
		},
		{
			name: "names past three",
			d:    typ,
			uses: []use{at("Store", 1), at("mu", 2), at("a", 3), at("b", 4), at("c", 5)},
			want: "Store used at s.go:1; field mu used at s.go:2; field a used at s.go:3; and 2 more of its names, not shown in the diff",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := defReason(tt.d, tt.uses); got != tt.want {
				t.Errorf("defReason = %q, want %q", got, tt.want)
			}
		})
	}
}
