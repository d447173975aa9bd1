package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Kinds of credentials beyond WithToken's, and what GitHub shows of them: the repository's
// metadata, a classic token's scopes, an installation's permissions.

// WithClassicToken makes the server accept tok as a personal access token (classic) holding
// the OAuth scopes given (ScopeRepo, ScopePublicRepo, or any other GitHub scope). Every answer
// to it carries X-OAuth-Scopes. Reading a public repository needs no scope; a private one is
// not found without repo; writing needs repo, or public_repo on a public repository, and is
// not found without; check runs are refused whatever the scopes.
func WithClassicToken(tok string, scopes ...string) Option {
	return func(s *Server) {
		s.tokens[tok] = &token{login: DefaultLogin, kind: classicPAT, scopes: map[string]bool{}, oauth: append([]string(nil), scopes...)}
	}
}

// WithFineGrainedToken makes the server accept tok as a fine-grained personal access token
// holding exactly the permissions given (ContentsRead, PullRequestsRead, PullRequestsWrite,
// IssuesWrite, ...): unlike WithToken's, it reads only what a permission allows, and its
// refusals say "Resource not accessible by personal access token". Check runs are refused
// whatever it holds.
func WithFineGrainedToken(tok string, perms ...string) Option {
	return func(s *Server) {
		t := &token{login: DefaultLogin, kind: fineGrainedPAT, scopes: map[string]bool{}, explicitReads: true}
		for _, p := range perms {
			t.scopes[p] = true
		}
		s.tokens[tok] = t
	}
}

// WithRole sets the role of tok's user on every repository (admin, maintain, push, triage,
// pull, or none): GET /repos/{owner}/{repo} reports it in "permissions", and with none the
// user's private repositories are not found. Apply it after the option that registers tok;
// the default is admin.
func WithRole(tok, role string) Option {
	return func(s *Server) {
		switch role {
		case "admin", "maintain", "push", "triage", "pull", "none":
		default:
			s.t.Fatalf("githubtest: WithRole %q: not one of admin, maintain, push, triage, pull, none", role)
		}
		t := s.tokens[tok]
		if t == nil {
			s.t.Fatalf("githubtest: WithRole: no token registered yet for the role %q", role)
			return
		}
		t.role = role
	}
}

// WithAppInstallation describes the installation WithApp registers: its permissions, in
// GitHub's names and levels ({"contents": "read", "pull_requests": "write"}), and, when repos
// ("owner/name") are given, the only repositories it is installed on. Its installation tokens
// get those permissions and see those repositories; GET /repos/{owner}/{repo}/installation
// answers 404 for the others. Without it the installation holds every permission council
// uses, on every repository.
func WithAppInstallation(perms map[string]string, repos ...string) Option {
	return func(s *Server) {
		s.appPerms = map[string]string{"metadata": "read"}
		for k, v := range perms {
			s.appPerms[k] = v
		}
		if len(repos) > 0 {
			s.appRepos = map[string]bool{}
			for _, full := range repos {
				owner, name, ok := strings.Cut(full, "/")
				if !ok {
					s.t.Fatalf("githubtest: WithAppInstallation: %q is not owner/name", full)
				}
				s.appRepos[repoKey(owner, name)] = true
			}
		}
	}
}

// WithActionsPullRequestsDisabled turns off the repository setting "Allow GitHub Actions to
// create and approve pull requests", off by default in new repositories: a workflow's
// GITHUB_TOKEN (the login github-actions[bot], see WithUser) cannot open a pull request
// whatever its permissions.
func WithActionsPullRequestsDisabled() Option {
	return func(s *Server) { s.actionsNoPulls = true }
}

// actionsLogin is the user behind a workflow's GITHUB_TOKEN.
const actionsLogin = "github-actions[bot]"

// actionsCannotOpenPulls reports whether the request is a workflow's GITHUB_TOKEN that the
// repository's setting keeps from opening pull requests. Where GitHub checks the setting
// relative to the permission and the body is not documented; the fake checks it after the
// permission and before the body.
func (s *Server) actionsCannotOpenPulls(r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.actionsNoPulls && login(r) == actionsLogin
}

// SetPrivate makes owner/repo private or public (repositories are public by default),
// creating it, without pull requests or commits, if it does not exist yet.
func (s *Server) SetPrivate(owner, repo string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo, true).private = private
}

// roles from the most access to the least, as "permissions" lists them.
var roles = []string{"admin", "maintain", "push", "triage", "pull"}

// getRepo is GET /repos/{owner}/{repo}: the repository's metadata, which any credentials that
// see the repository may read. "permissions" is the user's role for a user's token; an
// installation token has no user behind it and gets every field false (as reported in
// https://github.com/MemberJunction/MJ/pull/4390).
// https://docs.github.com/rest/repos/repos#get-a-repository
func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	t, _ := r.Context().Value(ctxKey{}).(*token)
	role := "admin"
	switch {
	case t == nil || isBot(t.login):
		role = ""
	case t.role == "none":
		role = "pull" // anyone may read a public repository; a private one was not found
	case t.role != "":
		role = t.role
	}
	perms := map[string]bool{}
	for _, ro := range roles {
		perms[ro] = role != "" && rank(ro) <= rank(role)
	}
	visibility := "public"
	if rs.private {
		visibility = "private"
	}
	full := rs.owner + "/" + rs.name
	writeJSON(w, http.StatusOK, map[string]any{
		"name": rs.name, "full_name": full, "owner": map[string]any{"login": rs.owner},
		"private": rs.private, "visibility": visibility, "default_branch": "main",
		"html_url": s.WebURL + "/" + full, "url": s.URL + "/repos/" + full,
		"permissions": perms,
	})
}

// rank orders the roles: 5 for admin, the most access, down to 1 for pull.
func rank(role string) int {
	for i, r := range roles {
		if r == role {
			return len(roles) - i
		}
	}
	return 0
}

// listCommits is GET /repos/{owner}/{repo}/commits: every commit the repository knows (in no
// particular order), paginated; contents:read for a fine-grained token; 409 for a repository
// without commits.
// https://docs.github.com/rest/commits/commits#list-commits
func (s *Server) listCommits(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	if !readable(w, r, ContentsRead) {
		return
	}
	if len(rs.commits) == 0 {
		writeError(w, http.StatusConflict, "Git Repository is empty.", nil, "https://docs.github.com/rest/commits/commits#list-commits")
		return
	}
	shas := make([]string, 0, len(rs.commits))
	for sha := range rs.commits {
		shas = append(shas, sha)
	}
	sort.Strings(shas)
	all := make([]map[string]any, 0, len(shas))
	for _, sha := range shas {
		all = append(all, map[string]any{
			"sha": sha, "commit": map[string]any{"message": ""},
			"html_url": fmt.Sprintf("%s/%s/%s/commit/%s", s.WebURL, rs.owner, rs.name, sha),
		})
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

// createIssue is POST /repos/{owner}/{repo}/issues, as far as its refusals: the permission
// (issues:write), then a title, which is required. The fake keeps no issues, so a valid request
// fails the test.
// https://docs.github.com/rest/issues/issues#create-an-issue
func (s *Server) createIssue(w http.ResponseWriter, r *http.Request) {
	owner, name := r.PathValue("owner"), r.PathValue("repo")
	s.mu.Lock()
	rs := s.repo(owner, name, false)
	s.mu.Unlock()
	if rs == nil {
		notFound(w)
		return
	}
	if !allowed(w, r, IssuesWrite) {
		return
	}
	var req struct {
		Title any `json:"title"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	if req.Title == nil || req.Title == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			[]map[string]string{{"resource": "Issue", "code": "missing_field", "field": "title"}},
			"https://docs.github.com/rest/issues/issues#create-an-issue")
		return
	}
	s.t.Errorf("githubtest: POST /repos/%s/%s/issues: creating issues is not supported", owner, name)
	writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
		[]map[string]string{{"resource": "Issue", "code": "custom", "message": "the fake keeps no issues"}},
		"https://docs.github.com/rest/issues/issues#create-an-issue")
}

// SetCollaborator gives login a role on owner/repo (admin, maintain, write, triage, read, or
// none; push and pull are accepted for write and read, as WithRole names them), creating the
// repository if it does not exist yet. GET /repos/{owner}/{repo}/collaborators/{login}/permission
// reports it. It decides nothing else: what a token may do is WithRole's.
func (s *Server) SetCollaborator(owner, repo, login, role string) {
	s.t.Helper()
	switch role {
	case "write":
		role = "push"
	case "read":
		role = "pull"
	case "admin", "maintain", "push", "triage", "pull", "none":
	default:
		s.t.Fatalf("githubtest: SetCollaborator %q: not one of admin, maintain, write, triage, read, none", role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo, true)
	if s.collaborators == nil {
		s.collaborators = map[string]map[string]string{}
	}
	k := repoKey(owner, repo)
	if s.collaborators[k] == nil {
		s.collaborators[k] = map[string]string{}
	}
	s.collaborators[k][strings.ToLower(login)] = role
}

// collaboratorRole is login's role on rs, as GitHub computes it from every grant: the role
// SetCollaborator gave, else the role of the user behind a token the fake knows (WithRole's,
// admin by default, as GET /repos/{owner}/{repo} reports it), else none. Call with s.mu held.
func (s *Server) collaboratorRole(rs *repoState, login string) string {
	if role, ok := s.collaborators[repoKey(rs.owner, rs.name)][strings.ToLower(login)]; ok {
		return role
	}
	if isBot(login) {
		return "none"
	}
	role := "none"
	for _, t := range s.tokens {
		if !strings.EqualFold(t.login, login) {
			continue
		}
		r := t.role
		if r == "" {
			r = "admin"
		}
		if rank(r) > rank(role) {
			role = r
		}
	}
	return role
}

// legacyPermission is the "permission" of the permission endpoint: GitHub's base roles, where
// maintain counts as write and triage as read.
var legacyPermission = map[string]string{
	"admin": "admin", "maintain": "write", "push": "write", "triage": "read", "pull": "read", "none": "none",
}

// roleName is the "role_name" GitHub shows for a role.
var roleName = map[string]string{
	"admin": "admin", "maintain": "maintain", "push": "write", "triage": "triage", "pull": "read", "none": "none",
}

// collaboratorPermission is GET /repos/{owner}/{repo}/collaborators/{username}/permission:
// username's base role ("permission": admin, write, read or none) and role name. On a public
// repository anyone without a role reads ("read", as reported in
// https://github.com/aws-ia/cloudformation-github-resource-providers/pull/14); on a private
// one they have none. An installation token needs metadata:read (a fine-grained token always
// holds it); a user needs push access, or GitHub answers 403 "Must have push access to view
// collaborator permission." (as quoted in https://github.com/yegor256/rultor/issues/1407).
// Every login is taken to exist: GitHub's 404 for an unknown user is not modelled.
// https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
func (s *Server) collaboratorPermission(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user"
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	t, _ := r.Context().Value(ctxKey{}).(*token)
	if t != nil && t.kind != fineGrainedPAT && !readable(w, r, "metadata:read") {
		return
	}
	if t != nil && !isBot(t.login) && (t.role == "none" || (t.role != "" && rank(t.role) < rank("push"))) {
		writeError(w, http.StatusForbidden, "Must have push access to view collaborator permission.", nil, doc)
		return
	}
	login := r.PathValue("username")
	role := s.collaboratorRole(rs, login)
	if role == "none" && !rs.private {
		role = "pull"
	}
	perms := map[string]bool{}
	for _, ro := range roles {
		perms[ro] = role != "none" && rank(ro) <= rank(role)
	}
	user := userJSON(login)
	user["permissions"] = perms
	writeJSON(w, http.StatusOK, map[string]any{
		"permission": legacyPermission[role],
		"role_name":  roleName[role],
		"user":       user,
	})
}
