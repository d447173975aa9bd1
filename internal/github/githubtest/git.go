package githubtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Git over smart HTTP, for the repositories SetRemote registers: the fake serves
// <WebURL>/{owner}/{repo}.git as GitHub serves https://github.com/{owner}/{repo}.git, read-only,
// through `git http-backend`. Credentials follow GitHub's rules for git over HTTPS
// (https://docs.github.com/get-started/git-basics/about-remote-repositories): a token is the
// password of HTTP Basic authentication, the user name is not checked (council sends
// "x-access-token", as an installation token needs:
// https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/authenticating-as-a-github-app-installation#about-authentication-as-a-github-app-installation).
//
//   - A public repository can be read without credentials; a private one answers 401 with
//     WWW-Authenticate: Basic realm="GitHub", after which git asks for a user name and, unable
//     to prompt (GIT_TERMINAL_PROMPT=0), fails with "could not read Username".
//   - Credentials the fake does not know, or an expired installation token, answer 401 too,
//     with GitHub's text, even on a public repository.
//   - Valid credentials that may not see the repository (an installation not installed on it,
//     a user without a role on a private repository, a classic token without repo) answer 404
//     "Repository not found.", as the API does, so as not to confirm that it exists.
//   - An installation or fine-grained token also needs contents:read; without it the fake
//     answers 403 (GitHub's status and text for this case are not documented; see
//     gitDenied).
//   - Pushing (git-receive-pack) is refused: 401 without credentials, 403 with them. The fake is
//     read-only; SetRemote's repository is the test's to change.
//
// Pull request refs: before each git read the fake points refs/pull/{n}/head, in the registered
// repository itself, at the head commit of each of its pull requests (opened through the API,
// AddPR or moved by SetHead) that the repository holds, with `git update-ref`. A pull request
// whose head commit is not in the repository (AddPR's made-up SHAs) has no ref: fetching it
// fails as fetching a missing ref does. refs/pull/{n}/merge is not served.

// gitRequest is a git request's parts: /{owner}/{repo}.git/{rest}.
func gitRequest(path string) (owner, name, rest string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) != 3 || parts[0] == "" {
		return "", "", "", false
	}
	name, ok = strings.CutSuffix(parts[1], ".git")
	if !ok || name == "" {
		return "", "", "", false
	}
	return parts[0], name, parts[2], true
}

const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

// serveGit answers a git request under /{owner}/{repo}.git. body is the request's body, which
// ServeHTTP has already read for the log.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request, owner, name, rest string, body []byte) {
	var service string
	switch {
	case rest == "info/refs" && r.Method == http.MethodGet:
		service = r.URL.Query().Get("service")
	case (rest == uploadPack || rest == receivePack) && r.Method == http.MethodPost:
		service = rest
	}
	if service != uploadPack && service != receivePack {
		// Only the smart protocol is served: git's dumb protocol (no service) and any other
		// file of the repository are not found.
		gitText(w, http.StatusNotFound, "Not Found")
		return
	}
	key := repoKey(owner, name)
	tok, bad := s.gitCredentials(r)

	s.mu.Lock()
	dir := s.remotes[key]
	rs := s.repo(owner, name, false)
	var private, sees bool
	if rs != nil {
		private = rs.private
		sees = tok != nil && tok.sees(rs)
	}
	s.mu.Unlock()

	switch {
	case dir == "" || rs == nil:
		gitText(w, http.StatusNotFound, "Repository not found.")
		return
	case bad:
		gitUnauthorized(w, "Invalid username or token. Password authentication is not supported for Git operations.")
		return
	case tok == nil && (private || service == receivePack):
		gitUnauthorized(w, "")
		return
	case tok != nil && !sees:
		gitText(w, http.StatusNotFound, "Repository not found.")
		return
	case tok != nil && tok.kind != classicPAT && !tok.holds(ContentsRead), service == receivePack:
		gitDenied(w, owner, name, tok)
		return
	}
	login := ""
	if tok != nil {
		login = tok.login
	}
	s.mu.Lock()
	if s.gitAuth == nil {
		s.gitAuth = map[string][]string{}
	}
	s.gitAuth[key] = append(s.gitAuth[key], login)
	s.mu.Unlock()

	gitDir, err := gitIn(dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		s.serverError(w, err)
		return
	}
	gitDir = strings.TrimSpace(gitDir)
	if err := s.syncPullRefs(key, gitDir, rs); err != nil {
		s.serverError(w, err)
		return
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		s.serverError(w, err)
		return
	}
	var stderr bytes.Buffer
	h := &cgi.Handler{
		Path: bin, Args: []string{"http-backend"}, Dir: gitDir,
		Env: []string{
			"GIT_PROJECT_ROOT=" + filepath.Dir(gitDir),
			"PATH_INFO=/" + filepath.Base(gitDir) + "/" + rest,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		},
		Stderr: &stderr,
	}
	// The body was read for the log; git http-backend reads CONTENT_LENGTH bytes of it.
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	h.ServeHTTP(w, r)
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		s.t.Logf("githubtest: git http-backend for %s/%s.git/%s: %s", owner, name, rest, msg)
	}
}

// gitCredentials finds the token of a git request's Basic authentication: the password (the
// user name is not checked), or the user name when the password is empty or x-oauth-basic, as
// GitHub also accepts. bad is set for credentials the fake does not know or that expired, and
// for any other kind of Authorization header.
func (s *Server) gitCredentials(r *http.Request) (tok *token, bad bool) {
	if r.Header.Get("Authorization") == "" {
		return nil, false
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return nil, true
	}
	cred := pass
	if pass == "" || pass == "x-oauth-basic" {
		cred = user
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, known := s.tokens[cred]
	if !known || (!t.expires.IsZero() && !s.now().Before(t.expires)) {
		return nil, true
	}
	return t, false
}

// gitText is an error as GitHub's git endpoints send it: plain text, which git prints after
// "remote: ".
func gitText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	if msg != "" {
		_, _ = io.WriteString(w, msg+"\n")
	}
}

func gitUnauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
	gitText(w, http.StatusUnauthorized, msg)
}

// gitDenied is the 403 of a push with credentials that may not push, in GitHub's words; the
// fake also answers it to a read by a token without contents:read, for which GitHub's answer
// is not documented.
func gitDenied(w http.ResponseWriter, owner, name string, t *token) {
	gitText(w, http.StatusForbidden, fmt.Sprintf("Permission to %s/%s.git denied to %s.", owner, name, t.login))
}

// syncPullRefs points refs/pull/{n}/head of the repository at gitDir at the head of each pull
// request of rs whose head commit it holds. It remembers what it wrote, so that a read costs
// no git command once the refs are in place.
func (s *Server) syncPullRefs(key, gitDir string, rs *repoState) error {
	s.mu.Lock()
	heads := map[int]string{}
	for n, p := range rs.prs {
		heads[n] = p.pr.HeadSHA
	}
	s.mu.Unlock()
	numbers := make([]int, 0, len(heads))
	for n := range heads {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)

	s.gitMu.Lock()
	defer s.gitMu.Unlock()
	if s.pullRefs == nil {
		s.pullRefs = map[string]map[int]string{}
	}
	if s.pullRefs[key] == nil {
		s.pullRefs[key] = map[int]string{}
	}
	done := s.pullRefs[key]
	for _, n := range numbers {
		sha := heads[n]
		if done[n] == sha || sha == "" || strings.HasPrefix(sha, "-") {
			continue
		}
		if _, err := gitIn(gitDir, "cat-file", "-e", sha+"^{commit}"); err != nil {
			continue // not a commit of this repository
		}
		if _, err := gitIn(gitDir, "update-ref", "refs/pull/"+strconv.Itoa(n)+"/head", sha); err != nil {
			return fmt.Errorf("point refs/pull/%d/head at %s: %w", n, sha, err)
		}
		done[n] = sha
	}
	return nil
}

// GitAuth returns who each git read of owner/repo that the fake served authenticated as, in
// order: the login behind the token (AppLogin for an installation token), or "" for an
// anonymous read of a public repository. Refused requests are not in it; Log has every
// request.
func (s *Server) GitAuth(owner, repo string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.gitAuth[repoKey(owner, repo)]...)
}
