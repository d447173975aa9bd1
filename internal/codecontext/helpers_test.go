package codecontext

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

var (
	_ Source = (*source.Git)(nil)
	_ Finder = (*source.Git)(nil)
)

// memSource is a repository in memory: revision -> path -> content. Like git it refuses an
// unknown revision and an empty directory (git's "empty string is not a valid pathspec"), and
// answers a missing file with fs.ErrNotExist. It counts reads so that tests can check that
// no file is read twice.
type memSource struct {
	revs   map[string]map[string]string
	sorted map[string][]string // rev -> its paths, sorted

	mu    sync.Mutex
	reads map[string]int // "rev:path" -> reads
	lists int
	finds int
	index map[string]map[string][]string // rev -> word -> paths holding it, built by FindWords
}

func newMemSource(revs map[string]map[string]string) *memSource {
	m := &memSource{revs: revs, sorted: make(map[string][]string), reads: make(map[string]int)}
	for rev, files := range revs {
		ps := make([]string, 0, len(files))
		for p := range files {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		m.sorted[rev] = ps
	}
	return m
}

var _ Source = (*memSource)(nil)

func (m *memSource) ReadFile(_ context.Context, rev, path string) ([]byte, error) {
	m.mu.Lock()
	m.reads[rev+":"+path]++
	m.mu.Unlock()
	files, ok := m.revs[rev]
	if !ok {
		return nil, fmt.Errorf("read %s: bad revision %q", path, rev)
	}
	s, ok := files[path]
	if !ok {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, fs.ErrNotExist)
	}
	return []byte(s), nil
}

func (m *memSource) ListFiles(_ context.Context, rev, dir string) ([]string, error) {
	m.mu.Lock()
	m.lists++
	m.mu.Unlock()
	all, ok := m.sorted[rev]
	if !ok {
		return nil, fmt.Errorf("list %s: bad revision %q", dir, rev)
	}
	if dir == "" {
		return nil, fmt.Errorf("list at %s: empty string is not a valid pathspec", rev)
	}
	if dir == "." {
		return slices.Clone(all), nil
	}
	prefix := dir + "/"
	i, _ := slices.BinarySearch(all, prefix)
	j := i
	for j < len(all) && strings.HasPrefix(all[j], prefix) {
		j++
	}
	return slices.Clone(all[i:j]), nil
}

var _ Finder = (*memSource)(nil)

// FindWords is git grep -o -w -F over a revision, as *source.Git runs it: a word counts where
// no letter, digit or underscore touches it; binary files are skipped. The words of each
// revision are indexed once, so that the fake costs the benchmarks little.
func (m *memSource) FindWords(_ context.Context, rev string, words, dirs []string) (map[string][]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finds++
	files, ok := m.revs[rev]
	if !ok {
		return nil, fmt.Errorf("find words: bad revision %q", rev)
	}
	if m.index == nil {
		m.index = make(map[string]map[string][]string)
	}
	idx := m.index[rev]
	if idx == nil {
		idx = make(map[string][]string)
		for _, p := range m.sorted[rev] {
			data := files[p]
			if strings.Contains(data[:min(len(data), binarySniff)], "\x00") {
				continue
			}
			seen := make(map[string]bool)
			for _, w := range gitWord.FindAllString(data, -1) {
				if !seen[w] {
					seen[w] = true
					idx[w] = append(idx[w], p)
				}
			}
		}
		m.index[rev] = idx
	}
	in := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		in[d] = true
	}
	out := make(map[string][]string)
	for _, w := range words {
		for _, p := range idx[w] {
			if dirs == nil || in[path.Dir(p)] {
				out[w] = append(out[w], p)
			}
		}
	}
	return out, nil
}

// gitWord is a word as git grep -w sees one.
var gitWord = regexp.MustCompile(`[A-Za-z0-9_]+`)

// brokenFinder is a memSource whose FindWords fails.
type brokenFinder struct{ *memSource }

func (brokenFinder) FindWords(context.Context, string, []string, []string) (map[string][]string, error) {
	return nil, errors.New("git grep: killed")
}

// maxReads is the largest number of times one file was read.
func (m *memSource) maxReads() (string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	worst, n := "", 0
	for k, v := range m.reads {
		if v > n || v == n && k < worst {
			worst, n = k, v
		}
	}
	return worst, n
}

// repo builds a memSource with a base and a head revision: head is base with the changes
// applied (a "" content deletes the file).
func repo(base map[string]string, changes map[string]string) (*memSource, []diff.File) {
	head := make(map[string]string, len(base))
	for p, s := range base {
		head[p] = s
	}
	var paths []string
	for p, s := range changes {
		paths = append(paths, p)
		if s == "" {
			delete(head, p)
		} else {
			head[p] = s
		}
	}
	slices.Sort(paths)
	var files []diff.File
	for _, p := range paths {
		files = append(files, change(p, base[p], head[p]))
	}
	return newMemSource(map[string]map[string]string{"base": base, "head": head}), files
}

// change diffs two versions of a file as git would with -U3: the longest common subsequence
// of their lines, changes grouped into hunks with three lines of context, hunks closer than
// six lines merged.
func change(path, oldText, newText string) diff.File {
	a, b := splitLines([]byte(oldText)), splitLines([]byte(newText))
	// lcs[i][j]: length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diff.Line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diff.Line{Op: diff.Context, Text: a[i], Old: i + 1, New: j + 1})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, diff.Line{Op: diff.Add, Text: b[j], New: j + 1})
			j++
		default:
			ops = append(ops, diff.Line{Op: diff.Delete, Text: a[i], Old: i + 1})
			i++
		}
	}
	f := diff.File{OldPath: path, NewPath: path, Status: diff.Modified}
	switch {
	case oldText == "":
		f.OldPath, f.Status = "", diff.Added
	case newText == "":
		f.NewPath, f.Status = "", diff.Deleted
	}
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].Op == diff.Context {
			k++
			continue
		}
		from := max(0, k-ctx)
		last := k
		for n := k; n < len(ops) && n <= last+2*ctx; n++ {
			if ops[n].Op != diff.Context {
				last = n
			}
		}
		to := min(len(ops), last+ctx+1)
		h := diff.Hunk{Lines: slices.Clone(ops[from:to])}
		oldBefore, newBefore := 0, 0
		for _, l := range ops[:from] {
			if l.Op != diff.Add {
				oldBefore++
			}
			if l.Op != diff.Delete {
				newBefore++
			}
		}
		for _, l := range h.Lines {
			switch l.Op {
			case diff.Add:
				h.NewLines++
				f.Added++
			case diff.Delete:
				h.OldLines++
				f.Deleted++
			default:
				h.OldLines++
				h.NewLines++
			}
		}
		h.OldStart, h.NewStart = oldBefore+1, newBefore+1
		if h.OldLines == 0 {
			h.OldStart = oldBefore
		}
		if h.NewLines == 0 {
			h.NewStart = newBefore
		}
		f.Hunks = append(f.Hunks, h)
		k = to
	}
	return f
}

// lines numbers text's lines from first to last (1-based, inclusive) as they appear in a
// Snippet's Text.
func lines(text string, first, last int) string {
	l := splitLines([]byte(text))
	return strings.Join(l[first-1:last], "\n")
}

func build(t *testing.T, src Source, files []diff.File, o Options) Result {
	t.Helper()
	r, err := Build(t.Context(), src, files, "base", "head", o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

// summary lists declarations as "symbol start-end (sig sig-sigEnd)", the shape tests compare.
func summary(decls []decl) []string {
	var out []string
	for _, d := range decls {
		out = append(out, fmt.Sprintf("%s %d-%d (sig %d-%d)", d.Symbol, d.Start, d.End, d.Sig, d.SigEnd))
	}
	return out
}
