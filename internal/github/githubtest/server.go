// Package githubtest is a fake of the GitHub REST API on a loopback httptest server, for tests
// of any package that reads pull requests or posts reviews. It serves under /api/v3, as GitHub
// Enterprise Server does, so that a client that drops or doubles the base path fails here. It
// enforces what the real service enforces, with the real error bodies: credentials (401),
// permissions (403 with x-accepted-github-permissions, checked before the body), the kinds of
// credentials (a classic token's scopes in X-OAuth-Scopes, a fine-grained token's reads, an
// installation's permissions and repositories, check runs for apps only), unknown and unseen
// repositories and pull requests (404), review comments that are not on a line of the diff or span two hunks, a commit_id
// that is not the pull request's (422), more than 50 check run annotations in one request
// (422), the app JWT exchange, pagination with Link headers; and it can answer the next
// requests with injected rate limits. It also serves git over smart HTTP, read-only, for the
// repositories SetRemote registers, under WebURL/{owner}/{repo}.git, with GitHub's rules for
// credentials and refs/pull/{n}/head for their pull requests (see git.go).
//
// It must never import go-github or a JWT library: a fake written from the wire format checks
// the client's encoding instead of sharing its assumptions.
package githubtest

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BasePath is where the API is served; Server.URL ends with it.
const BasePath = "/api/v3"

// Permissions a token can hold, in GitHub's fine-grained names (WithToken's scopes, and
// WithFineGrainedToken's). A write permission includes its read. A token WithToken or WithUser
// registers reads everything without any; a fine-grained personal access token and an
// installation token need the read permission too.
const (
	PullRequestsWrite = "pull_requests:write" // reviews, review comments, replies; also PR conversation comments
	IssuesWrite       = "issues:write"        // conversation comments
	ChecksWrite       = "checks:write"        // check runs
	ContentsRead      = "contents:read"       // files, commits
	PullRequestsRead  = "pull_requests:read"  // pull requests, their files, reviews and review comments
	IssuesRead        = "issues:read"         // conversation comments (pull_requests:read also reads them)
)

// OAuth scopes of a personal access token (classic) (WithClassicToken): repo opens public and
// private repositories, public_repo writes to public ones; reading a public repository needs
// none. https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps
const (
	ScopeRepo       = "repo"
	ScopePublicRepo = "public_repo"
)

// DefaultLogin is the user behind a token WithToken registers.
const DefaultLogin = "council-bot"

// AppLogin is the user behind an installation token.
const AppLogin = "council-app[bot]"

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API's base URL, ending in /api/v3: give it to the client as its base URL.
	URL string
	// WebURL is the web root html_url fields point under (http://127.0.0.1:PORT).
	WebURL string

	t   testing.TB
	mux *http.ServeMux

	mu              sync.Mutex
	now             func() time.Time
	maxPerPage      int
	maxDiffFiles    int
	maxDiffLines    int
	tokens          map[string]*token
	app             *app
	repos           map[string]*repoState
	fails           []injected
	total           int
	counts          map[string]int
	log             []Request
	nextID          int64
	minted          int
	resolvedThreads map[int64]bool       // first comment ids of resolved review threads
	resolvers       map[int64]string     // who resolved them (ResolveThreadAs), by first comment id
	reactionsOf     map[int64][]reaction // each reaction to a review comment, oldest first (AddReaction)
	remotes         map[string]string    // repoKey -> git repository of its branches (SetRemote)
	// appPerms and appRepos are the installation WithAppInstallation describes: nil for every
	// permission council uses, on every repository.
	appPerms map[string]string
	appRepos map[string]bool
	// actionsNoPulls is the repository setting "Allow GitHub Actions to create and approve pull
	// requests" turned off (WithActionsPullRequestsDisabled).
	actionsNoPulls bool
	// collaborators are users' roles on repositories (SetCollaborator): repoKey -> lower-case
	// login -> role.
	collaborators map[string]map[string]string
	// gitAuth is who each git read authenticated as (GitAuth): repoKey -> logins.
	gitAuth map[string][]string
	// delay holds requests before they are served (SetDelay).
	delay func(method, path string) time.Duration

	// gitMu serialises writing refs/pull/{n}/head into the remotes; pullRefs is what was
	// written: repoKey -> pull request number -> head SHA.
	gitMu    sync.Mutex
	pullRefs map[string]map[int]string
}

// tokenKind is what kind of credential a token is, which decides how GitHub checks it.
type tokenKind int

const (
	// integration is a token with fine-grained permissions that WithToken or WithUser
	// registers (a workflow's GITHUB_TOKEN, say), or an installation token the app exchange
	// mints.
	integration tokenKind = iota
	// fineGrainedPAT is a fine-grained personal access token (WithFineGrainedToken).
	fineGrainedPAT
	// classicPAT is a personal access token (classic) with OAuth scopes (WithClassicToken).
	classicPAT
)

type token struct {
	login   string
	kind    tokenKind
	scopes  map[string]bool // fine-grained permissions held ("pull_requests:write")
	oauth   []string        // a classic token's OAuth scopes, as X-OAuth-Scopes lists them
	expires time.Time       // zero: never
	// explicitReads makes reads need their permission, as for fine-grained tokens and
	// installation tokens; WithToken's tokens read everything.
	explicitReads bool
	// repos are the only repositories the token sees (repoKey), as an installation's
	// repository selection; nil: every repository.
	repos map[string]bool
	// role is the token's user's role on every repository (admin, maintain, push, triage, pull,
	// none), for GET /repos/{owner}/{repo}'s permissions; "" is admin.
	role string
}

type app struct {
	id, installation int64
	key              *rsa.PublicKey
}

type injected struct {
	status  int
	headers map[string]string
	body    string
}

// Request is one request the server received, as the log keeps it.
type Request struct {
	Method string
	// Path is relative to BasePath ("/repos/o/r/pulls/1/reviews"); a git request's is its path
	// under WebURL ("/o/r.git/info/refs").
	Path  string
	Query string
	Body  []byte
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server accept tok, holding the given permissions (PullRequestsWrite,
// IssuesWrite, ChecksWrite); without any it can only read.
func WithToken(tok string, scopes ...string) Option {
	return func(s *Server) {
		t := &token{login: DefaultLogin, scopes: map[string]bool{}}
		for _, sc := range scopes {
			t.scopes[sc] = true
		}
		s.tokens[tok] = t
	}
}

// WithUser is WithToken for a token that acts as login: another person on the pull request.
func WithUser(tok, login string, scopes ...string) Option {
	return func(s *Server) {
		WithToken(tok, scopes...)(s)
		s.tokens[tok].login = login
	}
}

// WithApp registers a GitHub App: POST /app/installations/{installationID}/access_tokens
// accepts a JWT signed (RS256) with the private half of key and issued by appID, and mints
// installation tokens with every write permission that expire an hour later.
func WithApp(appID, installationID int64, key *rsa.PublicKey) Option {
	return func(s *Server) { s.app = &app{id: appID, installation: installationID, key: key} }
}

// WithClock sets the server's clock (JWT validity, token expiry, timestamps).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithMaxPerPage lowers the largest page the server serves (GitHub's is 100), so that a test
// sees pagination without a hundred items.
func WithMaxPerPage(n int) Option { return func(s *Server) { s.maxPerPage = n } }

// WithDiffLimits sets when the diff media type is refused with 406 too_large (GitHub's limits
// are 300 files and 20,000 lines).
func WithDiffLimits(files, lines int) Option {
	return func(s *Server) { s.maxDiffFiles, s.maxDiffLines = files, lines }
}

// New starts a fake that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		t:            t,
		now:          time.Now,
		maxPerPage:   100,
		maxDiffFiles: 300,
		maxDiffLines: 20000,
		tokens:       map[string]*token{},
		repos:        map[string]*repoState{},
		counts:       map[string]int{},
		nextID:       1000,
	}
	for _, o := range opts {
		o(s)
	}
	s.routes()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.WebURL = srv.URL
	s.URL = srv.URL + BasePath
	return s
}

func (s *Server) routes() {
	m := http.NewServeMux()
	p := func(method, path string, h http.HandlerFunc) { m.HandleFunc(method+" "+BasePath+path, h) }
	p("POST", "/app/installations/{id}/access_tokens", s.accessToken)
	p("GET", "/user", s.user)
	p("GET", "/repos/{owner}/{repo}", s.getRepo)
	p("GET", "/repos/{owner}/{repo}/installation", s.repoInstallation)
	p("GET", "/repos/{owner}/{repo}/commits", s.listCommits)
	p("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", s.collaboratorPermission)
	p("POST", "/repos/{owner}/{repo}/issues", s.createIssue)
	p("GET", "/repos/{owner}/{repo}/pulls", s.listPulls)
	p("POST", "/repos/{owner}/{repo}/pulls", s.createPull)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}", s.getPull)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/files", s.listFiles)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/reviews", s.listReviews)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/reviews", s.createReview)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/comments", s.listReviewComments)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/comments", s.createReviewComment)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies", s.reply)
	p("GET", "/repos/{owner}/{repo}/pulls/comments/{id}/reactions", s.listCommentReactions)
	p("GET", "/repos/{owner}/{repo}/contents/{path...}", s.contents)
	p("GET", "/repos/{owner}/{repo}/issues/{n}/comments", s.listIssueComments)
	p("POST", "/repos/{owner}/{repo}/issues/{n}/comments", s.createIssueComment)
	p("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", s.editIssueComment)
	p("POST", "/repos/{owner}/{repo}/check-runs", s.createCheckRun)
	p("PATCH", "/repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	p("GET", "/repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	m.HandleFunc("POST "+GraphQLPath, s.graphql)
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { notFound(w) })
	s.mux = m
}

type (
	ctxKey     struct{}
	privateKey struct{} // the request's repository is private (a bool)
)

// ServeHTTP logs and counts the request, answers an injected failure if one is queued, checks
// the credentials and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delay := s.delay
	s.mu.Unlock()
	if delay != nil {
		if d := delay(r.Method, strings.TrimPrefix(r.URL.Path, BasePath)); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return // the client went away while its request waited: it never arrived
			}
		}
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rel := strings.TrimPrefix(r.URL.Path, BasePath)

	s.mu.Lock()
	s.total++
	s.counts[r.Method+" "+rel]++
	s.log = append(s.log, Request{Method: r.Method, Path: rel, Query: r.URL.RawQuery, Body: body})
	var fail *injected
	if len(s.fails) > 0 && apiPath(r.URL.Path) {
		fail = &s.fails[0]
		s.fails = s.fails[1:]
	}
	s.mu.Unlock()

	if owner, name, rest, ok := gitRequest(r.URL.Path); ok && !apiPath(r.URL.Path) {
		s.serveGit(w, r, owner, name, rest, body)
		return
	}
	if !apiPath(r.URL.Path) {
		notFound(w)
		return
	}
	if fail != nil {
		for k, v := range fail.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(fail.status)
		_, _ = io.WriteString(w, fail.body)
		return
	}
	if !jwtPath(rel) {
		tok, msg := s.authenticate(r)
		if tok == nil {
			writeError(w, http.StatusUnauthorized, msg, nil, "https://docs.github.com/rest")
			return
		}
		if tok.kind == classicPAT {
			// A classic token's answers list its scopes, refusals included.
			// https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps
			w.Header().Set("X-OAuth-Scopes", strings.Join(tok.oauth, ", "))
		}
		ctx := context.WithValue(r.Context(), ctxKey{}, tok)
		if owner, name, ok := repoOf(rel); ok {
			s.mu.Lock()
			rs := s.repo(owner, name, false)
			s.mu.Unlock()
			// A repository the credentials may not see is a 404, never a 403, so as not to
			// confirm that it exists.
			// https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api
			if rs != nil && !tok.sees(rs) {
				notFound(w)
				return
			}
			ctx = context.WithValue(ctx, privateKey{}, rs != nil && rs.private)
		}
		r = r.WithContext(ctx)
	}
	s.mux.ServeHTTP(w, r)
}

// jwtPath reports whether rel authenticates with the app's JWT rather than a token: the app
// endpoints and GET /repos/{owner}/{repo}/installation.
func jwtPath(rel string) bool {
	if strings.HasPrefix(rel, "/app/") {
		return true
	}
	_, _, ok := repoOf(rel)
	return ok && strings.Count(rel, "/") == 4 && strings.HasSuffix(rel, "/installation")
}

// repoOf returns the owner and name of a path under /repos/{owner}/{repo}.
func repoOf(rel string) (owner, name string, ok bool) {
	rest, ok := strings.CutPrefix(rel, "/repos/")
	if !ok {
		return "", "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// authenticate finds the token of the Authorization header ("Bearer X" or "token X").
func (s *Server) authenticate(r *http.Request) (*token, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, "Requires authentication"
	}
	scheme, cred, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") {
		return nil, "Bad credentials"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[strings.TrimSpace(cred)]
	if !ok || (!t.expires.IsZero() && !s.now().Before(t.expires)) {
		return nil, "Bad credentials"
	}
	return t, ""
}

// allowed lets a write through when the request's token may make it, and otherwise answers
// as GitHub does: 403 with x-accepted-github-permissions for a fine-grained token or an
// installation token without one of perms, 404 for a classic token without the scope. It runs
// before the body is read: GitHub checks the permission before it validates the request.
func allowed(w http.ResponseWriter, r *http.Request, perms ...string) bool {
	return permit(w, r, true, perms...)
}

// readable is allowed for a read: a classic token reads what it sees, a fine-grained or
// installation token needs the read permission (or the write one).
func readable(w http.ResponseWriter, r *http.Request, perms ...string) bool {
	return permit(w, r, false, perms...)
}

func permit(w http.ResponseWriter, r *http.Request, write bool, perms ...string) bool {
	t, _ := r.Context().Value(ctxKey{}).(*token)
	if t != nil && t.kind == classicPAT {
		private, _ := r.Context().Value(privateKey{}).(bool)
		if !write || t.hasScope(ScopeRepo) || (!private && t.hasScope(ScopePublicRepo)) {
			return true
		}
		// Without the scope GitHub answers 404, as for a repository it does not show
		// (https://github.com/orgs/community/discussions/24499), and names the scopes that
		// would do.
		w.Header().Set("X-Accepted-OAuth-Scopes", "public_repo, repo")
		notFound(w)
		return false
	}
	for _, p := range perms {
		if t != nil && t.holds(p) {
			return true
		}
	}
	accepted := make([]string, len(perms))
	for i, p := range perms {
		accepted[i] = strings.Replace(p, ":", "=", 1)
	}
	// https://github.blog/changelog/2023-08-10-x-accepted-github-permissions-header-for-fine-grained-permission-actors
	w.Header().Set("X-Accepted-Github-Permissions", strings.Join(accepted, "; "))
	writeError(w, http.StatusForbidden, notAccessible(t), nil, "https://docs.github.com/rest")
	return false
}

// notAccessible is GitHub's 403 message for a missing permission, which names the kind of
// credential.
func notAccessible(t *token) string {
	if t != nil && t.kind == fineGrainedPAT {
		return "Resource not accessible by personal access token"
	}
	return "Resource not accessible by integration"
}

// holds reports whether t has permission p; a write permission includes its read, and a token
// without explicit reads reads everything.
func (t *token) holds(p string) bool {
	if t.scopes[p] {
		return true
	}
	name, level, _ := strings.Cut(p, ":")
	return level == "read" && (!t.explicitReads || t.scopes[name+":write"])
}

func (t *token) hasScope(sc string) bool {
	for _, o := range t.oauth {
		if o == sc {
			return true
		}
	}
	return false
}

// sees reports whether t may see rs at all: an installation sees the repositories it is
// installed on, a classic token a private repository only with the repo scope, a user a
// private repository only with a role on it.
func (t *token) sees(rs *repoState) bool {
	if t.repos != nil && !t.repos[repoKey(rs.owner, rs.name)] {
		return false
	}
	if !rs.private {
		return true
	}
	if t.kind == classicPAT && !t.hasScope(ScopeRepo) {
		return false
	}
	return t.role != "none"
}

// user is GET /user. As on GitHub, an installation token (a "[bot]" login) may not read it.
func (s *Server) user(w http.ResponseWriter, r *http.Request) {
	l := login(r)
	if strings.HasSuffix(l, "[bot]") {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration", nil, "https://docs.github.com/rest/users/users#get-the-authenticated-user")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": l, "type": "User"})
}

func login(r *http.Request) string {
	if t, ok := r.Context().Value(ctxKey{}).(*token); ok {
		return t.login
	}
	return ""
}

// FailNext queues a response for the next request, whatever it is: a rate limit (403 or 429
// with retry-after, or x-ratelimit-remaining: 0 and x-ratelimit-reset; see RateLimitHeaders),
// a 5xx. An empty body is GitHub's message for the status.
func (s *Server) FailNext(status int, headers map[string]string, body string) {
	if body == "" {
		msg := http.StatusText(status)
		if status == http.StatusForbidden || status == http.StatusTooManyRequests {
			msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
			for k, v := range headers {
				if strings.EqualFold(k, "x-ratelimit-remaining") && v == "0" {
					msg = "API rate limit exceeded for installation ID 1."
				}
			}
		}
		b, _ := json.Marshal(map[string]string{
			"message":           msg,
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
			"status":            strconv.Itoa(status),
		})
		body = string(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, injected{status: status, headers: headers, body: body})
}

// RateLimitHeaders are the headers of a spent primary rate limit that resets at reset.
func RateLimitHeaders(reset time.Time) map[string]string {
	return map[string]string{
		"x-ratelimit-limit":     "5000",
		"x-ratelimit-remaining": "0",
		"x-ratelimit-used":      "5000",
		"x-ratelimit-reset":     strconv.FormatInt(reset.Unix(), 10),
		"x-ratelimit-resource":  "core",
	}
}

// Requests counts every request received, refused ones included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Count counts the requests received for one method and path relative to BasePath
// ("POST", "/repos/o/r/pulls/1/reviews").
func (s *Server) Count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method+" "+path]
}

// Log returns every request received, in order.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// id hands out the next id; ids are unique across every kind of object. Call with s.mu held.
func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes GitHub's error body. errs is GitHub's "errors" array: strings on some
// endpoints, objects on others; nil leaves it out.
func writeError(w http.ResponseWriter, status int, message string, errs any, doc string) {
	body := map[string]any{"message": message, "documentation_url": doc, "status": strconv.Itoa(status)}
	if errs != nil {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}

func notFound(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, "Not Found", nil, "https://docs.github.com/rest")
}

func badJSON(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, "Problems parsing JSON", nil, "https://docs.github.com/rest")
}

// paginate serves one page of items as GitHub does: per_page (default 30, at most the
// server's maximum) and page from the query, Link header with next, last, first and prev.
func paginate[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = v
	}
	per = min(per, s.maxPerPage, 100)
	page := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(p int, rel string) string {
		q := url.Values{}
		for k, v := range r.URL.Query() {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.WebURL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(min(page-1, last), "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := (page - 1) * per
	if start >= len(items) {
		return []T{}
	}
	return items[start:min(start+per, len(items))]
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// sortedIDs returns the keys of m in ascending order.
func sortedIDs[V any](m map[int64]V) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// SetDelay makes the fake wait f(method, path) before serving each request (path without
// BasePath), as a slow network does: tests use it to stop a client in the middle of its work.
// A request whose client disconnects while it waits is dropped, as if it never arrived.
func (s *Server) SetDelay(f func(method, path string) time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = f
}
