// Package plan decides which files of a change are reviewed and splits them into units that
// each fit a model's token budget. Every file it leaves out is listed with a reason, and the
// units together hold every hunk of every reviewed file: a large change is split, never
// truncated, and nothing is dropped silently.
//
// It is pure: no git, no files, no clock. File content comes in through Options.Head.
package plan

import (
	"cmp"
	"path"
	"slices"

	"github.com/council-dev/council/internal/diff"
)

// DefaultBudget is the token budget of a unit when Options leaves it unset. It leaves room
// under today's context windows for the rules, the PR description, context and the answer.
const DefaultBudget = 60000

// Options says how to plan. The zero value reviews every file that no rule skips, in units of
// DefaultBudget tokens, without extra context.
type Options struct {
	// BudgetTokens is the most estimated tokens of rendered diff a unit holds, unless a single
	// hunk is larger by itself. <= 0 means DefaultBudget.
	BudgetTokens int
	// Include and Exclude are path globs where "**" matches any number of directories (see
	// glob.Match). An empty Include means every path. A path matching an Exclude pattern is skipped
	// even if it matches Include.
	Include, Exclude []string
	// Head returns a file's content at the head revision split into lines (diff.SplitLines),
	// or nil when it is not available. It may be nil. It is asked only for files that no rule
	// based on the path or the diff alone has skipped, and at most once per file.
	Head func(path string) []string
	// ExtraContext is passed to diff.Render.
	ExtraContext int
}

// Unit is one reviewer call's worth of diff. A File in a unit may carry only some of its hunks
// (with Added and Deleted counted for those hunks) when the file alone exceeds the budget; its
// other hunks are in other units.
type Unit struct {
	Files []diff.File
	// Tokens is EstimateTokens of diff.RenderAll(Files, Options.Head, Options.ExtraContext).
	Tokens int
}

// Skip is a file that is not reviewed, and why, in words meant for the coverage manifest.
type Skip struct {
	Path, Reason string
}

// Plan is the outcome: the units to review, what was skipped, and the paths that were
// reviewed. Skipped and Reviewed are sorted by path.
type Plan struct {
	Units    []Unit
	Skipped  []Skip
	Reviewed []string
}

// EstimateTokens estimates how many tokens a model reads for s as one per four bytes, rounded
// up. It is an estimate, not a count: real tokenizers differ by model and by language, and
// code with short identifiers or non-ASCII text runs above it. Budgets should leave headroom.
func EstimateTokens(s string) int {
	return tokensFor(len(s))
}

func tokensFor(bytes int) int {
	return (bytes + 3) / 4
}

// Make decides which files are reviewed and packs them into units. files is read, never
// modified.
func Make(files []diff.File, opts Options) Plan {
	budget := opts.BudgetTokens
	if budget <= 0 {
		budget = DefaultBudget
	}

	// Sort positions rather than the files, which stay untouched; the stable sort keeps equal
	// paths (a file deleted and re-added as a symlink) in patch order.
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(files[a].Path(), files[b].Path()) })

	var p Plan
	var reviewed []item
	for _, i := range order {
		f := files[i]
		reason := skipByDiff(f, opts.Include, opts.Exclude)
		var head []string
		if reason == "" {
			head = diff.HeadOf(f, opts.Head)
			reason = skipByHeader(f, head)
		}
		if reason != "" {
			p.Skipped = append(p.Skipped, Skip{Path: f.Path(), Reason: reason})
			continue
		}
		p.Reviewed = append(p.Reviewed, f.Path())
		reviewed = append(reviewed, newItem(f, head, i, opts.ExtraContext))
	}
	// Two files can share a path; the manifest names it once.
	p.Reviewed = slices.Compact(p.Reviewed)
	p.Units = pack(reviewed, budget, opts.ExtraContext)
	return p
}

// item is a file, or a piece of one, waiting for a unit.
type item struct {
	file   diff.File
	head   []string
	source int    // index in Make's input, so that two pieces of one file never share a unit
	dir    string // path.Dir of the file: files of one directory are packed together
	size   int    // bytes of diff.Render(file, head, extra)
}

func newItem(f diff.File, head []string, source, extra int) item {
	return item{
		file:   f,
		head:   head,
		source: source,
		dir:    path.Dir(f.Path()),
		size:   len(diff.Render(f, head, extra)),
	}
}

// cost is what an item adds to a unit: its render and the blank line RenderAll puts between
// files, rounded up on its own. Rounding each item only adds, so the sum of a unit's costs is
// never below the estimate of its rendering: costs that fit the budget mean a unit that does.
func (it item) cost() int {
	return tokensFor(it.size + 1)
}
