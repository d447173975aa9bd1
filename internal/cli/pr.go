package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/prflow"
	"github.com/council-dev/council/internal/source"
)

// The pull request flow lives in internal/prflow, shared with the server's workers; these
// names stay for the CLI's own use.
const (
	summaryMarker = prflow.SummaryMarker
	addressedNote = prflow.AddressedNote
)

func short(sha string) string { return prflow.Short(sha) }

func cloneCache(name string) (string, error) { return prflow.CloneCache(name) }

func webRoot(apiBase string) (string, error) { return prflow.WebRoot(apiBase) }

// githubOptions reads GITHUB_TOKEN / GH_TOKEN, or a GitHub App's id and key (and, when set,
// its installation: githubClient finds it from the repository otherwise).
func githubOptions(getenv func(string) string) (github.Options, error) {
	o := github.Options{BaseURL: getenv("GITHUB_API_URL")}
	o.Token = getenv("GITHUB_TOKEN")
	if o.Token == "" {
		o.Token = getenv("GH_TOKEN")
	}
	if o.Token != "" {
		return o, nil
	}
	appID, inst := getenv("GITHUB_APP_ID"), getenv("GITHUB_APP_INSTALLATION_ID")
	key := getenv("GITHUB_APP_PRIVATE_KEY")
	if file := getenv("GITHUB_APP_PRIVATE_KEY_FILE"); key == "" && file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return o, fmt.Errorf("read GITHUB_APP_PRIVATE_KEY_FILE: %w", err)
		}
		key = string(data)
	}
	if appID == "" && inst == "" && key == "" {
		return o, errors.New("no GitHub credentials: set GITHUB_TOKEN (or GH_TOKEN), or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (or GITHUB_APP_PRIVATE_KEY_FILE), with GITHUB_APP_INSTALLATION_ID unless the command names the repository")
	}
	var err error
	if o.AppID, err = strconv.ParseInt(appID, 10, 64); err != nil {
		return o, fmt.Errorf("GITHUB_APP_ID %q is not a number", appID)
	}
	if inst != "" {
		if o.InstallationID, err = strconv.ParseInt(inst, 10, 64); err != nil {
			return o, fmt.Errorf("GITHUB_APP_INSTALLATION_ID %q is not a number", inst)
		}
	}
	if key == "" {
		return o, errors.New("GITHUB_APP_ID is set without its key: set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE")
	}
	o.PrivateKey = []byte(key)
	return o, nil
}

// githubClient is the client for owner/repo: with a GitHub App's credentials and no
// GITHUB_APP_INSTALLATION_ID, the App's installation on that repository ("" for none known:
// then the installation id is required).
func githubClient(ctx context.Context, getenv func(string) string, owner, repo string) (*github.Client, error) {
	opts, err := githubOptions(getenv)
	if err != nil {
		return nil, err
	}
	if opts.Token == "" && opts.InstallationID == 0 && owner != "" && repo != "" {
		if opts.InstallationID, err = github.InstallationFor(ctx, opts, owner, repo); err != nil {
			return nil, err
		}
	}
	gh, err := github.New(opts)
	if err != nil {
		return nil, fmt.Errorf("GitHub: %w", err)
	}
	return gh, nil
}

// gitCredential is what git sends to the GitHub the API at apiBase belongs to: the token as a
// header scoped to that host. With a GitHub App's credentials it is the installation's token,
// which needs a request: see gitCredentialFor. Empty without a token.
func gitCredential(getenv func(string) string, apiBase string) source.Credential {
	opts, err := githubOptions(getenv)
	if err != nil || opts.Token == "" {
		return source.Credential{}
	}
	return prflow.Credential(apiBase, opts.Token)
}

// gitCredentialFor is the credential git sends for gh's repositories: its token, or its
// installation's token for a GitHub App.
func gitCredentialFor(ctx context.Context, gh *github.Client) (source.Credential, error) {
	cred, err := prflow.GitCredential(ctx, gh)
	if err != nil {
		return source.Credential{}, fmt.Errorf("get a token for git: %w", err)
	}
	return cred, nil
}
