package learn

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOutcome(t *testing.T) {
	t.Parallel()
	maint := []Reply{{Author: "alice", WriteAccess: true, Body: "not needed"}}
	outsider := []Reply{{Author: "bob", Body: "+1 to this"}}
	tests := []struct {
		name string
		s    Signal
		want Outcome
	}{
		{"nothing happened", Signal{}, Ignored},
		{"addressed", Signal{Addressed: true}, Accepted},
		{"addressed beats thumbs down and a maintainer's reply", Signal{Addressed: true, Reactions: map[string]int{"-1": 3}, Replies: maint, Resolved: true}, Accepted},
		{"thumbs up", Signal{Reactions: map[string]int{"+1": 1}}, Accepted},
		{"heart, hooray and rocket count as positive", Signal{Reactions: map[string]int{"heart": 1, "hooray": 1, "rocket": 1, "-1": 2}}, Accepted},
		{"positive outnumber negative beats a maintainer's reply", Signal{Reactions: map[string]int{"+1": 2, "-1": 1}, Replies: maint}, Accepted},
		{"thumbs down", Signal{Reactions: map[string]int{"-1": 1}}, Rejected},
		{"confused counts as negative", Signal{Reactions: map[string]int{"confused": 2, "+1": 1}}, Rejected},
		{"laugh and eyes count for nothing", Signal{Reactions: map[string]int{"laugh": 4, "eyes": 2}}, Ignored},
		{"a tie falls through to ignored", Signal{Reactions: map[string]int{"+1": 1, "-1": 1}}, Ignored},
		{"a tie falls through to a maintainer's reply", Signal{Reactions: map[string]int{"+1": 1, "-1": 1}, Replies: maint}, Rejected},
		{"maintainer's reply, no change", Signal{Replies: maint}, Rejected},
		{"a reply without write access says nothing", Signal{Replies: outsider}, Ignored},
		{"maintainer's reply after an outsider's", Signal{Replies: append(append([]Reply{}, outsider...), maint...)}, Rejected},
		{"resolved, no change", Signal{Resolved: true, ResolvedBy: "carol"}, Rejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.s.Outcome(); got != tt.want {
				t.Errorf("Outcome() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSignalsRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	ss := []Signal{
		{Repo: "a/b", PR: 3, PRCreated: at, PRMerged: true, URL: "https://github.com/a/b/pull/3#discussion_r1", CommentID: 1, Created: at,
			Fingerprint: "f1", Reviewer: "docs", Category: "docs", Severity: "low", Path: "x/y.go", Line: 4, Title: "Missing doc <comment> & more",
			Replies: []Reply{{Author: "alice", WriteAccess: true, Body: "no", Created: at}}, Reactions: map[string]int{"-1": 2}, Resolved: true, ResolvedBy: "alice"},
		{Repo: "a/b", PR: 4, URL: "u2", Reviewer: "bugs", Path: "main.go", Title: "t", Addressed: true},
	}
	var b strings.Builder
	if err := WriteSignals(&b, ss); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "\n") != 2 || !strings.Contains(b.String(), "<comment> & more") {
		t.Errorf("want two lines with HTML left alone, got:\n%s", b.String())
	}
	got, err := ReadSignals(strings.NewReader("\n" + b.String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ss, got); diff != "" {
		t.Errorf("write then read changed the signals (-want +got):\n%s", diff)
	}
}

func TestReadSignalsErrors(t *testing.T) {
	t.Parallel()
	ok := `{"repo":"a/b","pr":1,"url":"u","path":"p","title":"t"}` + "\n"
	tests := []struct{ name, in, want string }{
		{"bad JSON", ok + "\n" + `{"repo": ` + "\n", "read signals: line 3: not a valid signal (unexpected EOF); write one signal object per line"},
		{"unknown field", ok + `{"repo":"a/b","finger_print":"x"}`, `read signals: line 2: not a valid signal (json: unknown field "finger_print"); write one signal object per line`},
		{"wrong type", `{"pr":"12"}`, "read signals: line 1: pr: is a JSON string, want int"},
		{"not an object", `[1]`, "read signals: line 1: is a JSON array, want a signal object"},
		{"two values", `{} {}`, "read signals: line 1: more than one JSON value; write one signal object per line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadSignals(strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}
