package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
)

func annotations(n int) []github.Annotation {
	out := make([]github.Annotation, n)
	for i := range out {
		out[i] = github.Annotation{Path: "main.go", StartLine: i + 1, EndLine: i + 1, Level: github.LevelWarning, Message: "m" + itoa(int64(i))}
	}
	return out
}

func TestCheckRunBatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		n          int
		wantPOST   int
		wantPATCH  int
		conclusion string
	}{
		{name: "no annotations", n: 0, wantPOST: 1, conclusion: "success"},
		{name: "exactly 50", n: 50, wantPOST: 1, conclusion: "neutral"},
		{name: "51", n: 51, wantPOST: 1, wantPATCH: 1, conclusion: "failure"},
		{name: "120", n: 120, wantPOST: 1, wantPATCH: 2, conclusion: "failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			want := annotations(tt.n)
			id, err := b.c.CreateCheckRun(context.Background(), owner, repo, github.CheckRun{
				Name: "council", HeadSHA: headSHA, Status: "completed", Conclusion: tt.conclusion,
				Title: "3 findings", Summary: "Council reviewed 3 files.", Annotations: want,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.srv.Count("POST", "/repos/acme/widget/check-runs"); got != tt.wantPOST {
				t.Errorf("%d POSTs, want %d", got, tt.wantPOST)
			}
			if got := b.srv.Count("PATCH", "/repos/acme/widget/check-runs/"+itoa(id)); got != tt.wantPATCH {
				t.Errorf("%d PATCHes, want %d", got, tt.wantPATCH)
			}
			run, ok := b.srv.CheckRun(owner, repo, id)
			if !ok {
				t.Fatalf("check run %d not found", id)
			}
			if run.Status != "completed" || run.Conclusion != tt.conclusion || run.Title != "3 findings" {
				t.Errorf("run = %+v", run)
			}
			var msgs []string
			for _, a := range run.Annotations {
				msgs = append(msgs, a.Message)
			}
			var wantMsgs []string
			for _, a := range want {
				wantMsgs = append(wantMsgs, a.Message)
			}
			if d := cmp.Diff(wantMsgs, msgs); d != "" {
				t.Errorf("annotations (-want +got):\n%s", d)
			}
		})
	}
}

func TestUpdateCheckRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id, err := b.c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "council", HeadSHA: headSHA, Status: "in_progress"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.c.UpdateCheckRun(ctx, owner, repo, id, github.CheckRun{
		Name: "council", Conclusion: "failure", Title: "t", Summary: "s", Annotations: annotations(75),
	}); err != nil {
		t.Fatal(err)
	}
	run, _ := b.srv.CheckRun(owner, repo, id)
	if len(run.Annotations) != 75 || run.Conclusion != "failure" || run.Writes != 3 {
		t.Errorf("run: %d annotations, conclusion %q, %d writes; want 75, failure, 3", len(run.Annotations), run.Conclusion, run.Writes)
	}
}

func TestCheckRunRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		run      github.CheckRun
		wantErr  string
		wantReqs int
	}{
		{name: "unknown commit", run: github.CheckRun{Name: "c", HeadSHA: "0123"}, wantErr: "No commit found for SHA: 0123", wantReqs: 1},
		{name: "no name", run: github.CheckRun{HeadSHA: headSHA}, wantErr: "without a name"},
		{name: "annotations without title", run: github.CheckRun{Name: "c", HeadSHA: headSHA, Annotations: annotations(1)}, wantErr: "title and a summary"},
		{
			name:    "bad level",
			run:     github.CheckRun{Name: "c", HeadSHA: headSHA, Title: "t", Summary: "s", Annotations: []github.Annotation{{Path: "a", StartLine: 1, EndLine: 1, Level: "error", Message: "m"}}},
			wantErr: `level "error"`,
		},
		{
			name:    "backwards range",
			run:     github.CheckRun{Name: "c", HeadSHA: headSHA, Title: "t", Summary: "s", Annotations: []github.Annotation{{Path: "a", StartLine: 3, EndLine: 2, Level: "notice", Message: "m"}}},
			wantErr: "not a range",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, err := b.c.CreateCheckRun(context.Background(), owner, repo, tt.run)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if b.srv.Requests() != tt.wantReqs {
				t.Errorf("%d requests, want %d", b.srv.Requests(), tt.wantReqs)
			}
		})
	}
}
