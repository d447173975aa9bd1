package prflow

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/github"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/publish/markdown"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/source"
)

// markAddressed answers council's earlier inline comments whose file the push changed and
// whose finding this review did not raise again: a model reads the file as it is now, and the
// thread is resolved when the problem is gone, or answered "partially addressed" when not. A
// thread already answered so is left alone.
func (p *PR) markAddressed(ctx context.Context, rep report.Report) error {
	if !p.Incremental {
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
		if c.InReplyTo != 0 && p.trusted(c.User) && strings.Contains(c.Body, AddressedNote) {
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
			fix, err := p.Fixed(ctx, c.Body, c.Path)
			if err != nil {
				break // no answer, no claim either way
			}
			body := fmt.Sprintf("%s\n✅ Addressed in %s: %s", AddressedNote, Short(rep.Change.HeadSHA), fix.Reason)
			if !fix.Fixed {
				body = fmt.Sprintf("%s\nPartially addressed: %s", AddressedNote, fix.Reason)
			}
			if _, err := p.GH.ReplyToReviewComment(ctx, p.Owner, p.Repo, p.Number, c.ID, body); err != nil {
				return err
			}
			if fix.Fixed {
				if threads == nil {
					ts, err := p.GH.ReviewThreads(ctx, p.Owner, p.Repo, p.Number)
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
					if err := p.GH.ResolveThread(ctx, id); err != nil {
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
func (p *PR) postReview(ctx context.Context, log io.Writer, rv ghreview.Review) error {
	_, err := p.GH.CreateReview(ctx, p.Owner, p.Repo, p.Number, reviewRequest(rv))
	if err == nil || !github.IsUnprocessable(err) || len(rv.Comments) == 0 {
		return err
	}
	fmt.Fprintf(log, "council: GitHub refused a comment of the %s review (%v); moving the comments it cannot place into the review body\n", orConsolidated(rv.Reviewer), err)
	bad := map[int]string{}
	if ghFiles, ferr := p.GH.PullRequestFiles(ctx, p.Owner, p.Repo, p.Number); ferr == nil {
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
		if _, err = p.GH.CreateReview(ctx, p.Owner, p.Repo, p.Number, reviewRequest(ghreview.Demote(rv, bad))); err == nil || !github.IsUnprocessable(err) {
			return err
		}
	}
	for i := range rv.Comments {
		bad[i] = "GitHub refused the inline comments of this review"
	}
	_, err = p.GH.CreateReview(ctx, p.Owner, p.Repo, p.Number, reviewRequest(ghreview.Demote(rv, bad)))
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

// upsertSummary keeps one summary comment on the pull request, edited in place on every run.
// Its second marker records the head the run reviewed; a run where every reviewer failed
// reviewed nothing, so it keeps the head reviewed before it (if any), and the next run does not
// take this head as done.
func (p *PR) upsertSummary(ctx context.Context, rep report.Report, council string, posted int) error {
	var body string
	if EveryReviewerFailed(rep) {
		head := ""
		if p.LastHead != "" {
			head = ghreview.ReviewMarker("summary", p.LastHead) + "\n"
		}
		body = fmt.Sprintf("%s\n%s### 🤖 %s\n\n%s\n", SummaryMarker, head, council, CouldNotReview(rep))
	} else {
		t := rep.Totals()
		minor := ""
		if t.Minor > 0 {
			minor = fmt.Sprintf(", %d minor", t.Minor)
		}
		body = fmt.Sprintf("%s\n%s\n### 🤖 %s\n\nReviewed `%s` with %d reviewers: %d finding(s) (%d inline, %d other notes%s, %d filtered); %d new review(s) posted this run.\n\n%s\n",
			SummaryMarker, ghreview.ReviewMarker("summary", rep.Change.HeadSHA), council, Short(rep.Change.HeadSHA), len(rep.Reviewers), t.Shown(), t.Reported, t.OtherNote, minor, t.Filtered, posted,
			markdown.Ledger(rep.Usage))
		if line := markdown.LearningsLine(rep.Learnings); line != "" {
			body += "\n" + line + " (from `.council/learnings.yaml` at the base revision; the findings they suppressed are in the run's output, under Filtered).\n"
		}
		if line := SomeFailed(rep); line != "" {
			body += "\n> [!WARNING]\n> " + line + "\n"
		}
		for _, d := range ghreview.PublicWarnings(rep.Degraded) {
			body += "\n> [!WARNING]\n> " + d + "\n"
		}
	}
	for _, c := range p.issue {
		if p.trusted(c.User) && strings.Contains(c.Body, SummaryMarker) {
			_, err := p.GH.EditIssueComment(ctx, p.Owner, p.Repo, c.ID, body)
			return err
		}
	}
	_, err := p.GH.CreateIssueComment(ctx, p.Owner, p.Repo, p.Number, body)
	return err
}

// checkRun reports the review as a check run, its conclusion following --fail-on. When every
// reviewer failed, it fails and says that the review could not run.
func (p *PR) checkRun(ctx context.Context, o PostOptions, rep report.Report) error {
	conclusion := "success"
	if o.Failed {
		conclusion = "failure"
	}
	run := github.CheckRun{
		Name: "council", HeadSHA: rep.Change.HeadSHA, Status: "completed", Conclusion: conclusion,
		Title: fmt.Sprintf("%d finding(s)", rep.Totals().Shown()), Summary: markdown.Ledger(rep.Usage),
	}
	if EveryReviewerFailed(rep) {
		run.Conclusion, run.Title, run.Summary = "failure", "council could not review this pull request", CouldNotReview(rep)
	} else if line := SomeFailed(rep); line != "" {
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
	_, err := p.GH.CreateCheckRun(ctx, p.Owner, p.Repo, run)
	return err
}

// failureHelp ends what the pull request is told of failed reviewers. The public text never
// quotes their errors (a provider's raw words, its request's internals): the run's log has them.
const failureHelp = "The errors are in the run's log; run `council doctor` to check the model provider's credentials, model and requests."

// EveryReviewerFailed says whether the run reviewed nothing: a reviewer failed and none got a
// usable answer. Such a run posts no review, and its summary comment does not record its head
// as reviewed.
func EveryReviewerFailed(rep report.Report) bool {
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

// CouldNotReview is the one line the summary comment and the check run say when every
// reviewer failed.
func CouldNotReview(rep report.Report) string {
	return fmt.Sprintf("council could not review this pull request at `%s`: every reviewer failed (%d of %d). %s",
		Short(rep.Change.HeadSHA), len(rep.Failed()), len(rep.Reviewers), failureHelp)
}

// SomeFailed is the one line the summary comment and the check run say when some reviewers
// failed and others did not; "" when none failed.
func SomeFailed(rep report.Report) string {
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

// LogFailures writes every reviewer's errors and the run's warnings to stderr in full, once
// each: what is posted on the pull request leaves the providers' raw errors out.
func LogFailures(w io.Writer, rep report.Report) {
	for _, rv := range rep.Failed() {
		verb := "failed"
		if rv.Succeeded {
			verb = "partly failed"
		}
		for _, e := range rv.Errors {
			fmt.Fprintf(w, "council: reviewer %s %s: %s\n", markdown.Title(rv), verb, e)
		}
	}
	for _, d := range rep.Degraded {
		fmt.Fprintf(w, "council: warning: %s\n", d)
	}
}

func repoURL(prURL string) string {
	if i := strings.LastIndex(prURL, "/pull/"); i > 0 {
		return prURL[:i]
	}
	return ""
}

func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// HasCommit says whether the repository at dir holds sha.
func HasCommit(ctx context.Context, dir, sha string) bool {
	g, err := source.OpenGit(ctx, dir)
	if err != nil {
		return false
	}
	defer g.Close()
	return g.Has(ctx, sha)
}
