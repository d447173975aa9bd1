package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The error types below are what provider clients return for a failed call. Callers branch on
// them with errors.As; WithRetry uses Retryable. Every message names the provider and says what
// to do, and none may carry a secret: clients pass the API's own text through Redact first.

// RateLimitError is a 429: too many requests or tokens for the account's limits.
type RateLimitError struct {
	Provider   string
	RetryAfter time.Duration // 0 when the service did not say
	Msg        string        // the service's explanation, redacted
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("%s: rate limited (429): %s%s: retry later or lower the concurrency",
		e.Provider, orDash(e.Msg), retryHint(e.RetryAfter))
}

// OverloadedError is a service that is temporarily over capacity: Anthropic's 529
// overloaded_error, or a 503.
type OverloadedError struct {
	Provider   string
	Status     int
	RetryAfter time.Duration
	Msg        string
}

func (e *OverloadedError) Error() string {
	return fmt.Sprintf("%s: service overloaded (%d): %s%s: retry later",
		e.Provider, e.Status, orDash(e.Msg), retryHint(e.RetryAfter))
}

// AuthError is a 401 or 403: the key is missing, wrong, or lacks permission.
type AuthError struct {
	Provider string
	Status   int
	Msg      string
	// KeyEnv names where the key comes from (ANTHROPIC_API_KEY), for the message.
	KeyEnv string
}

func (e *AuthError) Error() string {
	what := "authentication failed"
	if e.Status == http.StatusForbidden {
		what = "permission denied"
	}
	hint := "check the API key"
	if e.KeyEnv != "" {
		hint = "check " + e.KeyEnv
	}
	return fmt.Sprintf("%s: %s (%d): %s: %s", e.Provider, what, e.Status, orDash(e.Msg), hint)
}

// BadRequestError is a request the service refuses as it is (400, 404, 413, 422): sending it
// again cannot succeed.
type BadRequestError struct {
	Provider string
	Status   int
	Type     string // the service's error type or code, when it gave one
	Msg      string
	Hint     string // what to do, when the client knows better than the status says
}

func (e *BadRequestError) Error() string {
	kind := e.Type
	if e.Status != 0 {
		kind = strings.TrimSpace(strconv.Itoa(e.Status) + " " + e.Type)
	}
	if kind == "" {
		kind = "not sent"
	}
	var hint string
	switch e.Status {
	case http.StatusNotFound:
		hint = "check the model name and the base URL"
	case http.StatusRequestEntityTooLarge:
		hint = "the prompt is too large: review fewer files at once"
	default:
		hint = "check the model and its options; not retried"
	}
	if e.Hint != "" {
		hint = e.Hint
	}
	return fmt.Sprintf("%s: request rejected (%s): %s: %s", e.Provider, kind, orDash(e.Msg), hint)
}

// QuotaError is an account that is out of credit or quota (OpenAI's 429 insufficient_quota):
// unlike a rate limit, waiting does not help.
type QuotaError struct {
	Provider string
	Msg      string
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("%s: quota exhausted: %s: check the account's plan and billing", e.Provider, orDash(e.Msg))
}

// ServerError is any other 5xx: the service failed, the request may succeed if sent again.
type ServerError struct {
	Provider   string
	Status     int
	RetryAfter time.Duration
	Msg        string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("%s: server error (%d): %s%s: retry later", e.Provider, e.Status, orDash(e.Msg), retryHint(e.RetryAfter))
}

// TimeoutError is one attempt that ran out of time while the caller's context was still
// live (a per-request timeout, a network timeout). The caller's own deadline or cancellation
// is never a TimeoutError: it is returned as the context's error.
type TimeoutError struct {
	Provider string
	Err      error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: request timed out: %v: retry, or raise the timeout", e.Provider, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// TransportError is a service that could not be reached or did not finish answering: refused
// or reset connections, DNS failures, TLS errors. Retryable tells which are worth retrying.
type TransportError struct {
	Provider string
	Err      error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("%s: cannot reach the service: %s: check the base URL and the network", e.Provider, Redact(e.Err.Error()))
}

func (e *TransportError) Unwrap() error { return e.Err }

// WrapTransport types an error a client got without an HTTP status: the attempt's own timeout
// becomes a TimeoutError, a network failure a TransportError, anything else (an answer that
// does not decode, say) is wrapped with the provider's name. The caller's cancellation must be
// handled before: its context.DeadlineExceeded would pass for the attempt's.
func WrapTransport(providerName string, err error) error {
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return &TimeoutError{Provider: providerName, Err: err}
	case errors.As(err, &urlErr), errors.As(err, &netErr):
		return &TransportError{Provider: providerName, Err: err}
	default:
		return fmt.Errorf("%s: %w", providerName, err)
	}
}

// Retryable reports whether err is worth sending again, and how long the service asked to wait
// (0 when it did not say). Cancellation and the caller's deadline are never retryable.
func Retryable(err error) (retryAfter time.Duration, ok bool) {
	if err == nil || errors.Is(err, context.Canceled) {
		return 0, false
	}
	var (
		rl *RateLimitError
		ov *OverloadedError
		se *ServerError
		te *TimeoutError
	)
	switch {
	case errors.As(err, &rl):
		return rl.RetryAfter, true
	case errors.As(err, &ov):
		return ov.RetryAfter, true
	case errors.As(err, &se):
		return se.RetryAfter, true
	case errors.As(err, &te):
		return 0, true
	case errors.Is(err, context.DeadlineExceeded):
		// context.DeadlineExceeded is also a net.Error with Timeout() true: test it first, it is
		// the caller's deadline unless a client said otherwise with a TimeoutError.
		return 0, false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return 0, true
	}
	// A connection the server dropped mid-answer; a refused connection is not retried, so that
	// a server that is not running fails fast.
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, true
	}
	return 0, false
}

// ParseRetryAfter reads how long a response asks the client to wait: retry-after-ms
// (milliseconds), else retry-after as seconds or as an HTTP date. It returns 0 when the headers
// say nothing usable.
func ParseRetryAfter(h http.Header) time.Duration {
	return parseRetryAfter(h, time.Now())
}

func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// keyShape matches API keys the way providers print them, whole or masked
// (sk-ant-api03-..., sk-proj-..., "sk-abc1*********wxyz").
var keyShape = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-*.]{4,}`)

// maxMessage bounds how much of a service's text goes into an error (a proxy may answer with a
// whole HTML page).
const maxMessage = 500

// Redact prepares a service's text for an error or a log: every occurrence of each non-empty
// secret and anything shaped like an API key is replaced, and the text is trimmed and cut to
// a readable length.
func Redact(text string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	text = strings.TrimSpace(keyShape.ReplaceAllString(text, "[redacted]"))
	if utf8.RuneCountInString(text) > maxMessage {
		text = string([]rune(text)[:maxMessage]) + "…"
	}
	return text
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func retryHint(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " (retry after " + d.String() + ")"
}
