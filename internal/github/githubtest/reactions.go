package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// reactionsDoc is the endpoint's documentation, which the checks below follow.
const reactionsDoc = "https://docs.github.com/rest/reactions/reactions#list-reactions-for-a-pull-request-review-comment"

// reaction is one user's reaction to a review comment.
type reaction struct {
	id      int64
	login   string
	content string
	created time.Time
}

// AddReaction records login's reaction to review comment commentID of owner/repo, as the
// reader would add it. content is one of GitHub's reactions ("+1", "-1", "laugh",
// "confused", "heart", "hooray", "rocket", "eyes"). As on GitHub, a user reacts with one
// content once: the same reaction again changes nothing.
// https://docs.github.com/rest/reactions/reactions#create-reaction-for-a-pull-request-review-comment
func (s *Server) AddReaction(owner, repo string, commentID int64, login, content string) {
	s.t.Helper()
	if !slices.Contains(reactionKinds, content) {
		s.t.Fatalf("githubtest: AddReaction: %q is not a reaction GitHub knows (%v)", content, reactionKinds)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.reviewComment(owner, repo, commentID)
	if c == nil {
		s.t.Fatalf("githubtest: AddReaction: no review comment %d in %s/%s", commentID, owner, repo)
		return
	}
	for _, r := range s.reactionsOf[commentID] {
		if r.login == login && r.content == content {
			return
		}
	}
	if s.reactionsOf == nil {
		s.reactionsOf = map[int64][]reaction{}
	}
	s.reactionsOf[commentID] = append(s.reactionsOf[commentID], reaction{id: s.id(), login: login, content: content, created: s.now()})
	// The comment's own reactions summary counts it too.
	c.reactions[content]++
}

// reviewComment finds a review comment of owner/repo by id. Call with s.mu held.
func (s *Server) reviewComment(owner, repo string, id int64) *commentState {
	rs := s.repo(owner, repo, false)
	if rs == nil {
		return nil
	}
	for _, p := range rs.prs {
		if c := p.comments[id]; c != nil {
			if rv := p.reviews[c.reviewID]; rv != nil && rv.state == "PENDING" {
				return nil // a pending comment is its author's only, and nobody reacts to it
			}
			return c
		}
	}
	return nil
}

// listCommentReactions is GET /repos/{owner}/{repo}/pulls/comments/{id}/reactions: the
// reactions to a review comment, oldest first, a page at a time; content, when given, keeps
// one kind and must be one GitHub knows (422 otherwise); an unknown comment is a 404; a
// fine-grained token needs pull_requests:read. Reactions made by SetReaction, which records
// no user, are listed as a deleted account's (user null).
func (s *Server) listCommentReactions(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "Not Found", nil, reactionsDoc)
		return
	}
	content := r.URL.Query().Get("content")
	if content != "" && !slices.Contains(reactionKinds, content) {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "Reaction", "code": "invalid", "field": "content",
				"message": fmt.Sprintf("content %q is not one of %v", content, reactionKinds)}},
			reactionsDoc)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.reviewComment(r.PathValue("owner"), r.PathValue("repo"), id)
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", nil, reactionsDoc)
		return
	}
	if !readable(w, r, PullRequestsRead) {
		return
	}
	all := []map[string]any{}
	listed := map[string]int{}
	for _, x := range s.reactionsOf[id] {
		listed[x.content]++
		if content == "" || x.content == content {
			all = append(all, reactionJSON(x.id, x.login, x.content, x.created))
		}
	}
	// What SetReaction counted without a user.
	for _, k := range reactionKinds {
		for range c.reactions[k] - listed[k] {
			if content == "" || k == content {
				all = append(all, reactionJSON(0, "", k, c.created))
			}
		}
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

func reactionJSON(id int64, login, content string, created time.Time) map[string]any {
	return map[string]any{
		"id": id, "node_id": "REA_" + strconv.FormatInt(id, 10), "user": userJSON(login),
		"content": content, "created_at": timestamp(created),
	}
}
