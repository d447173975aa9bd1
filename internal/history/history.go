// Package history is what a repository's git history says about review: which merge brought
// each branch in, which commits of a branch answered review (the rules of feedback.go), and
// what those commits changed, located at the commit the reviewers saw. council bench import
// --git turns that into benchmark truth, council learn --git into what the repository's
// reviewers ask for; both read it here, so that one walk and one set of rules serve both.
//
// It reads git only through the Git interface its caller provides, never the network, the
// clock or the working directory; it knows nothing of samples or learnings.
package history

import (
	"context"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

// Git is the clone a walk reads (internal/source's Git).
type Git interface {
	// History calls visit for every commit reachable from rev.
	History(ctx context.Context, rev string, visit func(source.Commit) error) error
	Messages(ctx context.Context, shas []string) (map[string]string, error)
	MergeBase(ctx context.Context, a, b string) (string, error)
	// ChangedFiles lists the paths that differ between two commits (old and new of a rename).
	ChangedFiles(ctx context.Context, from, to string) (map[string]bool, error)
	// DiffRange is the diff between two commits with renames found.
	DiffRange(ctx context.Context, from, to string) ([]diff.File, error)
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
}

var _ Git = (*source.Git)(nil)
