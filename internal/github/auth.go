package github

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	gh "github.com/google/go-github/v93/github"
)

// GitHub App authentication, as GitHub documents it: the app signs a short-lived JWT (RS256,
// iss = app id, at most ten minutes of validity) and trades it for an installation token that
// lives an hour. The token is what the API calls carry.
const (
	jwtBackdate = 60 * time.Second // iat in the past, for clock drift between us and GitHub
	jwtLifetime = 9 * time.Minute  // under GitHub's ten-minute maximum, with the same margin
	// tokenMargin is how long before its expiry an installation token is replaced, so that a
	// request (or a rate-limit wait) never starts with a token about to lapse.
	tokenMargin = 5 * time.Minute
)

// appTokens mints and caches installation tokens. It is safe for concurrent use; concurrent
// callers that find no valid token wait for one exchange instead of each starting their own.
type appTokens struct {
	appID, installationID int64
	key                   *rsa.PrivateKey
	now                   func() time.Time
	apps                  *gh.Client // authenticates with the app's JWT
	convert               func(error) error

	lock    chan struct{} // a mutex that a waiting caller can abandon when its context ends
	mu      sync.Mutex    // guards token and expires for secrets(), which must not wait
	token   string
	expires time.Time
}

func newAppTokens(o Options, key *rsa.PrivateKey) *appTokens {
	return &appTokens{
		appID: o.AppID, installationID: o.InstallationID, key: key, now: o.Now,
		lock: make(chan struct{}, 1),
	}
}

// get returns a valid installation token, from the cache while it has more than tokenMargin
// left, otherwise from a new exchange.
func (a *appTokens) get(ctx context.Context) (string, error) {
	select {
	case a.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-a.lock }()

	a.mu.Lock()
	tok, exp := a.token, a.expires
	a.mu.Unlock()
	if tok != "" && a.now().Before(exp.Add(-tokenMargin)) {
		return tok, nil
	}

	it, _, err := a.apps.Apps.CreateInstallationToken(ctx, a.installationID, nil)
	if err != nil {
		return "", fmt.Errorf("get an installation token for GitHub App %d, installation %d: %w",
			a.appID, a.installationID, a.convert(err))
	}
	if it.GetToken() == "" {
		return "", fmt.Errorf("get an installation token for GitHub App %d, installation %d: GitHub answered without a token",
			a.appID, a.installationID)
	}
	exp = it.GetExpiresAt().Time
	if exp.IsZero() {
		exp = a.now().Add(time.Hour) // GitHub's documented lifetime
	}
	a.mu.Lock()
	a.token, a.expires = it.GetToken(), exp
	a.mu.Unlock()
	return it.GetToken(), nil
}

// current is the cached token, for redaction.
func (a *appTokens) current() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.token
}

// jwt signs the app's JSON web token.
func (a *appTokens) jwt() (string, error) {
	now := a.now()
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(a.appID, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-jwtBackdate)),
		ExpiresAt: jwt.NewNumericDate(now.Add(jwtLifetime)),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("sign the GitHub App JWT: %w", err)
	}
	return s, nil
}

// jwtTransport authenticates the app's own requests (the token exchange) with a fresh JWT.
type jwtTransport struct {
	next http.RoundTripper
	app  *appTokens
	base string
}

func (t *jwtTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL.Scheme, req.URL.Host) != t.base {
		return t.next.RoundTrip(req)
	}
	s, err := t.app.jwt()
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &tokenError{err}
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+s)
	return t.next.RoundTrip(r)
}

// parsePrivateKey reads the app's private key: PEM (PKCS#1 or PKCS#8), or that PEM
// base64-encoded, as it often is when it travels in an environment variable. Its errors never
// quote the key.
func parsePrivateKey(data []byte) (*rsa.PrivateKey, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM(data)
	if err == nil {
		return key, nil
	}
	trimmed := strings.Join(strings.Fields(string(data)), "")
	if dec, derr := base64.StdEncoding.DecodeString(trimmed); derr == nil {
		if k, kerr := jwt.ParseRSAPrivateKeyFromPEM(dec); kerr == nil {
			return k, nil
		}
	}
	if errors.Is(err, jwt.ErrKeyMustBePEMEncoded) {
		return nil, errors.New("parse the GitHub App private key: it is not a PEM-encoded RSA key " +
			"(the .pem file GitHub generated, or that file base64-encoded)")
	}
	return nil, errors.New("parse the GitHub App private key: it is not an RSA private key in PKCS#1 or PKCS#8 form")
}
