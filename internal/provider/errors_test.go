package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		err       error
		wantAfter time.Duration
		wantOK    bool
	}{
		{"nil", nil, 0, false},
		{"rate limit", &RateLimitError{Provider: "p", RetryAfter: 3 * time.Second}, 3 * time.Second, true},
		{"wrapped rate limit", fmt.Errorf("review: %w", &RateLimitError{RetryAfter: time.Second}), time.Second, true},
		{"overloaded", &OverloadedError{Status: 529, RetryAfter: 5 * time.Second}, 5 * time.Second, true},
		{"server error", &ServerError{Status: 502}, 0, true},
		{"attempt timeout", &TimeoutError{Provider: "p", Err: context.DeadlineExceeded}, 0, true},
		{"net timeout", &url.Error{Op: "Post", URL: "http://x", Err: timeoutErr{}}, 0, true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), 0, true},
		{"truncated body", io.ErrUnexpectedEOF, 0, true},
		{"auth", &AuthError{Status: 401}, 0, false},
		{"bad request", &BadRequestError{Status: 400}, 0, false},
		{"quota", &QuotaError{}, 0, false},
		{"canceled", fmt.Errorf("p: %w", context.Canceled), 0, false},
		{"caller deadline", fmt.Errorf("p: %w", context.DeadlineExceeded), 0, false},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), 0, false},
		{"other", errors.New("boom"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			after, ok := Retryable(tt.err)
			if after != tt.wantAfter || ok != tt.wantOK {
				t.Errorf("Retryable = (%v, %v), want (%v, %v)", after, ok, tt.wantAfter, tt.wantOK)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "20"}, 20 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "20"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"bad milliseconds fall back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := parseRetryAfter(h, now); got != tt.want {
				t.Errorf("parseRetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{
			&AuthError{Provider: "anthropic", Status: 401, Msg: "authentication_error: invalid x-api-key", KeyEnv: "ANTHROPIC_API_KEY"},
			"anthropic: authentication failed (401): authentication_error: invalid x-api-key: check ANTHROPIC_API_KEY",
		},
		{
			&AuthError{Provider: "openai", Status: 403, Msg: "no access"},
			"openai: permission denied (403): no access: check the API key",
		},
		{
			&RateLimitError{Provider: "anthropic", RetryAfter: 20 * time.Second, Msg: "rate_limit_error: slow down"},
			"anthropic: rate limited (429): rate_limit_error: slow down (retry after 20s): retry later or lower the concurrency",
		},
		{
			&OverloadedError{Provider: "anthropic", Status: 529, Msg: "overloaded_error: Overloaded"},
			"anthropic: service overloaded (529): overloaded_error: Overloaded: retry later",
		},
		{
			&BadRequestError{Provider: "openai", Status: 404, Type: "model_not_found", Msg: "no such model"},
			"openai: request rejected (404 model_not_found): no such model: check the model name and the base URL",
		},
		{
			&BadRequestError{Provider: "anthropic", Msg: "message 0: unknown role"},
			"anthropic: request rejected (not sent): message 0: unknown role: check the model and its options; not retried",
		},
		{
			&ServerError{Provider: "openai", Status: 500},
			"openai: server error (500): -: retry later",
		},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("message:\n got %q\nwant %q", got, tt.want)
		}
	}
}

func TestWrapTransport(t *testing.T) {
	t.Parallel()
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/messages", Err: syscall.ECONNREFUSED}
	reset := &url.Error{Op: "Post", URL: "http://h/v1/messages", Err: syscall.ECONNRESET}
	tests := []struct {
		name      string
		err       error
		check     func(error) bool
		retryable bool
	}{
		{"attempt deadline", context.DeadlineExceeded, isType[*TimeoutError], true},
		{"net timeout", &url.Error{Op: "Post", URL: "http://h", Err: timeoutErr{}}, isType[*TimeoutError], true},
		{"refused", refused, isType[*TransportError], false},
		{"reset", reset, isType[*TransportError], true},
		{"other", errors.New("invalid character '<' looking for beginning of value"), func(err error) bool {
			return strings.HasPrefix(err.Error(), "p: invalid character")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := WrapTransport("p", tt.err)
			if !tt.check(got) || !errors.Is(got, tt.err) {
				t.Errorf("WrapTransport = %#v (%v)", got, got)
			}
			if _, ok := Retryable(got); ok != tt.retryable {
				t.Errorf("Retryable = %v, want %v", ok, tt.retryable)
			}
		})
	}
	msg := WrapTransport("ollama", refused).Error()
	if !strings.HasPrefix(msg, "ollama: cannot reach the service: ") || !strings.HasSuffix(msg, "check the base URL and the network") {
		t.Errorf("message = %q", msg)
	}
}

func isType[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		secrets []string
		want    string
	}{
		{"exact secret", "bad key abc123xyz!", []string{"abc123xyz"}, "bad key [redacted]!"},
		{"empty secret ignored", "nothing here", []string{""}, "nothing here"},
		{"anthropic key shape", "key sk-ant-api03-AbC_dEf-123 refused", nil, "key [redacted] refused"},
		{"masked openai key", "Incorrect API key provided: sk-proj-**********wxyz. You can", nil, "Incorrect API key provided: [redacted] You can"},
		{"long text cut", strings.Repeat("a", 600), nil, strings.Repeat("a", 500) + "…"},
		{"trimmed", "  <html>\n", nil, "<html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Redact(tt.text, tt.secrets...); got != tt.want {
				t.Errorf("Redact = %q, want %q", got, tt.want)
			}
		})
	}
}
