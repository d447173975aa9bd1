package benchreport

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/bench"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func render(t *testing.T, f func(*bytes.Buffer, []Run) error, runs []Run) string {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf, runs); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func markdownString(b *bytes.Buffer, runs []Run) error { return Markdown(b, runs) }
func htmlString(b *bytes.Buffer, runs []Run) error     { return HTML(b, runs) }

func TestReportGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		render func(*bytes.Buffer, []Run) error
		runs   []Run
	}{
		{"two_runs.md", markdownString, twoRuns()},
		{"two_runs.html", htmlString, twoRuns()},
		{"one_run.md", markdownString, []Run{haiku()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(t, tt.render, tt.runs)
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("output mismatch (-want +got), run with -update if intended:\n%s", diff)
			}
		})
	}
}

// TestReportDeterministic: maps in the score (recall by kind, matches) never change the bytes.
func TestReportDeterministic(t *testing.T) {
	t.Parallel()
	for _, f := range []func(*bytes.Buffer, []Run) error{markdownString, htmlString} {
		first := render(t, f, twoRuns())
		for range 5 {
			if got := render(t, f, twoRuns()); got != first {
				t.Fatal("two renderings of the same runs differ")
			}
		}
	}
}

// hostile puts a script in every text of the score that comes from a pull request, a model
// or the user.
func hostile() []Run {
	const x = `<script>alert(1)</script>`
	r := sonnet()
	r.Name = "run " + x
	s := &r.Score
	s.Model, s.Truth = x, x
	s.NotScored[0].Reason = x
	s.ByKind["L0"] = append(s.ByKind["L0"], bench.Rate{Group: x, Hits: 1, Total: 1, Recall: 1})
	s.ByReviewer[0].Reviewer = x
	s.Judge.Model = x
	s.Labels.File = x
	ss := &s.PerSample[0]
	ss.Title = x
	ss.URL = "javascript:alert(1)"
	ss.Truth[0].Body = x
	ss.Truth[0].Author = x
	ss.Truth[0].Path = x
	ss.Truth[0].Kind = x
	ss.Findings[0].Title = x
	ss.Findings[0].Body = x
	ss.Findings[3].Verdict = `"><script>alert(1)</script>`
	ss.Findings[3].Reviewers = []string{x}
	return []Run{r}
}

func TestReportHTMLEscapesData(t *testing.T) {
	t.Parallel()
	got := render(t, htmlString, hostile())
	if strings.Contains(got, "<script>alert(1)") {
		t.Error("a script from the score reached the page unescaped")
	}
	if !strings.Contains(got, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the escaped script text is missing: was the data dropped instead of escaped?")
	}
	if n := strings.Count(got, "<script"); n != 1 {
		t.Errorf("%d <script elements, want the page's own only", n)
	}
	if strings.Contains(got, `href="javascript:`) {
		t.Error("a javascript: URL from the score became a link")
	}
}

func TestReportMarkdownEscapesData(t *testing.T) {
	t.Parallel()
	got := render(t, markdownString, hostile())
	if strings.Contains(got, "<script>") {
		t.Error("raw HTML from the score reached the Markdown")
	}
	if !strings.Contains(got, "&lt;script>alert(1)&lt;/script>") {
		t.Error("the escaped text is missing")
	}
}

// TestReportHTMLSelfContained: the page asks for nothing over the network.
func TestReportHTMLSelfContained(t *testing.T) {
	t.Parallel()
	got := render(t, htmlString, twoRuns())
	for _, bad := range []string{" src=", "<link", "url(", "@import", "<iframe", "<img", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(got, bad) {
			t.Errorf("page contains %q: it must load nothing", bad)
		}
	}
}

// TestTextTableMarkdown: columns line up in runes (a "–" is three bytes), numbers to the
// right, and a cell cannot break out of its column.
func TestTextTableMarkdown(t *testing.T) {
	t.Parallel()
	tb := textTable{Header: []string{"Run", "Recall"}, Num: []bool{false, true},
		Rows: [][]string{{"a|b", "–"}, {"sonnet", "0.40 [0.22–0.58]"}}}
	want := "| Run    |           Recall |\n" +
		"| ------ | ---------------: |\n" +
		"| a\\|b   |                – |\n" +
		"| sonnet | 0.40 [0.22–0.58] |"
	if d := cmp.Diff(want, tb.markdown()); d != "" {
		t.Errorf("markdown (-want +got):\n%s", d)
	}
}

func TestReportNoRuns(t *testing.T) {
	t.Parallel()
	for _, f := range []func(*bytes.Buffer, []Run) error{markdownString, htmlString} {
		if err := f(&bytes.Buffer{}, nil); !errors.Is(err, errNoRuns) {
			t.Errorf("err = %v, want errNoRuns", err)
		}
	}
}

func TestReportDefaultTier(t *testing.T) {
	t.Parallel()
	tier := func(names ...string) bench.Score {
		var s bench.Score
		for _, n := range names {
			s.Tiers = append(s.Tiers, bench.TierScore{Tier: n})
		}
		return s
	}
	tests := []struct {
		name      string
		runs      []Run
		wantTiers []string
		want      string
	}{
		{"one run with a judge", []Run{{Score: tier("L0", "L1", "L2", "L3")}}, []string{"L0", "L1", "L2", "L3"}, "L3"},
		{"judge in one run only", twoRuns(), []string{"L0", "L1", "L2", "L3"}, "L2"},
		{"unknown tier sorts last", []Run{{Score: tier("L9", "L1", "L0")}}, []string{"L0", "L1", "L9"}, "L9"},
		{"no tier in common", []Run{{Score: tier("L0")}, {Score: tier("L1")}}, []string{"L0", "L1"}, "L0"},
		{"no tiers", []Run{{}}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.wantTiers, tiers(tt.runs)); diff != "" {
				t.Errorf("tiers (-want +got):\n%s", diff)
			}
			if got := defaultTier(tt.runs); got != tt.want {
				t.Errorf("defaultTier = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReportLoc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path        string
		start, line int
		want        string
	}{
		{"a.go", 0, 12, "a.go:12"},
		{"a.go", 10, 12, "a.go:10-12"},
		{"a.go", 12, 12, "a.go:12"},
		{"a.go", 0, 0, "a.go"},
		{"", 0, 0, "(review body)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := loc(tt.path, tt.start, tt.line); got != tt.want {
				t.Errorf("loc = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReportDrillDownGroupsTiers: a truth item matched to the same finding at several tiers shows
// the finding once, for all of them; a tier the run lacks says so.
func TestReportDrillDownGroupsTiers(t *testing.T) {
	t.Parallel()
	runs := twoRuns()
	views := []runView{newRunView(0, runs[0]), newRunView(1, runs[1])}
	all := tiers(runs)
	sv := newSampleView(views, runs, all, "L2", "acme-svc-1")
	type got struct {
		Tiers   string
		Hidden  bool
		Missed  bool
		Finding string
		Note    string
	}
	flat := func(c cellView) []got {
		var out []got
		for _, b := range c.Blocks {
			g := got{Tiers: b.Tiers, Hidden: b.Hidden, Missed: b.Missed, Note: b.Note}
			if b.Finding != nil {
				g.Finding = b.Finding.ID
			}
			out = append(out, g)
		}
		return out
	}
	// c2: sonnet matched f2 at L0, L1, L3 and missed it at L2; haiku has no L3.
	if diff := cmp.Diff([]got{
		{Tiers: "L0 L1 L3", Hidden: true, Finding: "f2"},
		{Tiers: "L2", Missed: true},
	}, flat(sv.Truth[1].Cells[0])); diff != "" {
		t.Errorf("sonnet c2 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]got{
		{Tiers: "L0 L1 L2", Finding: "h2"},
		{Tiers: "L3", Hidden: true, Note: "not scored at L3"},
	}, flat(sv.Truth[1].Cells[1])); diff != "" {
		t.Errorf("haiku c2 (-want +got):\n%s", diff)
	}
	// Unmatched findings of sonnet: f2 at L2, f3 from L1 on, f4 always.
	if diff := cmp.Diff([]got{
		{Tiers: "L2", Finding: "f2"},
		{Tiers: "L1 L2 L3", Finding: "f3"},
		{Tiers: "L0 L1 L2 L3", Finding: "f4"},
	}, flat(sv.Unmatched[0])); diff != "" {
		t.Errorf("sonnet unmatched (-want +got):\n%s", diff)
	}
}
