package codecontext

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The conn package: two types with a method put, two with a field err, three with a field
// name, one with a field retries, a struct that embeds another, and a package-level variable.
const connGo = `package conn

import "sync"

type controlBuffer struct {
	items []int
}

// put queues x for the writer.
func (c *controlBuffer) put(x int) {
	c.items = append(c.items, x)
}

type recvBuffer struct {
	items []int
}

// put hands x to the reader.
func (r *recvBuffer) put(x int) {
	r.items = append(r.items, x)
}

type conn struct {
	buf  *controlBuffer
	err  error
	name string
}

type reader struct {
	err     error
	retries int
}

// Server serves.
type Server struct {
	name string
}

// Config configures.
type Config struct {
	name string
}

type base struct {
	guard sync.Mutex
}

type pool struct {
	base
	size int
}

var defaultConn = &conn{}

func newServer() *Server { return &Server{} }

// locker and wrapErr have the only Lock and Error methods of the package.
type locker struct{}

func (l *locker) Lock() {}

type wrapErr struct{}

func (wrapErr) Error() string { return "" }
`

// handlerGo is the file the changes edit; each case replaces its body marker.
const handlerGo = `package conn

import "sync"

var _ sync.Locker

func handle(c *conn, rs []*reader, p *pool) {
	_ = c
	// BODY
}
`

// symbols lists a result's snippets as "path:start-end kind symbol", the shape these tests
// compare.
func symbols(r Result) []string {
	var out []string
	for _, s := range r.Snippets {
		out = append(out, fmt.Sprintf("%s:%d-%d %s %s", s.Path, s.StartLine, s.EndLine, s.Kind, s.Symbol))
	}
	return out
}

// definitionSymbols lists only the definitions of symbols that added lines use, sorted.
func definitionSymbols(r Result) []string {
	var out []string
	for i, s := range symbols(r) {
		if strings.Contains(s, " "+KindDefinition+" ") && !onlyUnchanged(r.Snippets[i]) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// onlyUnchanged reports whether a definition is shown only for unchanged lines of the hunks:
// every place its reason names is marked so.
func onlyUnchanged(s Snippet) bool {
	sites := siteRe.FindAllStringSubmatch(s.Reason, -1)
	for _, m := range sites {
		if m[1] == "" {
			return false
		}
	}
	return len(sites) > 0
}

var siteRe = regexp.MustCompile(`\S+\.\w+:\d+( \(unchanged\))?`)

// A selector's name is linked on the type of its operand when the code says what that is,
// and, when it does not, only on the one type of the package that has such a member.
func TestGoMembers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
		omitted    string // a part of one Omitted line, when one is expected
	}{
		{
			name: "a field's type decides which put",
			body: "c.buf.put(1)",
			want: []string{
				"conn/conn.go:23-27 definition type conn",
				"conn/conn.go:9-12 definition func (*controlBuffer) put",
			},
		},
		{
			name: "a package-level variable's type decides",
			body: "defaultConn.buf.put(2)",
			want: []string{
				"conn/conn.go:23-27 definition type conn",
				"conn/conn.go:53-53 definition var defaultConn",
				"conn/conn.go:9-12 definition func (*controlBuffer) put",
			},
		},
		{
			name: "a function's result type decides",
			body: "s := newServer()\n\t_ = s.name",
			want: []string{
				"conn/conn.go:34-37 definition type Server",
				"conn/conn.go:55-55 definition func newServer",
			},
		},
		{
			name: "new, var and a composite literal name the type",
			body: "a := new(Config)\n\tvar b Server\n\td := &reader{}\n\t_, _, _ = a.name, b.name, d.err",
			want: []string{
				"conn/conn.go:29-32 definition type reader",
				"conn/conn.go:34-37 definition type Server",
				"conn/conn.go:39-42 definition type Config",
			},
		},
		{
			name: "a field the parameter's type has, not another type's of the same name",
			body: "_ = c.err",
			want: []string{"conn/conn.go:23-27 definition type conn"},
		},
		{
			name:    "an operand of unknown type and a member two types have: not linked",
			body:    "for _, r := range rs {\n\t\t_ = r.err\n\t}",
			omitted: "definitions of the members err: not linked, several types have them",
		},
		{
			name: "an operand of unknown type and a member one type has: linked",
			body: "for _, r := range rs {\n\t\t_ = r.retries\n\t}",
			want: []string{"conn/conn.go:29-32 definition type reader"},
		},
		{
			name: "an operand of a type outside the module links nothing",
			body: "var err error\n\t_ = err.Error()\n\tvar mu sync.Mutex\n\tmu.Lock()",
		},
		{
			name: "a member promoted from an embedded struct",
			body: "p.guard.Lock()",
			want: []string{"conn/conn.go:44-46 definition type base"},
		},
		{
			name: "a key of an anonymous struct literal is no use",
			body: "tests := []struct {\n\t\tname string\n\t}{\n\t\t{name: \"one\"},\n\t}\n\t_ = tests",
		},
		{
			name: "a key of a named literal is a field of that type only",
			body: "_ = Config{name: \"a\"}",
			want: []string{"conn/conn.go:39-42 definition type Config"},
		},
		{
			name: "an elided element type names the type",
			body: "_ = []*Config{{name: \"a\"}}",
			want: []string{"conn/conn.go:39-42 definition type Config"},
		},
		{
			name: "a map literal's keys are expressions",
			body: "_ = map[*conn]int{defaultConn: 1}",
			want: []string{
				"conn/conn.go:23-27 definition type conn",
				"conn/conn.go:53-53 definition var defaultConn",
			},
		},
		{
			name: "a name declared twice with different types is not resolved",
			body: "x := &Server{}\n\tif true {\n\t\tx := &Config{}\n\t\t_ = x\n\t}\n\t_ = x.name",
			want: []string{
				"conn/conn.go:34-37 definition type Server",
				"conn/conn.go:39-42 definition type Config",
			},
			omitted: "definitions of the members name: not linked",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			head := strings.Replace(handlerGo, "// BODY", tt.body, 1)
			src, files := repo(map[string]string{"go.mod": goMod, "conn/conn.go": connGo, "conn/handler.go": handlerGo},
				map[string]string{"conn/handler.go": head})
			got := build(t, src, files, Options{})
			if d := cmp.Diff(tt.want, definitionSymbols(got)); d != "" {
				t.Errorf("definitions mismatch (-want +got):\n%s\n%s", d, Render(got))
			}
			found := tt.omitted == ""
			for _, o := range got.Omitted {
				found = found || strings.Contains(o, tt.omitted)
			}
			if !found || tt.omitted == "" && len(got.Omitted) > 0 {
				t.Errorf("Omitted = %q, want one line with %q", got.Omitted, tt.omitted)
			}
		})
	}
}

// The keys of a test table, an anonymous struct, pull in nothing, however many types of the
// package have fields of those names.
func TestGoTableKeysNotLinked(t *testing.T) {
	t.Parallel()
	base := "package conn\n\nimport \"testing\"\n\nfunc TestHandle(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\tretries int\n\t}{\n\t\t{name: \"a\", retries: 1},\n\t}\n\t_ = tests\n}\n"
	head := strings.Replace(base, "\t\t{name: \"a\", retries: 1},\n", "\t\t{name: \"a\", retries: 1},\n\t\t{name: \"b\", retries: 2},\n", 1)
	src, files := repo(map[string]string{"go.mod": goMod, "conn/conn.go": connGo, "conn/conn_test.go": base},
		map[string]string{"conn/conn_test.go": head})
	got := build(t, src, files, Options{})
	if defs := definitionSymbols(got); len(defs) > 0 || len(got.Omitted) > 0 {
		t.Errorf("definitions %q, omitted %q; want none\n%s", defs, got.Omitted, Render(got))
	}
}

// The kube module: its own types with a method Get (ResourceList in package ctrl, jumpMapAlloc
// in package alloc), and code that calls client-go, another module, whose Pods().Get is not
// theirs.
const (
	kubeResources = `package ctrl

import "k8s.io/client-go/kubernetes"

// ResourceList holds names.
type ResourceList []string

// Get returns the i-th name.
func (r ResourceList) Get(i int) string { return r[i] }

// Store lists resources.
type Store interface {
	List() ResourceList
}

// Controller watches pods.
type Controller struct {
	kube   kubernetes.Interface
	client *Client
}

// Client is this module's client; it embeds client-go's.
type Client struct {
	kubernetes.Interface
}

func (c *Controller) resources() ResourceList { return nil }

type wrapErr struct{}

func (wrapErr) Error() string { return "" }
`
	kubeCtrl = `package ctrl

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func (c *Controller) sync(ctx context.Context, clientset kubernetes.Interface, clients []kubernetes.Interface, lists []ResourceList, s Store, cfg *rest.Config, ns, name string) {
	// BODY
}
`
	kubeAlloc = `package alloc

type jumpMapAlloc struct{ next int }

// Default is the allocator.
var Default = &jumpMapAlloc{}

// Get allocates an index.
func (a *jumpMapAlloc) Get() int { a.next++; return a.next }
`
	kubeWeb = `package web

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"example.com/kube/alloc"
)

var _ = alloc.Default

func show(ctx context.Context, clientset kubernetes.Interface, ns, name string) {
	// BODY
}
`
)

// A call into another module is not linked to a same-named method of this one: only an
// operand whose type the code shows to be this module's, or one the code does not say that is
// not the result of a call, is linked.
func TestGoMembersOfOtherModules(t *testing.T) {
	t.Parallel()
	resourceListGet := "ctrl/resources.go:8-9 definition func (ResourceList) Get"
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{
			name: "a parameter of client-go's type",
			file: "ctrl/ctrl.go",
			body: "pod, err := clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})\n\t_, _ = pod, err",
		},
		{
			name: "a variable from client-go's constructor",
			file: "ctrl/ctrl.go",
			body: "cs, err := kubernetes.NewForConfig(cfg)\n\t_, _ = cs.CoreV1().Pods(ns).Get(ctx, name, nil), err",
		},
		{
			name: "a field of this module's type, of client-go's type",
			file: "ctrl/ctrl.go",
			body: "_, _ = c.kube.CoreV1().Pods(ns).Get(ctx, name, nil)",
			want: []string{"ctrl/resources.go:16-20 definition type Controller"},
		},
		{
			name: "a method promoted from client-go's type this module's embeds",
			file: "ctrl/ctrl.go",
			body: "_, _ = c.client.CoreV1().Pods(ns).Get(ctx, name, nil)",
			want: []string{"ctrl/resources.go:16-20 definition type Controller"},
		},
		{
			name: "an operand of unknown type that is the result of a call",
			file: "ctrl/ctrl.go",
			body: "for _, cs := range clients {\n\t\t_, _ = cs.CoreV1().Pods(ns).Get(ctx, name, nil)\n\t}",
		},
		{
			name: "a later result of a call",
			file: "ctrl/ctrl.go",
			body: "_, err := clientset.CoreV1().Pods(ns).Get(ctx, name, nil)\n\t_ = err.Error()",
		},
		{
			name: "client-go's Get in a package that imports the one with jumpMapAlloc",
			file: "web/web.go",
			body: "_, _ = clientset.CoreV1().Pods(ns).Get(ctx, name, nil)",
		},
		{
			name: "a variable of this module's type: linked",
			file: "ctrl/ctrl.go",
			body: "rl := ResourceList{\"a\"}\n\t_ = rl.Get(0)",
			want: []string{resourceListGet, "ctrl/resources.go:5-6 definition type ResourceList"},
		},
		{
			name: "the result of this module's method: linked",
			file: "ctrl/ctrl.go",
			body: "_ = c.resources().Get(0)",
			want: []string{resourceListGet, "ctrl/resources.go:27-27 definition func (*Controller) resources"},
		},
		{
			name: "the result of this module's interface method: linked",
			file: "ctrl/ctrl.go",
			body: "_ = s.List().Get(0)",
			want: []string{resourceListGet, "ctrl/resources.go:11-14 definition type Store"},
		},
		{
			name: "an operand of unknown type, not from a call, and one type with the member: linked",
			file: "ctrl/ctrl.go",
			body: "for _, rl := range lists {\n\t\t_ = rl.Get(0)\n\t}",
			want: []string{resourceListGet},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := map[string]string{"go.mod": "module example.com/kube\n\ngo 1.22\n",
				"ctrl/resources.go": kubeResources, "ctrl/ctrl.go": kubeCtrl, "alloc/alloc.go": kubeAlloc, "web/web.go": kubeWeb}
			head := strings.Replace(base[tt.file], "// BODY", tt.body, 1)
			src, files := repo(base, map[string]string{tt.file: head})
			got := build(t, src, files, Options{})
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if d := cmp.Diff(want, definitionSymbols(got)); d != "" {
				t.Errorf("definitions mismatch (-want +got):\n%s\n%s", d, Render(got))
			}
			if len(got.Omitted) > 0 {
				t.Errorf("Omitted = %q", got.Omitted)
			}
		})
	}
}
