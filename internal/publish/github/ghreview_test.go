package ghreview

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const (
	headSHA = "dad1adeeb46fcf9084f85100ab7b17fb5bbf511c"
	baseSHA = "ff1cb542767734dbb433d129e7f6f94e2e72774d"
	repoURL = "https://github.com/projectcalico/calico"
)

// bundle is what a test starts from: a fresh report and options, safe to modify.
type bundle struct {
	r report.Report
	o Options
}

func setup(t *testing.T) bundle {
	t.Helper()
	patch, err := os.ReadFile(filepath.Join("testdata", "pr.diff"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := diff.Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	return bundle{
		r: realistic(),
		o: Options{Council: "Council of Claudes", HeadSHA: headSHA, RepoURL: repoURL, Diff: files},
	}
}

// realistic is the seeds' run in miniature, against testdata/pr.diff: three lenses, a
// persona and the repository rules; a multi-line finding whose suggestion holds a code fence;
// one whose lines are not in the PR's diff; a comment on a deleted line; a finding cited by
// the old path of a renamed file; other notes; a filtered finding; a reviewer that partly
// failed; and 35 findings for one reviewer, 5 more than fit inline.
func realistic() report.Report {
	r := report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "council", Version: "v0.4.0", Council: "Council of Claudes"},
		Change: report.Change{
			Repo: "projectcalico/calico", Base: "origin/master", Head: "HEAD",
			BaseSHA: baseSHA, HeadSHA: headSHA, Title: "eBPF: Hybrid conntrack cleaner",
		},
		Degraded: []string{"validation failed for 1 finding: it is shown unchecked"},
		Reviewers: []report.Reviewer{
			{
				Name: "correctness", Title: "Correctness", Emoji: "🔎", Kind: "lens", Alert: "NOTE",
				Focus: []string{"bugs", "completeness", "concurrency", "edge cases"}, Noun: "correctness issue",
				Summary:   "- The scanner no longer deletes entries itself and relies entirely on the BPF cleaner; without one, expired entries are never deleted.\n- CCQ entries are only removed when the deletion succeeds, so the queue can fill up.",
				Succeeded: true,
			},
			{
				Name: "security", Title: "Security", Emoji: "🛡️", Kind: "lens", Alert: "CAUTION",
				Focus: []string{"validation", "secrets", "authz", "isolation"}, Noun: "security issue",
				Errors:    []string{"unit 2: anthropic: overloaded (529) after 3 retries"},
				Missed:    []string{"felix/design/bpf-conntrack.md"},
				Succeeded: true,
			},
			{
				Name: "maintainability", Title: "Maintainability & Tests", Emoji: "🧪", Kind: "lens", Alert: "TIP",
				Focus: []string{"simplicity", "tests", "docs", "idioms"}, Noun: "maintainability issue",
				Summary:   "The new cleanup map needs documentation; every offset constant should say its unit.",
				Succeeded: true,
			},
			{
				Name: "casey", Title: "Casey", Kind: "persona", Alert: "WARNING",
				Focus:     []string{"testing discipline", "API design", "simplicity", "robustness"},
				Summary:   "I think the hybrid approach makes sense overall. I am a little bit skeptical about dropping the inline delete without a fallback, though. WDYT?",
				Succeeded: true,
			},
			{
				Name: "rules", Title: "Repository rules", Emoji: "📏", Kind: "rules", Alert: "IMPORTANT",
				Noun: "rule violation", Succeeded: true,
			},
		},
	}
	r.Findings = []finding.Finding{
		{
			ID: "c0ffee01", Lenses: []string{"correctness", "casey"},
			Path: "felix/bpf/conntrack/scanner.go", StartLine: 26, Line: 28, Side: finding.Right,
			Quote:    "if s.bpfCleaner != nil {\n\t\t_ = s.bpfCleaner.Run()\n\t}",
			Severity: finding.High, Category: "bug",
			Title: "No fallback when the BPF cleaner is missing",
			Body: "The scanner no longer deletes inline; if `NewBPFProgCleaner` failed, `bpfCleaner` is nil and queued entries are never deleted.\n\n" +
				"- Impact: expired entries leak on kernels where the cleaner cannot load.\n- Suggested fix: fall back to deleting inline:",
			Suggestion: "\tif s.bpfCleaner == nil {\n\t\tlog.Warn(`no BPF cleaner: deleting inline`)\n\t\ts.deleteQueued()\n\t} else if err := s.bpfCleaner.Run(); err != nil {\n\t\tlog.WithError(err).Warn(\"BPF cleaner failed\")\n\t}\n",
			FixPrompt:  "In felix/bpf/conntrack/scanner.go, when s.bpfCleaner is nil, delete the queued entries from userspace instead of leaving them in the CCQ map.",
			Confidence: 0.85, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "c0ffee02", Lenses: []string{"correctness"},
			Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 9, Side: finding.Right,
			Quote: "cali_ccq_delete_elem(key);", Severity: finding.Medium, Category: "bug",
			Title:      "CCQ entry survives a failed delete",
			Body:       "The queue entry is only removed when `cali_ct_delete_elem` succeeds; a resurrected entry stays queued forever.",
			Confidence: 0.7, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "c0ffee03", Lenses: []string{"correctness"},
			Path: "felix/bpf/conntrack/scanner.go", Line: 60, Side: finding.Right,
			Severity: finding.High, Category: "concurrency",
			Title:      "Close races with Scan",
			Body:       "`Close` can run while `Scan` iterates the map.\n\nTake the scanner's lock in both.",
			Confidence: 0.6, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "c0ffee04", Lenses: []string{"correctness", "maintainability"},
			Path: "felix/bpf-gpl/conntrack_cleanup.h", Line: 30, Side: finding.Right,
			Severity: finding.Medium, Category: "docs",
			Title:      "Stale comment on the CCQ value",
			Body:       "The header still documents the value\nas the NAT forward key.\n\nSecond paragraph, not in the note.",
			Confidence: 0.6, AnchorNote: "path not in the diff", Status: finding.OtherNote,
		},
		{
			ID: "c0ffee05", Lenses: []string{"correctness"},
			Path: "felix/bpf/conntrack/scanner.go", Line: 15, Side: finding.Right,
			Severity: finding.Nit, Category: "style",
			Title: "debug is unused", Body: "The debug variable is no longer read.",
			Confidence: 0.3, Anchored: true, Status: finding.Filtered, FilterReason: "validate: below the severity floor (low)",
		},
		{
			ID: "5ec00001", Lenses: []string{"security"},
			Path: "felix/bpf-gpl/conntrack_cleanup.c", Line: 10, Side: finding.Left,
			Quote: "cali_ccq_delete_elem(key);", Severity: finding.Medium, Category: "security",
			Title:      "Unconditional queue cleanup removed",
			Body:       "Removing this line lets a local user who can write the pinned CCQ map keep entries alive.",
			Suggestion: "\tcali_ccq_delete_elem(key);\n",
			Confidence: 0.5, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "ca5e0001", Lenses: []string{"casey"},
			Path: "felix/bpf/conntrack/scanner.go", Line: 21, Side: finding.Right,
			Quote: `log.WithError(err).Debug("Failed to enqueue")`, Severity: finding.Medium, Category: "error-handling",
			Title:      "Enqueue failure logged at Debug",
			Body:       "I think this should be at least Warn? If the queue is full, the entry may never be cleaned, and Debug is too quiet for that. WDYT?",
			Suggestion: "\t\t\t\tlog.WithError(err).Warn(\"Failed to enqueue CT entry for BPF cleanup; entry may not be cleaned.\")\n",
			Confidence: 0.7, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "ca5e0002", Lenses: []string{"casey"},
			Path: "felix/bpf/old_name.go", Line: 4, Side: finding.Right,
			Quote: "return 2", Severity: finding.Low, Category: "tests",
			Title:      "Return value changed without a test",
			Body:       "nit: do we have a test pinning this? I'm a little bit skeptical of changing it silently.",
			Confidence: 0.4, Anchored: true, Status: finding.Reported,
		},
		{
			ID: "ca5e0003", Lenses: []string{"casey"},
			Path: "felix/fv/bpf_map_resize_test.go", Line: 248, Side: finding.Right,
			Severity: finding.Low, Category: "tests",
			Title:      "Doubling the FV loop",
			Body:       "This doubles the entries inserted to 20k. Do you know what was slow here, and why we need to double it?",
			Confidence: 0.5, AnchorNote: "path not in the diff", Status: finding.OtherNote,
		},
		{
			ID: "a11e0001", Lenses: []string{"rules"},
			Path: "felix/bpf/conntrack/scanner.go", Side: finding.Right,
			Severity: finding.Medium, Category: "tests",
			Title:      "A change under felix/bpf/conntrack/** must come with a change under felix/bpf/conntrack/*_test.go",
			Body:       "Rule `conntrack-tests` in .council.yaml.",
			Confidence: 1, AnchorNote: "the rule is about the whole file", Status: finding.OtherNote,
		},
		{
			ID: "3a170001", Lenses: []string{"maintainability"},
			Path: "felix/design/bpf-conntrack.md", StartLine: 7, Line: 10, Side: finding.Right,
			Quote:    "```go\ns := NewScanner(ctMap, cleanupMap)\ns.Scan()\n```",
			Severity: finding.Low, Category: "docs",
			Title:      "Example does not show the cleaner",
			Body:       "The example still reads as if the scanner deletes entries itself.",
			Suggestion: "```go\ns := NewScanner(ctMap, cleanupMap)\ns.Scan() // queues expired entries\ncleaner.Run() // deletes them\n```\n",
			FixPrompt:  "Update the example in felix/design/bpf-conntrack.md to show the scanner queueing entries and the BPF cleaner (`cleaner.Run()`) deleting them.",
			Confidence: 0.6, Anchored: true, Status: finding.Reported,
		},
	}
	// 34 more for the maintainability lens, one per offset constant: with the one above, 35,
	// five more than fit inline. The first five are nits, so they are the ones that go.
	for i := 1; i <= 34; i++ {
		sev := finding.Low
		if i <= 5 {
			sev = finding.Nit
		}
		r.Findings = append(r.Findings, finding.Finding{
			ID: fmt.Sprintf("3a17%04d", i+1), Lenses: []string{"maintainability"},
			Path: "felix/bpf/conntrack/cleanupv2/map.go", Line: i + 2, Side: finding.Right,
			Quote:    fmt.Sprintf("const Offset%d = %d // offset of field %d", i, i, i),
			Severity: sev, Category: "docs",
			Title:      fmt.Sprintf("Offset%d: say the unit", i),
			Body:       "Say whether this offset is in bytes or in 64-bit words.",
			Confidence: 0.5, Anchored: true, Status: finding.Reported,
		})
	}
	return r
}

// dump renders a plan as text for the golden files.
func dump(p Plan) string {
	var b strings.Builder
	for _, rv := range p.Reviews {
		who := rv.Reviewer
		if who == "" {
			who = "(consolidated)"
		}
		fmt.Fprintf(&b, "=== review %s · event %s · commit %s · %d comment(s)\n\n%s\n\n", who, rv.Event, rv.CommitID, len(rv.Comments), rv.Body)
		for _, c := range rv.Comments {
			where := fmt.Sprintf("%s:%d", c.Side, c.Line)
			if c.StartLine > 0 {
				where = fmt.Sprintf("%s:%d-%s:%d", c.StartSide, c.StartLine, c.Side, c.Line)
			}
			fmt.Fprintf(&b, "--- comment %s %s · finding %s · reviewer %s\n\n%s\n\nnote if demoted: %s\n\n", c.Path, where, c.FindingID, c.Reviewer, c.Body, c.Note)
		}
	}
	b.WriteString("=== skipped\n\n")
	for _, s := range p.Skipped {
		b.WriteString("- " + s + "\n")
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got), run go test -update if intended:\n%s", name, diff)
	}
}

func TestBuildGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layout Layout
		file   string
	}{
		{"per reviewer", PerReviewer, "per_reviewer.golden.md"},
		{"default layout", "", "per_reviewer.golden.md"},
		{"consolidated", Consolidated, "consolidated.golden.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.Layout = tt.layout
			p := Build(b.r, b.o)
			if tt.layout == "" && *update {
				return // the per-reviewer case writes the file
			}
			golden(t, tt.file, dump(p))
		})
	}
}

// TestBuildRules checks the rules the golden files show, so that an -update cannot quietly
// break them.
func TestBuildRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := Build(b.r, b.o)

	names := make([]string, len(p.Reviews))
	for i, rv := range p.Reviews {
		names[i] = rv.Reviewer
		if rv.Event != "COMMENT" || rv.CommitID != headSHA {
			t.Errorf("review %s: event %q commit %q", rv.Reviewer, rv.Event, rv.CommitID)
		}
		if !strings.Contains(rv.Body, ReviewMarker(rv.Reviewer, headSHA)) {
			t.Errorf("review %s has no review marker", rv.Reviewer)
		}
	}
	if diff := cmp.Diff([]string{"correctness", "security", "maintainability", "casey", "rules"}, names); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}

	m := p.Reviews[2]
	if len(m.Comments) != 30 {
		t.Errorf("maintainability: %d inline comments, want 30", len(m.Comments))
	}
	for i := 2; i <= 6; i++ {
		id := fmt.Sprintf("3a17%04d", i)
		if !strings.Contains(m.Body, "(not inline: over the limit of 30 inline comments per review) "+markerStart(id, "maintainability")) {
			t.Errorf("maintainability: nit %s is not among the body's other notes", id)
		}
	}
	if !strings.Contains(p.Reviews[0].Body, "(not inline: line 60 is not in this pull request's diff)") {
		t.Errorf("correctness: the finding outside the diff is not in the body with its reason:\n%s", p.Reviews[0].Body)
	}
	if diff := cmp.Diff([]string{"c0ffee05: filtered: validate: below the severity floor (low)"}, p.Skipped); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}

	assertAccepted(t, b.o.Diff, p)
	assertNothingDropped(t, b.r, p, nil)

	// Posted once, it is not posted again on the next push.
	b.o.Posted = map[string]bool{"minor1": true}
	for _, rv := range Build(b.r, b.o).Reviews {
		if strings.Contains(rv.Body, "Minor notes") {
			t.Errorf("a minor note already on the pull request is posted again by %s", rv.Reviewer)
		}
	}
}

// assertAccepted is what GitHub would check of every inline comment, computed from the diff's
// lines without the package's index: a commentable line at each end, both in one hunk, start
// before end, start side equal to side.
func assertAccepted(t *testing.T, files []diff.File, p Plan) {
	t.Helper()
	hunkOf := func(path, side string, line int) (int, bool) {
		for _, f := range files {
			if f.Path() != path {
				continue
			}
			for h, hk := range f.Hunks {
				for _, l := range hk.Lines {
					if side == "RIGHT" && l.Op != diff.Delete && l.New == line {
						return h, true
					}
					if side == "LEFT" && l.Op != diff.Add && l.Old == line {
						return h, true
					}
				}
			}
		}
		return 0, false
	}
	for _, rv := range p.Reviews {
		for _, c := range rv.Comments {
			end, ok := hunkOf(c.Path, c.Side, c.Line)
			if !ok {
				t.Errorf("%s: GitHub would reject %s:%d (%s)", rv.Reviewer, c.Path, c.Line, c.Side)
				continue
			}
			if c.StartLine == 0 {
				if c.StartSide != "" {
					t.Errorf("%s: one-line comment %s:%d has start_side %q", rv.Reviewer, c.Path, c.Line, c.StartSide)
				}
				continue
			}
			start, ok := hunkOf(c.Path, c.StartSide, c.StartLine)
			if !ok || start != end || c.StartLine >= c.Line || c.StartSide != c.Side {
				t.Errorf("%s: GitHub would reject %s:%d-%d", rv.Reviewer, c.Path, c.StartLine, c.Line)
			}
		}
	}
}

// assertNothingDropped checks that every finding of r is posted exactly once (as an inline
// comment or an other note, by its marker) or listed in Skipped.
func assertNothingDropped(t *testing.T, r report.Report, p Plan, posted map[string]bool) {
	t.Helper()
	seen := map[string]int{}
	for _, rv := range p.Reviews {
		for _, m := range ParseMarkers(rv.Body) {
			if m.ID != "" {
				seen[m.ID]++
			}
		}
		for _, c := range rv.Comments {
			ms := ParseMarkers(c.Body)
			if len(ms) != 1 || ms[0].ID != c.FindingID || !strings.HasSuffix(c.Body, " · reply or react 👍/👎 to teach it about this repository</sub>\n\n"+commentMarker(c)) {
				t.Errorf("comment for %s does not end with the hint and its marker: %v\n%s", c.FindingID, ms, c.Body)
			}
			seen[c.FindingID]++
		}
	}
	for _, f := range r.Findings {
		skipped := slices.ContainsFunc(p.Skipped, func(s string) bool { return strings.HasPrefix(s, f.ID+": ") })
		switch {
		case f.Status == finding.Filtered || posted[f.ID]:
			if !skipped || seen[f.ID] != 0 {
				t.Errorf("finding %s: posted %d times, skipped %v; want skipped only", f.ID, seen[f.ID], skipped)
			}
		case seen[f.ID] != 1 || skipped:
			t.Errorf("finding %s: posted %d times, skipped %v; want posted once", f.ID, seen[f.ID], skipped)
		}
	}
}

func TestBuildComment(t *testing.T) {
	t.Parallel()
	base := finding.Finding{
		ID: "f1", Lenses: []string{"correctness"}, Path: "felix/bpf/conntrack/scanner.go", Side: finding.Right,
		Severity: finding.Medium, Category: "bug", Title: "A title", Body: "A body.", Anchored: true, Status: finding.Reported,
	}
	tests := []struct {
		name   string
		edit   func(*finding.Finding)
		want   []Comment // Path, lines and sides only
		reason string    // else: the note's reason
	}{
		{"one line", func(f *finding.Finding) { f.Line = 21 }, []Comment{{Path: base.Path, Line: 21, Side: "RIGHT"}}, ""},
		{"start equal to line", func(f *finding.Finding) { f.StartLine, f.Line = 21, 21 }, []Comment{{Path: base.Path, Line: 21, Side: "RIGHT"}}, ""},
		{"multi-line", func(f *finding.Finding) { f.StartLine, f.Line = 19, 22 }, []Comment{{Path: base.Path, StartLine: 19, Line: 22, Side: "RIGHT", StartSide: "RIGHT"}}, ""},
		{"deleted line", func(f *finding.Finding) { f.Line, f.Side = 20, finding.Left }, []Comment{{Path: base.Path, Line: 20, Side: "LEFT"}}, ""},
		{"no side means right", func(f *finding.Finding) { f.Line, f.Side = 7, "" }, []Comment{{Path: base.Path, Line: 7, Side: "RIGHT"}}, ""},
		{"renamed file by its old path", func(f *finding.Finding) { f.Path, f.Line = "felix/bpf/old_name.go", 4 }, []Comment{{Path: "felix/bpf/new_name.go", Line: 4, Side: "RIGHT"}}, ""},
		{"line between hunks", func(f *finding.Finding) { f.Line = 12 }, nil, "line 12 is not in this pull request's diff"},
		{"old line between hunks", func(f *finding.Finding) { f.Line, f.Side = 12, finding.Left }, nil, "line 12 of the old file is not in this pull request's diff"},
		{"across two hunks", func(f *finding.Finding) { f.StartLine, f.Line = 7, 15 }, nil, "lines 7-15 are not inside one hunk of this pull request's diff"},
		{"backwards", func(f *finding.Finding) { f.StartLine, f.Line = 22, 19 }, nil, "start line 22 is after line 19"},
		{"unknown path", func(f *finding.Finding) { f.Path, f.Line = "nope.go", 1 }, nil, "the file is not in this pull request's diff"},
		{"no line", func(f *finding.Finding) { f.Line = 0 }, nil, "no line to comment on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			f := base
			tt.edit(&f)
			b.r.Reviewers = b.r.Reviewers[:1]
			b.r.Reviewers[0].Summary = ""
			b.r.Findings = []finding.Finding{f}
			p := Build(b.r, b.o)
			if len(p.Reviews) != 1 {
				t.Fatalf("got %d reviews, want 1", len(p.Reviews))
			}
			rv := p.Reviews[0]
			var got []Comment
			for _, c := range rv.Comments {
				got = append(got, Comment{Path: c.Path, Line: c.Line, StartLine: c.StartLine, Side: c.Side, StartSide: c.StartSide})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("comments (-want +got):\n%s", diff)
			}
			if tt.reason != "" && !strings.Contains(rv.Body, "(not inline: "+tt.reason+") "+markerStart("f1", "correctness")) {
				t.Errorf("body lacks the note with reason %q:\n%s", tt.reason, rv.Body)
			}
			assertAccepted(t, b.o.Diff, p)
		})
	}
}

func TestCommentBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*finding.Finding, *report.Reviewer)
		want string
	}{
		{
			name: "lens",
			edit: func(*finding.Finding, *report.Reviewer) {},
			want: "🔎 **Correctness** — A title\n\nA body.\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
		{
			name: "persona speaks in its voice",
			edit: func(f *finding.Finding, rv *report.Reviewer) {
				rv.Kind, rv.Title, rv.Emoji = "persona", "Casey", ""
				f.Body = "I think this races? WDYT?"
			},
			want: "**Casey** — I think this races? WDYT?\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
		{
			name: "persona body opening with a list keeps the title",
			edit: func(f *finding.Finding, rv *report.Reviewer) {
				rv.Kind, rv.Title, rv.Emoji = "persona", "Casey", ""
				f.Body = "- first\n- second"
			},
			want: "**Casey** — A title\n\n- first\n- second\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
		{
			name: "suggestion with a fence gets a longer one",
			edit: func(f *finding.Finding, _ *report.Reviewer) { f.Suggestion = "x := `a`\n```\n" },
			want: "🔎 **Correctness** — A title\n\nA body.\n\n````suggestion\nx := `a`\n```\n````\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
		{
			name: "suggestion on a deleted line is plain code",
			edit: func(f *finding.Finding, _ *report.Reviewer) {
				f.Side, f.Line, f.Suggestion = finding.Left, 20, "return IterDelete\n"
			},
			want: "🔎 **Correctness** — A title\n\nA body.\n\nSuggested change:\n\n```\nreturn IterDelete\n```\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
		{
			name: "prompt and credit",
			edit: func(f *finding.Finding, _ *report.Reviewer) {
				f.FixPrompt = "Fix it."
				f.Lenses = []string{"correctness", "security", "gone"}
			},
			want: "🔎 **Correctness** — A title\n\nA body.\n\n<details><summary>Prompt for a coding agent</summary>\n\n```text\nFix it.\n```\n\n</details>\n\nAlso raised by: Security, gone\n\n" + hintFor("Council of Claudes") + "\n\n<!-- council:v1 id=f1 reviewer=correctness severity=medium -->",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			rv := b.r.Reviewers[0]
			f := finding.Finding{
				ID: "f1", Lenses: []string{"correctness"}, Path: "felix/bpf/conntrack/scanner.go", Line: 21, Side: finding.Right,
				Severity: finding.Medium, Title: "A title", Body: "A body.", Anchored: true, Status: finding.Reported,
			}
			tt.edit(&f, &rv)
			b.r.Reviewers = []report.Reviewer{rv, b.r.Reviewers[1]}
			b.r.Findings = []finding.Finding{f}
			p := Build(b.r, b.o)
			if len(p.Reviews) == 0 || len(p.Reviews[0].Comments) != 1 {
				t.Fatalf("want one review with one comment, got %s", dump(p))
			}
			if diff := cmp.Diff(tt.want, p.Reviews[0].Comments[0].Body); diff != "" {
				t.Errorf("comment body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWhichReviewsArePosted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*bundle)
		want []string // reviewers with a review
	}{
		{"nothing to say", func(b *bundle) {
			b.r.Findings = nil
			clearSummaries(b)
			b.r.Reviewers[1].Errors = nil
		}, nil},
		// Security failed on part of the change and found nothing in the rest: nothing to say.
		{"summary only", func(b *bundle) { b.r.Findings = nil }, []string{"correctness", "maintainability", "casey"}},
		{"failed reviewer posts nothing", func(b *bundle) {
			b.r.Findings = nil
			clearSummaries(b)
			b.r.Reviewers[1].Succeeded = false
		}, nil},
		{"partly failed reviewer with a summary", func(b *bundle) {
			b.r.Findings = nil
			clearSummaries(b)
			b.r.Reviewers[1].Summary = "- Nothing to report in the scanner."
		}, []string{"security"}},
		{"partly failed reviewer with only filtered findings", func(b *bundle) {
			clearSummaries(b)
			for i := range b.r.Findings {
				b.r.Findings[i].Status = finding.Filtered
			}
		}, []string{"security"}},
		{"partly failed reviewer whose findings were posted before", func(b *bundle) {
			b.r.Findings = b.r.Findings[5:6] // Security's one
			clearSummaries(b)
			b.o.Posted = map[string]bool{"5ec00001": true}
		}, []string{"security"}},
		{"everything filtered", func(b *bundle) {
			clearSummaries(b)
			b.r.Reviewers[1].Errors = nil
			for i := range b.r.Findings {
				b.r.Findings[i].Status = finding.Filtered
			}
		}, nil},
		{"summary already posted for this head", func(b *bundle) {
			b.r.Findings = nil
			b.o.Posted = map[string]bool{ReviewKey("correctness", headSHA): true, ReviewKey("casey", "0000000"): true}
		}, []string{"maintainability", "casey"}},
		{"finding of a reviewer not in the run", func(b *bundle) {
			b.r.Findings = b.r.Findings[1:2]
			b.r.Findings[0].Lenses = []string{"nell"}
			clearSummaries(b)
			b.r.Reviewers[1].Errors = nil
		}, []string{"nell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			tt.edit(&b)
			p := Build(b.r, b.o)
			var got []string
			for _, rv := range p.Reviews {
				got = append(got, rv.Reviewer)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reviews (-want +got):\n%s", diff)
			}
			assertNothingDropped(t, b.r, p, b.o.Posted)
		})
	}
}

func clearSummaries(b *bundle) {
	for i := range b.r.Reviewers {
		b.r.Reviewers[i].Summary = ""
	}
}

// A reviewer that failed with nothing to show posts nothing, in either layout: not a review
// of its own, not a section of the consolidated one. One that failed on part of the change
// keeps its review, with a caution that does not quote the provider's error.
func TestFailedReviewer(t *testing.T) {
	t.Parallel()
	const raw = "anthropic: request rejected (400 invalid_request_error): tools.0.custom: bad"
	failed := report.Reviewer{
		Name: "security", Title: "Security", Emoji: "🛡️", Kind: "lens", Alert: "CAUTION",
		Focus: []string{"validation"}, Errors: []string{raw}, Units: 1, Missed: []string{"felix/bpf/conntrack/scanner.go"},
	}
	tests := []struct {
		name   string
		edit   func(*bundle)
		layout Layout
		want   []string // reviewers with a review; "" for the consolidated one
		shown  []string // reviewers with a review marker in the posted bodies
	}{
		{"alone, per reviewer", func(b *bundle) {
			b.r.Reviewers = []report.Reviewer{failed}
			b.r.Findings = nil
		}, PerReviewer, nil, nil},
		{"alone, consolidated", func(b *bundle) {
			b.r.Reviewers = []report.Reviewer{failed}
			b.r.Findings = nil
		}, Consolidated, nil, nil},
		{"beside others, per reviewer", func(b *bundle) {
			b.r.Reviewers[1] = failed
			b.r.Findings = slices.DeleteFunc(b.r.Findings, func(f finding.Finding) bool { return f.Owner() == "security" })
		}, PerReviewer, []string{"correctness", "maintainability", "casey", "rules"}, []string{"correctness", "maintainability", "casey", "rules"}},
		{"beside others, consolidated", func(b *bundle) {
			b.r.Reviewers[1] = failed
			b.r.Findings = slices.DeleteFunc(b.r.Findings, func(f finding.Finding) bool { return f.Owner() == "security" })
		}, Consolidated, []string{""}, []string{"correctness", "maintainability", "casey", "rules"}},
		{"every reviewer failed, consolidated", func(b *bundle) {
			for i := range b.r.Reviewers {
				b.r.Reviewers[i].Errors, b.r.Reviewers[i].Summary, b.r.Reviewers[i].Succeeded = []string{raw}, "", false
			}
			b.r.Findings = nil
		}, Consolidated, nil, nil},
		{"partly failed with a finding, per reviewer", func(b *bundle) {
			b.r.Reviewers = []report.Reviewer{b.r.Reviewers[1]}
			b.r.Reviewers[0].Errors = []string{raw}
			b.r.Findings = b.r.Findings[5:6]
		}, PerReviewer, []string{"security"}, []string{"security"}},
		{"partly failed with a finding, consolidated", func(b *bundle) {
			b.r.Reviewers = []report.Reviewer{b.r.Reviewers[1]}
			b.r.Reviewers[0].Errors = []string{raw}
			b.r.Findings = b.r.Findings[5:6]
		}, Consolidated, []string{""}, []string{"security"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.r.Degraded = nil
			b.o.Layout = tt.layout
			tt.edit(&b)
			p := Build(b.r, b.o)
			var got, shown []string
			for _, rv := range p.Reviews {
				got = append(got, rv.Reviewer)
				for _, m := range ParseMarkers(rv.Body) {
					if m.Review {
						shown = append(shown, m.Reviewer)
					}
				}
				if strings.Contains(rv.Body, "tools.0.custom") || strings.Contains(rv.Body, "This reviewer failed") {
					t.Errorf("review %q quotes the failure:\n%s", rv.Reviewer, rv.Body)
				}
				if slices.Contains(shown, "security") && !strings.Contains(rv.Body, partlyFailed+"\n\n**Not reviewed by Security**") {
					t.Errorf("the partly failed reviewer lacks its caution:\n%s", rv.Body)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reviews (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.shown, shown); diff != "" {
				t.Errorf("reviewers in the reviews (-want +got):\n%s", diff)
			}
			assertNothingDropped(t, b.r, p, b.o.Posted)
		})
	}
}

func TestPartlyFailedReviewer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.Findings = nil
	b.r.Degraded = nil
	b.r.Reviewers = []report.Reviewer{{
		Name: "security", Title: "Security", Emoji: "🛡️", Kind: "lens", Alert: "CAUTION", Noun: "security issue",
		Focus: []string{"validation"}, Errors: []string{"unit 2/2: anthropic: authentication failed (401)"},
		Summary: "- The scanner's map is read-only.", Missed: []string{"felix/bpf-gpl/conntrack_cleanup.c"}, Succeeded: true,
	}}
	p := Build(b.r, b.o)
	want := []Review{{
		Reviewer: "security",
		Body: "### 🛡️ Council of Claudes — Security\n\n> [!CAUTION]\n> Security lens · validation\n\n" +
			"**No security issues found**\n\n" +
			"> [!CAUTION]\n> Part of this review failed, so it may be incomplete; the errors are in the run's log.\n\n" +
			"- The scanner's map is read-only.\n\n" +
			"**Not reviewed by Security** (its part of the change failed): `felix/bpf-gpl/conntrack_cleanup.c`\n\n" +
			"🤖 Council of Claudes · 0 inline comment(s)\n\n" + ReviewMarker("security", headSHA),
		Event: "COMMENT", CommitID: headSHA, Comments: []Comment{},
	}}
	if diff := cmp.Diff(want, p.Reviews); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}
}

func TestPublicWarnings(t *testing.T) {
	t.Parallel()
	raw := "unit 1, claude-sonnet-4-5: anthropic: request rejected (400 invalid_request_error): tools.0.custom: bad"
	got := PublicWarnings([]string{
		"prompt cache warm-up failed, so reviewers may have paid for the whole prompt: " + raw,
		"prompt cache warm-up failed, so reviewers may have paid for the whole prompt: unit 2, " + raw,
		"validation failed for 1 of 6 findings: they are shown unchecked",
		"validator's prompt cache warm-up failed: " + raw,
	})
	want := []string{
		"prompt cache warm-up failed, so reviewers may have paid for the whole prompt (the error is in the run's log)",
		"validation failed for 1 of 6 findings: they are shown unchecked",
		"validator's prompt cache warm-up failed (the error is in the run's log)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PublicWarnings (-want +got):\n%s", diff)
	}

	b := setup(t)
	b.r.Degraded = []string{"validator's prompt cache warm-up failed: " + raw}
	for _, layout := range Layouts {
		b.o.Layout = layout
		for _, rv := range Build(b.r, b.o).Reviews {
			if strings.Contains(rv.Body, "tools.0.custom") || !strings.Contains(rv.Body, want[2]) {
				t.Errorf("%s review %q: the degraded warning is not the public one:\n%s", layout, rv.Reviewer, rv.Body)
			}
		}
	}
}

func TestPostedSkipping(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.o.Posted = map[string]bool{"c0ffee01": true, "c0ffee04": true, "ca5e0003": true}
	p := Build(b.r, b.o)
	want := []string{
		"c0ffee01: already posted",
		"c0ffee04: already posted",
		"c0ffee05: filtered: validate: below the severity floor (low)",
		"ca5e0003: already posted",
	}
	if diff := cmp.Diff(want, p.Skipped); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
	if !strings.Contains(p.Reviews[0].Body, "_2 findings were posted on an earlier run and are not repeated._") {
		t.Errorf("correctness body does not say what was posted before:\n%s", p.Reviews[0].Body)
	}
	assertNothingDropped(t, b.r, p, b.o.Posted)
}

// TestRerun posts a plan to a PR (its markers are what GitHub keeps) and builds again.
func TestRerun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layout Layout
	}{{"per reviewer", PerReviewer}, {"consolidated", Consolidated}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.Layout = tt.layout
			first := Build(b.r, b.o)
			var markers []MarkerInfo
			for _, rv := range first.Reviews {
				markers = append(markers, ParseMarkers(rv.Body)...)
				for _, c := range rv.Comments {
					markers = append(markers, ParseMarkers(c.Body)...)
				}
			}
			b.o.Posted = PostedFrom(markers)

			again := Build(b.r, b.o)
			if len(again.Reviews) != 0 {
				t.Errorf("a re-run on the same head posts again:\n%s", dump(again))
			}
			if got, want := len(again.Skipped), len(b.r.Findings); got != want {
				t.Errorf("re-run skipped %d findings, want all %d", got, want)
			}

			// A new push: no finding is posted twice, but a reviewer with a summary says it
			// looked again.
			b.o.HeadSHA = "1111111111111111111111111111111111111111"
			pushed := Build(b.r, b.o)
			for _, rv := range pushed.Reviews {
				if len(rv.Comments) != 0 || strings.Contains(rv.Body, notesHeading) {
					t.Errorf("after a push, review %q posts findings again:\n%s", rv.Reviewer, rv.Body)
				}
			}
			if len(pushed.Reviews) == 0 {
				t.Errorf("after a push, no reviewer says it reviewed the new head")
			}
		})
	}
}

func TestMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		id       string
		reviewer string
		category string
		severity finding.Severity
	}{
		{"fingerprint", "3f9a1c0e5b7d2a61", "correctness", "concurrency", finding.High},
		{"suffixed fingerprint", "3f9a1c0e5b7d2a61-2", "maintainability", "tests", finding.Nit},
		{"name with spaces", "abc", "Casey Smith", "error handling", finding.Medium},
		{"hostile name", "x --> y", "a=b -->", "c --> severity=critical", "low -->"},
		{"non-ASCII", "ü", "Nell ✨", "sécurité", finding.Critical},
		{"no category or severity", "abc", "correctness", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := Marker(MarkerInfo{ID: tt.id, Reviewer: tt.reviewer, Category: tt.category, Severity: tt.severity})
			if strings.Count(m, "-->") != 1 {
				t.Fatalf("marker %q can be closed early", m)
			}
			body := "Some text\n\n" + m + "\n\n" + ReviewMarker(tt.reviewer, headSHA) + "\n<!-- an ordinary comment -->\n<!-- council:v2 id=future -->" +
				"\n" + AnswerMarker(42)
			want := []MarkerInfo{{ID: tt.id, Reviewer: tt.reviewer, Category: tt.category, Severity: tt.severity}, {Reviewer: tt.reviewer, Review: true, Head: headSHA}}
			if diff := cmp.Diff(want, ParseMarkers(body)); diff != "" {
				t.Errorf("ParseMarkers (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := Marker(MarkerInfo{ID: "3f9a", Reviewer: "correctness", Category: "concurrency", Severity: finding.High}),
		"<!-- council:v1 id=3f9a reviewer=correctness category=concurrency severity=high -->"; got != want {
		t.Errorf("Marker = %q, want %q", got, want)
	}
	if got, want := AnswerMarker(42), "<!-- council:v1 answer to=42 -->"; got != want {
		t.Errorf("AnswerMarker = %q, want %q", got, want)
	}
	// A marker posted before category and severity were added still parses.
	old := "<!-- council:v1 id=3f9a reviewer=correctness -->"
	if diff := cmp.Diff([]MarkerInfo{{ID: "3f9a", Reviewer: "correctness"}}, ParseMarkers(old)); diff != "" {
		t.Errorf("ParseMarkers of an old marker (-want +got):\n%s", diff)
	}
	if got, want := ReviewMarker("casey", "abc"), "<!-- council:v1 review reviewer=casey head=abc -->"; got != want {
		t.Errorf("ReviewMarker = %q, want %q", got, want)
	}
}

func TestMarkersOfAPlanRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := Build(b.r, b.o)
	for _, rv := range p.Reviews {
		for _, c := range rv.Comments {
			want := []MarkerInfo{{ID: c.FindingID, Reviewer: rv.Reviewer, Category: c.Category, Severity: c.Severity}}
			if c.Category == "" || c.Severity == "" {
				t.Errorf("comment for %s has no category or severity: %+v", c.FindingID, c)
			}
			if diff := cmp.Diff(want, ParseMarkers(c.Body)); diff != "" {
				t.Errorf("comment markers (-want +got):\n%s", diff)
			}
		}
		ms := ParseMarkers(rv.Body)
		if len(ms) == 0 || ms[len(ms)-1] != (MarkerInfo{Reviewer: rv.Reviewer, Review: true, Head: headSHA}) {
			t.Errorf("review %s: last marker is not its review marker: %v", rv.Reviewer, ms)
		}
	}
}

func TestDemote(t *testing.T) {
	t.Parallel()
	reason := "Validation Failed: pull_request_review_thread.line must be part of the diff"
	tests := []struct {
		name     string
		layout   Layout
		reviewer int // index of the review to demote from
		bad      []int
	}{
		{"into an existing list", PerReviewer, 0, []int{1}},
		{"starting the list", PerReviewer, 1, []int{0}},
		{"every comment", PerReviewer, 3, []int{0, 1}},
		{"consolidated, two sections", Consolidated, 0, []int{0, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.Layout = tt.layout
			rv := Build(b.r, b.o).Reviews[tt.reviewer]
			before := rv.Body
			bad := map[int]string{len(rv.Comments) + 3: "out of range is ignored"}
			for _, i := range tt.bad {
				bad[i] = reason
			}
			got := Demote(rv, bad)

			if rv.Body != before {
				t.Errorf("Demote modified its argument")
			}
			if n := len(rv.Comments) - len(tt.bad); len(got.Comments) != n {
				t.Errorf("%d comments left, want %d", len(got.Comments), n)
			}
			if want := fmt.Sprintf("· %d inline comment(s)", len(got.Comments)); !strings.Contains(got.Body, want) {
				t.Errorf("footer not updated to %q:\n%s", want, got.Body)
			}
			for _, i := range tt.bad {
				c := rv.Comments[i]
				line := "- " + c.Note + " (not inline: GitHub rejected the comment: " + reason + ") " + commentMarker(c)
				at := strings.Index(got.Body, line)
				if at < 0 {
					t.Fatalf("demoted %s is not a note:\n%s", c.FindingID, got.Body)
				}
				// The note sits in its owner's part of the body, under the notes heading.
				own := strings.Index(got.Body, ReviewMarker(c.Reviewer, headSHA))
				if own < at || !strings.Contains(got.Body[:at], notesHeading) {
					t.Errorf("demoted %s is outside %s's notes:\n%s", c.FindingID, c.Reviewer, got.Body)
				}
				for _, k := range got.Comments {
					if k.FindingID == c.FindingID {
						t.Errorf("demoted %s is still inline", c.FindingID)
					}
				}
			}
			// Every finding of the review is still there exactly once.
			seen := map[string]int{}
			for _, m := range ParseMarkers(got.Body) {
				seen[m.ID]++
			}
			for _, c := range got.Comments {
				seen[c.FindingID]++
			}
			for _, c := range rv.Comments {
				if seen[c.FindingID] != 1 {
					t.Errorf("finding %s appears %d times after Demote", c.FindingID, seen[c.FindingID])
				}
			}
		})
	}
}

func TestDemoteGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rv := Build(b.r, b.o).Reviews[3] // casey: two inline comments, one note
	got := Demote(rv, map[int]string{0: "Validation Failed: line must be part of the diff"})
	golden(t, "demote.golden.md", dump(Plan{Reviews: []Review{got}}))
}

func TestPermalink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    finding.Finding
		repo string
		want string
	}{
		{"one line", finding.Finding{Path: "a/b.go", Line: 10}, repoURL, "[`a/b.go:10`](" + repoURL + "/blob/" + headSHA + "/a/b.go#L10)"},
		{"range", finding.Finding{Path: "a/b.go", StartLine: 10, Line: 12}, repoURL + "/", "[`a/b.go:10-12`](" + repoURL + "/blob/" + headSHA + "/a/b.go#L10-L12)"},
		{"whole file", finding.Finding{Path: "a/b.go"}, repoURL, "[`a/b.go`](" + repoURL + "/blob/" + headSHA + "/a/b.go)"},
		{"old side of a rename", finding.Finding{Path: "felix/bpf/new_name.go", Line: 4, Side: finding.Left}, repoURL, "[`felix/bpf/new_name.go:4`](" + repoURL + "/blob/" + baseSHA + "/felix/bpf/old_name.go#L4)"},
		{"awkward path", finding.Finding{Path: "docs/notes (draft) ü.md", Line: 1}, repoURL, "[`docs/notes (draft) ü.md:1`](" + repoURL + "/blob/" + headSHA + "/docs/notes%20%28draft%29%20%C3%BC.md#L1)"},
		{"no repository", finding.Finding{Path: "a/b.go", Line: 10}, "", "`a/b.go:10`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.RepoURL = tt.repo
			o := withDefaults(b.r, b.o)
			bd := &builder{r: b.r, o: o, ix: diff.NewIndex(o.Diff)}
			if diff := cmp.Diff(tt.want, bd.link(tt.f)); diff != "" {
				t.Errorf("link (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Layout
		wantErr string
	}{
		{"", PerReviewer, ""},
		{"per-reviewer", PerReviewer, ""},
		{"consolidated", Consolidated, ""},
		{"single", "", `unknown review layout "single" (allowed: per-reviewer, consolidated)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLayout(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.wantErr {
				t.Errorf("ParseLayout(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
			}
		})
	}
}

func TestMaxInline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		max  int
		want int // inline comments of the maintainability review
	}{{0, 30}, {5, 5}, {-1, 0}, {100, 35}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.MaxInline = tt.max
			p := Build(b.r, b.o)
			if got := len(p.Reviews[2].Comments); got != tt.want {
				t.Errorf("%d inline comments, want %d", got, tt.want)
			}
			assertNothingDropped(t, b.r, p, nil)
		})
	}
}

func TestMinorNotesGoToTheBody(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var reported finding.Finding
	for _, f := range b.r.Findings {
		if f.Status == finding.Reported {
			reported = f
			break
		}
	}
	minor := reported
	minor.ID, minor.Title, minor.Status = "minor1", "Comment still says one value", finding.Minor
	b.r.Findings = append(b.r.Findings, minor)
	p := Build(b.r, b.o)
	var found bool
	for _, rv := range p.Reviews {
		for _, c := range rv.Comments {
			if c.FindingID == "minor1" {
				t.Errorf("the minor note is an inline comment of %s", rv.Reviewer)
			}
		}
		if rv.Reviewer != minor.Owner() {
			continue
		}
		found = true
		if !strings.Contains(rv.Body, "<details><summary>Minor notes (1)</summary>") || !strings.Contains(rv.Body, "Comment still says one value") ||
			!strings.Contains(rv.Body, markerStart("minor1", minor.Owner())) {
			t.Errorf("%s's review body lacks the collapsed minor note:\n%s", rv.Reviewer, rv.Body)
		}
	}
	if !found {
		t.Fatalf("no review for %s", minor.Owner())
	}
	assertNothingDropped(t, b.r, p, nil)

	// Posted once, it is not posted again on the next push.
	b.o.Posted = map[string]bool{"minor1": true}
	for _, rv := range Build(b.r, b.o).Reviews {
		if strings.Contains(rv.Body, "Minor notes") {
			t.Errorf("a minor note already on the pull request is posted again by %s", rv.Reviewer)
		}
	}
}

// markerStart is the start of a finding's marker, up to its category: what a test that does
// not know the finding's category and severity can look for.
func markerStart(id, reviewer string) string {
	return strings.TrimSuffix(Marker(MarkerInfo{ID: id, Reviewer: reviewer}), " -->") + " "
}

// commentMarker is the marker an inline comment ends with.
func commentMarker(c Comment) string {
	return Marker(MarkerInfo{ID: c.FindingID, Reviewer: c.Reviewer, Category: c.Category, Severity: c.Severity})
}

// hintFor is the feedback hint of a council called council.
func hintFor(council string) string {
	return "<sub>🤖 " + council + " · reply or react 👍/👎 to teach it about this repository</sub>"
}

func TestEveryInlineCommentEndsWithTheHint(t *testing.T) {
	t.Parallel()
	for _, layout := range Layouts {
		t.Run(string(layout), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.o.Layout = layout
			b.o.Council = "Council of Claudes"
			n := 0
			for _, rv := range Build(b.r, b.o).Reviews {
				if strings.Contains(rv.Body, "<sub>") {
					t.Errorf("review %q: the hint belongs in inline comments, not in the body", rv.Reviewer)
				}
				for _, c := range rv.Comments {
					n++
					want := "\n\n" + hintFor("Council of Claudes") + "\n\n" + commentMarker(c)
					if !strings.HasSuffix(c.Body, want) || strings.Count(c.Body, "<sub>") != 1 {
						t.Errorf("comment for %s does not end with the hint, then its marker:\n%s", c.FindingID, c.Body)
					}
				}
			}
			if n == 0 {
				t.Fatal("no inline comment to check")
			}
		})
	}
}
