package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
	"github.com/council-dev/council/internal/report"
)

// refusal is the message of a request the model provider rejects: internals no pull request
// watcher should read.
const refusal = "tools.0.custom.input_schema: JSON schema is invalid (secret-internal-detail)"

// refuse answers as the Anthropic API answers a request it rejects.
func refuse(anthropictest.Request) anthropictest.Reply {
	return anthropictest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: refusal}
}

const (
	prReviews       = "/repos/acme/inventory/pulls/7/reviews"
	prIssueComments = "/repos/acme/inventory/issues/7/comments"
)

// wantCouldNotReview is the one line of the summary comment and check run of a run where every
// reviewer failed, for the demo pull request's head.
func wantCouldNotReview(t *testing.T, s prSetup) string {
	t.Helper()
	head := strings.TrimSpace(git(t, s.repo, "rev-parse", "v2"))
	return "council could not review this pull request at `" + head[:12] + "`: every reviewer failed (3 of 3). " +
		"The errors are in the run's log; run `council doctor` to check the model provider's credentials, model and requests."
}

// assertNoRawError fails when public text carries the provider's error.
func assertNoRawError(t *testing.T, what, text string) {
	t.Helper()
	for _, raw := range []string{refusal, "invalid_request_error", "request rejected", "(400"} {
		if strings.Contains(text, raw) {
			t.Errorf("%s carries the raw error (%q):\n%s", what, raw, text)
		}
	}
}

// assertErrorsOnStderr checks that stderr holds every error of the JSON output's reviewers in
// full, on one line that names the reviewer, once each; and every warning of the run.
func assertErrorsOnStderr(t *testing.T, r run) report.Report {
	t.Helper()
	rep := decodeReport(t, []byte(r.out))
	lines := strings.Split(r.err, "\n")
	for _, rv := range rep.Reviewers {
		for _, e := range rv.Errors {
			n := 0
			for _, l := range lines {
				if strings.Contains(l, rv.Title) && strings.HasSuffix(l, e) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("stderr has the error of %s %d times, want once: %q\nstderr:\n%s", rv.Name, n, e, r.err)
			}
		}
	}
	for _, d := range rep.Degraded {
		if !strings.Contains(r.err, d) {
			t.Errorf("stderr lacks the warning %q\nstderr:\n%s", d, r.err)
		}
	}
	return rep
}

func checkRunOf(t *testing.T, s prSetup) (conclusion, title, summary string, annotations int) {
	t.Helper()
	var run struct {
		Conclusion string `json:"conclusion"`
		Output     struct {
			Title       string           `json:"title"`
			Summary     string           `json:"summary"`
			Annotations []map[string]any `json:"annotations"`
		} `json:"output"`
	}
	n := 0
	for _, l := range s.gh.Log() {
		if l.Method == "POST" && l.Path == "/repos/acme/inventory/check-runs" {
			n++
			if err := json.Unmarshal(l.Body, &run); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d check runs created, want 1", n)
	}
	return run.Conclusion, run.Output.Title, run.Output.Summary, len(run.Output.Annotations)
}

// With the model provider refusing every request, nothing but the summary comment (and the
// check run that was asked for) is posted, and none of it quotes the provider's error.
func TestReviewPullRequestEveryReviewerFailed(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"per-reviewer", "consolidated"} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			s := setupPR(t)
			s.ai.SetRespond(refuse)
			r := council(t, s.env, "review", "--pr", "acme/inventory#7", "--post", "--repo", s.repo,
				"--layout", layout, "--check-run", "--format", "json")
			if r.code != ExitIncomplete {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
			}
			if n := s.gh.Count("POST", prReviews); n != 0 {
				t.Errorf("%d reviews posted, want none:\n%s", n, s.posted(t))
			}
			bodies := s.gh.IssueCommentBodies("acme", "inventory", 7)
			if n := s.gh.Count("POST", prIssueComments); n != 1 || len(bodies) != 1 {
				t.Fatalf("%d summary comments created, %d on the pull request; want one", n, len(bodies))
			}
			want := summaryMarker + "\n### 🤖 Council\n\n" + wantCouldNotReview(t, s) + "\n"
			if bodies[0] != want {
				t.Errorf("summary comment:\n%s\nwant:\n%s", bodies[0], want)
			}
			assertNoRawError(t, "the summary comment", bodies[0])

			rep := assertErrorsOnStderr(t, r)
			if len(rep.Failed()) != 3 {
				t.Errorf("%d reviewers failed in the JSON output, want 3", len(rep.Failed()))
			}
			if !strings.Contains(r.err, refusal) {
				t.Errorf("stderr lacks the provider's error:\n%s", r.err)
			}

			conclusion, title, summary, annotations := checkRunOf(t, s)
			if conclusion != "failure" || title != "council could not review this pull request" ||
				summary != wantCouldNotReview(t, s) || annotations != 0 {
				t.Errorf("check run: conclusion %q, title %q, summary %q, %d annotations", conclusion, title, summary, annotations)
			}
		})
	}
}

// A run where every reviewer failed does not count as a review of its head: once the provider
// is fixed, the next run reviews and posts.
func TestReviewPullRequestAfterEveryReviewerFailed(t *testing.T) {
	t.Parallel()
	s := setupPR(t)
	args := []string{"review", "--pr", "acme/inventory#7", "--post", "--repo", s.repo}
	s.ai.SetRespond(refuse)
	for i := range 2 {
		r := council(t, s.env, args...)
		if r.code != ExitIncomplete || strings.Contains(r.err, "already reviewed") {
			t.Fatalf("failing run %d: exit %d, want %d, and a review; stderr:\n%s", i+1, r.code, ExitIncomplete, r.err)
		}
	}
	if n := s.gh.Count("POST", prReviews); n != 0 {
		t.Fatalf("%d reviews posted by the failing runs:\n%s", n, s.posted(t))
	}

	s.ai.SetRespond(demoReply)
	r := council(t, s.env, args...)
	if r.code != ExitOK || strings.Contains(r.err, "already reviewed") {
		t.Fatalf("run with the provider fixed: exit %d; stderr:\n%s", r.code, r.err)
	}
	if n := s.gh.Count("POST", prReviews); n != 3 {
		t.Errorf("%d reviews posted once the provider was fixed, want 3", n)
	}
	bodies := s.gh.IssueCommentBodies("acme", "inventory", 7)
	if len(bodies) != 1 || s.gh.Count("POST", prIssueComments) != 1 || s.gh.Count("PATCH", "/repos/acme/inventory/issues/comments/"+firstIssueCommentID(t, s)) != 2 {
		t.Fatalf("want one summary comment, created once and edited twice; bodies: %q", bodies)
	}
	if !strings.Contains(bodies[0], "3 new review(s) posted this run") || strings.Contains(bodies[0], "could not review") {
		t.Errorf("summary comment after the fixed run:\n%s", bodies[0])
	}

	// Now the head was reviewed: the next run has nothing to do.
	r = council(t, s.env, args...)
	if r.code != ExitOK || !strings.Contains(r.err, "already reviewed") {
		t.Errorf("run after the review: exit %d; stderr:\n%s", r.code, r.err)
	}
}

func firstIssueCommentID(t *testing.T, s prSetup) string {
	t.Helper()
	for _, l := range s.gh.Log() {
		if l.Method == "PATCH" && strings.HasPrefix(l.Path, "/repos/acme/inventory/issues/comments/") {
			return strings.TrimPrefix(l.Path, "/repos/acme/inventory/issues/comments/")
		}
	}
	return "none"
}

// One reviewer (and the prompt cache warm-up) refused: the others post as usual, the failed
// one posts nothing, and the summary says in one line that it failed, without the error.
func TestReviewPullRequestOneReviewerFailed(t *testing.T) {
	t.Parallel()
	s := setupPR(t)
	s.ai.SetRespond(func(req anthropictest.Request) anthropictest.Reply {
		if hasTool(req, "submit_review") {
			if r := reviewerOf(lastText(req)); r == "" || r == "Security" {
				return refuse(req)
			}
		}
		return demoReply(req)
	})
	r := council(t, s.env, "review", "--pr", "acme/inventory#7", "--post", "--repo", s.repo, "--format", "json")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.err)
	}
	rep := assertErrorsOnStderr(t, r)
	if len(rep.Failed()) != 1 || len(rep.Degraded) == 0 {
		t.Fatalf("want one failed reviewer and a failed warm-up; failed %d, degraded %q", len(rep.Failed()), rep.Degraded)
	}

	posted := s.posted(t)
	if n := s.gh.Count("POST", prReviews); n != 2 || strings.Contains(posted, "reviewer=security head=") {
		t.Errorf("%d reviews posted, want the two that succeeded:\n%s", n, posted)
	}
	assertNoRawError(t, "the reviews", posted)

	bodies := s.gh.IssueCommentBodies("acme", "inventory", 7)
	if len(bodies) != 1 {
		t.Fatalf("%d summary comments", len(bodies))
	}
	assertNoRawError(t, "the summary comment", bodies[0])
	line := "1 of 3 reviewers failed (Security). The errors are in the run's log; run `council doctor` to check the model provider's credentials, model and requests."
	if strings.Count(bodies[0], line) != 1 || !strings.Contains(bodies[0], "2 new review(s) posted this run") {
		t.Errorf("summary comment lacks %q:\n%s", line, bodies[0])
	}
}

// After a push, a run where every reviewer failed keeps the head reviewed before it in the
// summary comment: once the provider is fixed, the next run reviews what the push changed.
func TestReviewPullRequestFailedAfterAPush(t *testing.T) {
	t.Parallel()
	s := setupPR(t)
	args := []string{"review", "--pr", "acme/inventory#7", "--post", "--repo", s.repo}
	if r := council(t, s.env, args...); r.code != ExitOK {
		t.Fatalf("first run: exit %d; stderr:\n%s", r.code, r.err)
	}
	head2 := strings.TrimSpace(git(t, s.repo, "rev-parse", "v2"))
	git(t, s.repo, "checkout", "-q", "v2")
	fixed := strings.Replace(readFile(t, filepath.Join(s.repo, "handler.go")),
		`filepath.Join(h.ExportDir, r.URL.Query().Get("name"))`, `filepath.Join(h.ExportDir, filepath.Base(r.URL.Query().Get("name")))`, 1)
	writeText(t, filepath.Join(s.repo, "handler.go"), fixed)
	git(t, s.repo, "commit", "-qam", "Confine export names")
	head3 := strings.TrimSpace(git(t, s.repo, "rev-parse", "HEAD"))
	s.gh.SetHead("acme", "inventory", 7, head3, git(t, s.repo, "diff", "v1", head3))
	before := s.gh.Count("POST", prReviews)

	s.ai.SetRespond(refuse)
	if r := council(t, s.env, args...); r.code != ExitIncomplete {
		t.Fatalf("failing run: exit %d; stderr:\n%s", r.code, r.err)
	}
	bodies := s.gh.IssueCommentBodies("acme", "inventory", 7)
	if len(bodies) != 1 || s.gh.Count("POST", prReviews) != before ||
		!strings.Contains(bodies[0], "<!-- council:v1 review reviewer=summary head="+head2+" -->") || strings.Contains(bodies[0], head3) {
		t.Fatalf("after the failing run, want no new review and the summary still marking %s as reviewed:\n%q", head2[:12], bodies)
	}

	s.ai.SetRespond(demoReply)
	r := council(t, s.env, append(args, "--format", "json")...)
	if r.code != ExitOK || strings.Contains(r.err, "already reviewed") {
		t.Fatalf("run with the provider fixed: exit %d; stderr:\n%s", r.code, r.err)
	}
	rep := decodeReport(t, []byte(r.out))
	if len(rep.Coverage.Skipped) == 0 || !strings.Contains(rep.Coverage.Skipped[len(rep.Coverage.Skipped)-1].Reason, "unchanged since the last reviewed head "+head2[:12]) {
		t.Errorf("the fixed run did not review only what the push changed since %s: skipped %+v", head2[:12], rep.Coverage.Skipped)
	}
	if s.gh.Count("POST", prReviews) == before {
		t.Errorf("the fixed run posted no review")
	}
}
