package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults of the rate-limit handling.
const (
	DefaultRateLimitRetries = 3
	DefaultMaxRateLimitWait = 10 * time.Minute
	// secondaryBackoff is the first wait after a secondary rate limit that did not say how
	// long to wait: GitHub's documentation asks for at least a minute, then exponentially more.
	secondaryBackoff = time.Minute
	// sniffLimit bounds how much of a 403's body is read to tell a secondary rate limit from a
	// missing permission.
	sniffLimit = 64 << 10
)

var (
	_ http.RoundTripper = (*counter)(nil)
	_ http.RoundTripper = (*attemptTimeout)(nil)
	_ http.RoundTripper = (*rateLimiter)(nil)
	_ http.RoundTripper = (*authTransport)(nil)
	_ http.RoundTripper = (*jwtTransport)(nil)
)

// counter counts every request that goes out on the wire, retries and token exchanges
// included: the ledger's "requests".
type counter struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// attemptTimeout bounds one attempt, answer body included, as http.Client.Timeout would; it
// sits under rateLimiter so that a rate-limit wait is not counted against it.
type attemptTimeout struct {
	next http.RoundTripper
	d    time.Duration
}

func (t *attemptTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.d)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// rateLimiter sends a rate-limited request again after the wait GitHub asks for: until
// x-ratelimit-reset for the primary limit, retry-after for a secondary one, else an
// exponential backoff from one minute. It sits under go-github, so every endpoint gets it, and
// it buffers request bodies so that a retried POST sends the same bytes. A wait longer than
// maxWait is not slept through: the response goes back up and becomes a *RateLimitError.
type rateLimiter struct {
	next    http.RoundTripper
	retries int
	maxWait time.Duration
	sleep   func(ctx context.Context, d time.Duration) error
	now     func() time.Time
}

func (t *rateLimiter) RoundTrip(req *http.Request) (*http.Response, error) {
	getBody, err := replayable(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	backoff := secondaryBackoff
	for attempt := 0; ; attempt++ {
		r := req
		if getBody != nil {
			body, err := getBody()
			if err != nil {
				return nil, fmt.Errorf("replay request body: %w", err)
			}
			r = req.Clone(ctx)
			r.Body, r.GetBody = body, getBody
		}
		resp, err := t.next.RoundTrip(r)
		if err != nil || attempt >= t.retries {
			return resp, err
		}
		wait, ok := t.wait(resp, &backoff)
		if !ok {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, sniffLimit))
		_ = resp.Body.Close()
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// wait reports whether resp is a rate limit worth waiting out, and for how long.
func (t *rateLimiter) wait(resp *http.Response, backoff *time.Duration) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusForbidden {
		return 0, false
	}
	var text string
	if resp.StatusCode == http.StatusForbidden && resp.Header.Get("Retry-After") == "" &&
		resp.Header.Get("X-Ratelimit-Remaining") != "0" {
		text = sniff(resp)
	}
	now := t.now()
	l := classify(resp, text, now)
	switch {
	case !l.limited:
		return 0, false
	case l.retryAfter > 0:
		return l.retryAfter, l.retryAfter <= t.maxWait
	case !l.reset.IsZero():
		// The reset is a whole second; a second more keeps the retry from landing just before it.
		d := max(l.reset.Sub(now)+time.Second, time.Second)
		return d, d <= t.maxWait
	default:
		d := min(*backoff, t.maxWait)
		*backoff *= 2
		return d, true
	}
}

// sniff reads the start of resp's body and puts it back, for a 403 whose headers do not say
// whether it is a rate limit.
func sniff(resp *http.Response) string {
	head, err := io.ReadAll(io.LimitReader(resp.Body, sniffLimit))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return ""
	}
	return string(head)
}

// replayable returns a function that yields a fresh copy of req's body, or nil when req has
// none. A body without GetBody is read into memory once; req itself is left as it was, apart
// from its body being consumed and closed, as a RoundTripper must.
func replayable(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		_ = req.Body.Close()
		return req.GetBody, nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("buffer request body: %w", err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, nil
}

// authTransport sets the Authorization header on requests to the API's origin only, so that
// a redirect elsewhere (a download URL) never carries the credential.
type authTransport struct {
	next  http.RoundTripper
	token func(ctx context.Context) (string, error)
	base  string // scheme://host[:port] of the API, lower case
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL.Scheme, req.URL.Host) != t.base {
		return t.next.RoundTrip(req)
	}
	tok, err := t.token(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &tokenError{err}
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.next.RoundTrip(r)
}

// origin normalises scheme and host for comparison: lower case, default ports dropped.
func origin(scheme, host string) string {
	scheme, host = strings.ToLower(scheme), strings.ToLower(host)
	switch {
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	}
	return scheme + "://" + host
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
