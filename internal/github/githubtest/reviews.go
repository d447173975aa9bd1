package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/finding"
)

const reviewsDoc = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"

type reviewState struct {
	id        int64
	user      string
	body      string
	state     string // COMMENTED, APPROVED, CHANGES_REQUESTED, PENDING
	commit    string
	submitted time.Time
}

type commentState struct {
	id, reviewID, inReplyTo int64
	user, body, path        string
	line, startLine         int
	side, startSide         string
	commit                  string
	text                    string // the commented line as the diff at commit shows it
	hunk                    string
	created                 time.Time
	reactions               map[string]int
}

// reactionKinds are the reactions GitHub knows, in its JSON order.
var reactionKinds = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

type draftComment struct {
	Path      string `json:"path"`
	Body      string `json:"body"`
	Line      *int   `json:"line"`
	Side      string `json:"side"`
	StartLine *int   `json:"start_line"`
	StartSide string `json:"start_side"`
	Position  *int   `json:"position"`
}

type reviewBody struct {
	CommitID string         `json:"commit_id"`
	Body     string         `json:"body"`
	Event    string         `json:"event"`
	Comments []draftComment `json:"comments"`
}

var reviewStates = map[string]string{
	"": "PENDING", "COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
}

// unprocessable answers the 422 of the reviews endpoint: "Unprocessable Entity" and the
// problems as one sentence, the way GitHub joins them.
func unprocessable(w http.ResponseWriter, problems ...string) {
	writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", []string{sentence(problems)}, reviewsDoc)
}

// sentence joins "a", "b", "c" as "a, b, and c".
func sentence(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	case 2:
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !allowed(w, r, PullRequestsWrite) {
		return
	}
	var req reviewBody
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	state, ok := reviewStates[req.Event]
	if !ok {
		unprocessable(w, fmt.Sprintf("Event %q is not one of APPROVE, REQUEST_CHANGES, COMMENT", req.Event))
		return
	}
	if req.Body == "" && (req.Event == "REQUEST_CHANGES" || (req.Event == "COMMENT" && len(req.Comments) == 0)) {
		unprocessable(w, "Body is required for this event")
		return
	}
	commit := p.head()
	if req.CommitID != "" {
		if commit = p.commit(req.CommitID); commit == nil {
			unprocessable(w, "The commitOID is not part of the pull request")
			return
		}
	}
	comments := make([]*commentState, 0, len(req.Comments))
	for _, d := range req.Comments {
		c, problems := checkComment(commit, d)
		if len(problems) > 0 {
			unprocessable(w, problems...)
			return
		}
		comments = append(comments, c)
	}

	now := s.now()
	rv := &reviewState{id: s.id(), user: login(r), body: req.Body, state: state, commit: commit.sha, submitted: now}
	p.reviews[rv.id] = rv
	for _, c := range comments {
		c.id, c.reviewID, c.user, c.created = s.id(), rv.id, rv.user, now
		c.reactions = map[string]int{}
		p.comments[c.id] = c
	}
	writeJSON(w, http.StatusOK, s.reviewJSON(rs, p, rv))
}

// checkComment validates one draft comment against the diff at commit as GitHub does, and
// returns what GitHub would complain about.
func checkComment(commit *commitState, d draftComment) (*commentState, []string) {
	if d.Position != nil {
		return nil, []string{"githubtest: position is not supported; anchor comments with line and side"}
	}
	if d.Body == "" {
		return nil, []string{"Body can't be blank"}
	}
	if _, ok := commit.index.File(d.Path); !ok || d.Path == "" {
		return nil, []string{"Path could not be resolved"}
	}
	if d.Line == nil || *d.Line <= 0 {
		return nil, []string{"Line could not be resolved"}
	}
	side := d.Side
	if side == "" {
		side = string(finding.Right)
	}
	if side != string(finding.Right) && side != string(finding.Left) {
		return nil, []string{fmt.Sprintf("Side %q is not one of LEFT, RIGHT", d.Side)}
	}
	line := *d.Line
	var problems []string
	pos, inDiff := commit.index.Lookup(d.Path, finding.Side(side), line)
	if !inDiff {
		problems = append(problems, "Pull request review thread line must be part of the diff")
	}
	c := &commentState{path: d.Path, body: d.Body, line: line, side: side, commit: commit.sha}
	if d.StartLine != nil {
		start := *d.StartLine
		startSide := d.StartSide
		if startSide == "" {
			startSide = side
		}
		if startSide != string(finding.Right) && startSide != string(finding.Left) {
			return nil, []string{fmt.Sprintf("Start side %q is not one of LEFT, RIGHT", d.StartSide)}
		}
		startPos, startIn := commit.index.Lookup(d.Path, finding.Side(startSide), start)
		switch {
		case startSide == side && start >= line,
			startSide == string(finding.Right) && side == string(finding.Left):
			problems = append(problems, "Pull request review thread start line must precede the end line")
		case !startIn:
			problems = append(problems, "Pull request review thread start line must be part of the diff")
		case inDiff && startPos != pos:
			problems = append(problems, "Pull request review thread start line must be part of the same hunk as the line.")
		}
		c.startLine, c.startSide = start, startSide
	}
	if !inDiff {
		problems = append(problems, "Pull request review thread diff hunk can't be blank")
	}
	if len(problems) > 0 {
		return nil, problems
	}
	c.text, _ = commit.lineText(d.Path, finding.Side(side), line)
	c.hunk = commit.diffHunk(d.Path, finding.Side(side), line)
	return c, nil
}

func (s *Server) reviewJSON(rs *repoState, p *prState, rv *reviewState) map[string]any {
	m := map[string]any{
		"id": rv.id, "user": userJSON(rv.user), "body": rv.body, "state": rv.state,
		"commit_id":        rv.commit,
		"html_url":         fmt.Sprintf("%s#pullrequestreview-%d", s.prURL(rs, p.pr.Number), rv.id),
		"pull_request_url": fmt.Sprintf("%s/repos/%s/%s/pulls/%d", s.URL, rs.owner, rs.name, p.pr.Number),
	}
	if rv.state != "PENDING" {
		m["submitted_at"] = timestamp(rv.submitted)
	}
	return m
}

// visible reports whether a review is listed for the user: pending reviews are their author's
// only.
func visible(rv *reviewState, user string) bool { return rv.state != "PENDING" || rv.user == user }

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !readable(w, r, PullRequestsRead) {
		return
	}
	var all []map[string]any
	for _, id := range sortedIDs(p.reviews) {
		if rv := p.reviews[id]; visible(rv, login(r)) {
			all = append(all, s.reviewJSON(rs, p, rv))
		}
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !readable(w, r, PullRequestsRead) {
		return
	}
	var all []map[string]any
	for _, id := range sortedIDs(p.comments) {
		c := p.comments[id]
		if rv := p.reviews[c.reviewID]; rv != nil && rv.state == "PENDING" {
			continue // pending comments are not listed, even to their author
		}
		all = append(all, s.commentJSON(rs, p, c))
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

// commentJSON renders a review comment as of the pull request's head: a comment made at an
// earlier head keeps its line while the line reads the same at the new head, and is outdated
// (line null) otherwise. That approximates GitHub, which maps lines through the new diff.
func (s *Server) commentJSON(rs *repoState, p *prState, c *commentState) map[string]any {
	head := p.head()
	var line, startLine any = c.line, nil
	if c.startLine != 0 {
		startLine = c.startLine
	}
	commit := c.commit
	if commit != head.sha {
		if text, ok := head.lineText(c.path, finding.Side(c.side), c.line); ok && text == c.text {
			commit = head.sha
		} else {
			line, startLine = nil, nil
		}
	}
	reactions := map[string]any{"total_count": 0}
	total := 0
	for _, k := range reactionKinds {
		reactions[k] = c.reactions[k]
		total += c.reactions[k]
	}
	reactions["total_count"] = total
	m := map[string]any{
		"id": c.id, "pull_request_review_id": c.reviewID, "user": userJSON(c.user),
		"body": c.body, "path": c.path, "diff_hunk": c.hunk,
		"line": line, "original_line": c.line, "side": c.side,
		"start_line": startLine, "start_side": nil,
		"commit_id": commit, "original_commit_id": c.commit,
		"html_url":   fmt.Sprintf("%s#discussion_r%d", s.prURL(rs, p.pr.Number), c.id),
		"created_at": timestamp(c.created), "updated_at": timestamp(c.created),
		"reactions": reactions, "subject_type": "line",
	}
	if c.startLine != 0 {
		m["original_start_line"], m["start_side"] = c.startLine, c.startSide
	}
	if c.inReplyTo != 0 {
		m["in_reply_to_id"] = c.inReplyTo
	}
	return m
}

// reply is POST .../comments/{id}/replies: it answers a review comment in its thread.
func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !allowed(w, r, PullRequestsWrite) {
		return
	}
	var req struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.replyTo(w, r, rs, p, id, req.Body)
}

// createReviewComment is POST .../pulls/{n}/comments: a reply when in_reply_to is set (every
// other field is then ignored), otherwise a single comment, which GitHub files as a review of
// its own and which needs commit_id.
func (s *Server) createReviewComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !allowed(w, r, PullRequestsWrite) {
		return
	}
	var req struct {
		draftComment
		CommitID  string `json:"commit_id"`
		InReplyTo int64  `json:"in_reply_to"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	if req.InReplyTo != 0 {
		s.replyTo(w, r, rs, p, req.InReplyTo, req.Body)
		return
	}
	commit := p.commit(req.CommitID)
	if commit == nil {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "PullRequestReviewComment", "code": "custom", "field": "commit_id",
				"message": "commit_id is not part of the pull request"}},
			"https://docs.github.com/rest/pulls/comments#create-a-review-comment-for-a-pull-request")
		return
	}
	c, problems := checkComment(commit, req.draftComment)
	if len(problems) > 0 {
		unprocessable(w, problems...)
		return
	}
	now := s.now()
	rv := &reviewState{id: s.id(), user: login(r), state: "COMMENTED", commit: commit.sha, submitted: now}
	p.reviews[rv.id] = rv
	c.id, c.reviewID, c.user, c.created, c.reactions = s.id(), rv.id, rv.user, now, map[string]int{}
	p.comments[c.id] = c
	writeJSON(w, http.StatusCreated, s.commentJSON(rs, p, c))
}

// replyTo answers comment id in its thread. As on GitHub, a reply is a review of its own
// (COMMENTED, empty body) and joins the thread's first comment even when it answers a reply.
// Call with s.mu held.
func (s *Server) replyTo(w http.ResponseWriter, r *http.Request, rs *repoState, p *prState, id int64, body string) {
	parent := p.comments[id]
	if parent == nil {
		notFound(w)
		return
	}
	if parent.inReplyTo != 0 {
		parent = p.comments[parent.inReplyTo]
	}
	if body == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}},
			"https://docs.github.com/rest/pulls/comments#create-a-reply-for-a-review-comment")
		return
	}
	now := s.now()
	rv := &reviewState{id: s.id(), user: login(r), state: "COMMENTED", commit: p.head().sha, submitted: now}
	p.reviews[rv.id] = rv
	c := *parent
	c.id, c.reviewID, c.inReplyTo, c.user, c.body, c.created = s.id(), rv.id, parent.id, rv.user, body, now
	c.reactions = map[string]int{}
	p.comments[c.id] = &c
	writeJSON(w, http.StatusCreated, s.commentJSON(rs, p, &c))
}

// SetReaction adds a reaction ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket",
// "eyes") to a review comment or a conversation comment, as a reader would.
func (s *Server) SetReaction(commentID int64, content string) {
	s.t.Helper()
	known := false
	for _, k := range reactionKinds {
		known = known || k == content
	}
	if !known {
		s.t.Fatalf("githubtest: SetReaction: %q is not a reaction GitHub knows", content)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.repos {
		for _, p := range rs.prs {
			if c := p.comments[commentID]; c != nil {
				c.reactions[content]++
				return
			}
			if c := p.issueComments[commentID]; c != nil {
				c.reactions[content]++
				return
			}
		}
	}
	s.t.Fatalf("githubtest: SetReaction: no comment %d", commentID)
}
