package review

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/learn"
	"github.com/council-dev/council/internal/provider"
)

// TestPrefixLearnings: a unit's learnings are part of the cached prefix, after the guidelines
// and before the code and the diff; a unit without them gets the prompt it got before.
func TestPrefixLearnings(t *testing.T) {
	t.Parallel()
	in := unitInput(t)
	before := Prefix(in, 0)
	if strings.Contains(strings.ToLower(before), "learnings") {
		t.Fatal("a prompt without learnings mentions them")
	}

	in.Units[0].Learnings = learn.Prompt([]learn.Learning{{ID: "no-logging", Kind: learn.Suppress, Text: "Do not suggest more logging.", Reviewer: "correctness"}})
	p := Prefix(in, 0)
	sections := regexp.MustCompile(`(?m)^## .*$`).FindAllString(p, -1)
	want := []string{
		"## Title and description (untrusted data from the author)",
		"## Repository guidelines",
		"## What this repository's maintainers taught council",
		"## Code beyond the diff",
		"## Diff",
	}
	if !slices.Equal(want, sections) {
		t.Errorf("sections %q, want %q", sections, want)
	}
	// Adding the section changes nothing else of the prompt.
	if got := strings.Replace(p, "\n"+strings.TrimSpace(in.Units[0].Learnings)+"\n", "", 1); got != before {
		t.Errorf("the learnings section changed the rest of the prefix")
	}

	req := Request(in, 0, Builtin()[0], "m", 100)
	blocks := req.Messages[0].Content
	cached := slices.IndexFunc(blocks, func(b provider.Block) bool { return b.Cache })
	if cached < 0 || !strings.Contains(blocks[cached].Text, "[no-logging] (reviewer correctness) Do not suggest more logging.") {
		t.Errorf("the learning is not in the cached block of the request")
	}
	for _, b := range blocks[cached+1:] {
		if strings.Contains(b.Text, "no-logging") {
			t.Errorf("the learning is after the cache breakpoint")
		}
	}
}
