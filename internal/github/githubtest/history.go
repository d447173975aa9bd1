package githubtest

import (
	"strconv"
	"strings"
	"time"
)

// SetClock replaces the server's clock from now on: the timestamps of what is created next
// (pull requests, reviews, comments, merges) and token expiry. A test that needs an order
// (which review came first, which pull request is older than a date) sets it between calls.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// MarkMerged merges a pull request as it stands: its current head (SetHead) becomes the
// merged head, its state "closed", merged true, merged_at and closed_at the server's clock.
// mergeCommit is the merge commit's SHA (merge_commit_sha); empty derives one.
func (s *Server) MarkMerged(owner, repo string, n int, mergeCommit string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo, false)
	if r == nil || r.prs[n] == nil {
		s.t.Fatalf("githubtest: MarkMerged: no pull request %s/%s#%d", owner, repo, n)
		return
	}
	p := r.prs[n]
	if p.merged {
		s.t.Fatalf("githubtest: MarkMerged: %s/%s#%d is already merged", owner, repo, n)
		return
	}
	if mergeCommit == "" {
		mergeCommit = gitSHA("commit", "merge "+strconv.Itoa(n)+" "+p.pr.HeadSHA)
	}
	now := s.now()
	p.merged, p.mergeCommit, p.mergedAt, p.closedAt = true, mergeCommit, now, now
	p.pr.State = "closed"
	r.commits[mergeCommit] = true
}

// isBot says whether GitHub shows login as a bot (user type "Bot"): GitHub Apps and their
// installations post as "name[bot]".
func isBot(login string) bool { return strings.HasSuffix(login, "[bot]") }

// DeleteUser deletes login's account, as its owner can: from then on the pull requests,
// reviews and review comments it wrote are served with "user": null, as GitHub serves a
// deleted account's (a client that reads user.login without a nil check breaks here).
func (s *Server) DeleteUser(login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.repos {
		for _, p := range r.prs {
			if p.pr.Author == login {
				p.pr.Author = ""
			}
			for _, rv := range p.reviews {
				if rv.user == login {
					rv.user = ""
				}
			}
			for _, c := range p.comments {
				if c.user == login {
					c.user = ""
				}
			}
		}
	}
}

// userJSON is a user as GitHub embeds it in reviews, comments and pull requests: the login
// and the account's type, which is how a client tells an app's bot from a person; null for a
// deleted account (DeleteUser).
func userJSON(login string) map[string]any {
	if login == "" {
		return nil
	}
	typ := "User"
	if isBot(login) {
		typ = "Bot"
	}
	return map[string]any{"login": login, "type": typ}
}

// pullTimes are the timestamps and merge state of a pull request as GitHub returns them:
// created_at, updated_at (the latest push, review, comment or merge), closed_at, merged_at
// and merge_commit_sha (null until they apply), and merged. Call with s.mu held.
func pullTimes(p *prState) map[string]any {
	updated := p.created
	later := func(t time.Time) {
		if t.After(updated) {
			updated = t
		}
	}
	for _, c := range p.commits {
		later(c.pushed)
	}
	for _, rv := range p.reviews {
		if rv.state != "PENDING" {
			later(rv.submitted)
		}
	}
	for _, c := range p.comments {
		later(c.created)
	}
	later(p.mergedAt)
	later(p.closedAt)
	stamp := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return timestamp(t)
	}
	m := map[string]any{
		"created_at": stamp(p.created), "updated_at": stamp(updated),
		"closed_at": stamp(p.closedAt), "merged_at": stamp(p.mergedAt),
		"merged": p.merged, "merge_commit_sha": nil,
	}
	if p.merged {
		m["merge_commit_sha"] = p.mergeCommit
	}
	if p.pr.State == "closed" && p.closedAt.IsZero() {
		m["closed_at"] = stamp(updated)
	}
	return m
}
