package githubtest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/source"
)

// git runs git in dir with a fixed identity and no user configuration, and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// remote builds the repository a test registers with SetRemote: main with one commit, feature
// with one more. It returns the directory and feature's head.
func remote(t *testing.T) (dir, head string) {
	t.Helper()
	dir = t.TempDir()
	git(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-q", "-am", "two")
	head = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "main")
	return dir, head
}

// basic is the header council sends git: the token as the password of x-access-token.
func basic(s *githubtest.Server, token string) source.Credential {
	if token == "" {
		return source.Credential{}
	}
	return source.Credential{
		Prefix: s.WebURL + "/",
		Header: "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)),
	}
}

// installationToken mints an installation token through the fake's app exchange.
func installationToken(t *testing.T, s *githubtest.Server, key *rsa.PrivateKey) string {
	t.Helper()
	now := time.Now()
	jwt := signJWT(t, key, map[string]any{"iss": "1", "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix()})
	resp, m, raw := do(t, "POST", s.URL+"/app/installations/2/access_tokens", jwt, "")
	if resp.StatusCode != 201 {
		t.Fatalf("mint an installation token: %d %s", resp.StatusCode, raw)
	}
	return m["token"].(string)
}

func TestGitFetchPullRequest(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		opts     []githubtest.Option
		public   bool
		token    string // "app" mints an installation token
		wantErr  string // substring of the fetch's error; "" for success
		wantAuth string // the login every git request authenticated as
	}{
		{name: "anonymous on a private repository", wantErr: "could not read Username"},
		{name: "installation token", token: "app", wantAuth: githubtest.AppLogin},
		{
			name:  "installation token of an installation without the repository",
			opts:  []githubtest.Option{githubtest.WithAppInstallation(nil, "o/other")},
			token: "app", wantErr: "Repository not found",
		},
		{
			name:  "installation without contents:read",
			opts:  []githubtest.Option{githubtest.WithAppInstallation(map[string]string{"pull_requests": "write"})},
			token: "app", wantErr: "403",
		},
		{name: "unknown token", token: "ghp_nobodyKnowsThis", wantErr: "could not read Username"},
		{name: "workflow token", token: tok, wantAuth: githubtest.DefaultLogin},
		{
			name:  "user without a role on the private repository",
			opts:  []githubtest.Option{githubtest.WithUser("tok-mallory", "mallory"), githubtest.WithRole("tok-mallory", "none")},
			token: "tok-mallory", wantErr: "Repository not found",
		},
		{name: "anonymous on a public repository", public: true, wantAuth: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setup(t, append([]githubtest.Option{githubtest.WithApp(1, 2, &key.PublicKey)}, tt.opts...)...)
			dir, head := remote(t)
			s.SetRemote("o", "w", dir)
			s.SetPrivate("o", "w", !tt.public)
			resp, _, raw := do(t, "POST", s.URL+"/repos/o/w/pulls", tok, `{"title":"Two","head":"feature","base":"main"}`)
			if resp.StatusCode != 201 {
				t.Fatalf("open the pull request: %d %s", resp.StatusCode, raw)
			}
			token := tt.token
			if token == "app" {
				token = installationToken(t, s, key)
			}

			ctx := context.Background()
			clone := t.TempDir()
			git(t, clone, "init", "-q")
			g, err := source.OpenGit(ctx, clone)
			if err != nil {
				t.Fatal(err)
			}
			err = g.Fetch(ctx, s.WebURL+"/o/w.git", basic(s, token),
				"+refs/pull/1/head:refs/council/pr/1/head", "+refs/heads/main:refs/council/pr/1/base")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("fetch: got %v, want an error with %q", err, tt.wantErr)
				}
				if token != "" && strings.Contains(err.Error(), token) {
					t.Errorf("the error shows the token: %v", err)
				}
				if got := s.GitAuth("o", "w"); len(got) != 0 {
					t.Errorf("GitAuth = %q after a refused fetch", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !g.Has(ctx, head) {
				t.Errorf("refs/pull/1/head did not bring %s", head)
			}
			if got := git(t, clone, "rev-parse", "refs/council/pr/1/head"); got != head {
				t.Errorf("refs/pull/1/head is %s, want %s", got, head)
			}
			// info/refs, then one git-upload-pack (protocol v0) or two (v2: ls-refs, fetch).
			got := s.GitAuth("o", "w")
			if len(got) < 2 || slices.ContainsFunc(got, func(l string) bool { return l != tt.wantAuth }) {
				t.Errorf("GitAuth = %q, want every read as %q", got, tt.wantAuth)
			}
			if n := s.Count("POST", "/o/w.git/git-upload-pack"); n == 0 || n != len(got)-1 {
				t.Errorf("git-upload-pack requests = %d for %d git reads", n, len(got))
			}
		})
	}
}

// TestGitFollowsTheHead checks that refs/pull/N/head moves with SetHead when the remote holds
// the new head, as a push to the pull request's branch moves it on GitHub.
func TestGitFollowsTheHead(t *testing.T) {
	t.Parallel()
	s := setup(t)
	dir, _ := remote(t)
	s.SetRemote("o", "w", dir)
	if resp, _, raw := do(t, "POST", s.URL+"/repos/o/w/pulls", tok, `{"title":"Two","head":"feature","base":"main"}`); resp.StatusCode != 201 {
		t.Fatalf("open the pull request: %d %s", resp.StatusCode, raw)
	}
	ctx := context.Background()
	clone := t.TempDir()
	git(t, clone, "init", "-q")
	g, err := source.OpenGit(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func() string {
		t.Helper()
		if err := g.Fetch(ctx, s.WebURL+"/o/w.git", basic(s, tok), "+refs/pull/1/head:refs/pr"); err != nil {
			t.Fatal(err)
		}
		return git(t, clone, "rev-parse", "refs/pr")
	}
	fetch()

	git(t, dir, "checkout", "-q", "feature")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-q", "-am", "three")
	next := git(t, dir, "rev-parse", "HEAD")
	s.SetHead("o", "w", 1, next, git(t, dir, "diff", "main...feature"))
	if got := fetch(); got != next {
		t.Errorf("after SetHead refs/pull/1/head is %s, want %s", got, next)
	}

	// AddPR of a head the remote holds gets its ref too; a made-up head gets none.
	s.AddPR("o", "w", githubtest.PR{Number: 5, HeadSHA: next}, git(t, dir, "diff", "main...feature"), nil)
	s.AddPR("o", "w", githubtest.PR{Number: 6}, patch, nil)
	if err := g.Fetch(ctx, s.WebURL+"/o/w.git", basic(s, tok), "+refs/pull/5/head:refs/pr5"); err != nil {
		t.Fatal(err)
	}
	if got := git(t, clone, "rev-parse", "refs/pr5"); got != next {
		t.Errorf("refs/pull/5/head is %s, want %s", got, next)
	}
	if err := g.Fetch(ctx, s.WebURL+"/o/w.git", basic(s, tok), "+refs/pull/6/head:refs/pr6"); err == nil {
		t.Errorf("fetched refs/pull/6/head, whose head is not in the remote")
	}
}

func TestGitRefusals(t *testing.T) {
	t.Parallel()
	s := setup(t)
	dir, _ := remote(t)
	s.SetRemote("o", "w", dir)
	s.SetPrivate("o", "w", true)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok))
	tests := []struct {
		name, method, path, auth string
		wantStatus               int
		wantBody                 string
	}{
		{name: "push", method: "GET", path: "/o/w.git/info/refs?service=git-receive-pack", auth: auth, wantStatus: 403, wantBody: "Permission to o/w.git denied to council-bot."},
		{name: "push without credentials", method: "POST", path: "/o/w.git/git-receive-pack", wantStatus: 401},
		{name: "dumb protocol", method: "GET", path: "/o/w.git/info/refs", auth: auth, wantStatus: 404},
		{name: "unknown repository", method: "GET", path: "/o/nope.git/info/refs?service=git-upload-pack", auth: auth, wantStatus: 404, wantBody: "Repository not found."},
		{name: "bearer is not git's scheme", method: "GET", path: "/o/w.git/info/refs?service=git-upload-pack", auth: "Bearer " + tok, wantStatus: 401},
		{name: "advertisement", method: "GET", path: "/O/W.git/info/refs?service=git-upload-pack", auth: auth, wantStatus: 200, wantBody: "# service=git-upload-pack"},
	}
	t.Cleanup(func() {
		if got := fmt.Sprint(s.GitAuth("o", "w")); got != "[council-bot]" {
			t.Errorf("GitAuth = %s, want only the advertisement's read", got)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, _, raw := do(t, tt.method, s.WebURL+tt.path, "", "", "Authorization", tt.auth)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, raw)
			}
			if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") != `Basic realm="GitHub"` {
				t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
			}
			if !strings.Contains(raw, tt.wantBody) {
				t.Errorf("body %q, want %q in it", raw, tt.wantBody)
			}
		})
	}
}
