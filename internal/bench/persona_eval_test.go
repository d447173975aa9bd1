package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/finding"
)

func TestKeepAuthors(t *testing.T) {
	t.Parallel()
	r := Round{
		Truth:   []Truth{{ID: "1", Author: "Alice", Body: "a"}, {ID: "2", Author: "bob", Body: "b"}},
		Dropped: []Dropped{{ID: "3", Author: "alice", Body: "LGTM", Reason: "praise"}},
	}
	if d := cmp.Diff(r, KeepAuthors(r, nil)); d != "" {
		t.Errorf("no logins changed the round (-want +got):\n%s", d)
	}
	want := Round{
		Truth: []Truth{{ID: "1", Author: "Alice", Body: "a"}},
		Dropped: []Dropped{
			{ID: "3", Author: "alice", Body: "LGTM", Reason: "praise"},
			{ID: "2", Author: "bob", Body: "b", Reason: DropNotByAuthor},
		},
	}
	if d := cmp.Diff(want, KeepAuthors(r, []string{"alice"})); d != "" {
		t.Errorf("round (-want +got):\n%s", d)
	}
}

func TestEvalPersona(t *testing.T) {
	t.Parallel()
	truth := []Truth{truthAt("t1", "a.go", 10, nilBody), truthAt("t2", "b.go", 5, lockBody)}
	// The lenses find the lock race. With the persona: the persona finds the nil dereference
	// in its voice, and makes one wrong finding; the lens finds the race again.
	lenses := runOf(pr{truth: truth, findings: []finding.Finding{findingAt("f1", "b.go", 5, lockTitle, lockBody)}})
	mine := findingAt("p1", "a.go", 10, nilTitle, "I think "+nilBody2)
	mine.Lenses = []string{"alice"}
	wrong := findingAt("p2", "z.go", 1, "Rename", "nit: rename this variable, it is confusing to read.")
	wrong.Lenses = []string{"alice"}
	with := runOf(pr{truth: truth, findings: []finding.Finding{findingAt("f1", "b.go", 5, lockTitle, lockBody), mine, wrong}})

	ev := EvalPersona(PersonaEvalInput{
		Lenses: lenses, WithPersona: with, Persona: "alice", Voice: []string{"I think…", "WDYT?"},
		AuthorBodies: []string{"abc", "abcdefg", "abcde"},
	}, noCI())
	l2 := ev.Tiers[2]
	want := PersonaTier{
		Tier: TierL2, PersonaRecall: 0.5, PersonaPrecision: 0.5, PersonaFindings: 2, PersonaHits: 1,
		LensesRecall: 0.5, LensesPrecision: 1, LensesHits: 1, WithPersonaRecall: 1, Adds: 1,
	}
	if d := cmp.Diff(want, l2); d != "" {
		t.Errorf("L2 (-want +got):\n%s", d)
	}
	if len(ev.Adds) != 1 || ev.Adds[0].ID != "t1" {
		t.Errorf("adds %+v, want t1", ev.Adds)
	}
	wantVoice := VoiceScore{
		Markers: []string{"I think…", "WDYT?"}, Findings: 2, WithMarker: 1, Share: 0.5,
		PersonaMedian: len("nit: rename this variable, it is confusing to read."), AuthorMedian: 5,
	}
	if d := cmp.Diff(wantVoice, ev.Voice); d != "" {
		t.Errorf("voice (-want +got):\n%s", d)
	}
}
