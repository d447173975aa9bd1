package githubtest

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub's rules for an app's JWT: RS256, iss the app id, exp in the future and at most ten
// minutes after iat, iat not in the future beyond a minute of drift.
const (
	maxJWTLifetime = 10 * time.Minute
	jwtDrift       = 60 * time.Second
	tokenLifetime  = time.Hour
)

func jwtError(w http.ResponseWriter, msg string) {
	writeError(w, http.StatusUnauthorized, msg, nil, "https://docs.github.com/rest")
}

// appJWT checks the request's app JWT and answers 401 as GitHub does when it is not valid.
// Call with s.mu held.
func (s *Server) appJWT(w http.ResponseWriter, r *http.Request) bool {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || cred == "" || s.app == nil {
		jwtError(w, "A JSON web token could not be decoded")
		return false
	}
	if msg := verifyJWT(cred, s.app, s.now()); msg != "" {
		jwtError(w, msg)
		return false
	}
	return true
}

// defaultAppPerms is what an installation holds unless WithAppInstallation says otherwise:
// every permission council uses.
var defaultAppPerms = map[string]string{
	"pull_requests": "write", "issues": "write", "checks": "write", "contents": "read", "metadata": "read",
}

// installationPerms is the installation's permissions. Call with s.mu held.
func (s *Server) installationPerms() map[string]string {
	if s.appPerms != nil {
		return s.appPerms
	}
	return defaultAppPerms
}

func (s *Server) repositorySelection() string {
	if s.appRepos != nil {
		return "selected"
	}
	return "all"
}

// accessToken is POST /app/installations/{id}/access_tokens: it checks the app's JWT and
// mints an installation token with the installation's permissions, on its repositories.
// https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appJWT(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id != s.app.installation {
		notFound(w)
		return
	}
	s.minted++
	tok := fmt.Sprintf("ghs_fakeinstallation%04dtoken%020d", s.minted, s.app.installation)
	expires := s.now().Add(tokenLifetime)
	perms := s.installationPerms()
	t := &token{login: AppLogin, scopes: map[string]bool{}, expires: expires, explicitReads: true, repos: s.appRepos}
	for name, level := range perms {
		t.scopes[name+":"+level] = true
	}
	s.tokens[tok] = t
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           timestamp(expires),
		"permissions":          perms,
		"repository_selection": s.repositorySelection(),
	})
}

// repoInstallation is GET /repos/{owner}/{repo}/installation, for the app's JWT: the
// installation that covers the repository, with its permissions, or 404 when the app is not
// installed on it.
// https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app
func (s *Server) repoInstallation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appJWT(w, r) {
		return
	}
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil || (s.appRepos != nil && !s.appRepos[repoKey(rs.owner, rs.name)]) {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":                   s.app.installation,
		"app_id":               s.app.id,
		"account":              map[string]any{"login": rs.owner, "type": "Organization"},
		"target_type":          "Organization",
		"repository_selection": s.repositorySelection(),
		"permissions":          s.installationPerms(),
		"events":               []string{},
		"access_tokens_url":    fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL, s.app.installation),
		"suspended_at":         nil,
	})
}

// verifyJWT checks a compact RS256 JWT against the app's public key and GitHub's claim rules;
// it returns GitHub's message for the first problem, or "".
func verifyJWT(tok string, a *app, now time.Time) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "A JSON web token could not be decoded"
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if !decodePart(parts[0], &header) {
		return "A JSON web token could not be decoded"
	}
	if header.Alg != "RS256" {
		return "A JSON web token could not be decoded"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "A JSON web token could not be decoded"
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(a.key, crypto.SHA256, digest[:], sig) != nil {
		return "A JSON web token could not be decoded"
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat *json.Number    `json:"iat"`
		Exp *json.Number    `json:"exp"`
	}
	if !decodePart(parts[1], &claims) {
		return "A JSON web token could not be decoded"
	}
	iss := strings.Trim(string(claims.Iss), `"`)
	if iss != strconv.FormatInt(a.id, 10) {
		return "Integration not found"
	}
	iat, errIat := numeric(claims.Iat)
	if errIat != nil {
		return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	}
	exp, errExp := numeric(claims.Exp)
	if errExp != nil {
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	}
	switch {
	case iat.After(now.Add(jwtDrift)):
		return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	case !exp.After(now):
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	case exp.Sub(iat) > maxJWTLifetime:
		return "'Expiration time' claim ('exp') is too far in the future"
	}
	return ""
}

func decodePart(part string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(part)
	return err == nil && json.Unmarshal(b, v) == nil
}

func numeric(n *json.Number) (time.Time, error) {
	if n == nil {
		return time.Time{}, fmt.Errorf("missing")
	}
	v, err := n.Int64()
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(v, 0), nil
}
