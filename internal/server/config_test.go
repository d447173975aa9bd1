package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/provider"
)

// fullEnv is the environment of a server of role all that Finish accepts.
func fullEnv(more ...string) map[string]string {
	env := map[string]string{
		"GITHUB_APP_ID": "7", "GITHUB_APP_PRIVATE_KEY": "pem", "GITHUB_WEBHOOK_SECRET": "s",
		"ANTHROPIC_API_KEY": "k", "COUNCIL_DATA_DIR": "/data",
	}
	for i := 0; i+1 < len(more); i += 2 {
		if more[i+1] == "" {
			delete(env, more[i])
			continue
		}
		env[more[i]] = more[i+1]
	}
	return env
}

func TestLoadConfigFinish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // "" for none
		check   func(t *testing.T, c Config)
	}{
		{
			name: "defaults",
			env:  fullEnv(),
			check: func(t *testing.T, c Config) {
				got := []any{c.Addr, c.DatabaseURL, c.Role, c.Workers, c.InstallationConcurrency, c.MaxModelCalls, c.MaxAttempts, c.Layout,
					c.Duration("COUNCIL_SHUTDOWN_TIMEOUT"), c.Duration("COUNCIL_JOB_TIMEOUT"), c.Duration("COUNCIL_RESCUE_AFTER"),
					c.Duration("COUNCIL_POLL_INTERVAL"), c.Duration("COUNCIL_INSTALLATION_CLIENT_TTL"),
					c.Duration("COUNCIL_HEARTBEAT_INTERVAL"), c.Duration("COUNCIL_HEARTBEAT_TIMEOUT")}
				want := []any{":8080", "sqlite://./council.db", "all", 4, 2, 16, 5, "per-reviewer",
					5 * time.Minute, 30 * time.Minute, 35 * time.Minute, time.Second, 30 * time.Minute, 10 * time.Second, time.Minute}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("defaults (-want +got):\n%s", d)
				}
				// A server downloads no Go module unless told to, and its reviewers are told why.
				if why := (&Server{cfg: c}).noDownload(); c.DownloadModules || !strings.Contains(why, "COUNCIL_DOWNLOAD_MODULES=true") {
					t.Errorf("DownloadModules = %v, the reviewers are told %q", c.DownloadModules, why)
				}
			},
		},
		{
			name: "durations and numbers",
			env: fullEnv("COUNCIL_JOB_TIMEOUT", "90s", "COUNCIL_RESCUE_AFTER", "2m", "COUNCIL_POLL_INTERVAL", "50ms",
				"COUNCIL_WORKERS", " 8 ", "COUNCIL_MONTHLY_BUDGET_USD", "12.5", "COUNCIL_REVIEW_DRAFTS", "true", "GITHUB_APP_ID", "123",
				"COUNCIL_DOWNLOAD_MODULES", "true", "COUNCIL_HEARTBEAT_INTERVAL", "2s", "COUNCIL_HEARTBEAT_TIMEOUT", "8s"),
			check: func(t *testing.T, c Config) {
				got := []any{c.Duration("COUNCIL_JOB_TIMEOUT"), c.Duration("COUNCIL_RESCUE_AFTER"), c.Duration("COUNCIL_POLL_INTERVAL"),
					c.Workers, c.MonthlyBudgetUSD, c.ReviewDrafts, c.AppID, c.DownloadModules, (&Server{cfg: c}).noDownload(),
					c.Duration("COUNCIL_HEARTBEAT_INTERVAL"), c.Duration("COUNCIL_HEARTBEAT_TIMEOUT")}
				want := []any{90 * time.Second, 2 * time.Minute, 50 * time.Millisecond, 8, 12.5, true, int64(123), true, "", 2 * time.Second, 8 * time.Second}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			},
		},
		{
			name: "rescue after defaults to the job timeout and five minutes",
			env:  fullEnv("COUNCIL_JOB_TIMEOUT", "1h"),
			check: func(t *testing.T, c Config) {
				if got := c.Duration("COUNCIL_RESCUE_AFTER"); got != time.Hour+5*time.Minute {
					t.Errorf("COUNCIL_RESCUE_AFTER = %v", got)
				}
			},
		},
		{name: "not a whole number", env: fullEnv("COUNCIL_WORKERS", "four"), wantErr: `COUNCIL_WORKERS "four" is not a whole number`},
		{name: "not a number", env: fullEnv("COUNCIL_MONTHLY_BUDGET_USD", "$5"), wantErr: `COUNCIL_MONTHLY_BUDGET_USD "$5" is not a number`},
		{name: "not a bool", env: fullEnv("COUNCIL_REVIEW_DRAFTS", "yes please"), wantErr: `COUNCIL_REVIEW_DRAFTS "yes please" is not true or false`},
		{name: "negative workers", env: fullEnv("COUNCIL_WORKERS", "-1"), wantErr: "COUNCIL_WORKERS -1: must be at least 1"},
		{name: "negative budget", env: fullEnv("COUNCIL_MONTHLY_BUDGET_USD", "-1"), wantErr: "COUNCIL_MONTHLY_BUDGET_USD -1"},
		{name: "bad duration", env: fullEnv("COUNCIL_JOB_TIMEOUT", "ten minutes"), wantErr: `COUNCIL_JOB_TIMEOUT "ten minutes": not a duration`},
		{name: "negative duration", env: fullEnv("COUNCIL_SHUTDOWN_TIMEOUT", "-5s"), wantErr: `COUNCIL_SHUTDOWN_TIMEOUT "-5s": not a duration`},
		{
			name: "rescue after equal to the job timeout", env: fullEnv("COUNCIL_JOB_TIMEOUT", "10m", "COUNCIL_RESCUE_AFTER", "10m"),
			wantErr: "COUNCIL_RESCUE_AFTER must be longer than COUNCIL_JOB_TIMEOUT",
		},
		{
			name: "heartbeat timeout under four intervals", env: fullEnv("COUNCIL_HEARTBEAT_INTERVAL", "20s"),
			wantErr: "COUNCIL_HEARTBEAT_TIMEOUT must be at least four COUNCIL_HEARTBEAT_INTERVALs",
		},
		{
			name: "heartbeat interval of 0", env: fullEnv("COUNCIL_HEARTBEAT_INTERVAL", "0s"),
			wantErr: "COUNCIL_HEARTBEAT_TIMEOUT must be at least four COUNCIL_HEARTBEAT_INTERVALs, and the interval above 0",
		},
		{
			name: "rescue after shorter than the job timeout", env: fullEnv("COUNCIL_JOB_TIMEOUT", "10m", "COUNCIL_RESCUE_AFTER", "5m"),
			wantErr: "COUNCIL_RESCUE_AFTER must be longer than COUNCIL_JOB_TIMEOUT",
		},
		{name: "bad role", env: fullEnv("COUNCIL_ROLE", "nope"), wantErr: "must be one of all, web, worker"},
		{name: "bad layout", env: fullEnv("COUNCIL_LAYOUT", "flat"), wantErr: "must be per-reviewer or consolidated"},
		{name: "bad OpenAI API", env: fullEnv("COUNCIL_OPENAI_API", "completions"), wantErr: `COUNCIL_OPENAI_API "completions": must be one of responses, chat`},
		{name: "bad provider", env: fullEnv("COUNCIL_PROVIDER", "gemini"), wantErr: "must be anthropic or openai"},
		{name: "no webhook secret", env: fullEnv("GITHUB_WEBHOOK_SECRET", ""), wantErr: "GITHUB_WEBHOOK_SECRET is not set"},
		{name: "no app id", env: fullEnv("GITHUB_APP_ID", ""), wantErr: "GITHUB_APP_ID is not set"},
		{name: "no key", env: fullEnv("GITHUB_APP_PRIVATE_KEY", ""), wantErr: "GITHUB_APP_PRIVATE_KEY_FILE"},
		{name: "no model provider", env: fullEnv("ANTHROPIC_API_KEY", ""), wantErr: "no model provider"},
		{name: "bad API URL", env: fullEnv("GITHUB_API_URL", "ghe.example.com"), wantErr: "GITHUB_API_URL"},
		{
			name: "web needs only the secret",
			env:  map[string]string{"COUNCIL_ROLE": "web", "GITHUB_WEBHOOK_SECRET": "s", "COUNCIL_DATA_DIR": "/data"},
			check: func(t *testing.T, c Config) {
				if c.Role != "web" {
					t.Errorf("role %q", c.Role)
				}
			},
		},
		{name: "web without the secret", env: map[string]string{"COUNCIL_ROLE": "web", "COUNCIL_DATA_DIR": "/data"}, wantErr: "GITHUB_WEBHOOK_SECRET is not set"},
		{
			name: "worker needs no webhook secret",
			env:  fullEnv("COUNCIL_ROLE", "worker", "GITHUB_WEBHOOK_SECRET", ""),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadConfig("", func(k string) string { return tt.env[k] })
			if err == nil {
				err = c.Finish()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error; want one containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q; want one containing %q", err, tt.wantErr)
			}
			if err == nil && tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestLoadConfigFile(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, text string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "council-server.yaml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("environment over file", func(t *testing.T) {
		t.Parallel()
		p := write(t, "COUNCIL_WORKERS: 3\nCOUNCIL_LAYOUT: consolidated\nCOUNCIL_ADDR: \":9000\"\n")
		c, err := LoadConfig(p, func(k string) string { return map[string]string{"COUNCIL_WORKERS": "6"}[k] })
		if err != nil {
			t.Fatal(err)
		}
		if c.Workers != 6 || c.Layout != "consolidated" || c.Addr != ":9000" {
			t.Errorf("workers %d, layout %q, addr %q", c.Workers, c.Layout, c.Addr)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		t.Parallel()
		p := write(t, "COUNCIL_WORKERS: 3\nCOUNCIL_WORKER: 2\n")
		_, err := LoadConfig(p, func(string) string { return "" })
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Line != 2 || ce.Key != "COUNCIL_WORKER" {
			t.Fatalf("error %v (%#v); want a config.Error at line 2 naming COUNCIL_WORKER", err, ce)
		}
		if !strings.Contains(err.Error(), p+":2") {
			t.Errorf("error %q does not name %s:2", err, p)
		}
	})
	t.Run("wrong type", func(t *testing.T) {
		t.Parallel()
		p := write(t, "COUNCIL_WORKERS: many\n")
		if _, err := LoadConfig(p, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), p+":1") {
			t.Fatalf("error %v; want one at %s:1", err, p)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		if _, err := LoadConfig(filepath.Join(t.TempDir(), "none.yaml"), func(string) string { return "" }); err == nil {
			t.Fatal("no error for a missing config file")
		}
	})
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		err       error
		kind      string
		service   string
		permanent bool
		wait      func(time.Duration) bool
	}{
		{
			name: "GitHub secondary rate limit with retry-after",
			err:  fmt.Errorf("post review: %w", &github.RateLimitError{Status: 403, Secondary: true, RetryAfter: 3 * time.Minute}),
			kind: "rate_limited", service: "github", wait: func(d time.Duration) bool { return d == 3*time.Minute },
		},
		{
			name: "GitHub rate limit with a short retry-after waits a minute",
			err:  &github.RateLimitError{Status: 429, RetryAfter: time.Second},
			kind: "rate_limited", service: "github", wait: func(d time.Duration) bool { return d == time.Minute },
		},
		{
			name: "GitHub primary rate limit until its reset",
			err:  &github.RateLimitError{Status: 403, Reset: time.Now().Add(10 * time.Minute)},
			kind: "rate_limited", service: "github", wait: func(d time.Duration) bool { return d > 9*time.Minute && d <= 10*time.Minute },
		},
		{
			name: "GitHub rate limit whose reset passed",
			err:  &github.RateLimitError{Status: 403, Reset: time.Now().Add(-time.Hour)},
			kind: "rate_limited", service: "github", wait: func(d time.Duration) bool { return d >= time.Minute },
		},
		{name: "GitHub 401", err: fmt.Errorf("read: %w", &github.APIError{Status: 401}), kind: "auth", service: "github", permanent: true},
		{name: "GitHub 403", err: &github.APIError{Status: 403}, kind: "auth", service: "github", permanent: true},
		{name: "GitHub 404", err: &github.APIError{Status: 404}, kind: "not_found", service: "github", permanent: true},
		{name: "GitHub 422", err: &github.APIError{Status: 422}, kind: "unprocessable", service: "github"},
		{name: "GitHub 502", err: &github.APIError{Status: 502}, kind: "server", service: "github"},
		{
			name: "provider rate limit",
			err:  fmt.Errorf("every reviewer failed: %w", &provider.RateLimitError{Provider: "anthropic", RetryAfter: 30 * time.Second}),
			kind: "rate_limited", service: "provider", wait: func(d time.Duration) bool { return d == 30*time.Second },
		},
		{
			name: "provider overloaded",
			err:  &provider.OverloadedError{Provider: "anthropic", Status: 529, RetryAfter: 5 * time.Second},
			kind: "overloaded", service: "provider", wait: func(d time.Duration) bool { return d == 5*time.Second },
		},
		{name: "provider auth", err: &provider.AuthError{Provider: "anthropic", Status: 401}, kind: "auth", service: "provider", permanent: true},
		{name: "provider bad request", err: &provider.BadRequestError{Provider: "openai", Status: 400}, kind: "bad_request", service: "provider", permanent: true},
		{name: "provider quota", err: &provider.QuotaError{Provider: "openai"}, kind: "quota", service: "provider", permanent: true},
		{name: "provider 500", err: &provider.ServerError{Provider: "openai", Status: 500}, kind: "server", service: "provider"},
		{name: "provider timeout", err: &provider.TimeoutError{Provider: "openai", Err: context.DeadlineExceeded}, kind: "timeout", service: "provider"},
		{name: "provider transport", err: &provider.TransportError{Provider: "openai", Err: errors.New("refused")}, kind: "transport", service: "provider"},
		{
			name: "repository config",
			err:  fmt.Errorf("open session: %w", &config.Error{File: ".council.yaml", Line: 3, Key: "model", Msg: "bad"}),
			kind: "config", service: "council", permanent: true,
		},
		{name: "cancelled", err: fmt.Errorf("review: %w", context.Canceled), kind: "cancelled", service: "council"},
		{name: "plain", err: errors.New("git fetch: exit status 128"), kind: "other", service: "council"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, service, permanent, wait := classify(tt.err)
			if kind != tt.kind || service != tt.service || permanent != tt.permanent {
				t.Errorf("classify = %s, %s, permanent %v; want %s, %s, permanent %v", kind, service, permanent, tt.kind, tt.service, tt.permanent)
			}
			if tt.wait == nil {
				if wait != 0 {
					t.Errorf("wait %v; want none", wait)
				}
			} else if !tt.wait(wait) {
				t.Errorf("wait %v", wait)
			}
		})
	}
}

// Every setting is in docs/server.md's table, under its name.
func TestSettingsAreDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/server.md")
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		name := typ.Field(i).Tag.Get("yaml")
		if name == "" || name == "-" {
			continue
		}
		if !strings.Contains(string(doc), "\n| `"+name+"` |") {
			t.Errorf("%s is not in docs/server.md's settings table", name)
		}
	}
}
