package github_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestNewOptions(t *testing.T) {
	t.Parallel()
	key := []byte("-----BEGIN RSA PRIVATE KEY-----\nTUlJQ2Vj...notakey\n-----END RSA PRIVATE KEY-----\n")
	tests := []struct {
		name     string
		opts     github.Options
		want     []string // substrings of the error
		notWant  []string
		succeeds bool
	}{
		{name: "token", opts: github.Options{Token: "t0k"}, succeeds: true},
		{
			name: "no credentials",
			want: []string{"GITHUB_TOKEN", "GH_TOKEN", "app id", "installation id", "private key"},
		},
		{
			name: "both",
			opts: github.Options{Token: "t0k", AppID: 1, InstallationID: 2, PrivateKey: key},
			want: []string{"not both"}, notWant: []string{"t0k"},
		},
		{
			name: "app without installation",
			opts: github.Options{AppID: 1, PrivateKey: key},
			want: []string{"installation id"},
		},
		{
			name: "app key is not a key",
			opts: github.Options{AppID: 1, InstallationID: 2, PrivateKey: key},
			want: []string{"private key"}, notWant: []string{"notakey", "TUlJ"},
		},
		{
			name: "bad base URL",
			opts: github.Options{Token: "t0k", BaseURL: "ftp://example.com"},
			want: []string{"base URL"},
		},
		{
			name: "credentials in the base URL",
			opts: github.Options{Token: "t0k", BaseURL: "https://ghp_inTheURL0000000000@ghe.example.com/api/v3"},
			want: []string{"without credentials"}, notWant: []string{"ghp_"},
		},
		{
			name: "enterprise base URL",
			opts: github.Options{Token: "t0k", BaseURL: "https://ghe.example.com/api/v3"}, succeeds: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := github.New(tt.opts)
			if tt.succeeds {
				if err != nil {
					t.Fatal(err)
				}
				if tt.opts.BaseURL != "" && c.BaseURL() != tt.opts.BaseURL+"/" {
					t.Errorf("BaseURL() = %q", c.BaseURL())
				}
				return
			}
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to mention %q", err, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("err = %q leaks %q", err, w)
				}
			}
		})
	}
}

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		token  string
		call   func(context.Context, *github.Client) error
		status int
		want   []string
	}{
		{
			name:  "unknown token",
			token: "ghp_notARealTokenAtAll000000000000000",
			call: func(ctx context.Context, c *github.Client) error {
				_, err := c.PullRequest(ctx, owner, repo, prNum)
				return err
			},
			status: 401,
			want:   []string{"Bad credentials", "GITHUB_TOKEN or GH_TOKEN"},
		},
		{
			name:  "review without pull_requests:write",
			token: readToken,
			call: func(ctx context.Context, c *github.Client) error {
				_, err := c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{Body: "hi"})
				return err
			},
			status: 403,
			want:   []string{"Resource not accessible by integration", "the token lacks pull_requests:write", "permissions: pull-requests: write", "fork"},
		},
		{
			name:  "comment without issues:write",
			token: readToken,
			call: func(ctx context.Context, c *github.Client) error {
				_, err := c.CreateIssueComment(ctx, owner, repo, prNum, "hi")
				return err
			},
			status: 403,
			want:   []string{"issues:write or pull_requests:write", "permissions: issues: write"},
		},
		{
			name:  "check run without checks:write",
			token: readToken,
			call: func(ctx context.Context, c *github.Client) error {
				_, err := c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "council", HeadSHA: headSHA})
				return err
			},
			status: 403,
			want:   []string{"checks:write", "permissions: checks: write", "GitHub App installation token"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			c := b.client(t, github.Options{Token: tt.token})
			err := tt.call(context.Background(), c)
			if !github.IsAuth(err) || github.IsRateLimited(err) {
				t.Fatalf("err = %v, want an auth error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), tt.token) {
				t.Errorf("err = %q leaks the token", err)
			}
			if n := b.srv.Requests(); n != 1 {
				t.Errorf("%d requests, want 1: an auth error is not retried", n)
			}
		})
	}
}

func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// A proxy that echoes what it got must not put the token into our error.
	b.srv.FailNext(500, nil, `{"message":"upstream said: Authorization: Bearer `+writeToken+` and ghs_someOtherInstallationToken123"}`)
	_, err := b.c.PullRequest(context.Background(), owner, repo, prNum)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), writeToken) || strings.Contains(err.Error(), "ghs_someOther") {
		t.Errorf("err = %q leaks a token", err)
	}
	if !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("err = %q, want the token replaced", err)
	}
}

// clock is a settable clock shared by the client and the fake.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func rsaKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return key, pemKey
}

func TestAppAuth(t *testing.T) {
	t.Parallel()
	key, pemKey := rsaKey(t)
	const appID, installation = 4242, 77
	tokenPath := "/app/installations/77/access_tokens"

	t.Run("token cached until five minutes before expiry", func(t *testing.T) {
		t.Parallel()
		clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
		b := setup(t, githubtest.WithApp(appID, installation, &key.PublicKey), githubtest.WithClock(clk.now))
		c := b.client(t, github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey, Now: clk.now})
		ctx := context.Background()
		steps := []struct {
			advance    time.Duration
			wantTokens int
		}{
			{0, 1},                // first call: exchange
			{10 * time.Minute, 1}, // well within validity: cached
			{44 * time.Minute, 1}, // 54 minutes in: 6 minutes left, still cached
			{2 * time.Minute, 2},  // 56 minutes in: within 5 minutes of expiry, replaced
			{5 * time.Minute, 2},  // the new token is fresh
		}
		for i, s := range steps {
			clk.advance(s.advance)
			pr, err := c.PullRequest(ctx, owner, repo, prNum)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if pr.HeadSHA != headSHA {
				t.Fatalf("step %d: head %q", i, pr.HeadSHA)
			}
			if got := b.srv.Count("POST", tokenPath); got != s.wantTokens {
				t.Errorf("step %d: %d token requests, want %d", i, got, s.wantTokens)
			}
		}
		// Five API calls and two exchanges, every one counted.
		if c.Requests() != 7 {
			t.Errorf("Requests() = %d, want 7", c.Requests())
		}
		// An installation token may write: the app's review carries its bot login.
		rv, err := c.CreateReview(ctx, owner, repo, prNum, github.ReviewRequest{Body: "from the app"})
		if err != nil {
			t.Fatal(err)
		}
		if rv.User != githubtest.AppLogin {
			t.Errorf("review by %q, want %q", rv.User, githubtest.AppLogin)
		}
	})

	t.Run("concurrent callers share one exchange", func(t *testing.T) {
		t.Parallel()
		b := setup(t, githubtest.WithApp(appID, installation, &key.PublicKey))
		c := b.client(t, github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := c.PullRequest(context.Background(), owner, repo, prNum); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got := b.srv.Count("POST", tokenPath); got != 1 {
			t.Errorf("%d token requests for 8 concurrent calls, want 1", got)
		}
	})

	t.Run("base64-encoded key", func(t *testing.T) {
		t.Parallel()
		b := setup(t, githubtest.WithApp(appID, installation, &key.PublicKey))
		enc := []byte(base64.StdEncoding.EncodeToString(pemKey))
		c := b.client(t, github.Options{AppID: appID, InstallationID: installation, PrivateKey: enc})
		if _, err := c.PullRequest(context.Background(), owner, repo, prNum); err != nil {
			t.Fatal(err)
		}
	})

	refusals := []struct {
		name           string
		appID, install int64
		wrongKey       bool
		skew           time.Duration // the client's clock minus the fake's
		want           []string
	}{
		{name: "key of another app", appID: appID, install: installation, wrongKey: true, want: []string{"401", "A JSON web token could not be decoded", "check the app id, the private key"}},
		{name: "wrong app id", appID: 1, install: installation, want: []string{"401", "Integration not found"}},
		{name: "wrong installation", appID: appID, install: 78, want: []string{"404", "no such installation"}},
		{name: "clock an hour slow", appID: appID, install: installation, skew: -time.Hour, want: []string{"401", "'exp'", "clock"}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, githubtest.WithApp(appID, installation, &key.PublicKey))
			signWith := pemKey
			if tt.wrongKey {
				_, signWith = rsaKey(t)
			}
			now := func() time.Time { return time.Now().Add(tt.skew) }
			c := b.client(t, github.Options{AppID: tt.appID, InstallationID: tt.install, PrivateKey: signWith, Now: now})
			_, err := c.PullRequest(context.Background(), owner, repo, prNum)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to say %q", err, w)
				}
			}
			for _, leak := range []string{"eyJ", "PRIVATE KEY", "ghs_"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("err = %q leaks %q", err, leak)
				}
			}
			if got := b.srv.Count("GET", "/repos/acme/widget/pulls/7"); got != 0 {
				t.Errorf("the API was called %d times without a token", got)
			}
		})
	}
}
