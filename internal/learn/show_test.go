package learn

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Render(&b, sampleFile()); err != nil {
		t.Fatal(err)
	}
	want := `2 learnings (1 suppress, 1 emphasise)

suppress no-doc-nits-in-fv
  scope:    reviewer docs, category docs, paths felix/fv/**
  text:     Do not flag missing doc comments on unexported test helpers in ` + "`felix/fv/`" + ` (3 of 3 dismissed): the team: says "they are obvious".
  signals:  0 accepted, 2 rejected, 0 ignored
  evidence:
    - https://github.com/a/b/pull/1#discussion_r1 (dismissed: 👎 ×2)
    - https://github.com/a/b/pull/2#discussion_r2 (dismissed: resolved by @alice)

emphasise nil-maps
  scope:    everywhere
  text:     Look for writes to nil maps in config loaders. They crashed twice.
  signals:  3 accepted, 0 rejected, 1 ignored

source: 40 signals on 12 pull requests of a/b
  since:  2025-01-01T00:00:00Z
  until:  2025-06-01T00:00:00Z
  built:  2025-06-02T07:30:00Z
  model:  claude-sonnet-4-5
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
	b.Reset()
	asks := File{Learnings: []Learning{{ID: "doc", Kind: Ask, Text: "Document it.", Category: "docs", Counts: map[string]int{"accepted": 3}}}}
	if err := Render(&b, asks); err != nil || !strings.HasPrefix(b.String(), "1 learnings (0 suppress, 0 emphasise, 1 ask)\n\nask doc\n  scope:    category docs\n") {
		t.Errorf("Render(asks) = %q, %v", b.String(), err)
	}
	b.Reset()
	if err := Render(&b, File{}); err != nil || b.String() != "No learnings.\n" {
		t.Errorf("Render(File{}) = %q, %v", b.String(), err)
	}
}
