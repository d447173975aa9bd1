package learn

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/history"
)

// GitReport is what HarvestGit walked, and what it left out and why.
type GitReport struct {
	Merges   int     // merges walked
	Answered int     // merges whose branch gave asks
	Skipped  []Count // merges that gave none, by reason
	Dropped  []Count // feedback hunks that are not asks, by reason (of every branch walked)
}

// Count is how many items one reason holds.
type Count struct {
	Reason string
	N      int
}

// HarvestGit reads what the reviewers of repo (owner/name) asked for from its git history: for
// each merged branch of merges (history.Graph.Merges), the changes its feedback commits made
// at the commit the reviewers saw (history.Reader.Feedback), one SourceFeedback signal per
// kept hunk, the oldest merge's first. It reads git only; an error is git's.
func HarvestGit(ctx context.Context, r history.Reader, repo string, merges []history.MergedBranch) ([]Signal, GitReport, error) {
	rep := GitReport{Merges: len(merges)}
	skipped, dropped := map[string]int{}, map[string]int{}
	var out []Signal
	for _, mb := range slices.Backward(merges) {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		fb, err := r.Feedback(ctx, mb)
		if err != nil {
			return nil, rep, fmt.Errorf("read the feedback of merge %s: %w", mb.Merge.SHA[:min(7, len(mb.Merge.SHA))], err)
		}
		for _, h := range fb.Hunks {
			if h.Drop != "" {
				dropped[h.Drop]++
			}
		}
		if skip := fb.Branch.Skip; skip != "" {
			if strings.HasPrefix(skip, history.SkipAllDropped) {
				skip = history.SkipAllDropped // the hunks' reasons are counted in Dropped
			}
			skipped[skip]++
			continue
		}
		rep.Answered++
		out = append(out, FeedbackSignals(repo, fb)...)
	}
	rep.Skipped, rep.Dropped = counts(skipped), counts(dropped)
	return out, rep, nil
}

// counts lists m's reasons, most first, then by reason.
func counts(m map[string]int) []Count {
	var out []Count
	for r, n := range m {
		out = append(out, Count{Reason: r, N: n})
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Reason, b.Reason)) })
	return out
}

// FeedbackSignals are the asks of one merged branch's feedback: one signal per kept hunk,
// where it is at the reviewed commit, with the messages and the hunk as its body (Hunk.Body),
// credited as the hunk is (Hunk.Author), linked to the first commit that changed its lines
// (Hunk.Commit). What git cannot tell is as near as it knows: the pull
// request was opened when the branch's first commit was made, and was merged.
func FeedbackSignals(repo string, fb history.Feedback) []Signal {
	mb := fb.Branch
	number, _, _ := history.PRFromMerge(fb.Messages[mb.Merge.SHA])
	var out []Signal
	for _, h := range fb.Hunks {
		if h.Drop != "" {
			continue
		}
		c := h.Commit
		out = append(out, Signal{
			Repo: repo, PR: number, PRCreated: mb.Line[0].Time, PRMerged: true,
			URL: CommitLineURL(repo, number, c.SHA, h.CommitPath, h.CommitLine), Created: c.Time,
			Path: h.Path, Line: h.Line, Body: h.Body(),
			Addressed: true, Source: SourceFeedback, Author: h.Author, Merge: mb.Merge.SHA, Commit: c.SHA,
		})
	}
	return out
}

// CommitLineURL links a line of a commit's diff on GitHub: the commit's page, scrolled to the
// file (GitHub's anchor "diff-" and the SHA-256 of the path the commit's diff shows it under)
// and to the line on the diff's left side ("L"), the file as it was just before the commit:
// where the lines a feedback hunk is about were when that commit changed them. Per commit,
// path and line it is unique, so that distillation can cite each signal by it. When the pull
// request's number is known, the link is the commit inside the pull request
// (/pull/N/commits/SHA): the same diff, and a link that names the pull request, so that
// council bench run --learnings can tell evidence from a sample's own pull request.
func CommitLineURL(repo string, pr int, sha, path string, line int) string {
	sum := sha256.Sum256([]byte(path))
	page := fmt.Sprintf("https://github.com/%s/commit/%s", repo, sha)
	if pr > 0 {
		page = fmt.Sprintf("https://github.com/%s/pull/%d/commits/%s", repo, pr, sha)
	}
	return fmt.Sprintf("%s#diff-%sL%d", page, hex.EncodeToString(sum[:]), line)
}
