package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
