package persona

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/council-dev/council/internal/bench"
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

// ListingCache is the optional second half of a Cache: it keeps the listing of a repository's
// pull requests, so that a run within MaxAge of the last listing sends no request at all.
// LoadListing reports false for a repository it holds no listing of.
type ListingCache interface {
	LoadListing(repo string) (Listing, bool, error)
	StoreListing(repo string, l Listing) error
}

// Listing is a repository's pull requests as a harvest listed them, newest first.
type Listing struct {
	Login string `json:"login"`
	// Since is the --since the listing went back to; zero when it went back to the first.
	Since  time.Time  `json:"since,omitzero"`
	MadeAt time.Time  `json:"made_at"`
	PRs    []ListedPR `json:"prs"`
}

// ListedPR is what a harvest needs of one listed pull request.
type ListedPR struct {
	Number    int       `json:"number"`
	Author    string    `json:"author"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	State     string    `json:"state"`
}

func listed(p github.PRDetails) ListedPR {
	return ListedPR{Number: p.Number, Author: p.Author, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, State: p.State}
}

func (l ListedPR) details() github.PRDetails {
	var p github.PRDetails
	p.Number, p.Author, p.CreatedAt, p.UpdatedAt, p.State = l.Number, l.Author, l.CreatedAt, l.UpdatedAt, l.State
	return p
}

// fresh reports whether a cached listing answers a harvest of login back to since at now.
func (l Listing) fresh(login string, since, now time.Time, maxAge time.Duration) bool {
	if !strings.EqualFold(l.Login, login) || l.MadeAt.IsZero() || now.Sub(l.MadeAt) >= maxAge || now.Before(l.MadeAt) {
		return false
	}
	// A listing back to a date covers any later --since; one back to the first covers all.
	return l.Since.IsZero() || (!since.IsZero() && !since.Before(l.Since))
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
	// LinesRead is set once the changed-lines rule (HarvestOptions.Git) was applied to a
	// merged pull request: every comment it applies to has its Addressed.
	LinesRead bool `json:"lines_read,omitempty"`
}

// current reports whether a cached harvest still holds for the pull request as listed now.
// With lines (a clone to read), a merged pull request the changed-lines rule was not applied
// to is read again.
func (h HarvestedPR) current(p github.PRDetails, login string, lines bool) bool {
	if !strings.EqualFold(h.Login, login) || (lines && h.Merged && !h.OwnPR && !h.LinesRead) {
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
	// MaxAge is how long a listing the Cache keeps (when it is also a ListingCache) answers
	// instead of GitHub's; zero never uses one. Refresh lists from GitHub whatever its age.
	// Now is the clock the age is measured with; required with MaxAge.
	MaxAge  time.Duration
	Refresh bool
	Now     func() time.Time
	// Git, when set, is the repository's clone: on a merged pull request, an inline comment of
	// Login that starts a thread not resolved is addressed when the lines it is about changed
	// between the commit it was made on and the merged head, and not addressed when they did
	// not (bench.Changes: the bench importer's rule). Nil leaves it unknown.
	Git bench.GitRepo
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
	// ListedAt is when the listing used was made: before this run when CachedListing is set,
	// in which case GitHub was not asked for it.
	ListedAt      time.Time
	CachedListing bool
	// Excluded counts the comments left out, by reason: only bots here, since the pull
	// requests of login are not read (OwnPRs counts them).
	Excluded []review.Count
	// Unread counts the merged pull requests whose commits could not be read with Git, their
	// comments' Addressed left unknown; UnreadErr is the first reason.
	Unread    int
	UnreadErr error
}

// Harvest reads the review comments of o.Login in o.Owner/o.Repo from GitHub: for each pull
// request, newest first until o.Since, their inline comments and non-empty review bodies, as
// Comments. The pull requests they opened are skipped, and a comment GitHub marks as a bot's
// is left out and counted. Acknowledgements are kept: Select counts them.
//
// Addressed is true when the comment's thread was resolved. With o.Git, on a merged pull
// request, a thread-starting inline comment is also addressed when its lines changed between
// the commit it was made on and the merged head, and not addressed when they did not (the
// bench importer's rule, bench.Changes); a commit that cannot be read leaves it nil (unknown),
// counted in Unread. Otherwise it is nil.
//
// With a Cache, a pull request whose cached harvest is current (same updated_at; or closed,
// when GitHub gives none) is not read again, and each one read is stored at once, so that a
// run stopped midway resumes without reading those again. When the Cache is also a
// ListingCache, a listing younger than o.MaxAge that covers o.Since replaces GitHub's (then a
// run on a harvested repository sends no request), and each complete listing is stored.
func Harvest(ctx context.Context, gh GitHub, o HarvestOptions) (HarvestResult, error) {
	if strings.TrimSpace(o.Login) == "" {
		return HarvestResult{}, errors.New("harvest: no login")
	}
	repoName := o.Owner + "/" + o.Repo
	var h HarvestResult
	bots := 0
	lc, _ := o.Cache.(ListingCache)
	var now time.Time
	if lc != nil && o.Now != nil {
		now = o.Now()
	}
	var cached Listing
	if lc != nil && o.MaxAge > 0 && !o.Refresh && !now.IsZero() {
		l, ok, err := lc.LoadListing(repoName)
		if err != nil {
			return h, fmt.Errorf("harvest %s: %w", repoName, err)
		}
		if ok && l.fresh(o.Login, o.Since, now, o.MaxAge) {
			cached, h.CachedListing, h.ListedAt = l, true, l.MadeAt
		}
	}
	var listing []ListedPR
	visit := func(p github.PRDetails) (bool, error) {
		if !o.Since.IsZero() && !p.CreatedAt.IsZero() && p.CreatedAt.Before(o.Since) {
			return false, nil // newest first: every later one is older still
		}
		listing = append(listing, listed(p))
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
			if ok && c.current(p, o.Login, o.Git != nil) {
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
		if o.Git != nil && !got.OwnPR && got.Merged {
			if err := addressByLines(ctx, o.Git, hist, &got); err != nil {
				h.Unread++
				if h.UnreadErr == nil {
					h.UnreadErr = fmt.Errorf("#%d: %w", p.Number, err)
				}
			} else {
				got.LinesRead = true
			}
		}
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
	}
	var err error
	if h.CachedListing {
		for _, p := range cached.PRs {
			var more bool
			if more, err = visit(p.details()); err != nil || !more {
				break
			}
		}
	} else {
		err = gh.ListPullRequests(ctx, o.Owner, o.Repo, visit)
		if err == nil && lc != nil && !now.IsZero() {
			h.ListedAt = now
			if listing == nil {
				listing = []ListedPR{}
			}
			err = lc.StoreListing(repoName, Listing{Login: o.Login, Since: o.Since, MadeAt: now, PRs: listing})
		}
	}
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
	// GitHub's in_reply_to names the thread's first comment: what others answered there.
	replies := map[int64][]Reply{}
	for _, cm := range hist.Comments {
		bot := (github.User{Login: cm.User, Type: cm.UserType}).Bot()
		if cm.InReplyTo != 0 && !bot && !strings.EqualFold(cm.User, login) && strings.TrimSpace(cm.Body) != "" {
			replies[cm.InReplyTo] = append(replies[cm.InReplyTo], Reply{Author: cm.User, Body: cm.Body})
		}
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
			DiffHunk: cm.DiffHunk, Body: cm.Body, Author: cm.User, CreatedAt: cm.CreatedAt, Commit: cm.OriginalCommitID,
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
		} else {
			c.Replies = replies[cm.ID]
		}
		if resolved[root] {
			yes := true
			c.Addressed = &yes
		}
		out.Comments = append(out.Comments, c)
	}
	return out
}

// addressByLines applies the changed-lines rule to got, the harvest of a merged pull request:
// each thread-starting inline comment whose thread was not resolved is addressed when the
// merged head changed the lines it is about at the commit it was made on. A comment whose
// commits cannot be read stays nil; the first such error is returned.
func addressByLines(ctx context.Context, git bench.GitRepo, hist github.History, got *HarvestedPR) error {
	if hist.PR.HeadSHA == "" {
		return errors.New("GitHub gave no merged head")
	}
	at := map[int64]int{}
	for i, c := range got.Comments {
		if !c.ReviewBody && c.InReplyTo == nil && c.Addressed == nil && c.Path != "" {
			at[c.ID] = i
		}
	}
	changes := &bench.Changes{Git: git, Merge: hist.PR.HeadSHA}
	var first error
	for _, cm := range hist.Comments {
		i, ok := at[cm.ID]
		if !ok {
			continue
		}
		var err error
		if cm.OriginalCommitID == "" {
			err = fmt.Errorf("comment %d: GitHub gave no commit", cm.ID)
		} else {
			from, to := bench.CommentRange(cm.OriginalLine, cm.OriginalStartLine, cm.Side, cm.StartSide)
			var yes bool
			if yes, err = changes.Addressed(ctx, cm.OriginalCommitID, cm.Path, cm.Side, from, to); err == nil {
				got.Comments[i].Addressed = &yes
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
