package cli

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

// A GitHub App's credentials reach git too: with GITHUB_APP_ID and its key, no installation id
// and no local clone, council finds the App's installation on the repository, clones the
// private repository with the installation's token and posts as the App.
func TestReviewPullRequestWithAppCredentialsClonesPrivateRepository(t *testing.T) {
	// The cached clone lives under the user cache directory, which only the environment moves.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	repo := demoRepo(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(t, githubtest.WithApp(77, 4242, &key.PublicKey))
	gh.SetRemote("acme", "inventory", repo)
	gh.AddPR("acme", "inventory", githubtest.PR{
		Number: 7, Title: "Reserve stock and export reports", Author: "dev", State: "open",
		BaseRef: "main", BaseSHA: strings.TrimSpace(git(t, repo, "rev-parse", "v1")),
		HeadRef: "feature", HeadSHA: strings.TrimSpace(git(t, repo, "rev-parse", "v2")),
	}, git(t, repo, "diff", "v1", "v2"), nil)
	gh.SetPrivate("acme", "inventory", true)
	ai := anthropicDemo(t)
	env := map[string]string{
		"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": ai.URL,
		"GITHUB_APP_ID": "77", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile, "GITHUB_API_URL": gh.URL,
	}

	r := council(t, env, "review", "--pr", "acme/inventory#7", "--post")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.err)
	}
	if got := gh.GitAuth("acme", "inventory"); len(got) == 0 || got[0] != githubtest.AppLogin {
		t.Errorf("git read the repository as %q, want the installation (%s)", got, githubtest.AppLogin)
	}
	if n := gh.Count("POST", "/repos/acme/inventory/pulls/7/reviews"); n == 0 {
		t.Errorf("no review posted; stderr:\n%s", r.err)
	}
	if strings.Contains(r.err, string(pemKey[40:80])) {
		t.Error("stderr shows the private key")
	}
}
