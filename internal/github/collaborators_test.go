package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

func TestPermission(t *testing.T) {
	t.Parallel()
	key, pemKey := rsaKey(t)
	const appID, installation = 4242, 77
	tests := []struct {
		name    string
		private bool
		opts    []githubtest.Option
		client  github.Options // the write token when empty
		login   string
		want    string
		wantErr []string // substrings of the error
	}{
		{name: "admin", login: "alice", want: "admin"},
		{name: "maintain counts as write", login: "mo", want: "write"},
		{name: "write", login: "wendy", want: "write"},
		{name: "triage counts as read", login: "tri", want: "read"},
		{name: "no role on a public repository reads", login: "stranger", want: "read"},
		{name: "no role on a private repository", private: true, login: "stranger", want: "none"},
		{name: "explicit none on a private repository", private: true, login: "gone", want: "none"},
		{name: "a token's user has its role", login: githubtest.DefaultLogin, want: "admin"},
		{name: "a bot is never a collaborator", login: "dependabot[bot]", want: "none"},
		{
			name:   "an installation asks with metadata:read",
			opts:   []githubtest.Option{githubtest.WithApp(appID, installation, &key.PublicKey)},
			client: github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey},
			login:  "wendy", want: "write",
		},
		{
			name:   "a user without push access may not ask",
			opts:   []githubtest.Option{githubtest.WithUser("tok-reader", "reader"), githubtest.WithRole("tok-reader", "pull")},
			client: github.Options{Token: "tok-reader"}, login: "alice",
			wantErr: []string{"403", "Must have push access"},
		},
		{
			name:   "an installation that does not cover the repository",
			opts:   []githubtest.Option{githubtest.WithApp(appID, installation, &key.PublicKey), githubtest.WithAppInstallation(nil, "acme/other")},
			client: github.Options{AppID: appID, InstallationID: installation, PrivateKey: pemKey},
			login:  "alice", wantErr: []string{"404"},
		},
		{name: "not a user name", login: "../x", wantErr: []string{"not a GitHub user name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.opts...)
			b.srv.SetPrivate(owner, repo, tt.private)
			for login, role := range map[string]string{"alice": "admin", "mo": "maintain", "wendy": "write", "tri": "triage", "gone": "none"} {
				b.srv.SetCollaborator(owner, repo, login, role)
			}
			c := b.c
			if tt.client.Token != "" || tt.client.AppID != 0 {
				c = b.client(t, tt.client)
			}
			got, err := c.Permission(context.Background(), owner, repo, tt.login)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Permission = %q, want an error", got)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Permission = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCanWrite(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "": false} {
		if got := github.CanWrite(p); got != want {
			t.Errorf("CanWrite(%q) = %v, want %v", p, got, want)
		}
	}
}
