package codecontext

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/council-dev/council/internal/diff"
)

const (
	benchPackages = 100
	benchFiles    = 50 // per package: 5,000 files
	benchChanged  = 50
)

var (
	benchOnce  sync.Once
	benchSrc   *memSource
	benchDiffs []diff.File
)

// benchFile is file f of package p: a type, a constructor, a method of 30 statements that
// calls a helper of the next file and a function of the next package, and a helper; file 0
// also has the package's one method Get. The changed version edits the method in two places
// (calls to helpers of other files, a field write, a call of client-go's Get, a deleted
// statement).
func benchFile(p, f int, changed bool) string {
	next, dep := (f+1)%benchFiles, (p+1)%benchPackages
	var sb strings.Builder
	fmt.Fprintf(&sb, "package p%03d\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\n\t\"k8s.io/client-go/kubernetes\"\n\n\t\"example.com/big/pkg/p%03d\"\n)\n\n", p, dep)
	if f == 0 {
		sb.WriteString("// ResourceList holds names.\ntype ResourceList []string\n\n// Get returns name i.\nfunc (r ResourceList) Get(i int) string { return r[i] }\n\n")
	}
	fmt.Fprintf(&sb, "// T%02d is a thing.\ntype T%02d struct {\n\tname  string\n\tcount int\n\tkube  kubernetes.Interface\n}\n\n", f, f)
	fmt.Fprintf(&sb, "// New%02d makes a T%02d.\nfunc New%02d(name string) *T%02d {\n\treturn &T%02d{name: name}\n}\n\n", f, f, f, f, f)
	fmt.Fprintf(&sb, "// Run%02d does the work.\nfunc (t *T%02d) Run%02d(n int) int {\n\ttotal := 0\n", f, f, f)
	for i := range 30 {
		switch {
		case changed && i == 5:
			fmt.Fprintf(&sb, "\ttotal += helper%02d(n) + helper%02d(%d)\n", next, (f+2)%benchFiles, i)
			fmt.Fprintf(&sb, "\tt.count += p%03d.Helper%02d(total)\n", dep, f)
			sb.WriteString("\tif _, err := t.kube.CoreV1().Pods(t.name).Get(context.TODO(), t.name, nil); err != nil {\n\t\treturn 0\n\t}\n")
		case changed && i == 25:
			// deleted
		default:
			fmt.Fprintf(&sb, "\ttotal += n * %d\n", i)
		}
	}
	fmt.Fprintf(&sb, "\treturn total\n}\n\n")
	fmt.Fprintf(&sb, "// helper%02d scales x.\nfunc helper%02d(x int) int {\n\treturn x * %d\n}\n\n", f, f, f+1)
	fmt.Fprintf(&sb, "// Helper%02d is helper%02d for other packages.\nfunc Helper%02d(x int) int {\n\treturn helper%02d(x)\n}\n\n", f, f, f, f)
	fmt.Fprintf(&sb, "// Show%02d prints a thing of the next package.\nfunc Show%02d() string {\n\treturn fmt.Sprint(p%03d.New%02d(\"x\"))\n}\n", f, f, dep, f)
	return sb.String()
}

// benchRepo is a module of 5,000 Go files in 100 packages, and a change of 50 of them, each
// in its own package. It is built once, in memory: the Source is a map, so no disk or git is
// involved and the benchmark measures the engine alone.
func benchRepo() (*memSource, []diff.File) {
	benchOnce.Do(func() {
		base := map[string]string{"go.mod": "module example.com/big\n\ngo 1.22\n"}
		for p := range benchPackages {
			for f := range benchFiles {
				base[fmt.Sprintf("pkg/p%03d/f%02d.go", p, f)] = benchFile(p, f, false)
			}
		}
		changes := make(map[string]string)
		for i := range benchChanged {
			p, f := i*benchPackages/benchChanged, (i*7)%benchFiles
			changes[fmt.Sprintf("pkg/p%03d/f%02d.go", p, f)] = benchFile(p, f, true)
		}
		benchSrc, benchDiffs = repo(base, changes)
	})
	return benchSrc, benchDiffs
}

func BenchmarkBuild(b *testing.B) {
	src, files := benchRepo()
	benchBuild(b, src, files, "head")
}

// BenchmarkBuildReadingFiles is BenchmarkBuild with a Source that cannot find words: the
// definition search reads files blind.
func BenchmarkBuildReadingFiles(b *testing.B) {
	src, files := benchRepo()
	benchBuild(b, plainSource{src}, files, "head")
}

// benchBuild builds the context of the benchmark's change and reports its size: snippets,
// definitions, their tokens, what was left out, and the definitions of the package's Get,
// which the change never calls.
func benchBuild(b *testing.B, src Source, files []diff.File, head string) {
	if m, ok := src.(*memSource); ok { // the fake's word index is built once, not measured
		if _, err := m.FindWords(b.Context(), head, []string{"x"}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var r Result
	for b.Loop() {
		var err error
		r, err = Build(b.Context(), src, files, "base", head, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	defs, toks, wrong := 0, 0, 0
	for _, s := range r.Snippets {
		toks += tokens(s.Text)
		if s.Kind == KindDefinition {
			defs++
		}
		if s.Symbol == "func (ResourceList) Get" {
			wrong++
		}
	}
	b.ReportMetric(float64(len(r.Snippets)), "snippets")
	b.ReportMetric(float64(defs), "defs")
	b.ReportMetric(float64(toks), "tokens")
	b.ReportMetric(float64(len(r.Omitted)), "omitted")
	b.ReportMetric(float64(wrong), "wrong-Get")
}

// plainSource hides memSource's FindWords: a Source that only reads and lists.
type plainSource struct{ Source }

// The benchmark's change gets what the engine promises: an enclosing method per changed
// file, definitions from other files of the package and from the package it imports, and a
// budget cut that says what it left out.
func TestBenchRepo(t *testing.T) {
	t.Parallel()
	src, files := benchRepo()
	r := build(t, src, files, Options{BudgetTokens: 1 << 20})
	kinds := make(map[string]int)
	for _, s := range r.Snippets {
		kinds[s.Kind]++
	}
	if kinds[KindEnclosing] != benchChanged {
		t.Errorf("got %d enclosing snippets, want %d", kinds[KindEnclosing], benchChanged)
	}
	if kinds[KindDefinition] == 0 {
		t.Errorf("got no definitions")
	}
	small := build(t, src, files, Options{})
	if len(small.Omitted) == 0 {
		t.Errorf("with the default budget nothing was left out, want a cut")
	}
}
