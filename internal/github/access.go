package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v93/github"
)

// What council needs of its credentials on a repository, and how RepoAccess finds out without
// changing anything there: for `council doctor`.

// Permission is one permission council needs on a repository, in GitHub's fine-grained name
// and level (the form of x-accepted-github-permissions, with ':' for '=').
type Permission string

// The permissions council needs, in the order Access lists them.
const (
	// ContentsRead reads files and fetches the repository's commits.
	ContentsRead Permission = "contents:read"
	// PullRequestsRead reads the pull request, its files, reviews and comments.
	PullRequestsRead Permission = "pull_requests:read"
	// PullRequestsWrite posts reviews, review comments and replies (--post).
	PullRequestsWrite Permission = "pull_requests:write"
	// IssuesWrite posts the summary comment (--post). On a pull request PullRequestsWrite
	// allows it too: "Create an issue comment" accepts either.
	IssuesWrite Permission = "issues:write"
	// ChecksWrite creates the check run (--check-run).
	ChecksWrite Permission = "checks:write"
)

// Status is what RepoAccess found out about one permission.
type Status string

const (
	// StatusGranted: the credentials hold the permission.
	StatusGranted Status = "granted"
	// StatusMissing: they do not; PermissionAccess.Fix says what to do.
	StatusMissing Status = "missing"
	// StatusUnknown: GitHub's answer did not say (PermissionAccess.Via quotes it).
	StatusUnknown Status = "unknown"
)

// Credential is the kind of credentials a client uses, which decides what GitHub shows of
// their permissions and how a missing one is granted.
type Credential string

const (
	// CredentialClassicToken is a personal access token (classic) or an OAuth app's token
	// (`gh auth token`): OAuth scopes, which GitHub lists in X-OAuth-Scopes.
	CredentialClassicToken Credential = "classic-token"
	// CredentialFineGrainedToken is a fine-grained personal access token (github_pat_).
	CredentialFineGrainedToken Credential = "fine-grained-token"
	// CredentialInstallationToken is a GitHub App installation token passed as a token
	// (ghs_): a workflow's GITHUB_TOKEN, or one that actions/create-github-app-token minted.
	CredentialInstallationToken Credential = "installation-token"
	// CredentialAppUserToken is a GitHub App's token acting for a user (ghu_).
	CredentialAppUserToken Credential = "app-user-token"
	// CredentialToken is a token whose kind does not show (no known prefix, as on an older
	// GitHub Enterprise Server) and whose answers carry no X-OAuth-Scopes: it is checked as a
	// fine-grained one.
	CredentialToken Credential = "token"
	// CredentialApp is GitHub App credentials: app id, installation id and private key.
	CredentialApp Credential = "app"
)

// Access is what one client's credentials may do on one repository, as RepoAccess found it.
type Access struct {
	Owner, Repo string
	Credential  Credential
	// Visible is false when the credentials cannot see the repository at all: GitHub answered
	// 404 (a private repository the credentials may not see looks like no repository), refused
	// it outright (403: SAML single sign-on, an IP allow list, an organization's token policy),
	// or the GitHub App is not installed on it. Reason then says which, and every permission
	// is Missing.
	Visible bool
	Reason  string
	// Private is the repository's visibility, from its metadata; always false with App
	// credentials, whose check does not read the metadata.
	Private bool
	// Role is the token's user's role on the repository (admin, maintain, push, triage,
	// pull); empty for installation tokens and App credentials, which have no user.
	Role string
	// Scopes are a classic token's OAuth scopes, from X-OAuth-Scopes.
	Scopes []string
	// InstallationID is, with App credentials, the installation GitHub found on the
	// repository.
	InstallationID int64
	// Permissions has one entry per permission council needs: ContentsRead,
	// PullRequestsRead, PullRequestsWrite, IssuesWrite, ChecksWrite, in that order.
	Permissions []PermissionAccess
}

// PermissionAccess is one permission council needs and whether the credentials hold it.
type PermissionAccess struct {
	Permission Permission
	Status     Status
	// For says what council needs the permission for.
	For string
	// Via says how the status was found: the answer, header or installation permission it
	// rests on.
	Via string
	// Fix says what to do for these credentials when the status is not Granted; empty
	// otherwise.
	Fix string
	// Workflow is the entry that grants the permission under `permissions:` in a GitHub
	// Actions workflow ("pull-requests: write"); Setting is its name among a fine-grained
	// token's and a GitHub App's permissions ("Pull requests: Read and write").
	Workflow, Setting string
}

// Of returns the entry for p; a zero one (no Status) when p is not one council needs.
func (a Access) Of(p Permission) PermissionAccess {
	for _, e := range a.Permissions {
		if e.Permission == p {
			return e
		}
	}
	return PermissionAccess{}
}

// Ready reports whether the credentials can do everything `council review --post` needs on
// the repository, and with checkRun, `--check-run` too.
func (a Access) Ready(checkRun bool) bool {
	if !a.Visible || len(a.Permissions) == 0 {
		return false
	}
	for _, e := range a.Permissions {
		if e.Status != StatusGranted && (e.Permission != ChecksWrite || checkRun) {
			return false
		}
	}
	return true
}

// need is a permission council needs, with its names in a workflow and in GitHub's settings
// (https://docs.github.com/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token,
// https://docs.github.com/rest/authentication/permissions-required-for-fine-grained-personal-access-tokens).
type need struct {
	perm              Permission
	purpose           string
	workflow, setting string
}

var needs = []need{
	{ContentsRead, "read files and fetch the repository's commits", "contents: read", "Contents: Read-only"},
	{PullRequestsRead, "read the pull request, its files, reviews and comments", "pull-requests: read", "Pull requests: Read-only"},
	{PullRequestsWrite, "post reviews, review comments and replies (--post)", "pull-requests: write", "Pull requests: Read and write"},
	{IssuesWrite, "post and update the summary comment (--post; pull_requests:write allows it too)", "issues: write", "Issues: Read and write"},
	{ChecksWrite, "create the check run (--check-run)", "checks: write", "Checks: Read and write"},
}

// tokenCredential names a token's kind from its prefix.
// https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available
// (ghp_, gho_, ghu_, ghs_); fine-grained personal access tokens start with github_pat_
// (https://docs.github.com/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens).
func tokenCredential(tok string) Credential {
	switch {
	case strings.HasPrefix(tok, "ghp_"), strings.HasPrefix(tok, "gho_"):
		return CredentialClassicToken
	case strings.HasPrefix(tok, "github_pat_"):
		return CredentialFineGrainedToken
	case strings.HasPrefix(tok, "ghs_"):
		return CredentialInstallationToken
	case strings.HasPrefix(tok, "ghu_"):
		return CredentialAppUserToken
	}
	return CredentialToken
}

// RepoAccess reports what the client's credentials may do on owner/repo, with one entry per
// permission council needs. It never changes anything on GitHub. It costs one request with App
// credentials, a classic token, or a repository the credentials cannot see; three to five with
// a fine-grained token; four to six with any other token (Client.Requests counts them).
//
// A repository the credentials cannot see is an answer, not an error: Access.Visible is false.
// The error is for what says nothing about permissions: the network, GitHub's 5xx, a rate limit
// the client gave up on (IsRateLimited), and credentials GitHub does not accept at all (401,
// an *APIError for which IsAuth holds).
func (c *Client) RepoAccess(ctx context.Context, owner, repo string) (Access, error) {
	if err := checkRepo(owner, repo); err != nil {
		return Access{}, err
	}
	a := &access{Access: Access{Owner: owner, Repo: repo, Credential: c.credential}, found: map[Permission]found{}}
	var err error
	if c.app != nil {
		err = c.appAccess(ctx, a)
	} else {
		err = c.tokenAccess(ctx, a)
	}
	if err != nil {
		return Access{}, fmt.Errorf("check the access to %s/%s: %w", owner, repo, err)
	}
	return a.result(c), nil
}

// access is an Access being found out.
type access struct {
	Access
	found      map[Permission]found
	notVisible string // what to do about a repository the credentials cannot see
}

type found struct {
	status Status
	via    string
}

func (a *access) set(p Permission, s Status, via string) { a.found[p] = found{s, via} }

// hidden records that the credentials cannot see the repository: why (reason), how that
// showed (via) and what to do (fix).
func (a *access) hidden(reason, via, fix string) {
	a.Visible, a.Reason, a.notVisible = false, reason, fix
	for _, n := range needs {
		a.set(n.perm, StatusMissing, via)
	}
}

func (a *access) result(c *Client) Access {
	out := a.Access
	out.Permissions = make([]PermissionAccess, 0, len(needs))
	for _, n := range needs {
		f, ok := a.found[n.perm]
		if !ok {
			f = found{StatusUnknown, "not checked"}
		}
		e := PermissionAccess{Permission: n.perm, Status: f.status, For: n.purpose, Via: f.via, Workflow: n.workflow, Setting: n.setting}
		if f.status != StatusGranted {
			e.Fix = a.fix(c, n)
		}
		out.Permissions = append(out.Permissions, e)
	}
	return out
}

// noCheckRuns is why a personal access token cannot create check runs: "To create a check
// run, you must use a GitHub App. OAuth apps and authenticated users are not able to create a
// check suite." (https://docs.github.com/rest/checks/runs#create-a-check-run). Fine-grained
// tokens are refused too, and have no Checks permission to choose
// (https://github.com/github/rest-api-description/issues/4290).
const noCheckRuns = "personal access tokens cannot create check runs, whatever their scopes or permissions: " +
	"run council with GitHub App credentials, or in a GitHub Actions workflow whose GITHUB_TOKEN has `checks: write`"

// fix says what to do about a permission the credentials lack, for their kind.
func (a *access) fix(c *Client, n need) string {
	repo := a.Owner + "/" + a.Repo
	if !a.Visible {
		return a.notVisible
	}
	also := ""
	if n.perm == IssuesWrite {
		also = " (or pull_requests:write, which allows the comment too)"
	}
	switch a.Credential {
	case CredentialClassicToken:
		switch {
		case n.perm == ChecksWrite:
			return noCheckRuns
		case a.Private || n.perm == ContentsRead || n.perm == PullRequestsRead:
			return "give the token the `repo` scope"
		}
		return "give the token the `public_repo` scope (or `repo`)"
	case CredentialFineGrainedToken:
		if n.perm == ChecksWrite {
			return noCheckRuns
		}
		return fmt.Sprintf("give the fine-grained token the permission %q on %s%s", n.setting, repo, also)
	case CredentialInstallationToken:
		return fmt.Sprintf("in a GitHub Actions workflow, add `%s` under `permissions:`%s (a pull request from a fork only ever gets a read-only GITHUB_TOKEN); "+
			"for a GitHub App's installation token, give the app the permission %q", n.workflow, also, n.setting)
	case CredentialApp:
		return fmt.Sprintf("give GitHub App %d the permission %q%s, then accept the new permissions on installation %d",
			c.app.appID, n.setting, also, c.app.installationID)
	case CredentialAppUserToken:
		return fmt.Sprintf("give the GitHub App the permission %q%s; its user needs that access to %s too", n.setting, also, repo)
	}
	return fmt.Sprintf("give the token the permission %q%s, or in a GitHub Actions workflow add `%s` under `permissions:`", n.setting, also, n.workflow)
}

// tokenAccess finds out what a token may do. GET /repos/{owner}/{repo} tells whether the token
// sees the repository at all (404 when not: "GitHub uses a 404 Not Found response instead of a
// 403 Forbidden response, to avoid confirming the existence of private repositories",
// https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api),
// its visibility and the user's role (https://docs.github.com/rest/repos/repos#get-a-repository),
// and, for a classic token, its scopes in X-OAuth-Scopes
// (https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps), which
// are then all there is to know. Other tokens cannot list their permissions and are probed.
func (c *Client) tokenAccess(ctx context.Context, a *access) error {
	r, resp, err := c.gh.Repositories.Get(ctx, a.Owner, a.Repo)
	header := http.Header{}
	var er *gh.ErrorResponse
	switch {
	case resp != nil && resp.Response != nil:
		header = resp.Header
	case errors.As(err, &er) && er.Response != nil:
		header = er.Response.Header
	}
	scopes, classic := oauthScopes(header)
	if a.Credential == CredentialToken && classic {
		a.Credential = CredentialClassicToken
	}
	if a.Credential == CredentialClassicToken {
		a.Scopes = scopes
	}
	repo := a.Owner + "/" + a.Repo
	if err != nil {
		err = c.convert(err)
		var ae *APIError
		if !errors.As(err, &ae) || (ae.Status != http.StatusNotFound && ae.Status != http.StatusForbidden) {
			return err
		}
		via := fmt.Sprintf("GET /repos/%s answered %d", repo, ae.Status)
		if ae.Status == http.StatusForbidden {
			a.hidden(fmt.Sprintf("GitHub refuses these credentials access to %s: %s", repo, strings.TrimSuffix(ae.Message, ".")), via,
				"authorize the token for the organization's SAML single sign-on, or check the organization's IP allow list and its policy on personal access tokens")
			return nil
		}
		a.hidden(fmt.Sprintf("%s does not exist or these credentials cannot see it", repo), via, a.notFoundFix())
		return nil
	}
	a.Visible, a.Private, a.Role = true, r.GetPrivate(), role(r.GetPermissions())
	if a.Credential == CredentialClassicToken {
		a.classic()
		return nil
	}
	return c.probeAll(ctx, a)
}

// notFoundFix says what to do about a repository a token does not see, for its kind.
func (a *access) notFoundFix() string {
	repo := a.Owner + "/" + a.Repo
	switch a.Credential {
	case CredentialClassicToken:
		if !hasScope(a.Scopes, "repo") {
			return fmt.Sprintf("check the name %s; a private repository needs the token's `repo` scope, which it lacks", repo)
		}
		return fmt.Sprintf("check the name %s; the token's user needs access to it", repo)
	case CredentialFineGrainedToken:
		return fmt.Sprintf("check the name %s; add it to the fine-grained token's repository access (the token's resource owner must be %s)", repo, a.Owner)
	case CredentialInstallationToken:
		return fmt.Sprintf("check the name %s; a workflow's GITHUB_TOKEN sees only the workflow's own repository, "+
			"and a GitHub App's installation token only the repositories the app is installed on", repo)
	}
	return fmt.Sprintf("check the name %s; the credentials need access to it", repo)
}

// classic finds out what a classic token may do from its scopes: repo gives "full access to
// public and private repositories", public_repo access to public ones; reading a public
// repository needs no scope
// (https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps). A read
// role is enough to comment on and review pull requests ("Read: ... view or discuss your
// project",
// https://docs.github.com/organizations/managing-access-to-your-organizations-repositories/repository-roles-for-an-organization).
// No scope lets it create check runs.
func (a *access) classic() {
	scopes := "X-OAuth-Scopes: " + strings.Join(a.Scopes, ", ")
	if len(a.Scopes) == 0 {
		scopes = "X-OAuth-Scopes is empty"
	}
	readVia := fmt.Sprintf("GET /repos/%s/%s answered 200: anyone may read a public repository", a.Owner, a.Repo)
	if a.Private {
		readVia = fmt.Sprintf("GET /repos/%s/%s answered 200 for a private repository (%s)", a.Owner, a.Repo, scopes)
	}
	a.set(ContentsRead, StatusGranted, readVia)
	a.set(PullRequestsRead, StatusGranted, readVia)
	write, writeVia := StatusMissing, scopes+": writing needs `repo`, or `public_repo` on a public repository"
	if hasScope(a.Scopes, "repo") || (!a.Private && hasScope(a.Scopes, "public_repo")) {
		write, writeVia = StatusGranted, scopes
	}
	a.set(PullRequestsWrite, write, writeVia)
	a.set(IssuesWrite, write, writeVia)
	a.set(ChecksWrite, StatusMissing, "only GitHub Apps can create check runs; personal access tokens (classic) and OAuth tokens cannot")
}

// probeAll finds out what a token that cannot list its permissions may do (a fine-grained
// token, an installation token without the app's credentials), with requests that must fail
// and can never create anything. Reads are probed with the cheapest listing, writes with a
// POST whose body lacks what GitHub requires: GitHub checks the permission before it validates
// the body, so the answer is 403 ("Resource not accessible by integration", or "... by
// personal access token") without the permission and 422 with it. That order is not
// documented. It is how GitHub answers in practice (a probe recorded in
// https://github.com/mattrobinsonsre/terrapod/pull/1217 got 403 for an invalid payload without
// the permission and 422 with it), and it fits a permission that belongs to the endpoint, not
// to the body: x-accepted-github-permissions names it for the route
// (https://github.blog/changelog/2023-08-10-x-accepted-github-permissions-header-for-fine-grained-permission-actors).
// A fine-grained token without the permission may also get 404
// (https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api). A 403 for
// anything but a permission says nothing and leaves the status Unknown.
func (c *Client) probeAll(ctx context.Context, a *access) error {
	repo := "repos/" + a.Owner + "/" + a.Repo
	// List commits needs Contents read for fine-grained tokens; an empty repository answers
	// 409 past the permission check. https://docs.github.com/rest/commits/commits#list-commits
	if err := c.probe(ctx, a, ContentsRead, http.MethodGet, repo+"/commits?per_page=1"); err != nil {
		return err
	}
	// Create a pull request requires head and base (and title): an empty body can open
	// nothing. https://docs.github.com/rest/pulls/pulls#create-a-pull-request
	if err := c.probe(ctx, a, PullRequestsWrite, http.MethodPost, repo+"/pulls"); err != nil {
		return err
	}
	writes := a.found[PullRequestsWrite].status == StatusGranted
	if writes {
		a.set(PullRequestsRead, StatusGranted, "pull_requests:write includes pull_requests:read")
		// "Create an issue comment" accepts Issues or Pull requests write
		// (https://docs.github.com/rest/issues/comments#create-an-issue-comment): a pull
		// request's conversation comment needs no more.
		a.set(IssuesWrite, StatusGranted, "pull_requests:write allows comments on a pull request's conversation")
	} else {
		// List pull requests needs Pull requests read.
		// https://docs.github.com/rest/pulls/pulls#list-pull-requests
		if err := c.probe(ctx, a, PullRequestsRead, http.MethodGet, repo+"/pulls?per_page=1"); err != nil {
			return err
		}
		// Create an issue requires a title: an empty body can open nothing.
		// https://docs.github.com/rest/issues/issues#create-an-issue
		if err := c.probe(ctx, a, IssuesWrite, http.MethodPost, repo+"/issues"); err != nil {
			return err
		}
	}
	if a.Credential == CredentialFineGrainedToken {
		a.set(ChecksWrite, StatusMissing, "only GitHub Apps can create check runs; fine-grained personal access tokens cannot")
		return nil
	}
	// Create a check run requires name and head_sha: an empty body names no commit to put a
	// run on. https://docs.github.com/rest/checks/runs#create-a-check-run
	return c.probe(ctx, a, ChecksWrite, http.MethodPost, repo+"/check-runs")
}

// probe sends one request that tells whether the credentials hold p and records the answer:
// a GET lists at most one item, a POST carries an empty JSON object. Only answers that say
// nothing about permissions are errors.
func (c *Client) probe(ctx context.Context, a *access, p Permission, method, path string) error {
	write := method != http.MethodGet
	var body any
	what := method + " /" + path
	if write {
		body = struct{}{}
		what += " with an empty body"
	}
	req, err := c.gh.NewRequest(ctx, method, path, body)
	if err != nil {
		return fmt.Errorf("github: %w", err)
	}
	resp, err := c.gh.Do(req, nil)
	if err == nil {
		// Never expected of a POST: its body lacks what GitHub requires.
		a.set(p, StatusGranted, fmt.Sprintf("%s answered %d", what, resp.StatusCode))
		return nil
	}
	err = c.convert(err)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status == http.StatusUnauthorized || ae.Status >= http.StatusInternalServerError {
		return err
	}
	answered := fmt.Sprintf("%s answered %d", what, ae.Status)
	if ae.Message != "" {
		answered += " " + strings.TrimSuffix(ae.Message, ".")
	}
	if ae.Permissions != "" {
		answered += " (x-accepted-github-permissions: " + ae.Permissions + ")"
	}
	switch {
	case write && ae.Status == http.StatusUnprocessableEntity:
		a.set(p, StatusGranted, answered+": past the permission check, refused for its body")
	case !write && ae.Status == http.StatusConflict:
		a.set(p, StatusGranted, answered+": past the permission check, the repository is empty")
	case ae.Status == http.StatusForbidden && notPermitted(ae.Message):
		a.set(p, StatusMissing, answered)
	case ae.Status == http.StatusNotFound:
		a.set(p, StatusMissing, answered)
	default:
		// Such as "GitHub Actions is not permitted to create or approve pull requests.", a
		// repository setting that keeps a workflow's GITHUB_TOKEN from opening pull requests
		// (not from reviewing them) and whose place before or after the permission check is
		// not documented.
		a.set(p, StatusUnknown, answered+": GitHub refused it before saying whether the permission is held")
	}
	return nil
}

// notPermitted reports whether a 403's message is GitHub's for a missing permission:
// "Resource not accessible by integration" (an installation token), "... by personal access
// token" (a fine-grained one), or "You must authenticate via a GitHub App." (a check run from
// a personal access token, as reported in
// https://github.com/EnricoMi/publish-unit-test-result-action/issues/53).
func notPermitted(msg string) bool {
	return strings.HasPrefix(msg, "Resource not accessible by ") || strings.HasPrefix(msg, "You must authenticate via a GitHub App")
}

// appAccess finds out what GitHub App credentials may do from the installation GitHub finds
// on the repository, with the app's JWT: one request, and the installation's permissions are
// those of every token council mints from it, since it asks for no narrower set
// (https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app,
// https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app).
// 404 means the app is not installed on the repository.
func (c *Client) appAccess(ctx context.Context, a *access) error {
	repo := a.Owner + "/" + a.Repo
	via := "GET /repos/" + repo + "/installation"
	inst, _, err := c.app.apps.Apps.GetRepositoryInstallation(ctx, a.Owner, a.Repo)
	if err != nil {
		err = c.convert(err)
		if !IsNotFound(err) {
			return err
		}
		a.hidden(fmt.Sprintf("GitHub App %d is not installed on %s, or %s does not exist", c.app.appID, repo, repo), via+" answered 404",
			fmt.Sprintf("check the name %s; install GitHub App %d on it, or add it to the repositories of installation %d", repo, c.app.appID, c.app.installationID))
		return nil
	}
	a.InstallationID = inst.GetID()
	switch {
	case inst.GetID() != c.app.installationID:
		a.hidden(fmt.Sprintf("%s is in installation %d of GitHub App %d, not in installation %d that the credentials name", repo, inst.GetID(), c.app.appID, c.app.installationID),
			fmt.Sprintf("%s answered installation %d", via, inst.GetID()),
			fmt.Sprintf("set the installation id to %d, or add %s to installation %d", inst.GetID(), repo, c.app.installationID))
		return nil
	case !inst.GetSuspendedAt().IsZero():
		a.hidden(fmt.Sprintf("installation %d of GitHub App %d is suspended", inst.GetID(), c.app.appID), via+" answered a suspended installation",
			fmt.Sprintf("unsuspend installation %d in the account's settings (Settings → GitHub Apps)", inst.GetID()))
		return nil
	}
	a.Visible = true
	perms := inst.GetPermissions()
	levels := map[string]string{
		"contents": perms.GetContents(), "pull_requests": perms.GetPullRequests(),
		"issues": perms.GetIssues(), "checks": perms.GetChecks(),
	}
	for _, n := range needs {
		name, level, _ := strings.Cut(string(n.perm), ":")
		held := levels[name]
		s := StatusMissing
		if held == "write" || held == level {
			s = StatusGranted
		}
		if held == "" {
			held = "none"
		}
		a.set(n.perm, s, fmt.Sprintf("installation %d's permissions (%s): %s=%s", inst.GetID(), via, name, held))
	}
	if a.found[IssuesWrite].status != StatusGranted && a.found[PullRequestsWrite].status == StatusGranted {
		a.set(IssuesWrite, StatusGranted, fmt.Sprintf("installation %d's permissions (%s): pull_requests=write allows comments on a pull request's conversation", inst.GetID(), via))
	}
	return nil
}

// oauthScopes reads X-OAuth-Scopes; ok is false when the header is absent, as it is for every
// token but a classic one or an OAuth app's.
func oauthScopes(h http.Header) (scopes []string, ok bool) {
	vals := h.Values("X-OAuth-Scopes")
	if len(vals) == 0 {
		return nil, false
	}
	for _, v := range vals {
		for s := range strings.SplitSeq(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				scopes = append(scopes, s)
			}
		}
	}
	return scopes, true
}

func hasScope(scopes []string, want string) bool {
	for _, s := range scopes {
		if s == want {
			return true
		}
	}
	return false
}

// role is the highest role "permissions" grants; empty when it grants none, as for an
// installation token, which has no user.
func role(p *gh.RepositoryPermissions) string {
	switch {
	case p.GetAdmin():
		return "admin"
	case p.GetMaintain():
		return "maintain"
	case p.GetPush():
		return "push"
	case p.GetTriage():
		return "triage"
	case p.GetPull():
		return "pull"
	}
	return ""
}
