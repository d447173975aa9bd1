package github

import (
	"context"
	"fmt"
	"strings"
)

// Permission is login's base role on owner/repo as GitHub reports it: "admin", "write",
// "read" or "none", where maintain counts as write and triage as read, from every grant (the
// repository, teams, the organisation). Anyone reads a public repository, so a user without a
// role there has "read". GitHub answers only callers that can read the repository: an
// installation needs metadata:read, a user push access (403 otherwise).
// https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
//
// A GitHub App's bot (a login ending in "[bot]") cannot be a collaborator: it gets "none"
// without a request.
func (c *Client) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	if err := checkRepo(owner, repo); err != nil {
		return "", err
	}
	if name, bot := strings.CutSuffix(login, "[bot]"); bot && ownerShape.MatchString(name) {
		return "none", nil
	}
	if !ownerShape.MatchString(login) {
		return "", fmt.Errorf("github: %q is not a GitHub user name", login)
	}
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		return "", fmt.Errorf("get the permission of %s on %s/%s: %w", login, owner, repo, c.convert(err))
	}
	if p.GetPermission() == "" {
		return "", fmt.Errorf("get the permission of %s on %s/%s: GitHub answered without one", login, owner, repo)
	}
	return p.GetPermission(), nil
}

// CanWrite reports whether a permission (Permission's, or a role name) lets its holder push
// to the repository: admin, maintain or write.
func CanWrite(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}
