package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/tools"
)

// fixture is a repository with a base and a head commit holding one of every case the tools
// must handle.
type fixture struct {
	t    *testing.T
	dir  string
	git  *source.Git
	base string
	head string
}

func (f *fixture) run(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_COMMITTER_NAME=Ann", "GIT_COMMITTER_EMAIL=ann@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) symlink(target, name string) {
	f.t.Helper()
	if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
		f.t.Fatal(err)
	}
}

func numbered(prefix string, n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%s %d\n", prefix, i)
	}
	return sb.String()
}

// testMaxFileBytes is the tests' MaxFileBytes: huge.txt is over it.
const testMaxFileBytes = 4096

// setup builds the fixture repository in t.TempDir(): a base commit and a head commit holding
// one of every case the tools must handle. Subtests share their parent's: the tools only read.
func setup(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.run("init", "-q", "-b", "main")
	f.write("main.go", numbered("line", 30))
	f.write("greet.go", "package main\n\nconst greeting = \"Hello\"\n")
	f.write("huge.txt", numbered("huge line", 1000)) // about 13 KB
	f.write("long.txt", numbered("long line", 2000))
	f.write("bin.dat", "PNG\x00\x01\x02 not text\n")
	f.write("empty.txt", "")
	f.write("dir/inner.txt", "inside dir\n")
	f.write("store/helper.go", "package store\n\n// helper does what the store needs.\nfunc helper() {}\n")
	f.write("aaa.txt", strings.Repeat("a", 30000)+"b\n")
	for i := range 510 {
		f.write(fmt.Sprintf("many/f%03d.txt", i), "x\n")
	}
	f.symlink("/etc/passwd", "leak")
	f.symlink("dir", "linkdir")
	f.run("add", "-A")
	f.run("commit", "-qm", "base commit")
	f.base = f.run("rev-parse", "HEAD")
	f.write("greet.go", "package main\n\nconst greeting = \"Goodbye\"\n")
	f.write("added.go", "package main\n")
	f.run("add", "-A")
	// A submodule: a gitlink entry, without the submodule's repository.
	f.run("update-index", "--add", "--cacheinfo", "160000,"+f.base+",vendor/mod")
	f.run("commit", "-qm", "say goodbye")
	f.head = f.run("rev-parse", "HEAD")
	g, err := source.OpenGit(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	f.git = g
	return f
}

func (f *fixture) box(l tools.Limits) *tools.Box {
	if l.MaxFileBytes == 0 {
		l.MaxFileBytes = testMaxFileBytes
	}
	return tools.New(f.git, f.base, f.head, l)
}

func TestCall(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tests := []struct {
		name    string
		tool    string
		input   string
		limits  tools.Limits
		wantErr bool
		want    string   // the whole result, when set
		has     []string // parts of the result
		hasNot  []string
		call    *tools.Call // the record, Input and Bytes aside
	}{
		// read_file
		{name: "read a range", tool: "read_file", input: `{"path":"main.go","start_line":3,"end_line":5}`,
			want: "main.go at head, lines 3-5 of 30:\n   3 | line 3\n   4 | line 4\n   5 | line 5\n",
			call: &tools.Call{Tool: "read_file", Path: "main.go", Rev: "head", Start: 3, End: 5}},
		{name: "read from a line to the end", tool: "read_file", input: `{"path":"main.go","start_line":29}`,
			want: "main.go at head, lines 29-30 of 30:\n  29 | line 29\n  30 | line 30\n"},
		{name: "end past the end is clamped", tool: "read_file", input: `{"path":"main.go","start_line":30,"end_line":99}`,
			want: "main.go at head, lines 30-30 of 30:\n  30 | line 30\n"},
		{name: "start past the end", tool: "read_file", input: `{"path":"main.go","start_line":31}`, wantErr: true, has: []string{"past the end", "30 lines"}},
		{name: "start after end", tool: "read_file", input: `{"path":"main.go","start_line":5,"end_line":4}`, wantErr: true, has: []string{"after end_line"}},
		{name: "negative line", tool: "read_file", input: `{"path":"main.go","start_line":-1}`, wantErr: true, has: []string{"count from 1"}},
		{name: "head by default", tool: "read_file", input: `{"path":"greet.go"}`, has: []string{`3 | const greeting = "Goodbye"`}},
		{name: "base", tool: "read_file", input: `{"path":"greet.go","rev":"base"}`, has: []string{"greet.go at base", `3 | const greeting = "Hello"`},
			call: &tools.Call{Tool: "read_file", Path: "greet.go", Rev: "base", Start: 1, End: 3}},
		{name: "file only at head", tool: "read_file", input: `{"path":"added.go","rev":"base"}`, wantErr: true, has: []string{"added.go does not exist at base"}},
		{name: "empty file", tool: "read_file", input: `{"path":"empty.txt"}`, want: "empty.txt at head is empty."},
		{name: "path cleaned inside the repository", tool: "read_file", input: `{"path":"./dir/../main.go","end_line":1}`,
			want: "main.go at head, lines 1-1 of 30:\n   1 | line 1\n"},
		{name: "dot-dot", tool: "read_file", input: `{"path":"../../etc/passwd"}`, wantErr: true, has: []string{"leaves the repository"}, hasNot: []string{"root:"}},
		{name: "dot-dot after a directory", tool: "read_file", input: `{"path":"dir/../../x"}`, wantErr: true, has: []string{"leaves the repository"}},
		{name: "absolute", tool: "read_file", input: `{"path":"/etc/passwd"}`, wantErr: true, has: []string{"absolute path"}, hasNot: []string{"root:"}},
		{name: "windows absolute", tool: "read_file", input: `{"path":"C:\\Windows\\win.ini"}`, wantErr: true, has: []string{"absolute path"}},
		{name: "NUL byte", tool: "read_file", input: `{"path":"main.go\u0000.txt"}`, wantErr: true, has: []string{"NUL"}},
		{name: "symlink out of the repository", tool: "read_file", input: `{"path":"leak"}`, wantErr: true,
			has: []string{"leak is a symbolic link"}, hasNot: []string{"root:", "/etc/passwd"}},
		{name: "through a symlinked directory", tool: "read_file", input: `{"path":"linkdir/inner.txt"}`, wantErr: true,
			has: []string{"goes through linkdir, a symbolic link"}, hasNot: []string{"inside dir"}},
		{name: "the real directory", tool: "read_file", input: `{"path":"dir/inner.txt"}`, has: []string{"1 | inside dir"}},
		{name: "submodule", tool: "read_file", input: `{"path":"vendor/mod"}`, wantErr: true, has: []string{"submodule"}},
		{name: "inside a submodule", tool: "read_file", input: `{"path":"vendor/mod/go.mod"}`, wantErr: true, has: []string{"inside vendor/mod, a submodule"}},
		{name: "through a file", tool: "read_file", input: `{"path":"main.go/x"}`, wantErr: true, has: []string{"main.go is not a directory"}},
		{name: "directory", tool: "read_file", input: `{"path":"dir"}`, wantErr: true, has: []string{"dir is a directory", "list_files"}},
		{name: "root", tool: "read_file", input: `{"path":"."}`, wantErr: true, has: []string{"list_files"}},
		{name: "no path", tool: "read_file", input: `{}`, wantErr: true, has: []string{"path is required"}},
		{name: "missing file", tool: "read_file", input: `{"path":"nope.go"}`, wantErr: true, want: "nope.go does not exist at head; list_files or grep can find the right path"},
		{name: "missing file, one of that name elsewhere", tool: "read_file", input: `{"path":"internal/Helper.go"}`, wantErr: true,
			want: "internal/Helper.go does not exist at head; did you mean store/helper.go?"},
		{name: "missing directory, one of that name elsewhere", tool: "list_files", input: `{"dir":"pkg/store"}`, wantErr: true,
			want: "pkg/store does not exist at head; did you mean store/?"},
		{name: "the repository's own files are not objects", tool: "read_file", input: `{"path":".git/config"}`, wantErr: true, has: []string{".git/config does not exist at head"}},
		{name: "pathspec magic is a name", tool: "read_file", input: `{"path":":(glob)*.go"}`, wantErr: true, has: []string{"does not exist at head"}},
		{name: "binary", tool: "read_file", input: `{"path":"bin.dat"}`, wantErr: true, has: []string{"binary file"}, hasNot: []string{"PNG"}},
		{name: "huge file without a range", tool: "read_file", input: `{"path":"huge.txt"}`, wantErr: true,
			has: []string{"over the 4096-byte limit", "start_line and end_line"}},
		{name: "huge file with a range", tool: "read_file", input: `{"path":"huge.txt","start_line":999,"end_line":1000}`,
			want: "huge.txt at head, lines 999-1000 of 1000:\n 999 | huge line 999\n1000 | huge line 1000\n"},
		{name: "long output truncated", tool: "read_file", input: `{"path":"long.txt","start_line":1,"end_line":2000}`, limits: tools.Limits{MaxBytes: 1000},
			has: []string{"   1 | long line 1\n", "[truncated: ", "more bytes; ask for a narrower range]"}, hasNot: []string{"long line 2000"},
			call: &tools.Call{Tool: "read_file", Path: "long.txt", Rev: "head", Start: 1, End: 2000, Truncated: true}},
		{name: "arbitrary revision refused", tool: "read_file", input: `{"path":"main.go","rev":"HEAD~1"}`, wantErr: true, has: []string{`rev must be "head"`}},
		{name: "option-like revision refused", tool: "read_file", input: `{"path":"main.go","rev":"--output=/tmp/x"}`, wantErr: true, has: []string{`rev must be "head"`}},
		{name: "rev is not case sensitive", tool: "read_file", input: `{"path":"greet.go","rev":"BASE"}`, has: []string{"Hello"}},

		// grep
		{name: "grep at head", tool: "grep", input: `{"pattern":"greeting = \"(Hello|Goodbye)\""}`,
			want: "greet.go:3: const greeting = \"Goodbye\"\n",
			call: &tools.Call{Tool: "grep", Rev: "head"}},
		{name: "grep at base", tool: "grep", input: `{"pattern":"Goodbye","rev":"base"}`, want: "no matches for Goodbye at base"},
		{name: "grep a glob", tool: "grep", input: `{"pattern":"^inside","path_glob":"*.txt"}`, want: "dir/inner.txt:1: inside dir\n",
			call: &tools.Call{Tool: "grep", Path: "*.txt", Rev: "head"}},
		{name: "grep a directory", tool: "grep", input: `{"pattern":"inside","path_glob":"dir"}`, want: "dir/inner.txt:1: inside dir\n"},
		{name: "grep does not follow a symlinked directory", tool: "grep", input: `{"pattern":"inside","path_glob":"linkdir/**"}`,
			want: "no file matches path_glob linkdir/** at head (a glob with a slash is matched from the repository root); list_files shows the files that exist"},
		{name: "grep a file name at any depth", tool: "grep", input: `{"pattern":"func helper","path_glob":"helper.go"}`,
			want: "store/helper.go:4: func helper() {}\n"},
		{name: "grep a directory name at any depth", tool: "grep", input: `{"pattern":"helper\\(","path_glob":"store/"}`,
			want: "store/helper.go:4: func helper() {}\n"},
		{name: "grep a glob anchored at the root", tool: "grep", input: `{"pattern":"helper","path_glob":"./*.go"}`,
			want: "no matches for helper in ./*.go at head (3 files match path_glob)"},
		{name: "grep files that lack the pattern", tool: "grep", input: `{"pattern":"nowhere","path_glob":"dir"}`,
			want: "no matches for nowhere in dir at head (1 file matches path_glob)"},
		{name: "grep a path that does not exist", tool: "grep", input: `{"pattern":"helper","path_glob":"watch/helper.go"}`,
			want: "no file matches path_glob watch/helper.go at head (a glob with a slash is matched from the repository root); did you mean store/helper.go?"},
		{name: "grep a name that exists nowhere", tool: "grep", input: `{"pattern":"helper","path_glob":"helpers.go"}`,
			want: "no file matches path_glob helpers.go at head (a glob without a slash matches names at any depth); list_files shows the files that exist"},
		{name: "grep a name only at head", tool: "grep", input: `{"pattern":"x","path_glob":"sub/added.go","rev":"base"}`,
			want: "no file matches path_glob sub/added.go at base (a glob with a slash is matched from the repository root); list_files shows the files that exist"},
		{name: "grep skips binary files", tool: "grep", input: `{"pattern":"not text"}`, want: "no matches for not text at head"},
		{name: "grep stops at 100 matches", tool: "grep", input: `{"pattern":"^long line","path_glob":"long.txt"}`,
			has: []string{"long.txt:1: long line 1\n", "long.txt:100: long line 100\n", "[stopped at 100 matches"}, hasNot: []string{"long line 101\n"},
			call: &tools.Call{Tool: "grep", Path: "long.txt", Rev: "head", Truncated: true}},
		{name: "grep pattern that does not compile", tool: "grep", input: `{"pattern":"(unclosed"}`, wantErr: true, has: []string{"pattern does not compile", "missing closing )"}},
		{name: "grep Perl class", tool: "grep", input: `{"pattern":"line \\d+"}`, wantErr: true, has: []string{`\d`, "[0-9]"}},
		{name: "grep non-capturing group", tool: "grep", input: `{"pattern":"(?i)hello"}`, wantErr: true, has: []string{"(?...)"}},
		{name: "grep pattern git refuses", tool: "grep", input: `{"pattern":"a{"}`, wantErr: true, has: []string{"git grep refused the pattern", "Unmatched"}},
		{name: "grep option-like pattern", tool: "grep", input: `{"pattern":"--output=x"}`, want: "no matches for --output=x at head"},
		{name: "grep catastrophic pattern times out", tool: "grep", input: `{"pattern":"(a+)+$","path_glob":"aaa.txt"}`,
			limits: tools.Limits{GrepTimeout: 100 * time.Millisecond}, wantErr: true, has: []string{"pattern took too long", "simplify it"}},
		{name: "grep glob out of the repository", tool: "grep", input: `{"pattern":"root","path_glob":"../*"}`, wantErr: true, has: []string{"leaves the repository"}},
		{name: "grep absolute glob", tool: "grep", input: `{"pattern":"root","path_glob":"/etc/*"}`, wantErr: true, has: []string{"absolute path"}},
		{name: "grep without pattern", tool: "grep", input: `{"path_glob":"*.go"}`, wantErr: true, has: []string{"pattern is required"}},

		// list_files
		{name: "list a directory", tool: "list_files", input: `{"dir":"dir"}`, want: "1 files under dir at head:\ndir/inner.txt\n",
			call: &tools.Call{Tool: "list_files", Path: "dir", Rev: "head"}},
		{name: "list the root", tool: "list_files", input: `{}`, has: []string{"files under the repository at head", "\nadded.go\n", "\nleak\n", "\nmany/f000.txt\n"}},
		{name: "list at base", tool: "list_files", input: `{"rev":"base"}`, hasNot: []string{"added.go"}},
		{name: "list cut at 500", tool: "list_files", input: `{"dir":"many"}`,
			has: []string{"510 files under many", "many/f499.txt\n", "[10 more files not shown; list a subdirectory]"}, hasNot: []string{"many/f500.txt"},
			call: &tools.Call{Tool: "list_files", Path: "many", Rev: "head", Truncated: true}},
		{name: "list a symlinked directory", tool: "list_files", input: `{"dir":"linkdir"}`, wantErr: true, has: []string{"symbolic link"}},
		{name: "list a file", tool: "list_files", input: `{"dir":"main.go"}`, wantErr: true, has: []string{"not a directory", "read_file"}},
		{name: "list a missing directory", tool: "list_files", input: `{"dir":"nope"}`, wantErr: true, has: []string{"nope does not exist at head"}},
		{name: "list out of the repository", tool: "list_files", input: `{"dir":".."}`, wantErr: true, has: []string{"leaves the repository"}},

		// git_log
		{name: "log of a file", tool: "git_log", input: `{"path":"greet.go"}`,
			has:  []string{"latest 2 commits touching greet.go at head", " Ann: say goodbye\n", " Ann: base commit\n"},
			call: &tools.Call{Tool: "git_log", Path: "greet.go", Rev: "head"}},
		{name: "log with max", tool: "git_log", input: `{"path":".","max":1}`, has: []string{"latest 1 commits", "say goodbye"}, hasNot: []string{"base commit"}},
		{name: "log max over the cap", tool: "git_log", input: `{"path":".","max":500}`, has: []string{"latest 2 commits"}},
		{name: "log of a path never committed", tool: "git_log", input: `{"path":"nope.go"}`, want: "no commits touch nope.go at head"},
		{name: "log without path", tool: "git_log", input: `{}`, wantErr: true, has: []string{"path is required"}},
		{name: "log takes no rev", tool: "git_log", input: `{"path":"greet.go","rev":"base"}`, wantErr: true, has: []string{`unknown field "rev"`}},
		{name: "log out of the repository", tool: "git_log", input: `{"path":"/etc"}`, wantErr: true, has: []string{"absolute path"}},

		// the calls themselves
		{name: "unknown tool", tool: "write_file", input: `{"path":"x"}`, wantErr: true, has: []string{`unknown tool "write_file"`, "read_file"},
			call: &tools.Call{Tool: "write_file"}},
		{name: "bad JSON", tool: "read_file", input: `{"path":`, wantErr: true, has: []string{"bad arguments for read_file"}},
		{name: "JSON string instead of an object", tool: "read_file", input: `"{\"path\": \"main.go\""`, wantErr: true, has: []string{"bad arguments for read_file"}},
		{name: "unknown field", tool: "read_file", input: `{"path":"main.go","lines":"1-3"}`, wantErr: true, has: []string{`unknown field "lines"`}},
		{name: "wrong type", tool: "read_file", input: `{"path":"main.go","start_line":"3"}`, wantErr: true, has: []string{"bad arguments"}},
		{name: "trailing data", tool: "read_file", input: `{"path":"main.go"} {"path":"x"}`, wantErr: true, has: []string{"trailing data"}},
		{name: "no input at all", tool: "list_files", input: ``, has: []string{"files under the repository"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := f.box(tt.limits)
			got, isErr := b.Call(context.Background(), tt.tool, json.RawMessage(tt.input))
			if isErr != tt.wantErr {
				t.Errorf("isError = %v, want %v; result:\n%s", isErr, tt.wantErr, got)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("result:\n%s\nwant:\n%s", got, tt.want)
			}
			for _, s := range tt.has {
				if !strings.Contains(got, s) {
					t.Errorf("result lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("result has %q:\n%s", s, got)
				}
			}
			limit := tt.limits.MaxBytes
			if limit == 0 {
				limit = tools.DefaultMaxBytes
			}
			if len(got) > limit {
				t.Errorf("result is %d bytes, over MaxBytes %d", len(got), limit)
			}
			calls := b.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls recorded, want 1", len(calls))
			}
			c := calls[0]
			if c.Bytes != len(got) {
				t.Errorf("call records %d bytes, the result is %d", c.Bytes, len(got))
			}
			if (c.Error != "") != tt.wantErr || (tt.wantErr && c.Error != got) {
				t.Errorf("call records error %q for result %q", c.Error, got)
			}
			if tt.call != nil {
				if diff := cmp.Diff(*tt.call, c, cmpopts.IgnoreFields(tools.Call{}, "Input", "Bytes", "Error")); diff != "" {
					t.Errorf("call record (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestCallsAndBudget: every call is recorded in order, refused ones included, and the budget
// is spent by calls, not by refusals.
func TestCallsAndBudget(t *testing.T) {
	t.Parallel()
	b := setup(t).box(tools.Limits{MaxCalls: 3})
	ctx := context.Background()
	steps := []struct {
		tool, input string
		wantErr     bool
		exhausted   bool
	}{
		{"read_file", `{"path": "main.go", "end_line": 1}`, false, false},
		{"nope", `{}`, true, false},
		{"grep", `{"pattern":"Goodbye"}`, false, true},
		{"list_files", `{}`, true, true},
	}
	for i, s := range steps {
		got, isErr := b.Call(ctx, s.tool, json.RawMessage(s.input))
		if isErr != s.wantErr {
			t.Errorf("call %d: isError = %v, want %v: %s", i, isErr, s.wantErr, got)
		}
		if b.Exhausted() != s.exhausted {
			t.Errorf("after call %d: Exhausted() = %v, want %v", i, b.Exhausted(), s.exhausted)
		}
	}
	want := []tools.Call{
		{Tool: "read_file", Input: `{"path":"main.go","end_line":1}`, Path: "main.go", Rev: "head", Start: 1, End: 1},
		{Tool: "nope", Input: `{}`},
		{Tool: "grep", Input: `{"pattern":"Goodbye"}`, Rev: "head"},
		{Tool: "list_files", Input: `{}`},
	}
	got := b.Calls()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(tools.Call{}, "Bytes", "Error")); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(got) == 4 && !strings.Contains(got[3].Error, "give your final answer now") {
		t.Errorf("refused call records %q", got[3].Error)
	}
}

func TestTotalBytesBudget(t *testing.T) {
	t.Parallel()
	b := setup(t).box(tools.Limits{MaxBytes: 1000, MaxTotalBytes: 1500})
	ctx := context.Background()
	in := json.RawMessage(`{"path":"long.txt","start_line":1,"end_line":500}`)
	first, _ := b.Call(ctx, "read_file", in)
	second, _ := b.Call(ctx, "read_file", in)
	if len(first) > 1000 || len(first)+len(second) > 1500 {
		t.Errorf("results of %d and %d bytes; want at most 1000, and 1500 in all", len(first), len(second))
	}
	if !b.Exhausted() {
		t.Error("Exhausted() = false after the byte budget was spent")
	}
	if got, isErr := b.Call(ctx, "read_file", in); !isErr || !strings.Contains(got, "budget spent") {
		t.Errorf("call after the budget: %v %q", isErr, got)
	}
}

// TestConcurrentCalls: calls in flight together cannot overspend the budget, and every call is
// recorded once. Run with -race.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	b := setup(t).box(tools.Limits{MaxCalls: 10, MaxBytes: 1000, MaxTotalBytes: 5000})
	var wg sync.WaitGroup
	results := make([]string, 16)
	for i := range results {
		wg.Go(func() {
			results[i], _ = b.Call(context.Background(), "read_file", json.RawMessage(`{"path":"long.txt","start_line":1,"end_line":300}`))
		})
	}
	wg.Wait()
	calls := b.Calls()
	if len(calls) != len(results) {
		t.Fatalf("%d calls recorded, want %d", len(calls), len(results))
	}
	total, served := 0, 0
	for _, c := range calls {
		if c.Error == "" {
			total += c.Bytes
			served++
		}
	}
	if total > 5000 || served > 10 {
		t.Errorf("%d calls served %d bytes; the budget is 10 calls, 5000 bytes", served, total)
	}
	if !b.Exhausted() {
		t.Error("Exhausted() = false")
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	b := setup(t).box(tools.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct{ tool, input string }{
		{"read_file", `{"path":"main.go"}`},
		{"grep", `{"pattern":"x"}`},
		{"list_files", `{}`},
		{"git_log", `{"path":"."}`},
	} {
		if got, isErr := b.Call(ctx, tc.tool, json.RawMessage(tc.input)); !isErr {
			t.Errorf("%s with a cancelled context: %q, want a tool error", tc.tool, got)
		}
	}
}

func TestNoBase(t *testing.T) {
	t.Parallel()
	f := setup(t)
	b := tools.New(f.git, "", f.head, tools.Limits{})
	got, isErr := b.Call(context.Background(), "read_file", json.RawMessage(`{"path":"main.go","rev":"base"}`))
	if !isErr || !strings.Contains(got, "no base revision") {
		t.Errorf("got %v %q, want a tool error about the missing base", isErr, got)
	}
}

// TestTools: the definitions are valid JSON Schemas that accept the calls the tests make and
// refuse what the tools refuse to parse.
func TestTools(t *testing.T) {
	t.Parallel()
	b := setup(t).box(tools.Limits{})
	defs := b.Tools()
	var names []string
	schemas := map[string]*jsonschema.Schema{}
	for _, d := range defs {
		names = append(names, d.Name)
		if len(d.Description) < 100 {
			t.Errorf("%s: description too short to guide a model: %q", d.Name, d.Description)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.InputSchema))
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(d.Name+".json", doc); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		sch, err := c.Compile(d.Name + ".json")
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		schemas[d.Name] = sch
		if err := provider.CheckToolSchema(d.InputSchema); err != nil {
			t.Errorf("%s: the providers would refuse the schema: %v", d.Name, err)
		}
	}
	if diff := cmp.Diff([]string{"read_file", "grep", "list_files", "git_log", "read_dependency"}, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(defs, b.Tools()); diff != "" {
		t.Errorf("definitions differ between boxes, which breaks the cached prefix:\n%s", diff)
	}
	tests := []struct {
		tool, input string
		valid       bool
	}{
		{"read_file", `{"path":"a.go","start_line":1,"end_line":2,"rev":"base"}`, true},
		{"read_file", `{"path":"a.go","rev":"HEAD~1"}`, false},
		{"read_file", `{"start_line":1}`, false},
		{"read_file", `{"path":"a.go","lines":"1-2"}`, false},
		{"grep", `{"pattern":"x","path_glob":"*.go"}`, true},
		{"grep", `{}`, false},
		{"list_files", `{}`, true},
		{"list_files", `{"dir":"internal","rev":"head"}`, true},
		{"git_log", `{"path":"a.go","max":5}`, true},
		{"git_log", `{"path":"a.go","max":50}`, false},
		{"read_dependency", `{"module":"github.com/x/y","path":"a.go","start_line":1,"end_line":2}`, true},
		{"read_dependency", `{"module":"github.com/x/y","pattern":"func Open"}`, true},
		{"read_dependency", `{"path":"a.go"}`, false},
		{"read_dependency", `{"module":"github.com/x/y","version":"v1"}`, false},
		{"read_dependency", `{"module":"github.com/x/y","start_line":0}`, false},
	}
	for _, tt := range tests {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.input))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas[tt.tool].Validate(inst); (err == nil) != tt.valid {
			t.Errorf("%s %s: validation error %v, want valid = %v", tt.tool, tt.input, err, tt.valid)
		}
	}
}
