package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v93/github"
)

// APIError is an answer of the GitHub API that is neither a success nor a rate limit: a
// missing repository (404), bad credentials (401), a missing permission (403), a request
// GitHub refuses as sent (422, such as a review comment outside the diff). Callers branch on
// it with errors.As or the Is* helpers; its text says what to do. Nothing in it is a secret:
// GitHub's own text goes through redact first.
type APIError struct {
	Status  int
	Message string   // GitHub's message ("Unprocessable Entity", "Bad credentials")
	Errors  []string // GitHub's details, one per entry of its "errors" array
	Path    string   // the API path, relative to the base URL ("repos/o/r/pulls/1/reviews")
	Method  string
	// Permissions is GitHub's x-accepted-github-permissions header on a 403: the permission
	// sets that would have been enough, separated by ';' ("pull_requests=write").
	Permissions string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "github: %s %s: %d", e.Method, e.Path, e.Status)
	if e.Message != "" {
		b.WriteString(" " + strings.TrimSuffix(e.Message, "."))
	} else if t := http.StatusText(e.Status); t != "" {
		b.WriteString(" " + t)
	}
	if len(e.Errors) > 0 {
		b.WriteString(": " + strings.Join(e.Errors, "; "))
	}
	if h := e.hint(); h != "" {
		b.WriteString(": " + h)
	}
	return b.String()
}

// hint says what to do about the error, from its status and the endpoint.
func (e *APIError) hint() string {
	app := strings.HasPrefix(e.Path, "app/")
	switch {
	case e.Status == http.StatusUnauthorized && app:
		return "GitHub refused the app's JWT: check the app id, the private key and the machine's clock"
	case e.Status == http.StatusNotFound && app:
		return "this GitHub App has no such installation: check the installation id"
	}
	switch e.Status {
	case http.StatusUnauthorized:
		return "the credentials are invalid or expired: check GITHUB_TOKEN or GH_TOKEN, " +
			"or the GitHub App's id, installation id and private key"
	case http.StatusForbidden:
		perm := e.permission()
		h := "the token lacks " + perm + ": grant it to the GitHub App or token"
		if wf := workflowPermission(perm); wf != "" {
			h += ", or in a GitHub Actions workflow add `permissions: " + wf + "`" +
				" (a pull request from a fork only ever gets a read-only GITHUB_TOKEN)"
		}
		if strings.Contains(e.Path, "/check-runs") {
			h += "; check runs can only be written with a GitHub App installation token or a workflow's GITHUB_TOKEN"
		}
		return h
	case http.StatusNotFound:
		return "the repository, pull request or file does not exist, or the token cannot see it " +
			"(a private repository needs contents:read)"
	case http.StatusUnprocessableEntity:
		if strings.HasSuffix(e.Path, "/reviews") {
			return "GitHub refused the review: every comment must sit on a line of the pull request's diff " +
				"(start_line before line, in the same hunk), and commit_id must be a commit of the pull request"
		}
		return "GitHub refused the request as sent; it is not retried"
	}
	return ""
}

// permission names the permission a 403 lacked: GitHub's own header when it sent one,
// otherwise what the endpoint needs.
func (e *APIError) permission() string {
	if p := strings.TrimSpace(e.Permissions); p != "" {
		sets := strings.Split(p, ";")
		for i, s := range sets {
			sets[i] = strings.ReplaceAll(strings.TrimSpace(s), "=", ":")
		}
		return strings.Join(sets, " or ")
	}
	write := e.Method != http.MethodGet && e.Method != http.MethodHead && e.Method != ""
	level := "read"
	if write {
		level = "write"
	}
	switch {
	case strings.Contains(e.Path, "/check-runs"):
		return "checks:" + level
	case strings.Contains(e.Path, "/issues/"):
		return "issues:" + level + " (or pull_requests:" + level + ")"
	case strings.Contains(e.Path, "/pulls"):
		return "pull_requests:" + level
	case strings.Contains(e.Path, "/contents/"):
		return "contents:" + level
	case strings.HasPrefix(e.Path, "app/"):
		return "a valid GitHub App JWT"
	}
	return "the permission this endpoint needs"
}

// workflowPermission is the permissions: entry of a GitHub Actions workflow that grants perm
// ("pull_requests:write" becomes "pull-requests: write").
func workflowPermission(perm string) string {
	name, level, ok := strings.Cut(strings.Fields(perm + " ")[0], ":")
	if !ok {
		return ""
	}
	return strings.ReplaceAll(name, "_", "-") + ": " + level
}

// RateLimitError is a request GitHub kept refusing for a rate limit: the primary limit (the
// hourly quota is spent until Reset) or a secondary one (too many requests too fast; wait
// RetryAfter). The client waits and retries on its own; this error means it gave up, after
// its retries or because the wait asked for is longer than Options.MaxRateLimitWait.
type RateLimitError struct {
	Status     int
	Secondary  bool
	RetryAfter time.Duration // how long GitHub asked to wait; 0 when it did not say
	Reset      time.Time     // when the primary limit resets; zero when not known
	Message    string
	Path       string
	Method     string
}

func (e *RateLimitError) Error() string {
	kind := "primary rate limit"
	if e.Secondary {
		kind = "secondary rate limit"
	}
	var when string
	switch {
	case e.RetryAfter > 0:
		when = " (retry after " + e.RetryAfter.String() + ")"
	case !e.Reset.IsZero():
		when = " (resets at " + e.Reset.UTC().Format(time.RFC3339) + ")"
	}
	msg := strings.TrimSuffix(e.Message, ".")
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("github: %s %s: %d %s: %s exceeded%s: retry later, or post less often",
		e.Method, e.Path, e.Status, msg, kind, when)
}

// ErrDiffTooLarge is GitHub declining to serve a pull request's diff in one piece (over 300
// files or 20,000 lines): read it file by file with PullRequestFiles, or from a clone. The
// error PullRequestDiff returns also matches *APIError.
var ErrDiffTooLarge = errors.New("github: the pull request's diff is too large for the API: " +
	"read it file by file (PullRequestFiles) or from a clone")

// IsNotFound reports whether err is GitHub's 404.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsUnprocessable reports whether err is GitHub's 422: the request was understood and refused
// as sent (a review comment outside the diff, a commit that is not the pull request's).
func IsUnprocessable(err error) bool { return hasStatus(err, http.StatusUnprocessableEntity) }

// IsAuth reports whether err is a credential problem: bad or expired credentials (401) or a
// missing permission (403). Rate limits are never reported as auth errors.
func IsAuth(err error) bool {
	return hasStatus(err, http.StatusUnauthorized) || hasStatus(err, http.StatusForbidden)
}

// IsRateLimited reports whether err is a rate limit the client gave up waiting for.
func IsRateLimited(err error) bool {
	var rl *RateLimitError
	return errors.As(err, &rl)
}

func hasStatus(err error, status int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == status
}

// tokenError carries a failure to obtain an installation token out of the transport, where
// net/http would otherwise bury it in a *url.Error naming the request that needed it.
type tokenError struct{ err error }

func (e *tokenError) Error() string { return e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

// convert turns what go-github returned into this package's errors. Cancellation and the
// caller's deadline pass through untouched so that errors.Is(err, context.Canceled) holds.
func (c *Client) convert(err error) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	if errors.Is(err, context.Canceled) || (errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &ue)) {
		return err
	}
	var te *tokenError
	if errors.As(err, &te) {
		return te.err
	}
	var resp *http.Response
	var (
		er  *gh.ErrorResponse
		rl  *gh.RateLimitError
		ab  *gh.AbuseRateLimitError
		acc *gh.AcceptedError
	)
	switch {
	case errors.As(err, &rl):
		resp = rl.Response
	case errors.As(err, &ab):
		resp = ab.Response
	case errors.As(err, &er):
		resp = er.Response
	case errors.As(err, &acc):
		return fmt.Errorf("github: GitHub is still preparing the answer (202): retry shortly")
	}
	if resp == nil {
		if errors.As(err, &ue) && errors.Is(ue.Err, context.DeadlineExceeded) {
			// The caller's deadline came back above as the context's own error: this is the
			// attempt's timeout (Options.HTTPClient's Timeout).
			return fmt.Errorf("github: %s %s: no answer within the request timeout: retry, or raise the timeout", ue.Op, c.relPath(ue.URL))
		}
		if errors.As(err, &ue) {
			return fmt.Errorf("github: %s %s: %s", ue.Op, c.relPath(ue.URL), c.redact(ue.Err.Error()))
		}
		return fmt.Errorf("github: %s", c.redact(err.Error()))
	}
	return c.fromResponse(resp, er)
}

// fromResponse builds the typed error for a failed response; er, when not nil, is the body
// go-github decoded.
func (c *Client) fromResponse(resp *http.Response, er *gh.ErrorResponse) error {
	var msg, doc string
	var details []string
	if er != nil {
		msg, doc = er.Message, er.DocumentationURL
		for _, e := range er.Errors {
			details = append(details, c.redact(errorDetail(e)))
		}
	}
	method, path := "", ""
	if resp.Request != nil {
		method, path = resp.Request.Method, c.relPath(resp.Request.URL.String())
	}
	if kind := classify(resp, msg+" "+doc, c.now()); kind.limited {
		return &RateLimitError{
			Status: resp.StatusCode, Secondary: kind.secondary, RetryAfter: kind.retryAfter,
			Reset: kind.reset, Message: c.redact(msg), Path: path, Method: method,
		}
	}
	return &APIError{
		Status: resp.StatusCode, Message: c.redact(msg), Errors: details, Path: path, Method: method,
		Permissions: resp.Header.Get("X-Accepted-Github-Permissions"),
	}
}

// errorDetail renders one entry of GitHub's "errors" array, which is a plain string on some
// endpoints (reviews) and an object on others.
func errorDetail(e gh.Error) string {
	if e.Message != "" {
		return e.Message
	}
	var parts []string
	if e.Resource != "" || e.Field != "" {
		parts = append(parts, strings.Trim(e.Resource+"."+e.Field, "."))
	}
	if e.Code != "" {
		parts = append(parts, e.Code)
	}
	return strings.Join(parts, " ")
}

// relPath is a request's path relative to the client's base URL, without the query.
func (c *Client) relPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.Path
	if c.base != nil {
		p = strings.TrimPrefix(p, c.base.Path)
	}
	return strings.TrimPrefix(p, "/")
}

// secretShapes matches credentials as GitHub prints them (ghp_, ghs_, gho_, ghu_, ghr_,
// github_pat_), JSON web tokens and PEM private keys, wherever they appear.
var secretShapes = regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,}|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)` +
	`|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`)

// maxMessage bounds how much of GitHub's text goes into an error (a proxy may answer with a
// whole HTML page).
const maxMessage = 500

// redact prepares GitHub's text for an error: the client's own secrets and anything shaped
// like a credential are replaced, and the text is cut to a readable length.
func (c *Client) redact(text string) string {
	var secrets []string
	if c != nil && c.secrets != nil {
		secrets = c.secrets()
	}
	return redact(text, secrets...)
}

func redact(text string, secrets ...string) string {
	for _, s := range secrets {
		if len(s) >= 4 {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	text = strings.TrimSpace(secretShapes.ReplaceAllString(text, "[redacted]"))
	if utf8.RuneCountInString(text) > maxMessage {
		text = string([]rune(text)[:maxMessage]) + "…"
	}
	return text
}

// limit is what a response says about rate limiting.
type limit struct {
	limited    bool
	secondary  bool
	retryAfter time.Duration // from retry-after
	reset      time.Time     // from x-ratelimit-reset, when the primary limit is spent
}

// classify reads a response the way GitHub's documentation says to: a 429, or a 403 with
// retry-after, with x-ratelimit-remaining: 0, or with a message about a secondary rate limit,
// is rate limited; any other 403 is a missing permission. text is the body's message and
// documentation URL, which is where a secondary limit without headers shows.
func classify(resp *http.Response, text string, now time.Time) limit {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusForbidden {
		return limit{}
	}
	l := limit{retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), now)}
	primary := resp.Header.Get("X-Ratelimit-Remaining") == "0"
	if primary {
		if sec, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("X-Ratelimit-Reset")), 10, 64); err == nil && sec > 0 {
			l.reset = time.Unix(sec, 0)
		}
	}
	lower := strings.ToLower(text)
	secondaryText := strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "abuse")
	l.limited = resp.StatusCode == http.StatusTooManyRequests || primary || secondaryText ||
		resp.Header.Get("Retry-After") != ""
	l.secondary = l.limited && !primary
	return l
}

// parseRetryAfter reads retry-after as seconds or as an HTTP date; 0 when absent or unusable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
