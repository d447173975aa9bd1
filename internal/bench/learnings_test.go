package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLearningsLeaks(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) []Sample {
		t.Helper()
		return []Sample{
			{ID: "acme-widget-7", Repo: Repo{Name: "acme/widget"}, PR: PR{Number: 7, Created: created.AddDate(0, 0, 5)}},
			{ID: "acme-widget-9", Repo: Repo{URL: "https://github.com/acme/widget.git"}, PR: PR{Number: 9, Created: created}},
			{ID: "acme-gadget-2", PR: PR{Number: 2, URL: "https://github.com/Acme/Gadget/pull/2"}},
		}
	}
	before := created.Add(-time.Hour)
	tests := []struct {
		name string
		src  LearningsSource
		want []Leak
	}{
		{
			name: "learnt from earlier pull requests",
			src: LearningsSource{Until: before, Evidence: []LearningsEvidence{
				{Learning: "no-nil-checks", URL: "https://github.com/acme/widget/pull/3#discussion_r11"},
				{Learning: "no-nil-checks", URL: "https://github.com/acme/other/pull/7#discussion_r12"},
				{Learning: "docs", URL: "not a link"},
			}},
		},
		{
			name: "until the very creation of the earliest",
			src:  LearningsSource{Until: created},
		},
		{
			name: "evidence on a sample's pull request, by name, clone URL and PR URL",
			src: LearningsSource{Until: before, Evidence: []LearningsEvidence{
				{Learning: "a", URL: "https://github.com/acme/widget/pull/7#discussion_r1"},
				{Learning: "b", URL: "https://github.com/ACME/widget/pull/9/files#r2"},
				{Learning: "c", URL: "https://github.com/acme/gadget/pull/2"},
			}},
			want: []Leak{
				{Sample: "acme-widget-7", Learning: "a", URL: "https://github.com/acme/widget/pull/7#discussion_r1", Reason: "it is a comment on acme/widget#7, the pull request of sample acme-widget-7"},
				{Sample: "acme-widget-9", Learning: "b", URL: "https://github.com/ACME/widget/pull/9/files#r2", Reason: "it is a comment on ACME/widget#9, the pull request of sample acme-widget-9"},
				{Sample: "acme-gadget-2", Learning: "c", URL: "https://github.com/acme/gadget/pull/2", Reason: "it is a comment on acme/gadget#2, the pull request of sample acme-gadget-2"},
			},
		},
		{
			name: "until after the earliest sample was opened",
			src:  LearningsSource{Until: created.Add(time.Second)},
			want: []Leak{{Sample: "acme-widget-9", Reason: "the learnings file's source.until 2026-03-10T12:00:01Z is after acme-widget-9 was created (2026-03-10T12:00:00Z), the dataset's earliest pull request; build it with council learn --until 2026-03-10"}},
		},
		{
			name: "no until while the samples are dated",
			src:  LearningsSource{},
			want: []Leak{{Sample: "acme-widget-9", Reason: "the learnings file has no source.until, so it may have learnt from pull requests opened after acme-widget-9 (created 2026-03-10T12:00:00Z), the dataset's earliest; build it with council learn --until 2026-03-10"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := LearningsLeaks(tt.src, setup(t))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("leaks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLearningsLeaksUndatedSamples(t *testing.T) {
	t.Parallel()
	samples := []Sample{{ID: "acme-widget-7", Repo: Repo{Name: "acme/widget"}, PR: PR{Number: 7}}}
	if got := LearningsLeaks(LearningsSource{}, samples); len(got) != 0 {
		t.Errorf("undated samples cannot be held to a date, got %v", got)
	}
	got := LearningsLeaks(LearningsSource{Evidence: []LearningsEvidence{{Learning: "x", URL: "https://github.com/acme/widget/pull/7#r1"}}}, samples)
	if len(got) != 1 || !strings.Contains(got[0].String(), `learning "x"`) {
		t.Errorf("evidence on the sample's pull request must still be refused, got %v", got)
	}
}

func TestPullOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		repo string
		n    int
		ok   bool
	}{
		{"https://github.com/acme/widget/pull/7#discussion_r1007", "acme/widget", 7, true},
		{"https://ghe.example.com/acme/widget/pull/12/files#r3", "acme/widget", 12, true},
		{"https://github.com/acme/widget/pull/21/commits/4444444444444444444444444444444444444444#diff-39515cL8", "acme/widget", 21, true}, // council learn --git's asks
		{"https://github.com/acme/widget/commit/4444444444444444444444444444444444444444#diff-39515cL8", "", 0, false},
		{"https://github.com/acme/widget/issues/7#issuecomment-1", "", 0, false},
		{"https://github.com/acme/widget/pull/x", "", 0, false},
		{"acme/widget/pull/7", "", 0, false},
	}
	for _, tt := range tests {
		repo, n, ok := PullOf(tt.url)
		if repo != tt.repo || n != tt.n || ok != tt.ok {
			t.Errorf("PullOf(%q) = %q, %d, %v; want %q, %d, %v", tt.url, repo, n, ok, tt.repo, tt.n, tt.ok)
		}
	}
}

func TestSampleCreatedRoundTrips(t *testing.T) {
	t.Parallel()
	s := Sample{SampleVersion: SampleVersion, ID: "acme-widget-7", Repo: Repo{Name: "acme/widget", URL: "https://github.com/acme/widget.git"},
		PR: PR{Number: 7, Created: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}, Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), Truth: []Truth{}}
	dir := t.TempDir()
	if err := WriteSample(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSample(dir + "/acme-widget-7.json")
	if err != nil {
		t.Fatal(err)
	}
	if !got.PR.Created.Equal(s.PR.Created) {
		t.Errorf("pr.created read back as %v, want %v", got.PR.Created, s.PR.Created)
	}
	s.PR.Created = time.Time{}
	data, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "created") {
		t.Errorf("an undated sample must not write pr.created: %s", data)
	}
}
