// Package prflow is the one pull request flow that `council review --pr`, the GitHub Action
// (which runs that command) and the server's workers all run: read the pull request and what
// council already said on it, check out its base and head, review, post the reviews, answer
// the threads a push addressed and the questions asked in its threads, keep the summary
// comment up to date and report the check run. Whoever calls it, the same pull request at the
// same head gets byte for byte the same review.
//
// It must never print to stdout (callers own their outputs), never post what its lifecycle
// markers say was posted, and never put a provider's raw error on a pull request.
package prflow

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/github"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/validate"
)

// PR is one pull request under review: where it is, what it says, what council said on it
// before, and the client to post with.
type PR struct {
	Owner, Repo string
	Number      int
	Info        github.PR
	GH          *github.Client
	// LastHead is the head council reviewed last time, from its own review markers; "" for none.
	LastHead string
	// Incremental: this run reviews only what changed since LastHead.
	Incremental bool
	// Overview is the overview review's body, posted before the reviewers'; "" for none.
	Overview string
	// Fixed asks a model whether an earlier comment's problem is gone from the file at head.
	Fixed func(ctx context.Context, comment, path string) (validate.Fix, error)
	// Answer asks a model to answer question, a reply to one of council's comments on path,
	// from the comment and the file at head; nil answers nothing.
	Answer func(ctx context.Context, comment, question, path string) (validate.Answer, error)

	// trusted says whether a comment's author is council itself: only its markers count, or
	// anyone (the pull request's author first) could silence a review by writing one.
	trusted  func(login string) bool
	posted   map[string]bool
	comments []github.ReviewComment
	issue    []github.IssueComment
}

// Ref is the pull request as owner/repo#N, for messages.
func (p *PR) Ref() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// Posted says whether the review (or overview) with this key was posted before.
func (p *PR) Posted(key string) bool { return p.posted[key] }

// Open reads the pull request and what council already said on it.
func Open(ctx context.Context, gh *github.Client, owner, repo string, number int) (*PR, error) {
	p := &PR{Owner: owner, Repo: repo, Number: number, GH: gh}
	var err error
	if p.Info, err = gh.PullRequest(ctx, owner, repo, number); err != nil {
		return nil, err
	}
	// A user token knows its login; an installation token cannot ask, and posts as a "[bot]"
	// login, which no pull request author can have.
	me, _ := gh.Login(ctx)
	p.trusted = func(login string) bool {
		if me != "" {
			return login == me
		}
		return strings.HasSuffix(login, "[bot]") && login != p.Info.Author
	}
	if p.comments, err = gh.ReviewComments(ctx, owner, repo, number); err != nil {
		return nil, err
	}
	reviews, err := gh.Reviews(ctx, owner, repo, number)
	if err != nil {
		return nil, err
	}
	if p.issue, err = gh.IssueComments(ctx, owner, repo, number); err != nil {
		return nil, err
	}
	var markers []ghreview.MarkerInfo
	for _, c := range p.comments {
		if p.trusted(c.User) {
			markers = append(markers, ghreview.ParseMarkers(c.Body)...)
		}
	}
	for _, r := range reviews {
		if p.trusted(r.User) {
			markers = append(markers, ghreview.ParseMarkers(r.Body)...)
		}
	}
	// The head reviewed last is the summary comment's: a run updates it after all of its
	// reviews are posted, so a run that died halfway (a worker killed, GitHub down) has not
	// reviewed its head yet, and the next run posts the reviews it did not.
	for _, c := range p.issue {
		if p.trusted(c.User) && strings.Contains(c.Body, SummaryMarker) {
			for _, m := range ghreview.ParseMarkers(c.Body) {
				if m.Review && m.Head != "" {
					p.LastHead = m.Head
				}
			}
		}
	}
	p.posted = ghreview.PostedFrom(markers)
	return p, nil
}

// Checkout makes sure the repository at dir has the pull request's base and head commits,
// fetching them with cred when it does not; with no dir it uses the cached clone.
func (p *PR) Checkout(ctx context.Context, dir string, cred source.Credential) (string, error) {
	if dir == "" {
		var err error
		if dir, err = CloneCache(p.Owner + "/" + p.Repo); err != nil {
			return "", err
		}
	}
	g, err := source.InitGit(ctx, dir)
	if err != nil {
		return "", err
	}
	defer g.Close()
	if g.Has(ctx, p.Info.BaseSHA) && g.Has(ctx, p.Info.HeadSHA) {
		return g.Dir(), nil
	}
	remote, err := p.RemoteURL()
	if err != nil {
		return "", err
	}
	if err := g.Fetch(ctx, remote, cred,
		fmt.Sprintf("+refs/pull/%d/head:refs/council/pr/%d/head", p.Number, p.Number),
		fmt.Sprintf("+refs/heads/%s:refs/council/pr/%d/base", p.Info.BaseRef, p.Number),
	); err != nil {
		return "", fmt.Errorf("fetch pull request %d into %s: %w", p.Number, dir, err)
	}
	for _, sha := range []string{p.Info.BaseSHA, p.Info.HeadSHA} {
		if !g.Has(ctx, sha) {
			return "", fmt.Errorf("commit %s of pull request %d is not in %s after fetching: was the branch force-pushed? run again", sha, p.Number, dir)
		}
	}
	return g.Dir(), nil
}

// CloneCache is where council keeps its clone of a repository ("owner/repo", or a host and
// path for other remotes): review --pr, bench import and bench run share it.
func CloneCache(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache directory for the clone of %s (or name a local clone: --repo, --clone, repo.path): %w", name, err)
	}
	return filepath.Join(cache, "council", "repos", filepath.FromSlash(name)), nil
}

// Credential is what git sends to the GitHub the API at apiBase belongs to: token (a personal
// or workflow token, or an App installation's token) as a header scoped to that host, so that
// no other remote or redirect ever gets it. Empty without a token.
func Credential(apiBase, token string) source.Credential {
	if token == "" {
		return source.Credential{}
	}
	web, err := WebRoot(apiBase)
	if err != nil {
		return source.Credential{}
	}
	return source.Credential{
		Prefix: web + "/",
		Header: "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)),
	}
}

// GitCredential is Credential for the client's own token: for a GitHub App, a current
// installation token.
func GitCredential(ctx context.Context, gh *github.Client) (source.Credential, error) {
	tok, err := gh.GitToken(ctx)
	if err != nil {
		return source.Credential{}, err
	}
	return Credential(gh.BaseURL(), tok), nil
}

// WebRoot is the web root of the GitHub whose API is at apiBase: https://github.com for
// api.github.com, the host itself for GitHub Enterprise Server.
func WebRoot(apiBase string) (string, error) {
	u, err := url.Parse(apiBase)
	if err != nil {
		return "", fmt.Errorf("read the GitHub API URL: %w", err)
	}
	host := u.Host
	if host == "api.github.com" {
		host = "github.com"
	}
	return u.Scheme + "://" + host, nil
}

// RemoteURL is the git URL of the base repository on the GitHub the API belongs to
// (github.com, or a GitHub Enterprise host): the only host the token is ever sent to, whatever
// the local clone's remotes are.
func (p *PR) RemoteURL() (string, error) {
	web, err := WebRoot(p.GH.BaseURL())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s/%s/%s.git", web, p.Owner, p.Repo), nil
}

// SummaryMarker marks the one issue comment council keeps up to date on a pull request.
const SummaryMarker = "<!-- council:v1 summary -->"

// AddressedNote starts council's reply to one of its own comments whose code a push changed.
const AddressedNote = "<!-- council:v1 addressed -->"

// PostOptions say what to publish and how.
type PostOptions struct {
	Post     bool   // post the reviews, answer addressed threads, keep the summary comment
	CheckRun bool   // report the review as a check run
	Layout   string // ghreview layout: per-reviewer or consolidated
	Council  string // the council's display name
	// FailOn is the severity at or above which the check run fails; "" never.
	FailOn string
	// Failed says whether the run failed as a gate (failed reviewers or --fail-on): the check
	// run's conclusion.
	Failed bool
	Log    io.Writer // progress and warnings; never the providers' raw errors on the pull request
}

// PublishError is a review that ran but could not be published; Op says what failed.
type PublishError struct {
	Op  string // "post the review", "create the check run"
	Err error
}

func (e *PublishError) Error() string { return fmt.Sprintf("%s: %v", e.Op, e.Err) }
func (e *PublishError) Unwrap() error { return e.Err }

// Publish posts the reviews and the check run as o asks. On a pull request from a fork the
// workflow's token cannot write: that ends with a message, not a failure. It returns how many
// reviews it posted.
func (p *PR) Publish(ctx context.Context, o PostOptions, rep report.Report, files []diff.File) (int, error) {
	if o.Post || o.CheckRun {
		LogFailures(o.Log, rep)
	}
	posted := 0
	if o.Post {
		n, err := p.post(ctx, o, rep, files)
		posted = n
		if err != nil && ctx.Err() != nil {
			return posted, ctx.Err()
		}
		if err != nil {
			if p.Info.IsFork && github.IsAuth(err) {
				fmt.Fprintf(o.Log, "council: cannot post on %s: the token of a workflow on a fork's pull request is read-only; the review is in this job's output\n", p.Ref())
				return posted, nil
			}
			return posted, &PublishError{Op: "post the review", Err: err}
		}
		if EveryReviewerFailed(rep) {
			fmt.Fprintf(o.Log, "council: every reviewer failed, so no review was posted on %s; its summary comment says so (%d GitHub requests)\n", p.Ref(), p.GH.Requests())
		} else {
			fmt.Fprintf(o.Log, "council: posted %d review(s) on %s (%d GitHub requests)\n", n, p.Ref(), p.GH.Requests())
		}
	}
	if o.CheckRun {
		if err := p.checkRun(ctx, o, rep); err != nil {
			return posted, &PublishError{Op: "create the check run", Err: err}
		}
	}
	return posted, nil
}

// post publishes the review on the pull request: one review per reviewer (or one
// consolidated), then the summary comment. It returns how many reviews it posted.
func (p *PR) post(ctx context.Context, o PostOptions, rep report.Report, files []diff.File) (int, error) {
	plan := ghreview.Build(rep, ghreview.Options{
		Council: o.Council, Layout: ghreview.Layout(o.Layout), HeadSHA: rep.Change.HeadSHA,
		RepoURL: repoURL(p.Info.HTMLURL), Diff: files, Posted: p.posted,
	})
	// If the pull request moved on while council was reviewing, say so, and post against the
	// commit that was reviewed: its line numbers are the ones the comments use.
	note := ""
	if now, err := p.GH.PullRequest(ctx, p.Owner, p.Repo, p.Number); err == nil && now.HeadSHA != rep.Change.HeadSHA {
		note = fmt.Sprintf("> [!NOTE]\n> Reviewed at %s; the pull request's head moved to %s while council was reviewing. Comments refer to the reviewed commit.\n\n",
			Short(rep.Change.HeadSHA), Short(now.HeadSHA))
	}
	posted := 0
	// A run where every reviewer failed posts no review: the overview alone would only make
	// the next run think this head was reviewed.
	if p.Overview != "" && !EveryReviewerFailed(rep) {
		req := github.ReviewRequest{CommitID: rep.Change.HeadSHA, Body: note + p.Overview, Event: github.EventComment}
		if _, err := p.GH.CreateReview(ctx, p.Owner, p.Repo, p.Number, req); err != nil {
			return posted, err
		}
		posted++
	}
	for _, rv := range plan.Reviews {
		rv.Body = note + rv.Body
		if err := p.postReview(ctx, o.Log, rv); err != nil {
			return posted, err
		}
		posted++
	}
	if err := p.markAddressed(ctx, rep); err != nil {
		return posted, err
	}
	p.answerQuestions(ctx, o.Log)
	if err := p.upsertSummary(ctx, rep, o.Council, posted); err != nil {
		return posted, err
	}
	return posted, nil
}

// Said reports whether council already left a conversation comment holding marker.
func (p *PR) Said(marker string) bool {
	for _, c := range p.issue {
		if p.trusted(c.User) && strings.Contains(c.Body, marker) {
			return true
		}
	}
	return false
}

// Say leaves a conversation comment on the pull request.
func (p *PR) Say(ctx context.Context, body string) error {
	_, err := p.GH.CreateIssueComment(ctx, p.Owner, p.Repo, p.Number, body)
	return err
}
