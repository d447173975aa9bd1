package review

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
	"github.com/council-dev/council/internal/instructions"
	"github.com/council-dev/council/internal/provider"
)

// severityItem is a line of a severity list: "- high: what it means".
var severityItem = regexp.MustCompile(`^\s*- ([a-z]+): `)

// severityList returns the severities defined in the list that follows the first line of text
// starting with "Severity", up to the first blank line.
func severityList(text string) []finding.Severity {
	var out []finding.Severity
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case !in && strings.HasPrefix(strings.TrimSpace(l), "Severity"):
			in = true
		case in && strings.TrimSpace(l) == "":
			return out
		case in:
			if m := severityItem.FindStringSubmatch(l); m != nil {
				out = append(out, finding.Severity(m[1]))
			}
		}
	}
	return out
}

// TestSeverityScale: one scale, defined in the system prompt, is finding.Severities; every
// lens grades on it, listing each of its severities in order and no other, so that no lens
// tops out below what the system prompt allows or adds a level of its own.
func TestSeverityScale(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(finding.Severities, severityList(rules)); diff != "" {
		t.Errorf("severities the system prompt defines (-finding.Severities +prompt):\n%s", diff)
	}
	for _, r := range Builtin() {
		if diff := cmp.Diff(finding.Severities, severityList(r.Instructions)); diff != "" {
			t.Errorf("%s: severities the lens maps onto (-finding.Severities +lens):\n%s", r.Name, diff)
		}
		if !strings.Contains(r.Instructions, "on the council's scale in the rules") {
			t.Errorf("%s: the severity section does not say it maps onto the rules' scale", r.Name)
		}
	}
}

// TestLensesNameNoRealProject: the lenses' examples are invented. A real pull request's bug in
// an example primes every review on that project's names and means nothing elsewhere.
func TestLensesNameNoRealProject(t *testing.T) {
	t.Parallel()
	banned := []string{"bpf", "conntrack", "felix", "calico", "qoscontrols", "connlimit", "dataplane",
		"ingress", "v4 and v6", "scanner", "iterdelete", "inventory", "reserve"}
	for _, r := range Builtin() {
		text := strings.ToLower(r.Instructions)
		for _, w := range banned {
			if strings.Contains(text, w) {
				t.Errorf("%s mentions %q, from a real project or council's own benchmark", r.Name, w)
			}
		}
	}
}

// TestRules pins what the system prompt must say, and must no longer say.
func TestRules(t *testing.T) {
	t.Parallel()
	for _, want := range []string{
		// A finding is posted and validated on its own.
		"Each finding stands alone",
		"Never refer to another finding or comment",
		// A comment the change made stale is reportable, though on an unchanged line.
		`A finding may be about an unchanged line (" " in a hunk, or a "NEW : " line shown around a hunk) when the change makes that line wrong`,
		"shown in the review body",
	} {
		if !strings.Contains(rules, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
	for _, gone := range []string{"never quote or comment on them", "comment only on diff lines"} {
		if strings.Contains(rules, gone) {
			t.Errorf("the system prompt still says %q", gone)
		}
	}
}

// unitInput is a realistic change of two units: rendered diffs with context around the hunks,
// instructions and code beyond the diff.
func unitInput(t *testing.T) Input {
	t.Helper()
	patch := "diff --git a/cache.go b/cache.go\n--- a/cache.go\n+++ b/cache.go\n@@ -2,3 +2,3 @@\n x\n-y\n+z\n w\n"
	files, err := diff.Parse([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	head := func(string) []string { return []string{"// refreshed every 60s", "x", "z", "w", "v", "u"} }
	in := Input{Repo: "svc", Base: "main", Head: "HEAD", BaseSHA: "aaaa", HeadSHA: "bbbb", Title: "T", Body: "B"}
	for _, f := range []string{"cache.go", "order.go"} {
		in.Units = append(in.Units, Unit{
			Files: []string{f},
			Diff:  diff.RenderAll(files, head, 2),
			Instructions: instructions.Render([]instructions.Instruction{
				{Source: "AGENTS.md", AppliesTo: []string{f}, Text: "Self-identify as an agent. Use tabs."},
			}),
			Context: "#### cache.go:1-2 (enclosing: func get) — encloses hunk @@ -2,3 +2,3 @@\n   1 : // refreshed every 60s\n   2 : x\n",
		})
	}
	return in
}

// requestText is everything a request sends as text, in order.
func requestText(req provider.Request) string {
	var parts []string
	for _, b := range req.System {
		parts = append(parts, b.Text)
	}
	for _, tl := range req.Tools {
		parts = append(parts, tl.Description)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestRequestSaysEachThingOnce: the diff's legend, and the rule about lines outside the hunks,
// appear once per request, whichever unit and with or without tools.
func TestRequestSaysEachThingOnce(t *testing.T) {
	t.Parallel()
	in := unitInput(t)
	o := Options{NewToolbox: func() Toolbox { return &fakeBox{} }, Limits: Limits{MaxTurns: 4}}
	for u := range in.Units {
		for _, tools := range []bool{false, true} {
			req := Request(in, u, Builtin()[0], "m", 100)
			if tools {
				req = o.FirstTurn(req)
			}
			text := requestText(req)
			for _, once := range []string{
				diff.Legend,
				"# Change under review",
				"## Diff",
				"guidelines for its contributors",
				"Tool budget:",
			} {
				want := 1
				if once == "Tool budget:" && !tools {
					want = 0
				}
				if n := strings.Count(text, once); n != want {
					t.Errorf("unit %d, tools %v: %q appears %d times, want %d", u+1, tools, once, n, want)
				}
			}
			// The notation of lines outside the hunks is explained once, by the legend.
			if n := strings.Count(text, "take no inline comment"); n != 1 {
				t.Errorf("unit %d, tools %v: the rule for lines outside the hunks is stated %d times", u+1, tools, n)
			}
		}
	}
}

func TestPrefixSection(t *testing.T) {
	t.Parallel()
	p := Prefix(unitInput(t), 0)
	sections := regexp.MustCompile(`(?m)^## .*$`).FindAllString(p, -1)
	want := []string{
		"## Title and description (untrusted data from the author)",
		"## Repository guidelines",
		"## Code beyond the diff",
		"## Diff",
	}
	if !slices.Equal(want, sections) {
		t.Errorf("sections %q, want %q", sections, want)
	}
}

// The prefix lists every file of the change with what happened to it and its line counts, so
// that a reviewer and the validator know what else the change does; a huge change lists the
// first files and counts the rest.
func TestPrefixListsTheChangesFiles(t *testing.T) {
	t.Parallel()
	in := Input{Base: "main", Head: "HEAD", Units: []Unit{{Files: []string{"cache.go"}, Diff: "d"}}, Files: []diff.File{
		{OldPath: "cache.go", NewPath: "cache.go", Status: diff.Modified, Added: 12, Deleted: 3},
		{NewPath: "CHANGELOG.md", Status: diff.Added, Added: 2},
		{OldPath: "old.go", NewPath: "store.go", Status: diff.Renamed, Added: 1, Deleted: 1},
		{OldPath: "gone_test.go", Status: diff.Deleted, Deleted: 40},
	}}
	want := "## Files of the change (4)\n\n" +
		"- `cache.go` (modified, +12 -3)\n" +
		"- `CHANGELOG.md` (added, +2 -0)\n" +
		"- `store.go` (renamed from old.go, +1 -1)\n" +
		"- `gone_test.go` (deleted, +0 -40)\n"
	if p := Prefix(in, 0); !strings.Contains(p, want) {
		t.Errorf("the prefix lacks the list of files:\n%s\nwant:\n%s", p, want)
	}
	in.Files = nil
	for i := range 150 {
		in.Files = append(in.Files, diff.File{OldPath: fmt.Sprintf("f%03d.go", i), NewPath: fmt.Sprintf("f%03d.go", i), Status: diff.Modified, Added: 1, Deleted: 2})
	}
	p := Prefix(in, 0)
	if want := "- `f099.go` (modified, +1 -2)\n- … and 50 more files (+50 -100 in all), not listed\n"; !strings.Contains(p, want) || strings.Contains(p, "`f100.go`") {
		t.Errorf("a huge change's list is not cut at %d files:\n%s", maxListedFiles, p)
	}
}
