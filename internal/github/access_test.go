package github_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/github/githubtest"
)

// Tokens for the access tests; their prefixes are what GitHub's token kinds look like.
const (
	fgAll       = "github_pat_11AAAAAAA0allPermissions000000000000000"
	fgNoWrite   = "github_pat_11AAAAAAA0readOnly000000000000000000000"
	fgNoContent = "github_pat_11AAAAAAA0noContents0000000000000000000"
	ghsAll      = "ghs_workflowTokenWithEveryPermission00000"
	ghsNoPulls  = "ghs_workflowTokenWithoutPullsWrite000000"
	ghsNoChecks = "ghs_workflowTokenWithoutChecksWrite00000"
	classicPub  = "ghp_classicWithPublicRepoScope0000000000"
	classicRepo = "ghp_classicWithRepoScope000000000000000"
	classicNone = "ghp_classicWithoutScopes00000000000000000"
	oldClassic  = "0123456789abcdef0123456789abcdef01234567" // a classic token from before the prefixes
	oldToken    = "v1.0123456789abcdef0123456789abcdef012345"
)

// accessSummary is what a test compares of an Access: everything but the free text.
type accessSummary struct {
	Credential   github.Credential
	Visible      bool
	Private      bool
	Role         string
	Scopes       []string
	Installation int64
	Status       map[github.Permission]github.Status
}

func summarize(a github.Access) accessSummary {
	s := accessSummary{
		Credential: a.Credential, Visible: a.Visible, Private: a.Private, Role: a.Role, Scopes: a.Scopes,
		Installation: a.InstallationID, Status: map[github.Permission]github.Status{},
	}
	for _, e := range a.Permissions {
		s.Status[e.Permission] = e.Status
	}
	return s
}

const (
	granted = github.StatusGranted
	missing = github.StatusMissing
	unknown = github.StatusUnknown
)

// statuses lists the five permissions' statuses in Access's order.
func statuses(contents, pullsRead, pullsWrite, issues, checks github.Status) map[github.Permission]github.Status {
	return map[github.Permission]github.Status{
		github.ContentsRead: contents, github.PullRequestsRead: pullsRead, github.PullRequestsWrite: pullsWrite,
		github.IssuesWrite: issues, github.ChecksWrite: checks,
	}
}

func TestRepoAccess(t *testing.T) {
	t.Parallel()
	key, pemKey := rsaKey(t)
	const appID, installation = 4242, 77
	app := func(inst int64) github.Options {
		return github.Options{AppID: appID, InstallationID: inst, PrivateKey: pemKey}
	}
	actions := "github-actions[bot]"
	tokens := []githubtest.Option{
		githubtest.WithFineGrainedToken(fgAll, githubtest.ContentsRead, githubtest.PullRequestsWrite, githubtest.IssuesWrite),
		githubtest.WithFineGrainedToken(fgNoWrite, githubtest.ContentsRead, githubtest.PullRequestsRead),
		githubtest.WithFineGrainedToken(fgNoContent, githubtest.PullRequestsWrite),
		githubtest.WithUser(ghsAll, actions, githubtest.PullRequestsWrite, githubtest.IssuesWrite, githubtest.ChecksWrite),
		githubtest.WithUser(ghsNoPulls, actions, githubtest.IssuesWrite, githubtest.ChecksWrite),
		githubtest.WithUser(ghsNoChecks, actions, githubtest.PullRequestsWrite, githubtest.IssuesWrite),
		githubtest.WithClassicToken(classicPub, githubtest.ScopePublicRepo, "read:org"),
		githubtest.WithRole(classicPub, "pull"),
		githubtest.WithClassicToken(classicRepo, githubtest.ScopeRepo, "workflow"),
		githubtest.WithClassicToken(classicNone),
		githubtest.WithRole(classicNone, "push"),
		githubtest.WithClassicToken(oldClassic, githubtest.ScopeRepo),
		githubtest.WithToken(oldToken, githubtest.PullRequestsWrite, githubtest.ChecksWrite),
	}
	tests := []struct {
		name     string
		opts     []githubtest.Option
		private  bool
		client   github.Options
		repo     string
		want     accessSummary
		fix      map[github.Permission][]string // substrings of each Fix
		via      map[github.Permission][]string // substrings of each Via
		reason   []string                       // substrings of Reason
		requests int
	}{
		{
			name: "workflow token with every permission", client: github.Options{Token: ghsAll},
			want:     accessSummary{Credential: github.CredentialInstallationToken, Visible: true, Status: statuses(granted, granted, granted, granted, granted)},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"POST /repos/acme/widget/pulls with an empty body answered 422"}, github.ChecksWrite: {"check-runs", "422"}},
			requests: 4, // repository, commits, pulls, check runs
		},
		{
			name: "workflow token without pull_requests:write", client: github.Options{Token: ghsNoPulls},
			want: accessSummary{Credential: github.CredentialInstallationToken, Visible: true, Status: statuses(granted, granted, missing, granted, granted)},
			fix: map[github.Permission][]string{github.PullRequestsWrite: {
				"add `pull-requests: write` under `permissions:`", `"Pull requests: Read and write"`, "fork",
			}},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"403 Resource not accessible by integration", "pull_requests=write"}},
			requests: 6, // and the pull requests listing, and the issues probe
		},
		{
			name: "workflow token without checks:write", client: github.Options{Token: ghsNoChecks},
			want:     accessSummary{Credential: github.CredentialInstallationToken, Visible: true, Status: statuses(granted, granted, granted, granted, missing)},
			fix:      map[github.Permission][]string{github.ChecksWrite: {"add `checks: write` under `permissions:`", `"Checks: Read and write"`}},
			via:      map[github.Permission][]string{github.ChecksWrite: {"checks=write"}},
			requests: 4,
		},
		{
			name: "workflow token the repository keeps from opening pull requests", client: github.Options{Token: ghsAll},
			opts:     []githubtest.Option{githubtest.WithActionsPullRequestsDisabled()},
			want:     accessSummary{Credential: github.CredentialInstallationToken, Visible: true, Status: statuses(granted, granted, unknown, granted, granted)},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"GitHub Actions is not permitted to create or approve pull requests"}},
			requests: 6,
		},
		{
			name: "fine-grained token with every permission it can have", client: github.Options{Token: fgAll},
			want: accessSummary{Credential: github.CredentialFineGrainedToken, Visible: true, Role: "admin", Status: statuses(granted, granted, granted, granted, missing)},
			fix:  map[github.Permission][]string{github.ChecksWrite: {"cannot create check runs", "GitHub App credentials", "`checks: write`"}},
			// No check run probe: only an app may create one.
			requests: 3,
		},
		{
			name: "fine-grained token without pull_requests:write", client: github.Options{Token: fgNoWrite},
			want: accessSummary{Credential: github.CredentialFineGrainedToken, Visible: true, Role: "admin", Status: statuses(granted, granted, missing, missing, missing)},
			fix: map[github.Permission][]string{
				github.PullRequestsWrite: {`give the fine-grained token the permission "Pull requests: Read and write" on acme/widget`},
				github.IssuesWrite:       {`"Issues: Read and write"`, "or pull_requests:write"},
			},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"Resource not accessible by personal access token"}},
			requests: 5,
		},
		{
			name: "fine-grained token without contents:read", client: github.Options{Token: fgNoContent},
			want:     accessSummary{Credential: github.CredentialFineGrainedToken, Visible: true, Role: "admin", Status: statuses(missing, granted, granted, granted, missing)},
			fix:      map[github.Permission][]string{github.ContentsRead: {`"Contents: Read-only"`}},
			via:      map[github.Permission][]string{github.ContentsRead: {"GET /repos/acme/widget/commits?per_page=1 answered 403", "contents=read"}},
			requests: 3,
		},
		{
			name: "classic token with public_repo on a public repository", client: github.Options{Token: classicPub},
			want: accessSummary{
				Credential: github.CredentialClassicToken, Visible: true, Role: "pull", Scopes: []string{"public_repo", "read:org"},
				Status: statuses(granted, granted, granted, granted, missing),
			},
			fix:      map[github.Permission][]string{github.ChecksWrite: {"personal access tokens cannot create check runs", "GitHub App credentials"}},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"X-OAuth-Scopes: public_repo, read:org"}},
			requests: 1,
		},
		{
			name: "classic token with public_repo on a private repository", client: github.Options{Token: classicPub}, private: true,
			want: accessSummary{
				Credential: github.CredentialClassicToken, Scopes: []string{"public_repo", "read:org"},
				Status: statuses(missing, missing, missing, missing, missing),
			},
			fix:      map[github.Permission][]string{github.ContentsRead: {"`repo` scope, which it lacks"}},
			reason:   []string{"acme/widget does not exist or these credentials cannot see it"},
			requests: 1,
		},
		{
			name: "classic token with repo on a private repository", client: github.Options{Token: classicRepo}, private: true,
			want: accessSummary{
				Credential: github.CredentialClassicToken, Visible: true, Private: true, Role: "admin", Scopes: []string{"repo", "workflow"},
				Status: statuses(granted, granted, granted, granted, missing),
			},
			via:      map[github.Permission][]string{github.ChecksWrite: {"only GitHub Apps can create check runs"}},
			requests: 1,
		},
		{
			name: "classic token without scopes", client: github.Options{Token: classicNone},
			want: accessSummary{
				Credential: github.CredentialClassicToken, Visible: true, Role: "push",
				Status: statuses(granted, granted, missing, missing, missing),
			},
			fix:      map[github.Permission][]string{github.PullRequestsWrite: {"`public_repo` scope"}},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"X-OAuth-Scopes is empty"}},
			requests: 1,
		},
		{
			name: "classic token from before the prefixes", client: github.Options{Token: oldClassic},
			want: accessSummary{
				Credential: github.CredentialClassicToken, Visible: true, Role: "admin", Scopes: []string{"repo"},
				Status: statuses(granted, granted, granted, granted, missing),
			},
			requests: 1,
		},
		{
			name: "token of no known kind", client: github.Options{Token: oldToken},
			want:     accessSummary{Credential: github.CredentialToken, Visible: true, Role: "admin", Status: statuses(granted, granted, granted, granted, granted)},
			requests: 4,
		},
		{
			name: "app with every permission", client: app(installation),
			opts:     []githubtest.Option{githubtest.WithApp(appID, installation, &key.PublicKey)},
			want:     accessSummary{Credential: github.CredentialApp, Visible: true, Installation: installation, Status: statuses(granted, granted, granted, granted, granted)},
			via:      map[github.Permission][]string{github.PullRequestsWrite: {"installation 77's permissions", "pull_requests=write"}},
			requests: 1, // the installation, with the JWT: no token is minted
		},
		{
			name: "app without pull_requests:write and checks:write", client: app(installation),
			opts: []githubtest.Option{
				githubtest.WithApp(appID, installation, &key.PublicKey),
				githubtest.WithAppInstallation(map[string]string{"contents": "read", "pull_requests": "read", "issues": "write"}),
			},
			want: accessSummary{Credential: github.CredentialApp, Visible: true, Installation: installation, Status: statuses(granted, granted, missing, granted, missing)},
			fix: map[github.Permission][]string{
				github.PullRequestsWrite: {`give GitHub App 4242 the permission "Pull requests: Read and write"`, "installation 77"},
				github.ChecksWrite:       {`"Checks: Read and write"`},
			},
			via:      map[github.Permission][]string{github.ChecksWrite: {"checks=none"}, github.IssuesWrite: {"issues=write"}},
			requests: 1,
		},
		{
			name: "app with issues:write only for the summary comment", client: app(installation),
			opts: []githubtest.Option{
				githubtest.WithApp(appID, installation, &key.PublicKey),
				githubtest.WithAppInstallation(map[string]string{"contents": "write", "pull_requests": "write"}),
			},
			want:     accessSummary{Credential: github.CredentialApp, Visible: true, Installation: installation, Status: statuses(granted, granted, granted, granted, missing)},
			via:      map[github.Permission][]string{github.IssuesWrite: {"pull_requests=write allows comments"}},
			requests: 1,
		},
		{
			name: "app not installed on the repository", client: app(installation),
			opts: []githubtest.Option{
				githubtest.WithApp(appID, installation, &key.PublicKey),
				githubtest.WithAppInstallation(map[string]string{"contents": "read", "pull_requests": "write"}, "acme/other"),
			},
			want:     accessSummary{Credential: github.CredentialApp, Status: statuses(missing, missing, missing, missing, missing)},
			fix:      map[github.Permission][]string{github.PullRequestsWrite: {"install GitHub App 4242 on it"}},
			reason:   []string{"GitHub App 4242 is not installed on acme/widget"},
			requests: 1,
		},
		{
			name: "app credentials naming another installation", client: app(78),
			opts:     []githubtest.Option{githubtest.WithApp(appID, installation, &key.PublicKey)},
			want:     accessSummary{Credential: github.CredentialApp, Installation: installation, Status: statuses(missing, missing, missing, missing, missing)},
			fix:      map[github.Permission][]string{github.ContentsRead: {"set the installation id to 77"}},
			reason:   []string{"in installation 77 of GitHub App 4242, not in installation 78"},
			requests: 1,
		},
		{
			name: "unknown repository", client: github.Options{Token: ghsAll}, repo: "nope",
			want:     accessSummary{Credential: github.CredentialInstallationToken, Status: statuses(missing, missing, missing, missing, missing)},
			fix:      map[github.Permission][]string{github.PullRequestsWrite: {"a workflow's GITHUB_TOKEN sees only the workflow's own repository"}},
			via:      map[github.Permission][]string{github.ChecksWrite: {"GET /repos/acme/nope answered 404"}},
			reason:   []string{"acme/nope does not exist or these credentials cannot see it"},
			requests: 1,
		},
		{
			name: "empty repository", client: github.Options{Token: ghsAll}, repo: "empty",
			want:     accessSummary{Credential: github.CredentialInstallationToken, Visible: true, Status: statuses(granted, granted, granted, granted, granted)},
			via:      map[github.Permission][]string{github.ContentsRead: {"409 Git Repository is empty", "the repository is empty"}},
			requests: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, append(append([]githubtest.Option(nil), tokens...), tt.opts...)...)
			b.srv.SetPrivate(owner, repo, tt.private)
			b.srv.SetPrivate(owner, "empty", false)
			c := b.client(t, tt.client)
			name := repo
			if tt.repo != "" {
				name = tt.repo
			}
			got, err := c.RepoAccess(context.Background(), owner, name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(got)); diff != "" {
				t.Errorf("access (-want +got):\n%s", diff)
			}
			if got.Owner != owner || got.Repo != name {
				t.Errorf("access is about %s/%s", got.Owner, got.Repo)
			}
			if n := len(got.Permissions); n != 5 || got.Permissions[0].Permission != github.ContentsRead || got.Permissions[4].Permission != github.ChecksWrite {
				t.Errorf("permissions out of order or missing: %+v", got.Permissions)
			}
			for _, e := range got.Permissions {
				if (e.Status == granted) != (e.Fix == "") {
					t.Errorf("%s is %s with fix %q: only what is not granted needs one", e.Permission, e.Status, e.Fix)
				}
				if e.Via == "" || e.For == "" || e.Workflow == "" || e.Setting == "" {
					t.Errorf("%s lacks how it was found or how it is granted: %+v", e.Permission, e)
				}
				for _, w := range tt.fix[e.Permission] {
					if !strings.Contains(e.Fix, w) {
						t.Errorf("%s fix = %q, want %q", e.Permission, e.Fix, w)
					}
				}
				for _, w := range tt.via[e.Permission] {
					if !strings.Contains(e.Via, w) {
						t.Errorf("%s via = %q, want %q", e.Permission, e.Via, w)
					}
				}
			}
			if e := got.Of(github.PullRequestsWrite); e.Permission != github.PullRequestsWrite || e.Status != tt.want.Status[github.PullRequestsWrite] {
				t.Errorf("Of(pull_requests:write) = %+v", e)
			}
			if e := got.Of("administration:write"); e.Status != "" {
				t.Errorf("Of(a permission council does not need) = %+v", e)
			}
			if (got.Reason == "") != got.Visible {
				t.Errorf("visible %v with reason %q", got.Visible, got.Reason)
			}
			for _, w := range tt.reason {
				if !strings.Contains(got.Reason, w) {
					t.Errorf("reason = %q, want %q", got.Reason, w)
				}
			}
			if n := c.Requests(); n != tt.requests {
				t.Errorf("%d requests, want %d: %v", n, tt.requests, b.srv.Log())
			}
			// Nothing may ever be created: every write is an empty object, which GitHub must
			// refuse.
			for _, r := range b.srv.Log() {
				if r.Method != http.MethodGet && strings.TrimSpace(string(r.Body)) != "{}" {
					t.Errorf("%s %s sent %q", r.Method, r.Path, r.Body)
				}
			}
			wantReady := tt.want.Visible
			for p, s := range tt.want.Status {
				wantReady = wantReady && (s == granted || p == github.ChecksWrite)
			}
			if got.Ready(false) != wantReady {
				t.Errorf("Ready(false) = %v, want %v", got.Ready(false), wantReady)
			}
			if got.Ready(true) != (wantReady && tt.want.Status[github.ChecksWrite] == granted) {
				t.Errorf("Ready(true) = %v", got.Ready(true))
			}
		})
	}
}

func TestRepoAccessErrors(t *testing.T) {
	t.Parallel()
	t.Run("bad token", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		c := b.client(t, github.Options{Token: "ghs_notATokenTheServerKnows0000000000000"})
		_, err := c.RepoAccess(context.Background(), owner, repo)
		var ae *github.APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !github.IsAuth(err) {
			t.Fatalf("err = %v, want the 401 as an *APIError", err)
		}
		if !strings.Contains(err.Error(), "acme/widget") || strings.Contains(err.Error(), "ghs_notAToken") {
			t.Errorf("err = %q, want the repository named and no token", err)
		}
		if n := c.Requests(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("server error while probing", func(t *testing.T) {
		t.Parallel()
		b := setup(t, githubtest.WithUser(ghsAll, "github-actions[bot]", githubtest.PullRequestsWrite))
		c := b.client(t, github.Options{Token: ghsAll})
		b.srv.FailNext(http.StatusOK, nil, `{"name":"widget","private":false}`)
		b.srv.FailNext(http.StatusBadGateway, nil, "")
		_, err := c.RepoAccess(context.Background(), owner, repo)
		var ae *github.APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusBadGateway || github.IsAuth(err) {
			t.Fatalf("err = %v, want the 502, not a permission answer", err)
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		c := b.client(t, github.Options{Token: writeToken, RateLimitRetries: -1})
		b.srv.FailNext(http.StatusTooManyRequests, map[string]string{"retry-after": "30"}, "")
		_, err := c.RepoAccess(context.Background(), owner, repo)
		if !github.IsRateLimited(err) || github.IsAuth(err) {
			t.Fatalf("err = %v, want a rate limit", err)
		}
	})
	t.Run("not a repository name", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		if _, err := b.c.RepoAccess(context.Background(), owner, "../x"); err == nil {
			t.Fatal("no error")
		}
		if n := b.srv.Requests(); n != 0 {
			t.Errorf("%d requests, want none", n)
		}
	})
}
