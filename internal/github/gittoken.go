package github

import (
	"context"
	"errors"
	"fmt"
)

// GitToken is the token git should send to this GitHub (as the password of
// "x-access-token", https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/authenticating-as-a-github-app-installation#about-authentication-as-a-github-app-installation):
// the personal or workflow token, or with GitHub App credentials a valid installation token,
// from the cache the API calls share or newly minted. An installation token lives an hour:
// ask again for each git command rather than keeping it. It is a secret; the caller must keep
// it out of command lines, logs and errors.
func (c *Client) GitToken(ctx context.Context) (string, error) {
	if c.app != nil {
		tok, err := c.app.get(ctx)
		if err != nil {
			return "", fmt.Errorf("get a token for git: %w", err)
		}
		return tok, nil
	}
	// A token client's only secret is its token.
	if s := c.secrets(); len(s) == 1 && s[0] != "" {
		return s[0], nil
	}
	return "", errors.New("github: the client holds no token for git")
}

// InstallationFor finds the installation of the GitHub App o describes (AppID and
// PrivateKey; InstallationID is not needed) that covers owner/repo, asking
// GET /repos/{owner}/{repo}/installation with the app's JWT
// (https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app).
// Call it before New when only the app is configured, and set the id it returns as
// o.InstallationID. When o.InstallationID is already set it is returned without a request.
// An app that is not installed on the repository is an *APIError with status 404 whose text
// says so; a suspended installation is an error too.
func InstallationFor(ctx context.Context, o Options, owner, repo string) (int64, error) {
	if o.Token != "" {
		return 0, errors.New("github: finding a GitHub App's installation needs the app's credentials, not a token")
	}
	if o.InstallationID > 0 {
		return o.InstallationID, nil
	}
	if err := checkRepo(owner, repo); err != nil {
		return 0, err
	}
	// New builds the app's JWT client (the same transports: rate limits, request counting,
	// the JWT on the API's origin only). It wants an installation id; no request here uses
	// it, and no installation token is minted.
	o.InstallationID = placeholderInstallation
	c, err := New(o)
	if err != nil {
		return 0, err
	}
	inst, _, err := c.app.apps.Apps.GetRepositoryInstallation(ctx, owner, repo)
	if err != nil {
		err = c.convert(err)
		if IsNotFound(err) {
			return 0, &installationError{err: err, msg: fmt.Sprintf(
				"GitHub App %d is not installed on %s/%s, or %s/%s does not exist: check the name, then install the app on the repository "+
					"(or add the repository to the installation's selected repositories in the account's Settings → GitHub Apps)",
				o.AppID, owner, repo, owner, repo)}
		}
		return 0, fmt.Errorf("find the installation of GitHub App %d on %s/%s: %w", o.AppID, owner, repo, err)
	}
	if !inst.GetSuspendedAt().IsZero() {
		return 0, fmt.Errorf("github: installation %d of GitHub App %d, which covers %s/%s, is suspended: unsuspend it in the account's Settings → GitHub Apps",
			inst.GetID(), o.AppID, owner, repo)
	}
	if inst.GetID() <= 0 {
		return 0, fmt.Errorf("find the installation of GitHub App %d on %s/%s: GitHub answered without an installation id", o.AppID, owner, repo)
	}
	return inst.GetID(), nil
}

// placeholderInstallation satisfies New's check in InstallationFor, which never mints a token.
const placeholderInstallation = 1

// installationError is InstallationFor's 404: its own text, GitHub's answer underneath for
// errors.As and IsNotFound.
type installationError struct {
	err error
	msg string
}

func (e *installationError) Error() string { return "github: " + e.msg }
func (e *installationError) Unwrap() error { return e.err }
