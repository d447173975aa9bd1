package bench

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/council-dev/council/internal/history"
	"github.com/council-dev/council/internal/source"
)

// GitImporter turns merged branches into samples: the reviewed commit and what the feedback
// commits after it changed, located at it. The walk and its rules are internal/history's.
type GitImporter struct {
	Git history.Git
	// Repo is where the samples say the repository is; its Name ("owner/repo") makes their
	// ids, and their pull request URLs when the repository is on GitHub.
	Repo    Repo
	BaseRef string   // the default branch's name
	Ignore  []string // logins that are bots without saying so
	Paths   []string // globs, "!glob" to exclude: truth only from these paths; none: every path
}

// GitSampleID is the id of the sample of a merge: owner-repo-<number> as for GitHub's
// pull requests, or owner-repo-<first 8 hex of the merge> when the message names none.
func GitSampleID(name string, number int, merge string) string {
	owner, repo, ok := strings.Cut(name, "/")
	if !ok {
		owner, repo = "", name
	}
	if number > 0 {
		return strings.Trim(SampleID(owner, repo, number), "-")
	}
	return strings.Trim(strings.ToLower(fmt.Sprintf("%s-%s-%s", owner, repo, merge[:8])), "-")
}

// Sample builds the sample of a merged branch once its messages say where the feedback is
// (history.Reader.Feedback, whose branch it returns too): base is the merge-base of the
// reviewed commit with the merge's first parent, head the reviewed commit, merge the merge
// commit, and truth one item per kept feedback hunk, at head's lines. A branch without
// feedback, or whose every hunk is dropped, is a *SkipError.
func (im *GitImporter) Sample(ctx context.Context, mb history.MergedBranch) (Sample, history.MergedBranch, error) {
	fb, err := history.Reader{Git: im.Git, Ignore: im.Ignore, Paths: im.Paths}.Feedback(ctx, mb)
	if err != nil {
		return Sample{}, fb.Branch, err
	}
	mb = fb.Branch
	if mb.Skip != "" {
		return Sample{}, mb, &SkipError{Reason: mb.Skip}
	}
	truth, dropped := im.truth(fb)
	number, title, from := history.PRFromMerge(fb.Messages[mb.Merge.SHA])
	if title == "" {
		title = mb.Line[0].Subject // GitHub's merge message without the title
	}
	head := fb.Head()
	s := Sample{
		SampleVersion: SampleVersion,
		ID:            GitSampleID(im.Repo.Name, number, mb.Merge.SHA),
		Repo:          im.Repo,
		PR: PR{Number: number, Title: title, Body: branchBody(mb.Line[:mb.Head+1], fb.Messages),
			Author: prAuthor(from, im.Repo.Name, mb.Line[0]), BaseRef: im.BaseRef, URL: im.prURL(number)},
		Base: fb.Base, Head: head.SHA, Merge: mb.Merge.SHA, Truth: truth, Dropped: dropped,
	}
	if err := s.Validate(); err != nil {
		return Sample{}, mb, fmt.Errorf("sample of merge %s: %w", shortCommit(mb.Merge.SHA), err)
	}
	return s, mb, nil
}

// truth turns the feedback's hunks into truth items and dropped ones, numbered in the diff's
// order after the first feedback commit.
func (im *GitImporter) truth(fb history.Feedback) ([]Truth, []Dropped) {
	idPrefix := fb.Branch.Feedback[0].SHA[:10]
	var truth []Truth
	var dropped []Dropped
	for n, h := range fb.Hunks {
		id := fmt.Sprintf("%s-%d", idPrefix, n+1)
		if h.Drop != "" {
			dropped = append(dropped, Dropped{ID: id, Author: h.Author, Body: h.Body(), Reason: h.Drop})
			continue
		}
		truth = append(truth, Truth{ID: id, Author: h.Author, Path: h.Path, StartLine: h.StartLine, Line: h.Line,
			Side: "RIGHT", Body: h.Body(), Kind: feedbackKind(h.Message, im.Ignore), Addressed: true, Source: SourceFeedback})
	}
	return truth, dropped
}

// feedbackKind is a feedback commit message's kind, by Classify's rules over the message
// without the words that say it answers review (history.WithoutFeedbackWords). A message that
// says nothing more is "other"; so is one Classify finds a question or praise: a commit is
// neither.
func feedbackKind(message string, ignore []string) string {
	kind, _ := Classify(history.WithoutFeedbackWords(message, ignore), "")
	if kind == "question" || kind == "praise" {
		return "other"
	}
	return kind
}

// prAuthor is who opened the pull request: the account GitHub's merge message names, unless
// that is the repository's own owner (a branch of the repository itself), else the author of
// the branch's first commit.
func prAuthor(from, name string, first source.Commit) string {
	owner, _, _ := strings.Cut(name, "/")
	if from != "" && !strings.EqualFold(from, owner) {
		return from
	}
	return first.Author
}

func (im *GitImporter) prURL(number int) string {
	if number == 0 || !strings.Contains(im.Repo.Name, "/") {
		return ""
	}
	if im.Repo.URL != "" {
		if u, err := url.Parse(im.Repo.URL); err != nil || u.Host != "github.com" {
			if !strings.HasPrefix(im.Repo.URL, "git@github.com:") {
				return ""
			}
		}
	}
	return fmt.Sprintf("https://github.com/%s/pull/%d", im.Repo.Name, number)
}

// branchBody is the change's description a reviewer of head would have had at hand: the
// messages of the branch's commits up to head, oldest first (a merge commit does not hold
// the pull request's body).
func branchBody(line []source.Commit, msgs map[string]string) string {
	var parts []string
	for _, c := range line {
		if m := strings.TrimSpace(msgs[c.SHA]); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, "\n\n---\n\n")
}
