package github_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

// Tokens the fake accepts in setup: one that may write everything, one that may only read.
const (
	writeToken = "ghp_writeTokenForTests0000000000000000"
	readToken  = "ghp_readOnlyTokenForTests000000000000"
)

// patch is the diff of the pull request setup serves: main.go has two hunks, new.txt is added,
// old.txt deleted.
var patch = strings.Join([]string{
	"diff --git a/main.go b/main.go",
	"index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644",
	"--- a/main.go",
	"+++ b/main.go",
	"@@ -1,5 +1,6 @@",
	" package main",
	" ",
	` import "fmt"`,
	`+import "os"`,
	" ",
	" func main() {",
	"@@ -20,4 +21,5 @@ func helper() {",
	" \ta := 1",
	"-\tb := 2",
	"+\tb := 3",
	"+\tc := 4",
	" \treturn",
	" }",
	"diff --git a/new.txt b/new.txt",
	"new file mode 100644",
	"index 0000000000000000000000000000000000000000..3333333333333333333333333333333333333333",
	"--- /dev/null",
	"+++ b/new.txt",
	"@@ -0,0 +1,2 @@",
	"+hello",
	"+world",
	"diff --git a/old.txt b/old.txt",
	"deleted file mode 100644",
	"index 4444444444444444444444444444444444444444..0000000000000000000000000000000000000000",
	"--- a/old.txt",
	"+++ /dev/null",
	"@@ -1 +0,0 @@",
	"-bye",
	"",
}, "\n")

const (
	owner   = "acme"
	repo    = "widget"
	prNum   = 7
	headSHA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	baseSHA = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// bundle is what a test works with: the fake, a client on it, and the waits the client asked
// for.
type bundle struct {
	srv *githubtest.Server
	c   *github.Client

	mu    sync.Mutex
	slept []time.Duration
}

func (b *bundle) sleep(ctx context.Context, d time.Duration) error {
	b.mu.Lock()
	b.slept = append(b.slept, d)
	b.mu.Unlock()
	return ctx.Err()
}

func (b *bundle) waits() []time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]time.Duration(nil), b.slept...)
}

// setup starts a fake serving acme/widget#7 and a client with the write token.
func setup(t *testing.T, opts ...githubtest.Option) *bundle {
	t.Helper()
	opts = append([]githubtest.Option{
		githubtest.WithToken(writeToken, githubtest.PullRequestsWrite, githubtest.IssuesWrite, githubtest.ChecksWrite),
		githubtest.WithToken(readToken),
	}, opts...)
	b := &bundle{srv: githubtest.New(t, opts...)}
	b.srv.AddPR(owner, repo, githubtest.PR{
		Number: prNum, Title: "Add os", Body: "Imports os.", Author: "alice",
		BaseRef: "main", BaseSHA: baseSHA, HeadRef: "feature", HeadSHA: headSHA,
	}, patch, map[string]map[string]string{
		"main":  {"main.go": "package main\n", "docs/a b/ünï.md": "# title\n"},
		headSHA: {"main.go": "package main\n\nimport \"os\"\n", "new.txt": "hello\nworld\n"},
	})
	b.c = b.client(t, github.Options{Token: writeToken})
	return b
}

// client builds a client on the fake with o, filling in the base URL and the recording sleep.
func (b *bundle) client(t *testing.T, o github.Options) *github.Client {
	t.Helper()
	o.BaseURL = b.srv.URL
	if o.Sleep == nil {
		o.Sleep = b.sleep
	}
	c, err := github.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
