package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/persona"
)

// The sample change: Reserve, added by the change, checks and updates the stock without the
// lock (line 21 at head), which the scripted reviewers report.
const (
	sampleRepoDirName = "doctor-sample"
	sampleFile        = "stock.go"
	sampleBuggyLine   = "\tif s.stock[id] < n {"
	sampleFixedLine   = "\tif s.stock[id] < n || n <= 0 {"
	// sampleMaxTurns is tools.max_turns of the sample's config: a conversation calls tools on
	// its first turns and is forced to answer on the last.
	sampleMaxTurns = 3

	sampleBase = `// Package inventory keeps stock counts for a small shop.
package inventory

import "sync"

// Store holds stock counts. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	stock map[string]int
}

// Put sets the stock count of an item.
func (s *Store) Put(id string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stock[id] = n
}
`
	sampleAdded = `
// Reserve takes n items of id out of stock, or reports that there are too few.
func (s *Store) Reserve(id string, n int) bool {
	if s.stock[id] < n {
		return false
	}
	s.stock[id] -= n
	return true
}
`
)

// sampleRepo makes a repository in dir whose one change adds Reserve, with a .council.yaml at
// base that makes every tool conversation reach its forced final turn, and returns the base and
// head commits.
func sampleRepo(ctx context.Context, dir string, maxOutputTokens int) (base, head string, err error) {
	cfg := fmt.Sprintf("tools:\n  max_turns: %d\n", sampleMaxTurns)
	if maxOutputTokens > 0 {
		cfg += fmt.Sprintf("budget:\n  max_output_tokens: %d\n", maxOutputTokens)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		// Nothing of the user's git configuration applies (hooks, signing, templates).
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=council doctor", "GIT_AUTHOR_EMAIL=doctor@council.invalid",
			"GIT_COMMITTER_NAME=council doctor", "GIT_COMMITTER_EMAIL=doctor@council.invalid",
			"GIT_AUTHOR_DATE=2026-01-01T12:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T12:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return strings.TrimSpace(string(out)), nil
	}
	commit := func(files map[string]string, msg string) (string, error) {
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				return "", err
			}
		}
		if _, err := git("add", "-A"); err != nil {
			return "", err
		}
		if _, err := git("commit", "-q", "--no-verify", "-m", msg); err != nil {
			return "", err
		}
		return git("rev-parse", "HEAD")
	}
	if _, err := git("init", "-q", "-b", "main"); err != nil {
		return "", "", err
	}
	if base, err = commit(map[string]string{"go.mod": "module example.com/inventory\n\ngo 1.22\n", sampleFile: sampleBase, ".council.yaml": cfg}, "Store"); err != nil {
		return "", "", err
	}
	if head, err = commit(map[string]string{sampleFile: sampleBase + sampleAdded}, "Reserve stock"); err != nil {
		return "", "", err
	}
	return base, head, nil
}

// samplePersonaComments are a maintainer's review comments for the sample persona build (each
// body twice, on two pull requests), and samplePersonaBudget a token budget per request that
// holds about half of them, so that the build sends two batches and a merge.
var samplePersonaComments = func() []persona.Comment {
	bodies := []string{
		"nit: this reads the map without the lock; Put holds it, so Reserve should too, or the race detector will tell us in CI.",
		"I think this wants a table-driven test: the zero and negative cases are where this kind of code breaks.",
		"Not a blocker, but the error should say which item ran out, so that the caller can log something useful.",
		"WDYT about returning the remaining stock as well? Callers seem to read it right after reserving anyway.",
		"This check and the update are two steps: between them another goroutine can take the same items.",
		"Please wrap the error with %w so that errors.Is keeps working for the callers in the handlers package.",
		"nit: the doc comment should start with the function's name, as the rest of the package does.",
		"The test sleeps for 100ms to wait for the goroutine; a channel or a WaitGroup makes it deterministic.",
	}
	out := make([]persona.Comment, 2*len(bodies))
	for i := range out {
		b := bodies[i%len(bodies)]
		out[i] = persona.Comment{
			ID: int64(100 + i), Repo: "acme/inventory", PR: 10 + i, Path: sampleFile, Line: 21, Side: "RIGHT",
			DiffHunk: "@@ -18,3 +18,9 @@\n+func (s *Store) Reserve(id string, n int) bool {\n+\tif s.stock[id] < n {",
			Body:     b, Author: "maintainer", CreatedAt: time.Date(2026, 1, 1+i, 12, 0, 0, 0, time.UTC),
		}
	}
	return out
}()

const samplePersonaBudget = 1500

// sampleSignals are what happened to four of council's comments: two dismissed style nits and
// two fixed races, enough for one learning of each kind.
func sampleSignals() []learn.Signal {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	signal := func(i int, category, title string, accepted bool) learn.Signal {
		s := learn.Signal{
			Repo: "acme/inventory", PR: 20 + i, PRCreated: at, PRMerged: true, CommentID: int64(200 + i), Created: at,
			URL:         fmt.Sprintf("https://github.com/acme/inventory/pull/%d#discussion_r%d", 20+i, 200+i),
			Fingerprint: fmt.Sprintf("fp%d", i), Reviewer: "maintainability", Category: category, Severity: "low",
			Path: sampleFile, Line: 21, Title: title, Body: title + ".",
		}
		if accepted {
			s.Addressed = true
		} else {
			s.Reactions = map[string]int{"-1": 1}
			s.Replies = []learn.Reply{{Author: "maintainer", WriteAccess: true, Body: "We don't do this here.", Created: at}}
		}
		return s
	}
	return []learn.Signal{
		signal(0, "style", "Doc comment does not start with the name", false),
		signal(1, "style", "Doc comment does not start with the name", false),
		signal(2, "concurrency", "Map read without the lock", true),
		signal(3, "concurrency", "Map read without the lock", true),
		ask(4, at), ask(5, at),
	}
}

// ask is what a human reviewer asked for, as council learn --git finds it: a change made in
// answer to review.
func ask(i int, at time.Time) learn.Signal {
	return learn.Signal{
		Repo: "acme/inventory", PR: 20 + i, PRCreated: at, PRMerged: true, Source: learn.SourceFeedback, Addressed: true,
		Merge: fmt.Sprintf("%040d", i), Commit: fmt.Sprintf("%039d1", i),
		URL:  fmt.Sprintf("https://github.com/acme/inventory/commit/%039d1#diff-0R21", i),
		Path: sampleFile, Line: 21,
		Body: "Address review comments\n\n@@ -20,2 +20,3 @@\n+// Reserve takes n items out of stock.\n func (s *Store) Reserve(id string, n int) error {",
	}
}
