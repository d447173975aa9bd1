package github_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestGitToken(t *testing.T) {
	t.Parallel()
	key, pemKey := rsaKey(t)
	const appID, installation = 4242, 77
	tokenPath := "/app/installations/77/access_tokens"

	t.Run("a token is itself", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		got, err := b.c.GitToken(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got != writeToken {
			t.Errorf("GitToken is not the client's token")
		}
		if b.srv.Requests() != 0 {
			t.Errorf("%d requests for a token the client holds", b.srv.Requests())
		}
	})

	t.Run("an app's installation token, shared with the API calls", func(t *testing.T) {
		t.Parallel()
		clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
		b := setup(t, githubtest.WithApp(appID, installation, &key.PublicKey), githubtest.WithClock(clk.now))
		c := b.client(t, github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey, Now: clk.now})
		ctx := context.Background()
		first, err := c.GitToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(first, "ghs_") {
			t.Errorf("GitToken is not an installation token")
		}
		if _, err := c.PullRequest(ctx, owner, repo, prNum); err != nil {
			t.Fatal(err)
		}
		if again, _ := c.GitToken(ctx); again != first {
			t.Errorf("GitToken minted a second token while the first was valid")
		}
		if n := b.srv.Count("POST", tokenPath); n != 1 {
			t.Errorf("%d token exchanges, want 1", n)
		}
		clk.advance(56 * time.Minute) // within five minutes of expiry: replaced
		next, err := c.GitToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next == first || b.srv.Count("POST", tokenPath) != 2 {
			t.Errorf("a token about to expire was not replaced (%d exchanges)", b.srv.Count("POST", tokenPath))
		}
	})

	t.Run("a refused exchange", func(t *testing.T) {
		t.Parallel()
		b := setup(t, githubtest.WithApp(appID, installation+1, &key.PublicKey))
		c := b.client(t, github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey})
		_, err := c.GitToken(context.Background())
		if err == nil || !strings.Contains(err.Error(), "404") {
			t.Fatalf("GitToken: %v, want the exchange's 404", err)
		}
	})
}

func TestInstallationFor(t *testing.T) {
	t.Parallel()
	key, pemKey := rsaKey(t)
	const appID, installation = 4242, 77
	tests := []struct {
		name     string
		opts     []githubtest.Option
		o        github.Options
		want     int64
		wantErr  []string
		notFound bool
		requests int
	}{
		{name: "installed", o: github.Options{AppID: appID, PrivateKey: pemKey}, want: installation, requests: 1},
		{
			name:    "not installed on the repository",
			opts:    []githubtest.Option{githubtest.WithAppInstallation(nil, "acme/other")},
			o:       github.Options{AppID: appID, PrivateKey: pemKey},
			wantErr: []string{"GitHub App 4242 is not installed on acme/widget", "install the app"}, notFound: true, requests: 1,
		},
		{name: "installation already known", o: github.Options{AppID: appID, PrivateKey: pemKey, InstallationID: 9}, want: 9},
		{name: "another app's id", o: github.Options{AppID: 1, PrivateKey: pemKey}, wantErr: []string{"401", "Integration not found"}, requests: 1},
		{name: "a token is not an app", o: github.Options{Token: writeToken}, wantErr: []string{"needs the app's credentials"}},
		{name: "no key", o: github.Options{AppID: appID}, wantErr: []string{"private key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, append([]githubtest.Option{githubtest.WithApp(appID, installation, &key.PublicKey)}, tt.opts...)...)
			tt.o.BaseURL = b.srv.URL
			got, err := github.InstallationFor(context.Background(), tt.o, owner, repo)
			if n := b.srv.Requests(); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if b.srv.Count("POST", "/app/installations/77/access_tokens") != 0 {
				t.Errorf("InstallationFor minted an installation token")
			}
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("InstallationFor = %d, want an error", got)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				var ae *github.APIError
				if tt.notFound && (!github.IsNotFound(err) || !errors.As(err, &ae)) {
					t.Errorf("error %v is not a 404 *APIError", err)
				}
				if strings.Contains(err.Error(), "PRIVATE KEY") {
					t.Errorf("the error shows the key")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("InstallationFor = %d, want %d", got, tt.want)
			}
		})
	}
}
