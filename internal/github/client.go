// Package github is council's GitHub layer: it reads pull requests (metadata, files, diff,
// file contents, reviews and comments) and writes reviews, replies, issue comments and check
// runs through the REST API, with token or GitHub App authentication and rate-limit handling
// below every call.
//
// It is the only package that imports go-github and golang-jwt; its API speaks in small types
// of its own. It must never put a credential (token, installation token, JWT, private key) in
// an error or a log line, and never retry a refusal that waiting cannot fix.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// DefaultBaseURL is the API of github.com. GitHub Enterprise Server's is
// https://HOST/api/v3, which GitHub Actions passes in GITHUB_API_URL.
const DefaultBaseURL = "https://api.github.com"

// Options configures New. Exactly one kind of credential must be set: Token, or the three
// GitHub App fields.
type Options struct {
	// Token is a personal access token or a workflow's GITHUB_TOKEN (the CLI reads
	// GITHUB_TOKEN, then GH_TOKEN).
	Token string
	// AppID, InstallationID and PrivateKey (PEM, or PEM base64-encoded) authenticate as a
	// GitHub App installation.
	AppID, InstallationID int64
	PrivateKey            []byte
	// BaseURL is the API's URL: GITHUB_API_URL, such as https://ghe.example.com/api/v3;
	// DefaultBaseURL when empty.
	BaseURL string
	// HTTPClient carries the requests; its Transport is wrapped, never modified. Its Timeout
	// bounds each attempt, not the rate-limit waits between attempts. A client with a two-minute
	// timeout when nil.
	HTTPClient *http.Client
	// Sleep waits d or until ctx is done (a rate-limit wait); tests record d and return at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for JWTs, token expiry and rate-limit resets; time.Now when nil.
	Now func() time.Time
	// RateLimitRetries is how many times a rate-limited request is sent again:
	// DefaultRateLimitRetries when 0, never when negative.
	RateLimitRetries int
	// MaxRateLimitWait caps one wait: the backoff of a secondary limit stops growing at it, and
	// a limit whose reset or retry-after is further away fails at once with a
	// *RateLimitError instead of stalling the run. DefaultMaxRateLimitWait when 0.
	MaxRateLimitWait time.Duration
	// UserAgent names the client to GitHub; "council" when empty.
	UserAgent string
}

// defaultTimeout bounds one request when Options.HTTPClient is nil.
const defaultTimeout = 2 * time.Minute

// Client talks to one GitHub (github.com or an Enterprise Server). It is safe for concurrent
// use.
type Client struct {
	gh       *gh.Client
	base     *url.URL
	requests *atomic.Int64
	now      func() time.Time
	secrets  func() []string
	// credential is the kind of credential, as far as it shows without a request (the
	// token's prefix); app is set with GitHub App credentials. RepoAccess uses both.
	credential Credential
	app        *appTokens
}

// New checks o and builds a client. It makes no request: bad credentials show on the first
// call, as an *APIError with status 401.
func New(o Options) (*Client, error) {
	hasApp := o.AppID != 0 || o.InstallationID != 0 || len(o.PrivateKey) > 0
	switch {
	case o.Token != "" && hasApp:
		return nil, errors.New("github: both a token and GitHub App credentials are set: " +
			"use either GITHUB_TOKEN/GH_TOKEN or the app id, installation id and private key, not both")
	case o.Token == "" && !hasApp:
		return nil, errors.New("github: no credentials: set GITHUB_TOKEN or GH_TOKEN, " +
			"or the GitHub App options (app id, installation id and private key)")
	case hasApp:
		var missing []string
		if o.AppID <= 0 {
			missing = append(missing, "app id")
		}
		if o.InstallationID <= 0 {
			missing = append(missing, "installation id")
		}
		if len(o.PrivateKey) == 0 {
			missing = append(missing, "private key")
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("github: incomplete GitHub App credentials: set the %s", strings.Join(missing, " and "))
		}
	}
	if strings.ContainsAny(o.Token, " \t\r\n") {
		return nil, errors.New("github: the token contains whitespace: check GITHUB_TOKEN or GH_TOKEN")
	}

	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.User != nil {
		shown := "(unparsable)"
		if err == nil {
			u := *base
			u.User = nil // a token is sometimes passed as the user name
			shown = u.String()
		}
		return nil, fmt.Errorf("github: base URL %s is not an http(s) URL without credentials, such as %s or https://ghe.example.com/api/v3",
			redact(shown), DefaultBaseURL)
	}
	base.RawQuery, base.Fragment = "", ""
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.RateLimitRetries == 0 {
		o.RateLimitRetries = DefaultRateLimitRetries
	}
	if o.MaxRateLimitWait <= 0 {
		o.MaxRateLimitWait = DefaultMaxRateLimitWait
	}
	if o.UserAgent == "" {
		o.UserAgent = "council"
	}

	hc := &http.Client{Timeout: defaultTimeout}
	if o.HTTPClient != nil {
		cp := *o.HTTPClient
		hc = &cp
	}
	wire := hc.Transport
	if wire == nil {
		wire = http.DefaultTransport
	}
	c := &Client{base: base, requests: new(atomic.Int64), now: o.Now}
	// From the wire up: count every request, bound each attempt, retry rate limits, then
	// authenticate (a retry carries the credential the request was built with). The client's
	// own timeout would also count the rate-limit waits: it moves to the attempts.
	wire = &counter{next: wire, n: c.requests}
	if hc.Timeout > 0 {
		wire = &attemptTimeout{next: wire, d: hc.Timeout}
		hc.Timeout = 0
	}
	limited := &rateLimiter{
		next:    wire,
		retries: o.RateLimitRetries, maxWait: o.MaxRateLimitWait, sleep: o.Sleep, now: o.Now,
	}
	apiOrigin := origin(base.Scheme, base.Host)
	baseStr := base.String()
	opts := func(t http.RoundTripper) []gh.ClientOptionsFunc {
		client := *hc
		client.Transport = t
		return []gh.ClientOptionsFunc{
			gh.WithHTTPClient(&client),
			gh.WithURLs(&baseStr, &baseStr),
			gh.WithUserAgent(o.UserAgent),
			// The transport handles rate limits with the injected clock; go-github's own
			// bookkeeping would refuse requests locally on the wall clock.
			gh.WithDisableRateLimitCheck(),
		}
	}

	var token func(context.Context) (string, error)
	if o.Token != "" {
		tok := o.Token
		token = func(context.Context) (string, error) { return tok, nil }
		c.secrets = func() []string { return []string{tok} }
		c.credential = tokenCredential(tok)
	} else {
		key, err := parsePrivateKey(o.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("github: %w", err)
		}
		app := newAppTokens(o, key)
		app.apps, err = gh.NewClient(opts(&jwtTransport{next: limited, app: app, base: apiOrigin})...)
		if err != nil {
			return nil, fmt.Errorf("github: %w", err)
		}
		app.convert = c.convert
		token = app.get
		c.credential, c.app = CredentialApp, app
		c.secrets = func() []string { return []string{app.current()} }
	}
	c.gh, err = gh.NewClient(opts(&authTransport{next: limited, token: token, base: apiOrigin})...)
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	return c, nil
}

// Requests counts the HTTP requests the client has sent, retries and token exchanges
// included: the ledger's request count.
func (c *Client) Requests() int { return int(c.requests.Load()) }

// BaseURL is the API's URL, with a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }

var (
	ownerShape = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,98}[A-Za-z0-9_])?$`)
	repoShape  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// checkRepo refuses names that are not a GitHub owner and repository, so that no caller can
// steer a request to another endpoint with a '/', '?' or "..".
func checkRepo(owner, repo string) error {
	if !ownerShape.MatchString(owner) {
		return fmt.Errorf("github: %q is not a GitHub user or organisation name", owner)
	}
	if !repoShape.MatchString(repo) || repo == "." || repo == ".." {
		return fmt.Errorf("github: %q is not a GitHub repository name", repo)
	}
	return nil
}

func checkPR(owner, repo string, n int) error {
	if err := checkRepo(owner, repo); err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("github: %d is not a pull request number", n)
	}
	return nil
}

// perPage is the page size of every listing: GitHub's maximum, for the fewest requests.
const perPage = 100

// allPages calls list for each page in turn until GitHub says there is no next one.
func allPages[T any](list func(gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	opt := gh.ListOptions{PerPage: perPage}
	var all []T
	for {
		page, resp, err := list(opt)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if resp == nil || resp.NextPage <= opt.Page {
			return all, nil
		}
		opt.Page = resp.NextPage
	}
}
