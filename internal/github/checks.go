package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v93/github"
)

// MaxAnnotationsPerRequest is GitHub's limit on the annotations of one check run request;
// more are sent in several updates, which GitHub appends to the run.
const MaxAnnotationsPerRequest = 50

// Annotation levels.
const (
	LevelNotice  = "notice"
	LevelWarning = "warning"
	LevelFailure = "failure"
)

// CheckRun is a check run to create or update. Title and Summary are required as soon as
// there is any output (Text or Annotations).
type CheckRun struct {
	Name    string
	HeadSHA string // the commit the run is about; for CreateCheckRun only
	// Status is queued, in_progress or completed; Conclusion (success, failure, neutral,
	// cancelled, skipped, timed_out, action_required) implies completed.
	Status, Conclusion   string
	Title, Summary, Text string
	DetailsURL           string
	ExternalID           string
	Annotations          []Annotation
}

// Annotation marks lines of a file in a check run.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	Level              string // LevelNotice, LevelWarning or LevelFailure
	Title, Message     string
}

// CreateCheckRun creates a check run and returns its id. Annotations beyond the first
// MaxAnnotationsPerRequest follow in updates; a completed status and the conclusion go with
// the last request, so that the run never shows as finished with part of its annotations. If
// an update fails, the run's id is returned with the error.
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, run CheckRun) (int64, error) {
	if err := checkRepo(owner, repo); err != nil {
		return 0, err
	}
	if run.HeadSHA == "" {
		return 0, fmt.Errorf("github: check run %q: no head SHA", run.Name)
	}
	if err := checkRun(run); err != nil {
		return 0, err
	}
	batches := chunk(run.Annotations)
	opts := gh.CreateCheckRunOptions{
		Name: run.Name, HeadSHA: run.HeadSHA,
		DetailsURL: ptr(run.DetailsURL), ExternalID: ptr(run.ExternalID),
		Status: ptr(run.Status), Conclusion: ptr(run.Conclusion),
		Output: output(run, batches[0]),
	}
	if len(batches) > 1 && (run.Status == "completed" || run.Conclusion != "") {
		opts.Status, opts.Conclusion = new("in_progress"), nil
	}
	cr, _, err := c.gh.Checks.CreateCheckRun(ctx, owner, repo, opts)
	if err != nil {
		return 0, fmt.Errorf("create check run %q on %s/%s: %w", run.Name, owner, repo, c.convert(err))
	}
	id := cr.GetID()
	if len(batches) > 1 {
		if err := c.updateCheckRun(ctx, owner, repo, id, run, batches[1:]); err != nil {
			return id, fmt.Errorf("create check run %q on %s/%s: created as %d, but: %w", run.Name, owner, repo, id, err)
		}
	}
	return id, nil
}

// UpdateCheckRun updates a check run: its status, conclusion and output. Annotations are
// appended to those the run has, in batches of MaxAnnotationsPerRequest; Name is required,
// because GitHub takes an empty one as a rename.
func (c *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, run CheckRun) error {
	if err := checkRepo(owner, repo); err != nil {
		return err
	}
	if err := checkRun(run); err != nil {
		return err
	}
	return c.updateCheckRun(ctx, owner, repo, id, run, chunk(run.Annotations))
}

// updateCheckRun sends one update per batch; the last carries the status and conclusion.
func (c *Client) updateCheckRun(ctx context.Context, owner, repo string, id int64, run CheckRun, batches [][]Annotation) error {
	for i, b := range batches {
		opts := gh.UpdateCheckRunOptions{Name: run.Name, Output: output(run, b)}
		if i == len(batches)-1 {
			opts.Status, opts.Conclusion = ptr(run.Status), ptr(run.Conclusion)
			opts.DetailsURL, opts.ExternalID = ptr(run.DetailsURL), ptr(run.ExternalID)
		}
		if _, _, err := c.gh.Checks.UpdateCheckRun(ctx, owner, repo, id, opts); err != nil {
			return fmt.Errorf("update check run %d on %s/%s (annotation batch %d of %d): %w",
				id, owner, repo, i+1, len(batches), c.convert(err))
		}
	}
	return nil
}

func checkRun(run CheckRun) error {
	if run.Name == "" {
		return fmt.Errorf("github: check run without a name")
	}
	hasOutput := run.Title != "" || run.Summary != "" || run.Text != "" || len(run.Annotations) > 0
	if hasOutput && (run.Title == "" || run.Summary == "") {
		return fmt.Errorf("github: check run %q: output needs both a title and a summary", run.Name)
	}
	for i, a := range run.Annotations {
		switch {
		case a.Path == "":
			return fmt.Errorf("github: check run %q: annotation %d has no path", run.Name, i+1)
		case a.StartLine <= 0 || a.EndLine < a.StartLine:
			return fmt.Errorf("github: check run %q: annotation %d (%s): lines %d-%d are not a range", run.Name, i+1, a.Path, a.StartLine, a.EndLine)
		case a.Level != LevelNotice && a.Level != LevelWarning && a.Level != LevelFailure:
			return fmt.Errorf("github: check run %q: annotation %d (%s:%d): level %q is not %s, %s or %s",
				run.Name, i+1, a.Path, a.StartLine, a.Level, LevelNotice, LevelWarning, LevelFailure)
		case a.Message == "":
			return fmt.Errorf("github: check run %q: annotation %d (%s:%d) has no message", run.Name, i+1, a.Path, a.StartLine)
		}
	}
	return nil
}

// chunk splits annotations into batches GitHub accepts; there is always at least one batch,
// maybe empty, so that the run itself is always sent.
func chunk(as []Annotation) [][]Annotation {
	batches := [][]Annotation{nil}
	for i := 0; i < len(as); i += MaxAnnotationsPerRequest {
		b := as[i:min(i+MaxAnnotationsPerRequest, len(as))]
		if i == 0 {
			batches[0] = b
		} else {
			batches = append(batches, b)
		}
	}
	return batches
}

func output(run CheckRun, batch []Annotation) *gh.CheckRunOutput {
	if run.Title == "" && run.Summary == "" && run.Text == "" && len(batch) == 0 {
		return nil
	}
	out := &gh.CheckRunOutput{Title: new(run.Title), Summary: new(run.Summary), Text: ptr(run.Text)}
	for _, a := range batch {
		out.Annotations = append(out.Annotations, &gh.CheckRunAnnotation{
			Path: new(a.Path), StartLine: new(a.StartLine), EndLine: new(a.EndLine),
			AnnotationLevel: new(a.Level), Title: ptr(a.Title), Message: new(a.Message),
		})
	}
	return out
}

// ptr is nil for an empty string, so that omitempty leaves the field out.
func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
