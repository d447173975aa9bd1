package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

type issueCommentState struct {
	id               int64
	user, body       string
	created, updated time.Time
	reactions        map[string]int
}

// Conversation comments on a pull request need issues or pull_requests write permission: "Create
// an issue comment" accepts either set.
// https://docs.github.com/rest/issues/comments#create-an-issue-comment
var commentPerms = []string{IssuesWrite, PullRequestsWrite}

func (s *Server) issueCommentJSON(rs *repoState, n int, c *issueCommentState) map[string]any {
	reactions := map[string]any{}
	total := 0
	for _, k := range reactionKinds {
		reactions[k] = c.reactions[k]
		total += c.reactions[k]
	}
	reactions["total_count"] = total
	return map[string]any{
		"id": c.id, "user": map[string]any{"login": c.user}, "body": c.body,
		"html_url":   fmt.Sprintf("%s#issuecomment-%d", s.prURL(rs, n), c.id),
		"created_at": timestamp(c.created), "updated_at": timestamp(c.updated),
		"reactions": reactions,
	}
}

func (s *Server) listIssueComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !readable(w, r, IssuesRead, PullRequestsRead) {
		return
	}
	var all []map[string]any
	for _, id := range sortedIDs(p.issueComments) {
		all = append(all, s.issueCommentJSON(rs, p.pr.Number, p.issueComments[id]))
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

// commentBody decodes {"body": ...} and answers GitHub's 422 for an empty one.
func commentBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return "", false
	}
	if req.Body == nil || *req.Body == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "IssueComment", "code": "missing_field", "field": "body"}},
			"https://docs.github.com/rest/issues/comments#create-an-issue-comment")
		return "", false
	}
	return *req.Body, true
}

func (s *Server) createIssueComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !allowed(w, r, commentPerms...) {
		return
	}
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	now := s.now()
	c := &issueCommentState{id: s.id(), user: login(r), body: body, created: now, updated: now, reactions: map[string]int{}}
	p.issueComments[c.id] = c
	writeJSON(w, http.StatusCreated, s.issueCommentJSON(rs, p.pr.Number, c))
}

func (s *Server) editIssueComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if rs == nil {
		notFound(w)
		return
	}
	for n, p := range rs.prs {
		c := p.issueComments[id]
		if c == nil {
			continue
		}
		if !allowed(w, r, commentPerms...) {
			return
		}
		body, ok := commentBody(w, r)
		if !ok {
			return
		}
		c.body, c.updated = body, s.now()
		writeJSON(w, http.StatusOK, s.issueCommentJSON(rs, n, c))
		return
	}
	notFound(w)
}

// IssueCommentBodies returns the bodies of a pull request's conversation comments, oldest
// first.
func (s *Server) IssueCommentBodies(owner, repo string, n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(owner, repo, false)
	if rs == nil || rs.prs[n] == nil {
		return nil
	}
	p := rs.prs[n]
	var out []string
	for _, id := range sortedIDs(p.issueComments) {
		out = append(out, p.issueComments[id].body)
	}
	return out
}
