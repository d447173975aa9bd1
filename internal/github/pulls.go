package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v93/github"
)

// PR is a pull request as council needs it.
type PR struct {
	Number           int
	Title, Body      string
	Author           string // login of the user who opened it
	BaseRef, BaseSHA string
	HeadRef, HeadSHA string
	HeadRepoFullName string // "owner/repo" of the head branch; "" when the fork was deleted
	BaseRepoFullName string
	// IsFork is a head branch in another repository than the base: its workflows get a
	// read-only token and no secrets.
	IsFork  bool
	State   string // "open" or "closed"
	Draft   bool
	HTMLURL string
}

// pullRequest converts go-github's pull request, as the get, list and create endpoints return
// it, into a PR of owner/repo.
func pullRequest(p *gh.PullRequest, owner, repo string) PR {
	pr := PR{
		Number: p.GetNumber(), Title: p.GetTitle(), Body: p.GetBody(), Author: p.GetUser().GetLogin(),
		BaseRef: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(),
		HeadRef: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(),
		HeadRepoFullName: p.GetHead().GetRepo().GetFullName(),
		BaseRepoFullName: p.GetBase().GetRepo().GetFullName(),
		State:            p.GetState(), Draft: p.GetDraft(), HTMLURL: p.GetHTMLURL(),
	}
	if pr.BaseRepoFullName == "" {
		pr.BaseRepoFullName = owner + "/" + repo
	}
	// A deleted fork leaves no head repository: it was a fork all the same.
	pr.IsFork = !strings.EqualFold(pr.HeadRepoFullName, pr.BaseRepoFullName)
	return pr
}

// PRFile is one file of a pull request as the files endpoint lists it.
type PRFile struct {
	Filename         string
	PreviousFilename string // for a rename
	Status           string // added, removed, modified, renamed, copied, changed, unchanged
	// Patch is the file's hunks ("@@ ..." onwards); empty for a binary file and for a file
	// whose diff GitHub finds too large to show.
	Patch     string
	Additions int
	Deletions int
}

// PullRequest reads a pull request.
func (c *Client) PullRequest(ctx context.Context, owner, repo string, n int) (PR, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return PR{}, err
	}
	p, _, err := c.gh.PullRequests.Get(ctx, owner, repo, n)
	if err != nil {
		return PR{}, fmt.Errorf("get pull request %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	return pullRequest(p, owner, repo), nil
}

// PullRequestFiles lists every file of a pull request, all pages (GitHub lists at most 3000).
func (c *Client) PullRequestFiles(ctx context.Context, owner, repo string, n int) ([]PRFile, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	files, err := allPages(func(o gh.ListOptions) ([]*gh.CommitFile, *gh.Response, error) {
		return c.gh.PullRequests.ListFiles(ctx, owner, repo, n, &o)
	})
	if err != nil {
		return nil, fmt.Errorf("list files of pull request %s/%s#%d: %w", owner, repo, n, c.convert(err))
	}
	out := make([]PRFile, 0, len(files))
	for _, f := range files {
		out = append(out, PRFile{
			Filename: f.GetFilename(), PreviousFilename: f.GetPreviousFilename(), Status: f.GetStatus(),
			Patch: f.GetPatch(), Additions: f.GetAdditions(), Deletions: f.GetDeletions(),
		})
	}
	return out, nil
}

// PullRequestDiff downloads a pull request's unified diff. A diff GitHub will not serve whole
// is an error matching ErrDiffTooLarge (and *APIError).
func (c *Client) PullRequestDiff(ctx context.Context, owner, repo string, n int) ([]byte, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	d, _, err := c.gh.PullRequests.GetRaw(ctx, owner, repo, n, gh.RawOptions{Type: gh.Diff})
	if err != nil {
		err = c.convert(err)
		if tooLarge(err) {
			return nil, fmt.Errorf("get diff of pull request %s/%s#%d: %w (%w)", owner, repo, n, ErrDiffTooLarge, err)
		}
		return nil, fmt.Errorf("get diff of pull request %s/%s#%d: %w", owner, repo, n, err)
	}
	return []byte(d), nil
}

// tooLarge recognises GitHub's refusal to serve a big diff: a 406, or a 406 or 422 whose
// details say too_large or "too large".
func tooLarge(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.Status == http.StatusNotAcceptable {
		return true
	}
	if ae.Status != http.StatusUnprocessableEntity {
		return false
	}
	text := strings.ToLower(ae.Message + " " + strings.Join(ae.Errors, " "))
	return strings.Contains(text, "too_large") || strings.Contains(text, "too large") ||
		strings.Contains(text, "exceeded the maximum")
}

// FileContent reads the file at path as of ref (a branch, tag or commit SHA). Files over 1 MB,
// which the contents API does not inline, are fetched raw.
func (c *Client) FileContent(ctx context.Context, owner, repo, ref, path string) ([]byte, error) {
	if err := checkRepo(owner, repo); err != nil {
		return nil, err
	}
	if path == "" || strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("github: %q is not a path inside the repository", path)
	}
	fc, dir, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, fmt.Errorf("read %s at %s in %s/%s: %w", path, ref, owner, repo, c.convert(err))
	}
	if fc == nil || dir != nil {
		return nil, fmt.Errorf("read %s at %s in %s/%s: it is a directory", path, ref, owner, repo)
	}
	if t := fc.GetType(); t != "" && t != "file" {
		return nil, fmt.Errorf("read %s at %s in %s/%s: it is a %s, not a file", path, ref, owner, repo, t)
	}
	if fc.GetEncoding() == "none" || (fc.Content == nil && fc.GetSize() > 0) {
		return c.rawContent(ctx, owner, repo, ref, path)
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("read %s at %s in %s/%s: decode: %w", path, ref, owner, repo, err)
	}
	return []byte(s), nil
}

// rawContent reads a file with the raw media type, which serves files up to 100 MB.
func (c *Client) rawContent(ctx context.Context, owner, repo, ref, path string) ([]byte, error) {
	u := fmt.Sprintf("repos/%s/%s/contents/%s", owner, repo, (&url.URL{Path: path}).EscapedPath())
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	req, err := c.gh.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s in %s/%s: %w", path, ref, owner, repo, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	var buf bytes.Buffer
	if _, err := c.gh.Do(req, &buf); err != nil {
		return nil, fmt.Errorf("read %s at %s in %s/%s: %w", path, ref, owner, repo, c.convert(err))
	}
	return buf.Bytes(), nil
}

// Login is the login the credentials act as. Installation tokens (a GitHub App's, a workflow's
// GITHUB_TOKEN) cannot read it: GitHub answers 403, returned as an error.
func (c *Client) Login(ctx context.Context) (string, error) {
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("get the authenticated user: %w", c.convert(err))
	}
	return u.GetLogin(), nil
}
