package persona

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/review"
)

// GitHub is what Harvest reads: the pull requests of a repository, newest first, and the
// review history of one. *github.Client is one; its transport already waits out rate limits
// and retries, so Harvest adds no retry of its own.
type GitHub interface {
	ListPullRequests(ctx context.Context, owner, repo string, each func(github.PRDetails) (bool, error)) error
	History(ctx context.Context, owner, repo string, n int) (github.History, error)
}

var _ GitHub = (*github.Client)(nil)

// Cache keeps what Harvest found on each pull request, so that a second run reads from it
// rather than from GitHub, and an interrupted run resumes where it stopped. Load reports
// false for a pull request it does not hold; an error from either method ends the harvest.
type Cache interface {
	Load(repo string, pr int) (HarvestedPR, bool, error)
	Store(repo string, pr int, h HarvestedPR) error
}

// HarvestedPR is one pull request's harvest for one login: what Cache stores.
type HarvestedPR struct {
	Login string `json:"login"`
	PR    int    `json:"pr"`
	// UpdatedAt is the pull request's updated_at when it was read; State ("open", "closed")
	// and Merged say whether it can still change when GitHub gives no updated_at.
	UpdatedAt time.Time `json:"updated_at"`
	State     string    `json:"state"`
	Merged    bool      `json:"merged"`
	// OwnPR is set when login opened the pull request: its history was not read.
	OwnPR bool `json:"own_pr,omitempty"`
	// Comments are login's inline comments and review bodies on it, acknowledgements
	// included (Select counts those); Bots counts comments left out as a bot's.
	Comments []Comment `json:"comments"`
	Bots     int       `json:"bots,omitempty"`
}

// current reports whether a cached harvest still holds for the pull request as listed now.
func (h HarvestedPR) current(p github.PRDetails, login string) bool {
	if !strings.EqualFold(h.Login, login) {
		return false
	}
	if !p.UpdatedAt.IsZero() && !h.UpdatedAt.IsZero() {
		return p.UpdatedAt.Equal(h.UpdatedAt)
	}
	// Without updated_at, a closed pull request is taken as final.
	return h.State == "closed" && p.State == "closed"
}

// HarvestOptions says whose comments to harvest, where, and how to report progress.
type HarvestOptions struct {
	Owner, Repo string
	Login       string    // required; compared case-insensitively
	Since       time.Time // zero: every pull request; else those created on or after it
	Cache       Cache     // nil: no cache
	// OnPR, when set, is called after each pull request: cached tells whether it came from
	// the cache.
	OnPR func(pr int, comments int, cached bool)
}

// HarvestResult is what Harvest found in one repository.
type HarvestResult struct {
	Comments []Comment
	// PRs counts the pull requests listed; Cached those answered from the cache; Fetched those
	// whose history was read from GitHub; OwnPRs those login opened (never read: every
	// comment of theirs there would be left out).
	PRs, Cached, Fetched, OwnPRs int
	// Excluded counts the comments left out, by reason: only bots here, since the pull
	// requests of login are not read (OwnPRs counts them).
	Excluded []review.Count
}

// Harvest reads the review comments of o.Login in o.Owner/o.Repo from GitHub: for each pull
// request, newest first until o.Since, their inline comments and non-empty review bodies, as
// Comments. The pull requests they opened are skipped, and a comment GitHub marks as a bot's
// is left out and counted. Acknowledgements are kept: Select counts them.
//
// Addressed is true when the comment's thread was resolved and nil (unknown) otherwise: the
// bench importer also counts a comment whose lines changed before the merge as addressed, but
// that needs the commits (a clone), which a harvest does not fetch.
//
// With a Cache, a pull request whose cached harvest is current (same updated_at; or closed,
// when GitHub gives none) is not read again, and each one read is stored at once, so that a
// run stopped midway resumes without reading those again.
func Harvest(ctx context.Context, gh GitHub, o HarvestOptions) (HarvestResult, error) {
	if strings.TrimSpace(o.Login) == "" {
		return HarvestResult{}, errors.New("harvest: no login")
	}
	repoName := o.Owner + "/" + o.Repo
	var h HarvestResult
	bots := 0
	err := gh.ListPullRequests(ctx, o.Owner, o.Repo, func(p github.PRDetails) (bool, error) {
		if !o.Since.IsZero() && !p.CreatedAt.IsZero() && p.CreatedAt.Before(o.Since) {
			return false, nil // newest first: every later one is older still
		}
		h.PRs++
		if strings.EqualFold(p.Author, o.Login) {
			h.OwnPRs++
			return true, nil
		}
		if o.Cache != nil {
			c, ok, err := o.Cache.Load(repoName, p.Number)
			if err != nil {
				return false, err
			}
			if ok && c.current(p, o.Login) {
				h.Cached++
				h.Comments = append(h.Comments, c.Comments...)
				bots += c.Bots
				if o.OnPR != nil {
					o.OnPR(p.Number, len(c.Comments), true)
				}
				return true, nil
			}
		}
		hist, err := gh.History(ctx, o.Owner, o.Repo, p.Number)
		if err != nil {
			return false, err
		}
		got := harvestPR(repoName, hist, o.Login)
		// The listing's updated_at is the one the next run compares with.
		if !p.UpdatedAt.IsZero() {
			got.UpdatedAt = p.UpdatedAt
		}
		h.Fetched++
		h.Comments = append(h.Comments, got.Comments...)
		bots += got.Bots
		if o.Cache != nil {
			if err := o.Cache.Store(repoName, p.Number, got); err != nil {
				return false, err
			}
		}
		if o.OnPR != nil {
			o.OnPR(p.Number, len(got.Comments), false)
		}
		return true, nil
	})
	if bots > 0 {
		h.Excluded = append(h.Excluded, review.Count{Name: ExcludedBot, Count: bots})
	}
	if err != nil {
		return h, fmt.Errorf("harvest %s: %w", repoName, err)
	}
	return h, nil
}

// harvestPR picks login's comments out of one pull request's history.
func harvestPR(repoName string, hist github.History, login string) HarvestedPR {
	out := HarvestedPR{
		Login: login, PR: hist.PR.Number, UpdatedAt: hist.PR.UpdatedAt, State: hist.PR.State, Merged: hist.PR.Merged,
		Comments: []Comment{},
	}
	if strings.EqualFold(hist.PR.Author, login) {
		out.OwnPR = true
		return out
	}
	resolved := map[int64]bool{}
	for _, th := range hist.Threads {
		resolved[th.FirstCommentID] = th.Resolved
	}
	for _, rv := range hist.Reviews {
		if !strings.EqualFold(rv.User, login) || rv.State == "PENDING" || strings.TrimSpace(rv.Body) == "" {
			continue
		}
		if (github.User{Login: rv.User, Type: rv.UserType}).Bot() {
			out.Bots++
			continue
		}
		out.Comments = append(out.Comments, Comment{
			ID: rv.ID, Repo: repoName, PR: hist.PR.Number, Body: rv.Body, Author: rv.User,
			CreatedAt: rv.SubmittedAt, ReviewBody: true,
		})
	}
	for _, cm := range hist.Comments {
		if !strings.EqualFold(cm.User, login) || strings.TrimSpace(cm.Body) == "" {
			continue
		}
		if (github.User{Login: cm.User, Type: cm.UserType}).Bot() {
			out.Bots++
			continue
		}
		c := Comment{
			ID: cm.ID, Repo: repoName, PR: hist.PR.Number, Path: cm.Path, Line: cm.Line, Side: cm.Side,
			DiffHunk: cm.DiffHunk, Body: cm.Body, Author: cm.User, CreatedAt: cm.CreatedAt,
		}
		if c.Line == 0 {
			c.Line = cm.OriginalLine // outdated: where it was made
		}
		if c.Side == "" {
			c.Side = github.SideRight
		}
		root := cm.ID
		if cm.InReplyTo != 0 {
			root = cm.InReplyTo
			parent := cm.InReplyTo
			c.InReplyTo = &parent
		}
		if resolved[root] {
			yes := true
			c.Addressed = &yes
		}
		out.Comments = append(out.Comments, c)
	}
	return out
}
