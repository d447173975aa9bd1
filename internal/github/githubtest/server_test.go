package githubtest_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
)

const (
	tok     = "tok-write"
	readTok = "tok-read"
)

var patch = strings.Join([]string{
	"diff --git a/a.go b/a.go",
	"index 1111111..2222222 100644",
	"--- a/a.go",
	"+++ b/a.go",
	"@@ -1,3 +1,4 @@",
	" one",
	"+two",
	" three",
	" four",
	"@@ -10,3 +11,3 @@",
	" ten",
	"-eleven",
	"+ELEVEN",
	" twelve",
	"",
}, "\n")

func setup(t *testing.T, opts ...githubtest.Option) *githubtest.Server {
	t.Helper()
	opts = append([]githubtest.Option{
		githubtest.WithToken(tok, githubtest.PullRequestsWrite, githubtest.IssuesWrite, githubtest.ChecksWrite),
		githubtest.WithToken(readTok),
	}, opts...)
	s := githubtest.New(t, opts...)
	s.AddPR("o", "r", githubtest.PR{Number: 1, HeadSHA: "h1"}, patch, map[string]map[string]string{"main": {"a.go": "one\n"}})
	return s
}

// do sends a request and decodes a JSON answer into a map (or returns the raw body).
func do(t *testing.T, method, url, token, body string, header ...string) (*http.Response, map[string]any, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp, m, string(raw)
}

func TestServer(t *testing.T) {
	t.Parallel()
	anns := func(n int) string {
		var as []string
		for i := range n {
			as = append(as, fmt.Sprintf(`{"path":"a.go","start_line":%d,"end_line":%d,"annotation_level":"notice","message":"m"}`, i+1, i+1))
		}
		return `{"name":"c","head_sha":"h1","output":{"title":"t","summary":"s","annotations":[` + strings.Join(as, ",") + `]}}`
	}
	tests := []struct {
		name, method, path, token, body string
		header                          []string
		wantStatus                      int
		wantMessage                     string
		wantErrors                      string // substring of the JSON "errors"
		wantHeader                      [2]string
	}{
		{name: "outside the base path", method: "GET", path: "@/repos/o/r/pulls/1", token: tok, wantStatus: 404, wantMessage: "Not Found"},
		{name: "unknown token", method: "GET", path: "/repos/o/r/pulls/1", token: "nope", wantStatus: 401, wantMessage: "Bad credentials"},
		{name: "no token", method: "GET", path: "/repos/o/r/pulls/1", wantStatus: 401, wantMessage: "Requires authentication"},
		{name: "unknown repo", method: "GET", path: "/repos/o/x/pulls/1", token: tok, wantStatus: 404, wantMessage: "Not Found"},
		{name: "unknown PR", method: "GET", path: "/repos/o/r/pulls/2", token: tok, wantStatus: 404, wantMessage: "Not Found"},
		{name: "owner is case-insensitive", method: "GET", path: "/repos/O/R/pulls/1", token: tok, wantStatus: 200},
		{
			name: "read-only token cannot review", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: readTok,
			body: `{"event":"COMMENT","body":"x"}`, wantStatus: 403, wantMessage: "Resource not accessible by integration",
			wantHeader: [2]string{"X-Accepted-Github-Permissions", "pull_requests=write"},
		},
		{
			name: "review line outside the diff", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body:       `{"event":"COMMENT","comments":[{"path":"a.go","line":7,"side":"RIGHT","body":"x"}]}`,
			wantStatus: 422, wantMessage: "Unprocessable Entity", wantErrors: "Pull request review thread line must be part of the diff",
		},
		{
			name: "review range across hunks", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body:       `{"event":"COMMENT","comments":[{"path":"a.go","start_line":2,"line":12,"body":"x"}]}`,
			wantStatus: 422, wantErrors: "same hunk",
		},
		{
			name: "review range across sides", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body:       `{"event":"COMMENT","comments":[{"path":"a.go","start_line":11,"start_side":"LEFT","line":12,"side":"RIGHT","body":"x"}]}`,
			wantStatus: 200,
		},
		{
			name: "review with position", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body:       `{"event":"COMMENT","comments":[{"path":"a.go","position":2,"body":"x"}]}`,
			wantStatus: 422, wantErrors: "position is not supported",
		},
		{
			name: "review bad event", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body: `{"event":"MERGE","body":"x"}`, wantStatus: 422, wantErrors: "APPROVE, REQUEST_CHANGES, COMMENT",
		},
		{
			name: "request changes needs a body", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: tok,
			body: `{"event":"REQUEST_CHANGES"}`, wantStatus: 422, wantErrors: "Body is required",
		},
		{
			name: "single comment", method: "POST", path: "/repos/o/r/pulls/1/comments", token: tok,
			body: `{"commit_id":"h1","path":"a.go","line":2,"side":"RIGHT","body":"x"}`, wantStatus: 201,
		},
		{
			name: "single comment needs the PR's commit", method: "POST", path: "/repos/o/r/pulls/1/comments", token: tok,
			body:       `{"commit_id":"zz","path":"a.go","line":2,"body":"x"}`,
			wantStatus: 422, wantMessage: "Validation Failed", wantErrors: "commit_id is not part of the pull request",
		},
		{
			name: "51 annotations", method: "POST", path: "/repos/o/r/check-runs", token: tok, body: anns(51),
			wantStatus: 422, wantMessage: "Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied.",
		},
		{name: "50 annotations", method: "POST", path: "/repos/o/r/check-runs", token: tok, body: anns(50), wantStatus: 201},
		{
			name: "check run unknown key", method: "POST", path: "/repos/o/r/check-runs", token: tok,
			body: `{"name":"c","head_sha":"h1","colour":"red"}`, wantStatus: 422, wantMessage: `"colour" is not a permitted key.`,
		},
		{
			name: "check run completed without conclusion", method: "POST", path: "/repos/o/r/check-runs", token: tok,
			body: `{"name":"c","head_sha":"h1","status":"completed"}`, wantStatus: 422, wantMessage: "conclusion",
		},
		{
			name: "diff media type", method: "GET", path: "/repos/o/r/pulls/1", token: tok,
			header: []string{"Accept", "application/vnd.github.v3.diff"}, wantStatus: 200,
			wantHeader: [2]string{"Content-Type", "text/plain; charset=utf-8"},
		},
		{
			name: "empty issue comment", method: "POST", path: "/repos/o/r/issues/1/comments", token: tok,
			body: `{"body":""}`, wantStatus: 422, wantMessage: "Validation Failed", wantErrors: "missing_field",
		},
		{name: "contents at an unknown ref", method: "GET", path: "/repos/o/r/contents/a.go?ref=nope", token: tok, wantStatus: 404, wantMessage: "No commit found for the ref nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setup(t)
			url := s.URL + tt.path
			if rest, ok := strings.CutPrefix(tt.path, "@"); ok {
				url = s.WebURL + rest
			}
			resp, m, raw := do(t, tt.method, url, tt.token, tt.body, tt.header...)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, raw)
			}
			if tt.wantMessage != "" && !strings.Contains(fmt.Sprint(m["message"]), tt.wantMessage) {
				t.Errorf("message = %q, want %q", m["message"], tt.wantMessage)
			}
			if tt.wantErrors != "" {
				errs, _ := json.Marshal(m["errors"])
				if !strings.Contains(string(errs), tt.wantErrors) {
					t.Errorf("errors = %s, want %q", errs, tt.wantErrors)
				}
			}
			if tt.wantHeader[0] != "" && resp.Header.Get(tt.wantHeader[0]) != tt.wantHeader[1] {
				t.Errorf("%s = %q, want %q", tt.wantHeader[0], resp.Header.Get(tt.wantHeader[0]), tt.wantHeader[1])
			}
			if tt.wantStatus >= 400 && m["documentation_url"] == nil {
				t.Errorf("error body without documentation_url: %s", raw)
			}
		})
	}
}

func TestPaginationLinks(t *testing.T) {
	t.Parallel()
	s := setup(t, githubtest.WithMaxPerPage(1))
	for range 3 {
		if resp, _, raw := do(t, "POST", s.URL+"/repos/o/r/issues/1/comments", tok, `{"body":"hi"}`); resp.StatusCode != 201 {
			t.Fatalf("status %d: %s", resp.StatusCode, raw)
		}
	}
	resp, _, raw := do(t, "GET", s.URL+"/repos/o/r/issues/1/comments?page=2&per_page=50", tok, "")
	var page []map[string]any
	if err := json.Unmarshal([]byte(raw), &page); err != nil || len(page) != 1 {
		t.Fatalf("page 2 = %s, want one comment", raw)
	}
	link := resp.Header.Get("Link")
	for _, want := range []string{
		`/api/v3/repos/o/r/issues/1/comments?page=3&per_page=1>; rel="next"`,
		`page=3&per_page=1>; rel="last"`,
		`page=1&per_page=1>; rel="first"`,
		`page=1&per_page=1>; rel="prev"`,
	} {
		if !strings.Contains(link, want) {
			t.Errorf("Link = %q, want %q", link, want)
		}
	}
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	s := setup(t)
	reset := time.Unix(1_900_000_000, 0)
	s.FailNext(403, githubtest.RateLimitHeaders(reset), "")
	s.FailNext(429, map[string]string{"retry-after": "7"}, "")
	resp, m, _ := do(t, "GET", s.URL+"/repos/o/r/pulls/1", tok, "")
	if resp.StatusCode != 403 || resp.Header.Get("X-Ratelimit-Remaining") != "0" || resp.Header.Get("X-Ratelimit-Reset") != "1900000000" ||
		!strings.Contains(fmt.Sprint(m["message"]), "API rate limit exceeded") {
		t.Errorf("first answer: %d %v %v", resp.StatusCode, resp.Header, m)
	}
	resp, m, _ = do(t, "GET", s.URL+"/repos/o/r/pulls/1", tok, "")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(fmt.Sprint(m["message"]), "secondary rate limit") {
		t.Errorf("second answer: %d %v %v", resp.StatusCode, resp.Header, m)
	}
	if resp, _, _ = do(t, "GET", s.URL+"/repos/o/r/pulls/1", tok, ""); resp.StatusCode != 200 {
		t.Errorf("third answer: %d, want the real one", resp.StatusCode)
	}
	if s.Requests() != 3 || s.Count("GET", "/repos/o/r/pulls/1") != 3 {
		t.Errorf("Requests() = %d, Count = %d, want 3 and 3", s.Requests(), s.Count("GET", "/repos/o/r/pulls/1"))
	}
}

// signJWT builds an RS256 JWT by hand, as the fake must not share the client's JWT library.
func signJWT(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestAppTokens(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	claims := func(iss any, iat, exp time.Duration) map[string]any {
		return map[string]any{"iss": iss, "iat": now.Add(iat).Unix(), "exp": now.Add(exp).Unix()}
	}
	tests := []struct {
		name        string
		key         *rsa.PrivateKey
		claims      map[string]any
		inst        int
		wantStatus  int
		wantMessage string
	}{
		{name: "valid, iss as string", key: key, claims: claims("12", -time.Minute, 9*time.Minute), inst: 34, wantStatus: 201},
		{name: "valid, iss as number", key: key, claims: claims(12, -time.Minute, 9*time.Minute), inst: 34, wantStatus: 201},
		{name: "other key", key: other, claims: claims("12", -time.Minute, 9*time.Minute), inst: 34, wantStatus: 401, wantMessage: "could not be decoded"},
		{name: "other app", key: key, claims: claims("13", -time.Minute, 9*time.Minute), inst: 34, wantStatus: 401, wantMessage: "Integration not found"},
		{name: "expired", key: key, claims: claims("12", -20*time.Minute, -time.Minute), inst: 34, wantStatus: 401, wantMessage: "'exp'"},
		{name: "too long", key: key, claims: claims("12", -time.Minute, 11*time.Minute), inst: 34, wantStatus: 401, wantMessage: "too far in the future"},
		{name: "issued in the future", key: key, claims: claims("12", 5*time.Minute, 9*time.Minute), inst: 34, wantStatus: 401, wantMessage: "'iat'"},
		{name: "other installation", key: key, claims: claims("12", -time.Minute, 9*time.Minute), inst: 35, wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setup(t, githubtest.WithApp(12, 34, &key.PublicKey), githubtest.WithClock(func() time.Time { return now }))
			jwt := signJWT(t, tt.key, tt.claims)
			resp, m, raw := do(t, "POST", fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL, tt.inst), jwt, "")
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, raw)
			}
			if tt.wantMessage != "" && !strings.Contains(fmt.Sprint(m["message"]), tt.wantMessage) {
				t.Errorf("message %q, want %q", m["message"], tt.wantMessage)
			}
			if tt.wantStatus != 201 {
				return
			}
			token, _ := m["token"].(string)
			if m["expires_at"] != "2026-03-01T13:00:00Z" || !strings.HasPrefix(token, "ghs_") {
				t.Errorf("answer = %v", m)
			}
			if resp, _, _ := do(t, "POST", s.URL+"/repos/o/r/issues/1/comments", token, `{"body":"hi"}`); resp.StatusCode != 201 {
				t.Errorf("installation token cannot comment: %d", resp.StatusCode)
			}
			if resp, _, _ := do(t, "GET", s.URL+"/repos/o/r/pulls/1", jwt, ""); resp.StatusCode != 401 {
				t.Errorf("the JWT itself opened the API: %d", resp.StatusCode)
			}
		})
	}
}

func TestInstallationTokenExpires(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var offset atomic.Int64
	clock := func() time.Time { return now.Add(time.Duration(offset.Load())) }
	s := setup(t, githubtest.WithApp(1, 2, &key.PublicKey), githubtest.WithClock(clock))
	jwt := signJWT(t, key, map[string]any{"iss": "1", "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix()})
	_, m, _ := do(t, "POST", s.URL+"/app/installations/2/access_tokens", jwt, "")
	token, _ := m["token"].(string)
	offset.Store(int64(time.Hour))
	if resp, m, _ := do(t, "GET", s.URL+"/repos/o/r/pulls/1", token, ""); resp.StatusCode != 401 || m["message"] != "Bad credentials" {
		t.Errorf("expired installation token: %d %v, want 401 Bad credentials", resp.StatusCode, m)
	}
}

// TestAccessRules checks how the fake tells credentials apart, as GitHub does: classic tokens
// by their scopes, fine-grained tokens and installation tokens by their permissions, checked
// before the body.
func TestAccessRules(t *testing.T) {
	t.Parallel()
	const (
		classicPub  = "ghp_pub"
		classicRepo = "ghp_repo"
		classicNone = "ghp_none"
		fgRead      = "github_pat_read"
		fgAll       = "github_pat_all"
		outsider    = "tok-outsider"
		workflow    = "ghs_workflow"
	)
	tests := []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantMessage                     string
		wantErrors                      string // substring of the JSON "errors"
		wantHeader                      [2]string
		wantJSON                        string // substring of the raw answer
	}{
		{name: "repository", method: "GET", path: "/repos/o/r", token: readTok, wantStatus: 200, wantJSON: `"full_name":"o/r"`},
		{name: "repository role", method: "GET", path: "/repos/o/r", token: classicPub, wantStatus: 200, wantJSON: `"permissions":{"admin":false,"maintain":false,"pull":true,"push":false,"triage":false}`},
		{name: "unknown repository", method: "GET", path: "/repos/o/nope", token: tok, wantStatus: 404},
		{name: "private repository", method: "GET", path: "/repos/o/p", token: classicRepo, wantStatus: 200, wantJSON: `"private":true`},
		{
			name: "private repository without the repo scope", method: "GET", path: "/repos/o/p", token: classicPub,
			wantStatus: 404, wantHeader: [2]string{"X-OAuth-Scopes", "public_repo, read:org"},
		},
		{name: "private repository of a user without a role", method: "GET", path: "/repos/o/p", token: outsider, wantStatus: 404},
		{name: "public repository of a user without a role", method: "GET", path: "/repos/o/r/pulls/1", token: outsider, wantStatus: 200},
		{name: "classic scopes listed", method: "GET", path: "/repos/o/r", token: classicRepo, wantStatus: 200, wantHeader: [2]string{"X-OAuth-Scopes", "repo, workflow"}},
		{name: "installation token's role", method: "GET", path: "/repos/o/r", token: workflow, wantStatus: 200, wantJSON: `"pull":false`},
		{name: "commits", method: "GET", path: "/repos/o/r/commits?per_page=1", token: readTok, wantStatus: 200, wantJSON: `"sha":"`},
		{name: "commits of an empty repository", method: "GET", path: "/repos/o/empty/commits", token: readTok, wantStatus: 409, wantMessage: "Git Repository is empty."},
		{
			name: "commits without contents:read", method: "GET", path: "/repos/o/r/commits", token: fgAll,
			wantStatus: 403, wantMessage: "Resource not accessible by personal access token", wantHeader: [2]string{"X-Accepted-Github-Permissions", "contents=read"},
		},
		{name: "contents without contents:read", method: "GET", path: "/repos/o/r/contents/a.go", token: fgAll, wantStatus: 403},
		{name: "contents with contents:read", method: "GET", path: "/repos/o/r/contents/a.go", token: fgRead, wantStatus: 200},
		{name: "pull request without pull_requests:read", method: "GET", path: "/repos/o/r/pulls/1", token: fgRead, wantStatus: 403},
		{name: "pull request with pull_requests:write", method: "GET", path: "/repos/o/r/pulls/1", token: fgAll, wantStatus: 200},
		{
			name: "empty pull request without the permission", method: "POST", path: "/repos/o/r/pulls", token: readTok, body: `{}`,
			wantStatus: 403, wantMessage: "Resource not accessible by integration", wantHeader: [2]string{"X-Accepted-Github-Permissions", "pull_requests=write"},
		},
		{
			name: "empty pull request with the permission", method: "POST", path: "/repos/o/r/pulls", token: tok, body: `{}`,
			wantStatus: 422, wantMessage: "Validation Failed", wantErrors: `"field":"head"`,
		},
		{
			name: "fine-grained empty pull request without the permission", method: "POST", path: "/repos/o/r/pulls", token: fgRead, body: `{}`,
			wantStatus: 403, wantMessage: "Resource not accessible by personal access token",
		},
		{name: "classic write without a scope", method: "POST", path: "/repos/o/r/pulls", token: classicNone, body: `{}`, wantStatus: 404, wantHeader: [2]string{"X-Accepted-OAuth-Scopes", "public_repo, repo"}},
		{name: "classic write with public_repo", method: "POST", path: "/repos/o/r/pulls", token: classicPub, body: `{}`, wantStatus: 422},
		{name: "classic comment with public_repo", method: "POST", path: "/repos/o/r/issues/1/comments", token: classicPub, body: `{"body":"hi"}`, wantStatus: 201},
		{
			name: "empty check run without the permission", method: "POST", path: "/repos/o/r/check-runs", token: readTok, body: `{}`,
			wantStatus: 403, wantHeader: [2]string{"X-Accepted-Github-Permissions", "checks=write"},
		},
		{
			name: "empty check run with the permission", method: "POST", path: "/repos/o/r/check-runs", token: tok, body: `{}`,
			wantStatus: 422, wantMessage: `"name", "head_sha" wasn't supplied.`,
		},
		{name: "check run from a classic token", method: "POST", path: "/repos/o/r/check-runs", token: classicRepo, body: `{}`, wantStatus: 403, wantMessage: "You must authenticate via a GitHub App."},
		{name: "check run from a fine-grained token", method: "POST", path: "/repos/o/r/check-runs", token: fgAll, body: `{}`, wantStatus: 403, wantMessage: "Resource not accessible by personal access token"},
		{name: "empty issue without the permission", method: "POST", path: "/repos/o/r/issues", token: readTok, body: `{}`, wantStatus: 403, wantHeader: [2]string{"X-Accepted-Github-Permissions", "issues=write"}},
		{name: "empty issue with the permission", method: "POST", path: "/repos/o/r/issues", token: tok, body: `{}`, wantStatus: 422, wantErrors: `"field":"title"`},
		{
			name: "workflow token kept from opening pull requests", method: "POST", path: "/repos/o/r/pulls", token: workflow, body: `{}`,
			wantStatus: 403, wantMessage: "GitHub Actions is not permitted to create or approve pull requests.",
		},
		{name: "workflow token still reviews", method: "POST", path: "/repos/o/r/pulls/1/reviews", token: workflow, body: `{"event":"COMMENT","body":"x"}`, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setup(t,
				githubtest.WithClassicToken(classicPub, githubtest.ScopePublicRepo, "read:org"),
				githubtest.WithRole(classicPub, "pull"),
				githubtest.WithClassicToken(classicRepo, githubtest.ScopeRepo, "workflow"),
				githubtest.WithClassicToken(classicNone),
				githubtest.WithFineGrainedToken(fgRead, githubtest.ContentsRead),
				githubtest.WithFineGrainedToken(fgAll, githubtest.PullRequestsWrite, githubtest.IssuesWrite, githubtest.ChecksWrite),
				githubtest.WithToken(outsider),
				githubtest.WithRole(outsider, "none"),
				githubtest.WithUser(workflow, "github-actions[bot]", githubtest.PullRequestsWrite),
				githubtest.WithActionsPullRequestsDisabled(),
			)
			s.AddPR("o", "p", githubtest.PR{Number: 1, HeadSHA: "h2"}, patch, nil)
			s.SetPrivate("o", "p", true)
			s.SetPrivate("o", "empty", false)
			resp, m, raw := do(t, tt.method, s.URL+tt.path, tt.token, tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, raw)
			}
			if tt.wantMessage != "" && !strings.Contains(fmt.Sprint(m["message"]), tt.wantMessage) {
				t.Errorf("message = %q, want %q", m["message"], tt.wantMessage)
			}
			if tt.wantErrors != "" {
				errs, _ := json.Marshal(m["errors"])
				if !strings.Contains(string(errs), tt.wantErrors) {
					t.Errorf("errors = %s, want %q", errs, tt.wantErrors)
				}
			}
			if tt.wantHeader[0] != "" && resp.Header.Get(tt.wantHeader[0]) != tt.wantHeader[1] {
				t.Errorf("%s = %q, want %q", tt.wantHeader[0], resp.Header.Get(tt.wantHeader[0]), tt.wantHeader[1])
			}
			if tt.wantJSON != "" && !strings.Contains(strings.ReplaceAll(raw, " ", ""), tt.wantJSON) {
				t.Errorf("answer %s, want %s in it", raw, tt.wantJSON)
			}
			if tt.wantStatus >= 400 && m["documentation_url"] == nil {
				t.Errorf("error body without documentation_url: %s", raw)
			}
		})
	}
}

func TestRepoInstallation(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := setup(t, githubtest.WithApp(12, 34, &key.PublicKey), githubtest.WithClock(func() time.Time { return now }),
		githubtest.WithAppInstallation(map[string]string{"contents": "read", "pull_requests": "read"}, "o/r"))
	s.AddPR("o", "other", githubtest.PR{Number: 1}, patch, nil)
	jwt := signJWT(t, key, map[string]any{"iss": "12", "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix()})

	resp, m, raw := do(t, "GET", s.URL+"/repos/o/r/installation", jwt, "")
	perms, _ := json.Marshal(m["permissions"])
	if resp.StatusCode != 200 || m["id"] != float64(34) || m["repository_selection"] != "selected" ||
		string(perms) != `{"contents":"read","metadata":"read","pull_requests":"read"}` {
		t.Errorf("installation: %d %s", resp.StatusCode, raw)
	}
	if resp, _, _ := do(t, "GET", s.URL+"/repos/o/other/installation", jwt, ""); resp.StatusCode != 404 {
		t.Errorf("a repository the app is not installed on: %d, want 404", resp.StatusCode)
	}
	if resp, _, _ := do(t, "GET", s.URL+"/repos/o/r/installation", tok, ""); resp.StatusCode != 401 {
		t.Errorf("a token instead of the JWT: %d, want 401", resp.StatusCode)
	}

	// The installation's tokens hold its permissions, on its repositories.
	_, m, _ = do(t, "POST", s.URL+"/app/installations/34/access_tokens", jwt, "")
	token, _ := m["token"].(string)
	if perms, _ := json.Marshal(m["permissions"]); string(perms) != `{"contents":"read","metadata":"read","pull_requests":"read"}` {
		t.Errorf("token permissions %s", perms)
	}
	if resp, _, _ := do(t, "GET", s.URL+"/repos/o/r/pulls/1", token, ""); resp.StatusCode != 200 {
		t.Errorf("reading with pull_requests:read: %d", resp.StatusCode)
	}
	if resp, _, _ := do(t, "POST", s.URL+"/repos/o/r/pulls/1/reviews", token, `{"event":"COMMENT","body":"x"}`); resp.StatusCode != 403 {
		t.Errorf("reviewing without pull_requests:write: %d, want 403", resp.StatusCode)
	}
	if resp, _, _ := do(t, "GET", s.URL+"/repos/o/other/pulls/1", token, ""); resp.StatusCode != 404 {
		t.Errorf("a repository outside the installation: %d, want 404", resp.StatusCode)
	}
}
