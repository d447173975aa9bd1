package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxAnnotations is GitHub's limit on the annotations of one check run request.
const maxAnnotations = 50

// CheckRunState is a check run as the fake holds it.
type CheckRunState struct {
	ID                   int64
	Name, HeadSHA        string
	Status, Conclusion   string
	Title, Summary, Text string
	DetailsURL           string
	ExternalID           string
	Annotations          []Annotation // every batch, in the order they came
	Writes               int          // requests that created or updated it
}

// Annotation is one check run annotation.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	Level              string
	Title, Message     string
}

type annotationBody struct {
	Path            string `json:"path"`
	StartLine       *int   `json:"start_line"`
	EndLine         *int   `json:"end_line"`
	StartColumn     *int   `json:"start_column"`
	EndColumn       *int   `json:"end_column"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title"`
	RawDetails      string `json:"raw_details"`
}

type outputBody struct {
	Title       *string           `json:"title"`
	Summary     *string           `json:"summary"`
	Text        *string           `json:"text"`
	Annotations []annotationBody  `json:"annotations"`
	Images      []json.RawMessage `json:"images"`
}

type checkRunBody struct {
	Name        *string           `json:"name"`
	HeadSHA     *string           `json:"head_sha"`
	DetailsURL  *string           `json:"details_url"`
	ExternalID  *string           `json:"external_id"`
	Status      *string           `json:"status"`
	Conclusion  *string           `json:"conclusion"`
	StartedAt   *string           `json:"started_at"`
	CompletedAt *string           `json:"completed_at"`
	Output      *outputBody       `json:"output"`
	Actions     []json.RawMessage `json:"actions"`
}

var (
	checkStatuses    = map[string]bool{"queued": true, "in_progress": true, "completed": true}
	checkConclusions = map[string]bool{
		"action_required": true, "cancelled": true, "failure": true, "neutral": true,
		"success": true, "skipped": true, "stale": true, "timed_out": true,
	}
	annotationLevels = map[string]bool{"notice": true, "warning": true, "failure": true}
)

const checksDoc = "https://docs.github.com/rest/checks/runs"

// appOnly refuses a check run write from a personal access token, as GitHub does: "To create a
// check run, you must use a GitHub App. OAuth apps and authenticated users are not able to
// create a check suite." (https://docs.github.com/rest/checks/runs#create-a-check-run). A
// classic token gets "You must authenticate via a GitHub App." (as reported in
// https://github.com/EnricoMi/publish-unit-test-result-action/issues/53), a fine-grained one
// "Resource not accessible by personal access token" (as reported in
// https://github.com/github/rest-api-description/issues/4290), whatever permissions it holds.
func appOnly(w http.ResponseWriter, r *http.Request) bool {
	t, _ := r.Context().Value(ctxKey{}).(*token)
	switch {
	case t != nil && t.kind == classicPAT:
		writeError(w, http.StatusForbidden, "You must authenticate via a GitHub App.", nil, checksDoc+"#create-a-check-run")
		return false
	case t != nil && t.kind == fineGrainedPAT:
		writeError(w, http.StatusForbidden, notAccessible(t), nil, checksDoc+"#create-a-check-run")
		return false
	}
	return true
}

// invalid answers the checks API's 422, whose message is "Invalid request." and the reason.
func invalid(w http.ResponseWriter, why string) {
	writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n"+why, nil, checksDoc)
}

// decodeCheckRun reads a check run body strictly, as the checks API validates it against its
// schema: unknown keys are refused.
func decodeCheckRun(w http.ResponseWriter, r *http.Request) (checkRunBody, bool) {
	var b checkRunBody
	data, _ := io.ReadAll(r.Body)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			invalid(w, key+" is not a permitted key.")
			return b, false
		}
		badJSON(w)
		return b, false
	}
	return b, true
}

// apply validates b and writes it into run; it answers 422 and returns false when GitHub would.
func apply(w http.ResponseWriter, run *CheckRunState, b checkRunBody) bool {
	if b.Status != nil && !checkStatuses[*b.Status] {
		invalid(w, fmt.Sprintf("%q is not a valid status.", *b.Status))
		return false
	}
	if b.Conclusion != nil && !checkConclusions[*b.Conclusion] {
		invalid(w, fmt.Sprintf("%q is not a valid conclusion.", *b.Conclusion))
		return false
	}
	if b.Status != nil && *b.Status == "completed" && b.Conclusion == nil && run.Conclusion == "" {
		invalid(w, `"conclusion" is required when "status" is "completed".`)
		return false
	}
	if o := b.Output; o != nil {
		var missing []string
		if o.Title == nil || *o.Title == "" {
			missing = append(missing, `"title"`)
		}
		if o.Summary == nil || *o.Summary == "" {
			missing = append(missing, `"summary"`)
		}
		if len(missing) > 0 {
			invalid(w, strings.Join(missing, ", ")+" wasn't supplied.")
			return false
		}
		if len(o.Annotations) > maxAnnotations {
			invalid(w, fmt.Sprintf("No more than %d items are allowed; %d were supplied.", maxAnnotations, len(o.Annotations)))
			return false
		}
		for i, a := range o.Annotations {
			switch {
			case a.Path == "" || a.StartLine == nil || a.EndLine == nil || a.Message == "" || a.AnnotationLevel == "":
				invalid(w, fmt.Sprintf("annotation %d: path, start_line, end_line, annotation_level and message are required.", i))
				return false
			case !annotationLevels[a.AnnotationLevel]:
				invalid(w, fmt.Sprintf("%q is not a valid annotation_level.", a.AnnotationLevel))
				return false
			case *a.EndLine < *a.StartLine:
				invalid(w, fmt.Sprintf("annotation %d: end_line must not precede start_line.", i))
				return false
			case (a.StartColumn != nil || a.EndColumn != nil) && *a.StartLine != *a.EndLine:
				invalid(w, fmt.Sprintf("annotation %d: start_column and end_column are only valid on one line.", i))
				return false
			}
		}
	}

	if b.Name != nil {
		run.Name = *b.Name
	}
	if b.DetailsURL != nil {
		run.DetailsURL = *b.DetailsURL
	}
	if b.ExternalID != nil {
		run.ExternalID = *b.ExternalID
	}
	if b.Status != nil {
		run.Status = *b.Status
	}
	if b.Conclusion != nil {
		run.Conclusion, run.Status = *b.Conclusion, "completed"
	}
	if o := b.Output; o != nil {
		run.Title, run.Summary = *o.Title, *o.Summary
		if o.Text != nil {
			run.Text = *o.Text
		}
		for _, a := range o.Annotations {
			run.Annotations = append(run.Annotations, Annotation{
				Path: a.Path, StartLine: *a.StartLine, EndLine: *a.EndLine, Level: a.AnnotationLevel,
				Title: a.Title, Message: a.Message,
			})
		}
	}
	run.Writes++
	return true
}

func (s *Server) checkRunJSON(rs *repoState, run *CheckRunState) map[string]any {
	var conclusion any
	if run.Conclusion != "" {
		conclusion = run.Conclusion
	}
	return map[string]any{
		"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "status": run.Status, "conclusion": conclusion,
		"details_url": run.DetailsURL, "external_id": run.ExternalID,
		"html_url": fmt.Sprintf("%s/%s/%s/runs/%d", s.WebURL, rs.owner, rs.name, run.ID),
		"output": map[string]any{
			"title": run.Title, "summary": run.Summary, "text": run.Text, "annotations_count": len(run.Annotations),
		},
	}
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	if !appOnly(w, r) || !allowed(w, r, ChecksWrite) {
		return
	}
	b, ok := decodeCheckRun(w, r)
	if !ok {
		return
	}
	var missing []string
	if b.Name == nil || *b.Name == "" {
		missing = append(missing, `"name"`)
	}
	if b.HeadSHA == nil || *b.HeadSHA == "" {
		missing = append(missing, `"head_sha"`)
	}
	if len(missing) > 0 {
		invalid(w, strings.Join(missing, ", ")+" wasn't supplied.")
		return
	}
	if !rs.commits[*b.HeadSHA] {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+*b.HeadSHA, nil, checksDoc)
		return
	}
	run := &CheckRunState{HeadSHA: *b.HeadSHA, Status: "queued"}
	if !apply(w, run, b) {
		return
	}
	run.ID = s.id()
	rs.checkRuns[run.ID] = run
	writeJSON(w, http.StatusCreated, s.checkRunJSON(rs, run))
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if rs == nil || rs.checkRuns[id] == nil {
		notFound(w)
		return
	}
	if !appOnly(w, r) || !allowed(w, r, ChecksWrite) {
		return
	}
	b, ok := decodeCheckRun(w, r)
	if !ok {
		return
	}
	if b.HeadSHA != nil {
		invalid(w, `"head_sha" is not a permitted key.`)
		return
	}
	if b.Name != nil && *b.Name == "" {
		invalid(w, `"name" can't be blank.`)
		return
	}
	// Validate on a copy: a refused update changes nothing.
	run := *rs.checkRuns[id]
	run.Annotations = append([]Annotation(nil), run.Annotations...)
	if !apply(w, &run, b) {
		return
	}
	*rs.checkRuns[id] = run
	writeJSON(w, http.StatusOK, s.checkRunJSON(rs, &run))
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if rs == nil || rs.checkRuns[id] == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.checkRunJSON(rs, rs.checkRuns[id]))
}

// CheckRun returns a check run of owner/repo as the fake holds it.
func (s *Server) CheckRun(owner, repo string, id int64) (CheckRunState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(owner, repo, false)
	if rs == nil || rs.checkRuns[id] == nil {
		return CheckRunState{}, false
	}
	run := *rs.checkRuns[id]
	run.Annotations = append([]Annotation(nil), run.Annotations...)
	return run, true
}
