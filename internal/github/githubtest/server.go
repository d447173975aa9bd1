// Package githubtest is a fake of the GitHub REST API on a loopback httptest server, for tests
// of any package that reads pull requests or posts reviews. It serves under /api/v3, as GitHub
// Enterprise Server does, so that a client that drops or doubles the base path fails here. It
// enforces what the real service enforces, with the real error bodies: credentials (401),
// permissions (403 with x-accepted-github-permissions), unknown repositories and pull requests
// (404), review comments that are not on a line of the diff or span two hunks, a commit_id
// that is not the pull request's (422), more than 50 check run annotations in one request
// (422), the app JWT exchange, pagination with Link headers; and it can answer the next
// requests with injected rate limits.
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

// Permissions a token can hold (WithToken's scopes). Reading needs none: any valid token can.
const (
	PullRequestsWrite = "pull_requests:write" // reviews, review comments, replies; also PR conversation comments
	IssuesWrite       = "issues:write"        // conversation comments
	ChecksWrite       = "checks:write"        // check runs
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
	resolvedThreads map[int64]bool    // first comment ids of resolved review threads
	remotes         map[string]string // repoKey -> git repository of its branches (SetRemote)
}

type token struct {
	login   string
	scopes  map[string]bool
	expires time.Time // zero: never
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
	Path   string // relative to BasePath: "/repos/o/r/pulls/1/reviews"
	Query  string
	Body   []byte
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
	p("GET", "/repos/{owner}/{repo}/pulls", s.listPulls)
	p("POST", "/repos/{owner}/{repo}/pulls", s.createPull)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}", s.getPull)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/files", s.listFiles)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/reviews", s.listReviews)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/reviews", s.createReview)
	p("GET", "/repos/{owner}/{repo}/pulls/{n}/comments", s.listReviewComments)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/comments", s.createReviewComment)
	p("POST", "/repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies", s.reply)
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

type ctxKey struct{}

// ServeHTTP logs and counts the request, answers an injected failure if one is queued, checks
// the credentials and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if !strings.HasPrefix(rel, "/app/") {
		tok, msg := s.authenticate(r)
		if tok == nil {
			writeError(w, http.StatusUnauthorized, msg, nil, "https://docs.github.com/rest")
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, tok))
	}
	s.mux.ServeHTTP(w, r)
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

// allowed answers 403, as GitHub does for a token without the permission, unless the request's
// token holds one of perms.
func allowed(w http.ResponseWriter, r *http.Request, perms ...string) bool {
	t, _ := r.Context().Value(ctxKey{}).(*token)
	for _, p := range perms {
		if t != nil && t.scopes[p] {
			return true
		}
	}
	accepted := make([]string, len(perms))
	for i, p := range perms {
		accepted[i] = strings.Replace(p, ":", "=", 1)
	}
	w.Header().Set("X-Accepted-Github-Permissions", strings.Join(accepted, "; "))
	writeError(w, http.StatusForbidden, "Resource not accessible by integration", nil,
		"https://docs.github.com/rest")
	return false
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
