package bench

import "testing"

func TestFeedbackKind(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"Address review comments":                                   "other",
		"address review: unlock the mutex before returning":         "concurrency",
		"Review markups\n\n- add a test for the error path":         "tests",
		"Apply suggestions from code review\n\nCo-authored-by: Bob": "other",
		"per review: why not?":                                      "other",
		"fixup! add the docs\n\nrename the helper":                  "naming",
	} {
		if got := feedbackKind(msg, nil); got != want {
			t.Errorf("feedbackKind(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestGitSampleID(t *testing.T) {
	t.Parallel()
	if got := GitSampleID("Owner/Repo", 12, "0123456789abcdef0123456789abcdef01234567"); got != "owner-repo-12" {
		t.Errorf("id %q", got)
	}
	if got := GitSampleID("owner/repo", 0, "0123456789abcdef0123456789abcdef01234567"); got != "owner-repo-01234567" {
		t.Errorf("id %q", got)
	}
}
