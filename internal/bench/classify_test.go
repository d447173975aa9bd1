package bench

import (
	"slices"
	"testing"
)

func TestClassifyKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, path string
		kind             string
		question         bool
	}{
		{name: "bug", body: "This is wrong: the loop is off by one and skips the last element of the slice.", kind: "bug"},
		{name: "concurrency", body: "Two goroutines write the map without holding the mutex; that is a data race.", kind: "concurrency"},
		{name: "error-handling", body: "The error from `Close` is dropped here; return it or wrap it with the path.", kind: "error-handling"},
		{name: "security", body: "The path comes from the request and is joined unchecked: path traversal lets an attacker read any file.", kind: "security"},
		{name: "performance", body: "This allocates a new buffer on every call in the hot path; reuse one, it is quadratic otherwise.", kind: "performance"},
		{name: "api-design", body: "Exporting this ties the public API to the storage layer; keep the interface small instead.", kind: "api-design"},
		{name: "tests", body: "Please add a test for the error case, the existing ones only cover success.", kind: "tests"},
		{name: "docs", body: "The doc comment still describes the old behaviour and has a typo in the second sentence.", kind: "docs"},
		{name: "naming", body: "`doIt` says nothing: rename it after what it does, a better name helps readers.", kind: "naming"},
		{name: "style", body: "Nit: an early return here would make this easier to read, and the else is redundant.", kind: "style"},
		{name: "question", body: "How does the caller find out that nothing was written at all in this case?", kind: "question", question: true},
		{name: "praise", body: "Thanks, this is a really nice cleanup of the whole package and I love it.", kind: "praise"},
		{name: "other", body: "Let us land the migration first and rebase this one on top of it afterwards.", kind: "other"},
		{name: "question with a kind", body: "Is this safe without the lock? Another goroutine may read it meanwhile.", kind: "concurrency", question: true},
		{name: "keywords inside code do not count", body: "Rename `lockErrorCache` to something shorter, the name is long.", kind: "naming"},
		{name: "tie goes to the earlier kind", body: "Add a test for the error path.", kind: "tests"},
		{name: "test file without keywords", body: "Split the table: one case per input shape reads more easily here.", path: "pkg/a_test.go", kind: "tests"},
		{name: "doc file without keywords", body: "Mention that the flag only works together with the other one.", path: "docs/cli.md", kind: "docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, question := Classify(tt.body, tt.path)
			if kind != tt.kind || question != tt.question {
				t.Errorf("Classify(%q) = %s, question %v; want %s, question %v", tt.body, kind, question, tt.kind, tt.question)
			}
			if !slices.Contains(Kinds, kind) {
				t.Errorf("kind %q is not one of Kinds", kind)
			}
		})
	}
}

func TestClassifyCoversEveryKind(t *testing.T) {
	t.Parallel()
	var ruled []string
	for _, r := range kindKeywords {
		ruled = append(ruled, r.kind)
	}
	for _, k := range Kinds {
		if !slices.Contains(ruled, k) && k != "question" && k != "other" {
			t.Errorf("kind %q has no keywords", k)
		}
	}
}

func TestDropReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body, want string
	}{
		{"LGTM", DropPraise},
		{"thanks!", DropPraise},
		{"Nice!", DropPraise},
		{"+1", DropPraise},
		{"Looks good to me 👍", DropPraise},
		{"LGTM, thanks for doing this!", DropPraise},
		{"🎉🎉", DropPraise},
		{"Ship it.", DropPraise},
		{"Why?", DropShort},
		{"Should we log here?", DropShort},
		{"Nice, but the lock leaks.", DropShort},
		{"`os.Exit` here skips the deferred cleanup.", ""},
		{"Use strings.Cut here.", ""},
		{"This should be `x := y`", ""},
		{"```suggestion\nreturn nil\n```", ""},
		{"max_retries is never read", ""},
		{"Call s.close() first", ""},
		{"if a == b this loops forever", ""},
		{"Nice work overall, but this loop never ends when the queue is empty and the worker waits.", ""},
		{"This breaks when the list is empty because the index is computed before the length check.", ""},
		{"See https://example.com/a_b.html", DropShort}, // a link is not code
		{"e.g. this, i.e. that", DropShort},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			if got := DropReason(tt.body); got != tt.want {
				t.Errorf("DropReason(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want bool
	}{
		{"Does this handle an empty list?", true},
		{"why not reuse the pool", true},
		{"WDYT about a constant", true},
		{"Could we drop the retry", true},
		{"This returns early (is that intended?) and skips the flush.", true},
		{"Return the error.", false},
		{"See https://example.com/?q=1 for the spec.", false},
		{"The `x ? y : z` form reads badly.", false},
		{"> is this a question?\nNo, it is quoted.", false},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			if got := Question(tt.body); got != tt.want {
				t.Errorf("Question(%q) = %v, want %v", tt.body, got, tt.want)
			}
		})
	}
}
