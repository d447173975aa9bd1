package history

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

func TestFeedbackPhrase(t *testing.T) {
	t.Parallel()
	// Subjects from the merged branches of calico, prometheus, containerd and etcd.
	says := map[string]string{
		"Address review comments":                                         "Address review comments",
		"address review comments on design doc":                           "address review comments",
		"Apply suggestions from code review":                              "Apply suggestions",
		"fix: Addressing comments":                                        "Addressing comments",
		"fix: Address comments":                                           "Address comments",
		"Address code review suggestions":                                 "Address code review suggestions",
		"Resolve PR feedback":                                             "Resolve PR feedback",
		"networking-calico: address PR #13113 review comments":            "address PR #13113 review comments",
		"tsdb: address review feedback on chunk_encoding config":          "address review feedback",
		"fix(discovery/oci): address second review round":                 "address second review",
		"scrape: address comments on PR":                                  "address comments",
		"Review markups":                                                  "Review markups",
		"Code review markups":                                             "review markups",
		"Fixing review findings":                                          "review findings",
		"docs(configuration): update oci_sd_config for review feedback":   "review feedback",
		"[BPF] Refactor updateHostIP per review":                          "per review",
		"remote: clean up after review":                                   "after review",
		"OpenStack: markups from PR review":                               "from PR review",
		"felix: simplify timer goroutine and tighten comments per review": "per review",
		"review: clarify 45s-window rationale":                            "review:",
		"nit: rename the flag":                                            "nit:",
		"nits":                                                            "nits",
		"fix code nits":                                                   "fix code nits",
		"address query logger review nits":                                "address query logger review nits",
		"fixup! discovery/kubernetes: Support linked pod controllers":     "fixup!",
		"squash! add the cache":                                           "squash!",
		"Incorporate reviewer's suggestions":                              "Incorporate reviewer's suggestions",
		"PR comments":                                                     "PR comments",
		"resync-concurrency test: address lwr20 review":                   "address lwr20 review",
	}
	for subject, phrase := range says {
		got, ok := FeedbackPhrase(subject, nil)
		if !ok || got != phrase {
			t.Errorf("FeedbackPhrase(%q) = %q, %v; want %q, true", subject, got, ok, phrase)
		}
	}
	for _, subject := range []string{
		"update comments",
		"fix(convert): fix typos in comments",
		"fixed the comments and unit tests",
		"Update comments wording about when to deprecate and remove the old path",
		"fix: address linter issues and add overlap detection tests",
		"Merge branch 'master' into review-fixes",
		"Initial plan",
		"Self-review markups",
		"address copilot comments",
		"resync-concurrency test: address Copilot review",
		"networking-calico: address PR #13080 Copilot review comments",
		"Address CodeRabbit review feedback",
		"address bot review comments",
		"Reviewed-by handling in the changelog tool",
		"add nitrogen sensor",
		"protos: include task API address to CreateTaskRequest",
	} {
		if got, ok := FeedbackPhrase(subject, nil); ok {
			t.Errorf("FeedbackPhrase(%q) = %q, true; want not feedback", subject, got)
		}
	}
	if _, ok := FeedbackPhrase("address helperbot2000 review", []string{"HelperBot2000"}); ok {
		t.Error("a subject that names an ignored login is taken as a person's review")
	}
	if _, ok := FeedbackPhrase("address bobby's review", []string{"bob"}); !ok {
		t.Error("an ignored login inside a longer word counts as named")
	}
	if _, ok := FeedbackPhrase("address alice's review", []string{"HelperBot2000"}); !ok {
		t.Error("an ignored login that the subject does not name changes the verdict")
	}
}

// hunk builds a hunk from unified diff lines, numbering them from oldStart and newStart.
func hunk(oldStart, newStart int, lines ...string) diff.Hunk {
	h := diff.Hunk{OldStart: oldStart, NewStart: newStart}
	o, n := oldStart, newStart
	for _, l := range lines {
		dl := diff.Line{Op: diff.Op(l[0]), Text: l[1:]}
		switch dl.Op {
		case diff.Context:
			dl.Old, dl.New = o, n
			o++
			n++
			h.OldLines++
			h.NewLines++
		case diff.Delete:
			dl.Old = o
			o++
			h.OldLines++
		case diff.Add:
			dl.New = n
			n++
			h.NewLines++
		}
		h.Lines = append(h.Lines, dl)
	}
	return h
}

func TestHunkSpanAndDropReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		h           diff.Hunk
		first, last int
		drop        string
	}{
		{"replace one line", hunk(10, 10, " a", " b", " c", "-d", "+D", " e", " f", " g"), 13, 13, ""},
		{"delete two", hunk(1, 1, " a", "-b", "-c", " d"), 2, 3, ""},
		{"insert after a line", hunk(5, 5, " a", " b", " c", "+new", " d"), 7, 7, ""},
		{"insert at the top", hunk(1, 1, "+// header", " package x"), 1, 1, ""},
		{"pure insertion without context", diff.Hunk{OldStart: 12, OldLines: 0, NewStart: 13, NewLines: 1,
			Lines: []diff.Line{{Op: diff.Add, Text: "x", New: 13}}}, 12, 12, ""},
		{"two changes in one hunk", hunk(20, 20, " a", "-b", "+B", " c", " d", "+e", " f"), 21, 23, ""},
		{"whitespace only", hunk(3, 3, " a", "-\tif x {", "+    if x {", " b"), 4, 4, DropWhitespace},
		{"blank lines only", hunk(3, 3, " a", "+", "+", " b"), 3, 3, DropWhitespace},
		{"go imports", hunk(3, 3, " import (", "-\t\"fmt\"", "+\t\"errors\"", "+\tlog \"github.com/x/log\"", " )"), 4, 4, DropImports},
		{"python imports", hunk(1, 1, "-import os", "+from os import path", "+import sys"), 1, 1, DropImports},
		{"an import and code", hunk(3, 3, "+\t\"errors\"", "-\treturn nil", "+\treturn errors.New(\"x\")"), 2, 3, ""},
	}
	for _, tt := range tests {
		first, last := hunkSpan(tt.h)
		if first != tt.first || last != tt.last {
			t.Errorf("%s: span %d-%d, want %d-%d", tt.name, first, last, tt.first, tt.last)
		}
		if got := hunkDropReason(tt.h); got != tt.drop {
			t.Errorf("%s: drop %q, want %q", tt.name, got, tt.drop)
		}
	}
}

func TestIsTestDataAndPathSelected(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"pkg/testdata/in.json": true, "felix/fv/fixtures/a.yaml": true, "x/out.golden": true,
		"pkg/cache_test.go": false, "pkg/data.go": false, "testdata.go": false,
	} {
		if got := isTestData(p); got != want {
			t.Errorf("isTestData(%q) = %v", p, got)
		}
	}
	globs := []string{"felix/**", "!**/*_test.go"}
	for p, want := range map[string]bool{"felix/bpf/map.go": true, "felix/bpf/map_test.go": false, "libcalico-go/x.go": false, "": false} {
		if got := pathSelected(globs, p); got != want {
			t.Errorf("pathSelected(%v, %q) = %v", globs, p, got)
		}
	}
	if !pathSelected(nil, "any/file.go") || pathSelected([]string{"!vendor/**"}, "vendor/a.go") || !pathSelected([]string{"!vendor/**"}, "a.go") {
		t.Error("no patterns select everything; exclusions alone select the rest")
	}
}

func TestPRFromMerge(t *testing.T) {
	t.Parallel()
	type pr struct {
		N           int
		Title, From string
	}
	for msg, want := range map[string]pr{
		"Merge pull request #13364 from nelljerram/dhcp-fix\n\nOpenStack: fix DHCP agent handling": {13364, "OpenStack: fix DHCP agent handling", "nelljerram"},
		"Merge pull request #7 from acme/topic":                                                    {7, "", "acme"},
		"Merge branch 'topic' into 'main'\n\nAdd the cache\n\nSee merge request grp/proj!42":       {42, "Add the cache", ""},
		"Merged in feature/x (pull request #12)\n\nAdd x":                                          {12, "Merged in feature/x (pull request #12)", ""},
		"Merge branch 'topic'": {0, "Merge branch 'topic'", ""},
		"[FIXED] Preserve FirstSeq during WAL replay (#8490)\n\nIf a replicated stream restarts": {8490, "[FIXED] Preserve FirstSeq during WAL replay", ""},
		"Fix (#12) in the middle": {0, "Fix (#12) in the middle", ""},
	} {
		n, title, from := PRFromMerge(msg)
		if diff := cmp.Diff(want, pr{n, title, from}); diff != "" {
			t.Errorf("PRFromMerge(%q) (-want +got):\n%s", msg, diff)
		}
	}
}

func TestAnswersReview(t *testing.T) {
	t.Parallel()
	web := func(subject string) source.Commit {
		return source.Commit{Subject: subject, Author: "Dev One", CommitterEmail: "noreply@github.com"}
	}
	for _, tt := range []struct {
		name    string
		c       source.Commit
		message string
		want    bool
	}{
		{"a reviewer's suggestions", web("Apply suggestions from code review"), "Apply suggestions from code review\n\nCo-authored-by: Ann Lee <ann@example.com>", true},
		{"one suggestion, from @login", web("Apply suggestion from @krajorama"), "x\n\nCo-authored-by: György <krajorama@users.noreply.github.com>", true},
		{"one suggestion, Update <path>", web("Update tsdb/db.go"), "Update tsdb/db.go\n\nco-authored-by: Ann Lee <ann@example.com>", true},
		{"the author's own suggestion", web("Apply suggestions from code review"), "x\n\nCo-authored-by: Dev One <dev@example.com>", false},
		{"Copilot Autofix", web("Apply suggestions from code review"), "x\n\nCo-authored-by: Copilot Autofix powered by AI <62310815+github-advanced-security[bot]@users.noreply.github.com>", false},
		{"an ignored login", web("Update a.go"), "x\n\nCo-authored-by: Helper <helperbot@example.com>", false},
		{"no co-author", web("Update a.go"), "Update a.go", false},
		{"an edit made locally", source.Commit{Subject: "Update a.go", Author: "Dev One"}, "Update a.go\n\nCo-authored-by: Ann <ann@example.com>", false},
		{"a merge", source.Commit{Subject: "Address review comments", Parents: []string{"a", "b"}}, "Address review comments", false},
		{"a subject that says so", source.Commit{Subject: "Address review comments"}, "Address review comments\n\nCo-Authored-By: Claude <noreply@anthropic.com>", true},
	} {
		if _, got := AnswersReview(tt.c, tt.message, []string{"helperbot"}); got != tt.want {
			t.Errorf("%s: AnswersReview = %v, want %v", tt.name, got, tt.want)
		}
	}
}
