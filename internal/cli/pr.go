package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/github"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/validate"
)

// pullRequest is a --pr run: where the pull request is, what it says, and the client to post
// with.
type pullRequest struct {
	owner, repo string
	number      int
	pr          github.PR
	gh          *github.Client
	// lastHead is the head council reviewed last time, from its own review markers; "" for none.
	lastHead string
	// trusted says whether a comment's author is council itself: only its markers count, or
	// anyone (the pull request's author first) could silence a review by writing one.
	trusted func(login string) bool
	// incremental: this run reviews only what changed since lastHead.
	incremental bool
	overview    string // the overview review's body, posted before the reviewers'; "" for none
	// fixed asks a model whether an earlier comment's problem is gone from the file at head.
	fixed    func(ctx context.Context, comment, path string) (validate.Fix, error)
	posted   map[string]bool
	comments []github.ReviewComment
	issue    []github.IssueComment
}

// githubCredentials reads GITHUB_TOKEN / GH_TOKEN, or a GitHub App's id, installation and key.
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
		return o, errors.New("no GitHub credentials: set GITHUB_TOKEN (or GH_TOKEN), or GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID and GITHUB_APP_PRIVATE_KEY (or GITHUB_APP_PRIVATE_KEY_FILE)")
	}
	var err error
	if o.AppID, err = strconv.ParseInt(appID, 10, 64); err != nil {
		return o, fmt.Errorf("GITHUB_APP_ID %q is not a number", appID)
	}
	if o.InstallationID, err = strconv.ParseInt(inst, 10, 64); err != nil {
		return o, fmt.Errorf("GITHUB_APP_INSTALLATION_ID %q is not a number", inst)
	}
	o.PrivateKey = []byte(key)
	return o, nil
}

// openPR reads the pull request and what council already said on it.
func openPR(ctx context.Context, f *Factory, o *ReviewOptions) (*pullRequest, error) {
	owner, repo, n, err := github.ParsePRRef(o.PR)
	if err != nil {
		return nil, fmt.Errorf("--pr: %w", err)
	}
	opts, err := githubOptions(f.Getenv)
	if err != nil {
		return nil, err
	}
	gh, err := github.New(opts)
	if err != nil {
		return nil, fmt.Errorf("GitHub: %w", err)
	}
	p := &pullRequest{owner: owner, repo: repo, number: n, gh: gh}
	if p.pr, err = gh.PullRequest(ctx, owner, repo, n); err != nil {
		return nil, err
	}
	// A user token knows its login; an installation token cannot ask, and posts as a "[bot]"
	// login, which no pull request author can have.
	me, _ := gh.Login(ctx)
	p.trusted = func(login string) bool {
		if me != "" {
			return login == me
		}
		return strings.HasSuffix(login, "[bot]") && login != p.pr.Author
	}
	if p.comments, err = gh.ReviewComments(ctx, owner, repo, n); err != nil {
		return nil, err
	}
	reviews, err := gh.Reviews(ctx, owner, repo, n)
	if err != nil {
		return nil, err
	}
	if p.issue, err = gh.IssueComments(ctx, owner, repo, n); err != nil {
		return nil, err
	}
	var markers []ghreview.MarkerInfo
	for _, c := range p.comments {
		if p.trusted(c.User) {
			markers = append(markers, ghreview.ParseMarkers(c.Body)...)
		}
	}
	for _, r := range reviews {
		if !p.trusted(r.User) {
			continue
		}
		ms := ghreview.ParseMarkers(r.Body)
		markers = append(markers, ms...)
		for _, m := range ms {
			if m.Review && m.Head != "" {
				p.lastHead = m.Head // reviews come oldest first
			}
		}
	}
	for _, c := range p.issue {
		if p.trusted(c.User) {
			for _, m := range ghreview.ParseMarkers(c.Body) {
				if m.Review && m.Head != "" {
					p.lastHead = m.Head // the summary, updated on every posting run, has the latest
				}
			}
		}
	}
	p.posted = ghreview.PostedFrom(markers)
	return p, nil
}

// checkout makes sure the repository at dir has the pull request's base and head commits,
// fetching them when it does not; with no dir it uses a cached clone.
func (p *pullRequest) checkout(ctx context.Context, f *Factory, dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = cloneCache(p.owner + "/" + p.repo); err != nil {
			return "", err
		}
	}
	g, err := source.InitGit(ctx, dir)
	if err != nil {
		return "", err
	}
	defer g.Close()
	if g.Has(ctx, p.pr.BaseSHA) && g.Has(ctx, p.pr.HeadSHA) {
		return g.Dir(), nil
	}
	remote, err := p.remoteURL()
	if err != nil {
		return "", err
	}
	if err := g.Fetch(ctx, remote, gitCredential(f.Getenv, p.gh.BaseURL()),
		fmt.Sprintf("+refs/pull/%d/head:refs/council/pr/%d/head", p.number, p.number),
		fmt.Sprintf("+refs/heads/%s:refs/council/pr/%d/base", p.pr.BaseRef, p.number),
	); err != nil {
		return "", fmt.Errorf("fetch pull request %d into %s: %w", p.number, dir, err)
	}
	for _, sha := range []string{p.pr.BaseSHA, p.pr.HeadSHA} {
		if !g.Has(ctx, sha) {
			return "", fmt.Errorf("commit %s of pull request %d is not in %s after fetching: was the branch force-pushed? run again", sha, p.number, dir)
		}
	}
	return g.Dir(), nil
}

// cloneCache is where council keeps its clone of a repository ("owner/repo", or a host and
// path for other remotes): review --pr, bench import and bench run share it.
func cloneCache(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache directory for the clone of %s (or name a local clone: --repo, --clone, repo.path): %w", name, err)
	}
	return filepath.Join(cache, "council", "repos", filepath.FromSlash(name)), nil
}

// gitCredential is what git sends to the GitHub the API at apiBase belongs to: the token (not
// an App's credentials, which git cannot use) as a header scoped to that host, so that no other
// remote or redirect ever gets it. Empty without a token.
func gitCredential(getenv func(string) string, apiBase string) source.Credential {
	opts, err := githubOptions(getenv)
	if err != nil || opts.Token == "" {
		return source.Credential{}
	}
	web, err := webRoot(apiBase)
	if err != nil {
		return source.Credential{}
	}
	return source.Credential{
		Prefix: web + "/",
		Header: "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+opts.Token)),
	}
}

// remoteURL is the git URL of the base repository on the GitHub the API belongs to
// (github.com, or a GitHub Enterprise host): the only host the token is ever sent to, whatever
// the local clone's remotes are.
func (p *pullRequest) remoteURL() (string, error) {
	u, err := url.Parse(p.gh.BaseURL())
	if err != nil {
		return "", err
	}
	host := u.Host
	if host == "api.github.com" {
		host = "github.com"
	}
	return fmt.Sprintf("%s://%s/%s/%s.git", u.Scheme, host, p.owner, p.repo), nil
}

// summaryMarker marks the one issue comment council keeps up to date on a pull request.
const summaryMarker = "<!-- council:v1 summary -->"

// post publishes the review on the pull request: one review per reviewer (or one
// consolidated), then the summary comment, then the check run. It returns how many reviews it
// posted.
func (p *pullRequest) post(ctx context.Context, f *Factory, o *ReviewOptions, rep report.Report, files []diff.File, council string) (int, error) {
	plan := ghreview.Build(rep, ghreview.Options{
		Council: council, Layout: ghreview.Layout(o.Layout), HeadSHA: rep.Change.HeadSHA,
		RepoURL: repoURL(p.pr.HTMLURL), Diff: files, Posted: p.posted,
	})
	// If the pull request moved on while council was reviewing, say so, and post against the
	// commit that was reviewed: its line numbers are the ones the comments use.
	note := ""
	if now, err := p.gh.PullRequest(ctx, p.owner, p.repo, p.number); err == nil && now.HeadSHA != rep.Change.HeadSHA {
		note = fmt.Sprintf("> [!NOTE]\n> Reviewed at %s; the pull request's head moved to %s while council was reviewing. Comments refer to the reviewed commit.\n\n",
			short(rep.Change.HeadSHA), short(now.HeadSHA))
	}
	posted := 0
	// A run where every reviewer failed posts no review: the overview alone would only make
	// the next run think this head was reviewed.
	if p.overview != "" && !everyReviewerFailed(rep) {
		req := github.ReviewRequest{CommitID: rep.Change.HeadSHA, Body: note + p.overview, Event: github.EventComment}
		if _, err := p.gh.CreateReview(ctx, p.owner, p.repo, p.number, req); err != nil {
			return posted, err
		}
		posted++
	}
	for _, rv := range plan.Reviews {
		rv.Body = note + rv.Body
		if err := p.postReview(ctx, f, rv); err != nil {
			return posted, err
		}
		posted++
	}
	if err := p.markAddressed(ctx, rep); err != nil {
		return posted, err
	}
	if err := p.upsertSummary(ctx, rep, council, posted); err != nil {
		return posted, err
	}
	return posted, nil
}

// addressedNote starts council's reply to one of its own comments whose code a push changed.
const addressedNote = "<!-- council:v1 addressed -->"

// markAddressed answers council's earlier inline comments whose file the push changed and
// whose finding this review did not raise again: a model reads the file as it is now, and the
// thread is resolved when the problem is gone, or answered "partially addressed" when not. A
// thread already answered so is left alone.
func (p *pullRequest) markAddressed(ctx context.Context, rep report.Report) error {
	if !p.incremental {
		return nil // only then are the reviewed files exactly those the push changed
	}
	if len(rep.Failed()) > 0 {
		return nil // a reviewer that failed raised nothing: that says nothing about a fix
	}
	raised := map[string]bool{}
	for _, f := range rep.Findings {
		raised[f.ID] = true
	}
	reviewed := map[string]bool{}
	for _, path := range rep.Coverage.Reviewed {
		reviewed[path] = true
	}
	var threads map[int64]string // first comment id -> thread id, read once when needed
	answered := map[int64]bool{}
	for _, c := range p.comments {
		if c.InReplyTo != 0 && p.trusted(c.User) && strings.Contains(c.Body, addressedNote) {
			answered[c.InReplyTo] = true
		}
	}
	for _, c := range p.comments {
		if c.InReplyTo != 0 || answered[c.ID] || !reviewed[c.Path] || !p.trusted(c.User) {
			continue
		}
		for _, m := range ghreview.ParseMarkers(c.Body) {
			if m.Review || m.ID == "" || raised[m.ID] {
				continue
			}
			// Not raised again is a hint, not proof: a model reads the file as it is now.
			fix, err := p.fixed(ctx, c.Body, c.Path)
			if err != nil {
				break // no answer, no claim either way
			}
			body := fmt.Sprintf("%s\n✅ Addressed in %s: %s", addressedNote, short(rep.Change.HeadSHA), fix.Reason)
			if !fix.Fixed {
				body = fmt.Sprintf("%s\nPartially addressed: %s", addressedNote, fix.Reason)
			}
			if _, err := p.gh.ReplyToReviewComment(ctx, p.owner, p.repo, p.number, c.ID, body); err != nil {
				return err
			}
			if fix.Fixed {
				if threads == nil {
					ts, err := p.gh.ReviewThreads(ctx, p.owner, p.repo, p.number)
					if err != nil {
						return err
					}
					threads = map[int64]string{}
					for _, t := range ts {
						if !t.Resolved {
							threads[t.FirstCommentID] = t.ID
						}
					}
				}
				if id, ok := threads[c.ID]; ok {
					if err := p.gh.ResolveThread(ctx, id); err != nil {
						return err
					}
				}
			}
			break
		}
	}
	return nil
}

// postReview posts one review. GitHub refusing a comment (422) never loses the review: the
// comments its own file patches do not cover move to the body, and failing that all do.
func (p *pullRequest) postReview(ctx context.Context, f *Factory, rv ghreview.Review) error {
	_, err := p.gh.CreateReview(ctx, p.owner, p.repo, p.number, reviewRequest(rv))
	if err == nil || !github.IsUnprocessable(err) || len(rv.Comments) == 0 {
		return err
	}
	fmt.Fprintf(f.Err, "council: GitHub refused a comment of the %s review (%v); moving the comments it cannot place into the review body\n", orConsolidated(rv.Reviewer), err)
	bad := map[int]string{}
	if ghFiles, ferr := p.gh.PullRequestFiles(ctx, p.owner, p.repo, p.number); ferr == nil {
		ix := diff.NewIndex(patchFiles(ghFiles))
		for i, c := range rv.Comments {
			start := c.StartLine
			if start == 0 {
				start = c.Line
			}
			if !ix.SameHunk(c.Path, finding.Side(c.Side), start, c.Line) {
				bad[i] = "GitHub's diff of this file does not contain these lines"
			}
		}
	}
	if len(bad) > 0 {
		if _, err = p.gh.CreateReview(ctx, p.owner, p.repo, p.number, reviewRequest(ghreview.Demote(rv, bad))); err == nil || !github.IsUnprocessable(err) {
			return err
		}
	}
	for i := range rv.Comments {
		bad[i] = "GitHub refused the inline comments of this review"
	}
	_, err = p.gh.CreateReview(ctx, p.owner, p.repo, p.number, reviewRequest(ghreview.Demote(rv, bad)))
	return err
}

func orConsolidated(reviewer string) string {
	if reviewer == "" {
		return "consolidated"
	}
	return reviewer
}

func reviewRequest(rv ghreview.Review) github.ReviewRequest {
	req := github.ReviewRequest{CommitID: rv.CommitID, Body: rv.Body, Event: rv.Event}
	for _, c := range rv.Comments {
		req.Comments = append(req.Comments, github.ReviewComment{
			Path: c.Path, Body: c.Body, Line: c.Line, StartLine: c.StartLine, Side: c.Side, StartSide: c.StartSide,
		})
	}
	return req
}

// patchFiles turns the files endpoint's patches into diff files for the hunk index.
func patchFiles(files []github.PRFile) []diff.File {
	var out []diff.File
	for _, f := range files {
		if f.Patch == "" {
			continue
		}
		old := f.PreviousFilename
		if old == "" {
			old = f.Filename
		}
		patch := fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n%s\n", old, f.Filename, old, f.Filename, strings.TrimRight(f.Patch, "\n"))
		if parsed, err := diff.Parse([]byte(patch)); err == nil {
			out = append(out, parsed...)
		}
	}
	return out
}

// publish posts the reviews and the check run as the flags ask. On a pull request from a fork
// the workflow's token cannot write: that ends with a message, not a failure.
func (p *pullRequest) publish(ctx context.Context, f *Factory, o *ReviewOptions, rep report.Report, files []diff.File, council string) error {
	if o.Post || o.CheckRun {
		logFailures(f, rep)
	}
	if o.Post {
		n, err := p.post(ctx, f, o, rep, files, council)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p.pr.IsFork && github.IsAuth(err) {
				fmt.Fprintf(f.Err, "council: cannot post on %s: the token of a workflow on a fork's pull request is read-only; the review is in this job's output\n", o.PR)
				return nil
			}
			return &exitError{code: ExitPublish, msg: fmt.Sprintf("post the review on %s: %v (the review is in this run's output)", o.PR, err)}
		}
		if everyReviewerFailed(rep) {
			fmt.Fprintf(f.Err, "council: every reviewer failed, so no review was posted on %s; its summary comment says so (%d GitHub requests)\n", o.PR, p.gh.Requests())
		} else {
			fmt.Fprintf(f.Err, "council: posted %d review(s) on %s (%d GitHub requests)\n", n, o.PR, p.gh.Requests())
		}
	}
	if o.CheckRun {
		if err := p.checkRun(ctx, o, rep); err != nil {
			return &exitError{code: ExitPublish, msg: fmt.Sprintf("create the check run on %s: %v", o.PR, err)}
		}
	}
	return nil
}

// upsertSummary keeps one summary comment on the pull request, edited in place on every run.
// Its second marker records the head the run reviewed; a run where every reviewer failed
// reviewed nothing, so it keeps the head reviewed before it (if any), and the next run does not
// take this head as done.
func (p *pullRequest) upsertSummary(ctx context.Context, rep report.Report, council string, posted int) error {
	var body string
	if everyReviewerFailed(rep) {
		head := ""
		if p.lastHead != "" {
			head = ghreview.ReviewMarker("summary", p.lastHead) + "\n"
		}
		body = fmt.Sprintf("%s\n%s### 🤖 %s\n\n%s\n", summaryMarker, head, council, couldNotReview(rep))
	} else {
		t := rep.Totals()
		minor := ""
		if t.Minor > 0 {
			minor = fmt.Sprintf(", %d minor", t.Minor)
		}
		body = fmt.Sprintf("%s\n%s\n### 🤖 %s\n\nReviewed `%s` with %d reviewers: %d finding(s) (%d inline, %d other notes%s, %d filtered); %d new review(s) posted this run.\n\n%s\n",
			summaryMarker, ghreview.ReviewMarker("summary", rep.Change.HeadSHA), council, short(rep.Change.HeadSHA), len(rep.Reviewers), t.Shown(), t.Reported, t.OtherNote, minor, t.Filtered, posted,
			markdown.Ledger(rep.Usage))
		if line := someFailed(rep); line != "" {
			body += "\n> [!WARNING]\n> " + line + "\n"
		}
		for _, d := range ghreview.PublicWarnings(rep.Degraded) {
			body += "\n> [!WARNING]\n> " + d + "\n"
		}
	}
	for _, c := range p.issue {
		if p.trusted(c.User) && strings.Contains(c.Body, summaryMarker) {
			_, err := p.gh.EditIssueComment(ctx, p.owner, p.repo, c.ID, body)
			return err
		}
	}
	_, err := p.gh.CreateIssueComment(ctx, p.owner, p.repo, p.number, body)
	return err
}

// checkRun reports the review as a check run, its conclusion following --fail-on. When every
// reviewer failed, it fails and says that the review could not run.
func (p *pullRequest) checkRun(ctx context.Context, o *ReviewOptions, rep report.Report) error {
	conclusion := "success"
	if outcome(rep, o) != nil {
		conclusion = "failure"
	}
	run := github.CheckRun{
		Name: "council", HeadSHA: rep.Change.HeadSHA, Status: "completed", Conclusion: conclusion,
		Title: fmt.Sprintf("%d finding(s)", rep.Totals().Shown()), Summary: markdown.Ledger(rep.Usage),
	}
	if everyReviewerFailed(rep) {
		run.Conclusion, run.Title, run.Summary = "failure", "council could not review this pull request", couldNotReview(rep)
	} else if line := someFailed(rep); line != "" {
		run.Summary += "\n\n" + line
	}
	for _, fd := range rep.Findings {
		if fd.Status == finding.Filtered || fd.Line == 0 || fd.Side == finding.Left {
			continue
		}
		level := github.LevelNotice
		switch fd.Severity {
		case finding.Critical, finding.High:
			level = github.LevelFailure
		case finding.Medium:
			level = github.LevelWarning
		}
		start := fd.StartLine
		if start == 0 {
			start = fd.Line
		}
		run.Annotations = append(run.Annotations, github.Annotation{
			Path: fd.Path, StartLine: start, EndLine: fd.Line, Level: level, Title: fd.Title, Message: fd.Body,
		})
	}
	_, err := p.gh.CreateCheckRun(ctx, p.owner, p.repo, run)
	return err
}

// failureHelp ends what the pull request is told of failed reviewers. The public text never
// quotes their errors (a provider's raw words, its request's internals): the run's log has them.
const failureHelp = "The errors are in the run's log; run `council doctor` to check the model provider's credentials, model and requests."

// everyReviewerFailed says whether the run reviewed nothing: a reviewer failed and none got a
// usable answer. Such a run posts no review, and its summary comment does not record its head
// as reviewed.
func everyReviewerFailed(rep report.Report) bool {
	if len(rep.Failed()) == 0 {
		return false
	}
	for _, rv := range rep.Reviewers {
		if rv.Succeeded {
			return false
		}
	}
	return true
}

// couldNotReview is the one line the summary comment and the check run say when every
// reviewer failed.
func couldNotReview(rep report.Report) string {
	return fmt.Sprintf("council could not review this pull request at `%s`: every reviewer failed (%d of %d). %s",
		short(rep.Change.HeadSHA), len(rep.Failed()), len(rep.Reviewers), failureHelp)
}

// someFailed is the one line the summary comment and the check run say when some reviewers
// failed and others did not; "" when none failed.
func someFailed(rep report.Report) string {
	failed := rep.Failed()
	if len(failed) == 0 {
		return ""
	}
	names := make([]string, len(failed))
	for i, rv := range failed {
		names[i] = markdown.Title(rv)
	}
	return fmt.Sprintf("%d of %d reviewers failed (%s). %s", len(failed), len(rep.Reviewers), strings.Join(names, ", "), failureHelp)
}

// logFailures writes every reviewer's errors and the run's warnings to stderr in full, once
// each: what is posted on the pull request leaves the providers' raw errors out.
func logFailures(f *Factory, rep report.Report) {
	for _, rv := range rep.Failed() {
		verb := "failed"
		if rv.Succeeded {
			verb = "partly failed"
		}
		for _, e := range rv.Errors {
			fmt.Fprintf(f.Err, "council: reviewer %s %s: %s\n", markdown.Title(rv), verb, e)
		}
	}
	for _, d := range rep.Degraded {
		fmt.Fprintf(f.Err, "council: warning: %s\n", d)
	}
}

func repoURL(prURL string) string {
	if i := strings.LastIndex(prURL, "/pull/"); i > 0 {
		return prURL[:i]
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// hasCommit says whether the repository at dir holds sha.
func hasCommit(ctx context.Context, dir, sha string) bool {
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		return false
	}
	defer g.Close()
	return g.Has(ctx, sha)
}
