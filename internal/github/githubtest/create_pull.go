package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/council-dev/council/internal/diff"
)

const createPullDoc = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"

// SetRemote makes the git repository at dir (bare or not) the git remote of owner/repo, as
// pushing to github.com would: its branches are the repository's branches. Opening a pull
// request (POST /repos/{owner}/{repo}/pulls) reads the head and base branches from it and the
// pull request's diff with `git diff base...head`; the pull request is then served like one
// AddPR registered, so reviews can be posted on it. A push after the pull request is opened
// is not followed: call SetHead.
func (s *Server) SetRemote(owner, repo, dir string) {
	s.t.Helper()
	if _, err := gitIn(dir, "rev-parse", "--git-dir"); err != nil {
		s.t.Fatalf("githubtest: SetRemote %s/%s: %s is not a git repository: %v", owner, repo, dir, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo, true)
	if s.remotes == nil {
		s.remotes = map[string]string{}
	}
	s.remotes[repoKey(owner, repo)] = dir
}

// gitIn runs git in dir, with no user or system configuration that could change its output.
func gitIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// branchSHA is the commit branch points at in the repository at dir; false when there is no
// such branch.
func branchSHA(dir, branch string) (string, bool) {
	if branch == "" || dir == "" {
		return "", false
	}
	out, err := gitIn(dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(out), true
}

// validationFailed is GitHub's 422 on the pulls endpoint: "Validation Failed" with one
// object per problem.
func validationFailed(w http.ResponseWriter, errs ...map[string]string) {
	writeError(w, http.StatusUnprocessableEntity, "Validation Failed", errs, createPullDoc)
}

func custom(message string) map[string]string {
	return map[string]string{"resource": "PullRequest", "code": "custom", "message": message}
}

type newPull struct {
	Title *string `json:"title"`
	Head  string  `json:"head"`
	Base  string  `json:"base"`
	Body  string  `json:"body"`
	Draft bool    `json:"draft"`
	Issue *int    `json:"issue"`
}

// createPull is POST /repos/{owner}/{repo}/pulls, with GitHub's refusals: 403 without
// pull_requests:write (404 for a classic token without the scope), 403 for a workflow's
// GITHUB_TOKEN when the repository does not let GitHub Actions open pull requests
// (WithActionsPullRequestsDisabled), 422 for a missing title, head or base, a head or base
// branch the repository does not have, a head with no commits over the base, and a second open
// pull request for one head and base. The permission is checked before the body, so an empty
// body answers 403 without the permission and 422 with it.
func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	owner, name := r.PathValue("owner"), r.PathValue("repo")
	s.mu.Lock()
	rs := s.repo(owner, name, false)
	dir := s.remotes[repoKey(owner, name)]
	s.mu.Unlock()
	if rs == nil {
		notFound(w)
		return
	}
	// The permission comes first, then the repository's settings, then the body.
	if !allowed(w, r, PullRequestsWrite) {
		return
	}
	if s.actionsCannotOpenPulls(r) {
		writeError(w, http.StatusForbidden, "GitHub Actions is not permitted to create or approve pull requests.", nil, createPullDoc)
		return
	}
	var req newPull
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	if req.Issue != nil {
		s.t.Errorf("githubtest: POST /repos/%s/%s/pulls: turning an issue into a pull request is not supported", owner, name)
		validationFailed(w, map[string]string{"resource": "PullRequest", "field": "issue", "code": "invalid"})
		return
	}
	// head and base are required, and title unless issue is given:
	// https://docs.github.com/rest/pulls/pulls#create-a-pull-request
	var missing []map[string]string
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		missing = append(missing, map[string]string{"resource": "PullRequest", "field": "title", "code": "missing_field"})
	}
	for _, f := range []struct{ name, v string }{{"head", req.Head}, {"base", req.Base}} {
		if f.v == "" {
			missing = append(missing, map[string]string{"resource": "PullRequest", "field": f.name, "code": "missing_field"})
		}
	}
	if len(missing) > 0 {
		validationFailed(w, missing...)
		return
	}
	// "user:branch" names a branch of user's fork; this fake has none, only the repository's
	// own branches, which may also be written so.
	head := req.Head
	if user, branch, ok := strings.Cut(head, ":"); ok && strings.EqualFold(user, rs.owner) {
		head = branch
	}
	headSHA, headOK := branchSHA(dir, head)
	baseSHA, baseOK := branchSHA(dir, req.Base)
	if !headOK || !baseOK {
		var errs []map[string]string
		if !baseOK {
			errs = append(errs, map[string]string{"resource": "PullRequest", "field": "base", "code": "invalid"})
		}
		if !headOK {
			errs = append(errs, map[string]string{"resource": "PullRequest", "field": "head", "code": "invalid"})
		}
		validationFailed(w, errs...)
		return
	}
	ahead, err := gitIn(dir, "rev-list", "--count", baseSHA+".."+headSHA)
	if err != nil {
		s.serverError(w, err)
		return
	}
	if strings.TrimSpace(ahead) == "0" {
		validationFailed(w, custom(fmt.Sprintf("No commits between %s and %s", req.Base, req.Head)))
		return
	}
	patch, err := gitIn(dir, "diff", "--no-color", "--no-ext-diff", "-M", baseSHA+"..."+headSHA)
	if err != nil {
		s.serverError(w, err)
		return
	}
	c, err := parseCommit(headSHA, patch)
	if err != nil {
		s.serverError(w, err)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	number := 0
	for n, p := range rs.prs {
		number = max(number, n)
		if p.pr.State == "open" && p.pr.HeadRepo == "" && p.pr.HeadRef == head && p.pr.BaseRef == req.Base {
			validationFailed(w, custom(fmt.Sprintf("A pull request already exists for %s:%s.", rs.owner, head)))
			return
		}
	}
	number++
	c.pushed = s.now()
	p := &prState{
		pr: PR{
			Number: number, Title: *req.Title, Body: req.Body, Author: login(r), State: "open", Draft: req.Draft,
			BaseRef: req.Base, BaseSHA: baseSHA, HeadRef: head, HeadSHA: headSHA,
		},
		commits: []*commitState{c},
		reviews: map[int64]*reviewState{}, comments: map[int64]*commentState{}, issueComments: map[int64]*issueCommentState{},
		created: c.pushed,
	}
	rs.prs[number] = p
	rs.commits[baseSHA], rs.commits[headSHA] = true, true
	writeJSON(w, http.StatusCreated, s.pullJSON(rs, p, false))
}

// listPulls is GET /repos/{owner}/{repo}/pulls: state (open by default, closed or all), base
// (a branch) and head ("user:branch") filters, sorted by creation (newest first unless
// direction=asc), paginated. As on GitHub, a head without its "user:" prefix filters nothing.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	if !readable(w, r, PullRequestsRead) {
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "PullRequest", "field": "state", "code": "invalid"}},
			"https://docs.github.com/rest/pulls/pulls#list-pull-requests")
		return
	}
	headUser, headRef, byHead := strings.Cut(q.Get("head"), ":")
	base := q.Get("base")
	numbers := make([]int, 0, len(rs.prs))
	for n := range rs.prs {
		numbers = append(numbers, n)
	}
	// Numbers are handed out in creation order.
	if sortBy := q.Get("sort"); sortBy != "" && sortBy != "created" {
		s.t.Errorf("githubtest: GET pulls: sort=%s is not supported, only created", sortBy)
	}
	if q.Get("direction") == "asc" {
		sort.Ints(numbers)
	} else {
		sort.Sort(sort.Reverse(sort.IntSlice(numbers)))
	}
	all := []map[string]any{}
	for _, n := range numbers {
		p := rs.prs[n]
		if state != "all" && p.pr.State != state {
			continue
		}
		if base != "" && p.pr.BaseRef != base {
			continue
		}
		if byHead {
			user := rs.owner
			if p.pr.HeadRepo != "" {
				user, _, _ = strings.Cut(p.pr.HeadRepo, "/")
			}
			if !strings.EqualFold(user, headUser) || p.pr.HeadRef != headRef {
				continue
			}
		}
		all = append(all, s.pullJSON(rs, p, true))
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

// pullJSON is a pull request as the create endpoint returns it, or with list set as the list
// endpoint does, without "merged" and "changed_files": clients must read merged_at there.
func (s *Server) pullJSON(rs *repoState, p *prState, list bool) map[string]any {
	base := rs.owner + "/" + rs.name
	headRepo := p.pr.HeadRepo
	if headRepo == "" {
		headRepo = base
	}
	headUser, _, _ := strings.Cut(headRepo, "/")
	m := map[string]any{
		"number": p.pr.Number, "title": p.pr.Title, "body": p.pr.Body, "state": p.pr.State, "draft": p.pr.Draft,
		"html_url": s.prURL(rs, p.pr.Number),
		"url":      fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, base, p.pr.Number),
		"user":     userJSON(p.pr.Author),
		"head": map[string]any{
			"ref": p.pr.HeadRef, "sha": p.pr.HeadSHA, "label": headUser + ":" + p.pr.HeadRef,
			"repo": map[string]any{"full_name": headRepo, "fork": !strings.EqualFold(headRepo, base)},
		},
		"base": map[string]any{
			"ref": p.pr.BaseRef, "sha": p.pr.BaseSHA, "label": rs.owner + ":" + p.pr.BaseRef,
			"repo": map[string]any{"full_name": base, "fork": false},
		},
	}
	for k, v := range pullTimes(p) {
		m[k] = v
	}
	if list {
		delete(m, "merged")
	} else {
		m["changed_files"] = len(p.head().files)
	}
	return m
}

// parseCommit is newCommit for a patch that comes from a request rather than from the test:
// a failure is returned, not fatal, since it happens on the server's goroutine.
func parseCommit(sha, patch string) (*commitState, error) {
	files, err := diff.Parse([]byte(patch))
	if err != nil {
		return nil, fmt.Errorf("parse the diff of %s: %w", sha, err)
	}
	sections := splitFiles(patch)
	if len(sections) != len(files) {
		return nil, fmt.Errorf("the diff of %s has %d file sections for %d files", sha, len(sections), len(files))
	}
	c := &commitState{sha: sha, patch: patch, files: files, index: diff.NewIndex(files)}
	for i, sec := range sections {
		c.patches = append(c.patches, hunksOf(sec))
		for _, h := range files[i].Hunks {
			c.lines += len(h.Lines)
		}
	}
	return c, nil
}

// serverError answers 500 and fails the test: it is the fake that broke, not the client.
func (s *Server) serverError(w http.ResponseWriter, err error) {
	s.t.Errorf("githubtest: %v", err)
	writeError(w, http.StatusInternalServerError, "Server Error", nil, "https://docs.github.com/rest")
}
