package plan

import (
	"slices"
	"testing"

	"github.com/council-dev/council/internal/diff"
)

// Make cannot fail; a malformed pattern matches nothing, so the file shows as not included
// rather than as an error. The patterns themselves are tested in package glob.
func TestMakeMalformedPattern(t *testing.T) {
	t.Parallel()
	p := Make([]diff.File{modified("a.go", added(1, "x"))}, Options{Include: []string{"["}})
	if want := []Skip{{Path: "a.go", Reason: ReasonNotIncluded}}; !slices.Equal(want, p.Skipped) {
		t.Errorf("Make with a malformed include pattern skipped %+v, want %+v", p.Skipped, want)
	}
}
