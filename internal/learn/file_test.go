package learn

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/config"
)

func sampleFile() File {
	return File{
		Learnings: []Learning{
			{
				ID: "no-doc-nits-in-fv", Kind: Suppress, Reviewer: "docs", Category: "docs", Paths: []string{"felix/fv/**"},
				Text:     "Do not flag missing doc comments on unexported test helpers in `felix/fv/` (3 of 3 dismissed): the team: says \"they are obvious\".",
				Evidence: []Evidence{{URL: "https://github.com/a/b/pull/1#discussion_r1", Signal: "dismissed: 👎 ×2"}, {URL: "https://github.com/a/b/pull/2#discussion_r2", Signal: "dismissed: resolved by @alice"}},
				Counts:   map[string]int{"rejected": 2},
			},
			{ID: "nil-maps", Kind: Emphasise, Text: "Look for writes to nil maps in config loaders.\nThey crashed twice.", Counts: map[string]int{"accepted": 3, "ignored": 1}},
		},
		Source: &Source{Repos: []string{"a/b"}, Since: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
			PRs: 12, Signals: 40, Model: "claude-sonnet-4-5", Built: time.Date(2025, 6, 2, 9, 30, 0, 0, time.FixedZone("", 2*3600))},
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range []File{sampleFile(), {Learnings: []Learning{{ID: "x", Kind: Suppress, Text: "y"}}}} {
		data, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "# council learnings:") || !strings.Contains(string(data), "base revision") {
			t.Errorf("no header comment:\n%s", data)
		}
		got, err := Parse("learnings.yaml", data)
		if err != nil {
			t.Fatalf("Parse(Marshal(f)): %v\n%s", err, data)
		}
		if diff := cmp.Diff(f, got); diff != "" {
			t.Errorf("Parse(Marshal(f)) (-want +got):\n%s\n%s", diff, data)
		}
	}
}

func TestMarshalEmpty(t *testing.T) {
	t.Parallel()
	data, err := File{}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("l.yaml", data)
	if err != nil || len(got.Learnings) != 0 || got.Source != nil {
		t.Errorf("Parse(Marshal(File{})) = %+v, %v\n%s", got, err, data)
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "\n", "# only a comment\n# and another\n"} {
		f, err := Parse("l.yaml", []byte(in))
		if err != nil || f.Learnings != nil || f.Source != nil {
			t.Errorf("Parse(%q) = %+v, %v; want no learnings", in, f, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const ok = "  - id: a\n    kind: suppress\n    text: t\n"
	tests := []struct{ name, in, want string }{
		{"unknown key", "learnings:\n  - id: a\n    kind: suppress\n    text: t\n    scope: x\n", `l.yaml:5:5: learnings[0].scope: unknown key (allowed: id, kind, text, reviewer, category, paths, evidence, counts)`},
		{"wrong type", "learnings:\n  - id: a\n    kind: suppress\n    text: t\n    paths: x/**\n", `l.yaml:5:12: learnings[0].paths: must be a list (got string "x/**")`},
		{"bad id", "learnings:\n  - id: No_Good\n    kind: suppress\n    text: t\n", `l.yaml:2:9: learnings[0].id: learning "No_Good": id "No_Good" is not lower-case letters, digits and '-' (starting with a letter or digit); rename it`},
		{"missing id", "learnings:\n  - kind: suppress\n    text: t\n", `l.yaml:2:9: learnings[0]: learning 1: id is missing; give it a short name of lower-case letters, digits and '-'`},
		{"duplicate id", "learnings:\n" + ok + ok, `l.yaml:5:9: learnings[1].id: learning "a": id "a" is already used by learning 1; ids must be unique, rename one`},
		{"bad kind", "learnings:\n  - id: a\n    kind: ignore\n    text: t\n", `l.yaml:3:11: learnings[0].kind: learning "a": kind "ignore" is not suppress, emphasise or ask`},
		{"no text", "learnings:\n  - id: a\n    kind: emphasise\n    text: \"  \"\n", `l.yaml:2:7: learnings[0]: learning "a": text is missing; say what reviewers should (not) raise, and why`},
		{"long text", "learnings:\n  - id: a\n    kind: emphasise\n    text: " + strings.Repeat("x", 501) + "\n", `l.yaml:4:11: learnings[0].text: learning "a": text is 501 characters, more than 500; shorten it`},
		{"bad glob", "learnings:\n" + ok + "    paths: [\"a/**\", \"b**\"]\n", `l.yaml:5:21: learnings[0].paths[1]: learning "a": paths[1]: "b**": "**" must be a whole path segment ("a/**/b", not "a**")`},
		{"evidence without url", "learnings:\n" + ok + "    evidence:\n      - signal: x\n", `l.yaml:6:15: learnings[0].evidence[0]: learning "a": evidence[0] has no url; link the comment it rests on, or remove the entry`},
		{"bad count key", "learnings:\n" + ok + "    counts: {dismissed: 2}\n", `l.yaml:5:25: learnings[0].counts.dismissed: learning "a": counts: "dismissed" is not accepted, rejected or ignored`},
		{"bad time", "learnings: []\nsource:\n  repos: [a/b]\n  since: yesterday\n", `l.yaml:4:10: source.since: "yesterday" is not an RFC 3339 time; write it like "2025-05-01T00:00:00Z"`},
		{"syntax", "learnings: [\n", `l.yaml:1:12: sequence end token ']' not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("l.yaml", []byte(tt.in))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %s\nwant    %s", err, tt.want)
			}
		})
	}
}
