package overview

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider"
)

func toolCall(input string) provider.Block {
	return provider.Block{Type: provider.ToolUse, ToolUseID: "t1", Name: Tool, Input: json.RawMessage(input)}
}

func textBlock(s string) provider.Block { return provider.Block{Type: provider.Text, Text: s} }

func TestParse(t *testing.T) {
	t.Parallel()
	reviewed := []string{"a.go", "b.go"}
	const complete = `{"summary":"Releases the lock on every path.","changes":["- Defer ` + "`Unlock`" + `"],"files":[{"path":"b.go","description":"Tests it."},{"path":"a.go","description":"Defers the unlock."}]}`
	full := Overview{
		Summary: "Releases the lock on every path.",
		Changes: []string{"Defer `Unlock`"},
		Files:   []File{{"a.go", "Defers the unlock."}, {"b.go", "Tests it."}},
	}
	tests := []struct {
		name    string
		resp    provider.Response
		want    Overview
		wantErr string // a substring of the error; "" for none
	}{
		{
			name: "tool call",
			resp: provider.Response{Content: []provider.Block{textBlock("Here it is."), toolCall(complete)}},
			want: full,
		},
		{
			name: "tool call input encoded as a string",
			resp: provider.Response{Content: []provider.Block{toolCall(mustQuote(complete))}},
			want: full,
		},
		{
			name: "fenced JSON in text",
			resp: provider.Response{Content: []provider.Block{textBlock("Overview:\n\n```json\n" + complete + "\n```\n")}},
			want: full,
		},
		{
			name: "JSON in text after an unusable tool call",
			resp: provider.Response{Content: []provider.Block{toolCall(`{"changes":[]}`), textBlock(complete)}},
			want: func() Overview {
				o := full
				o.Problems = []string{`submit_overview call 1 ignored: no "summary" key`}
				return o
			}(),
		},
		{
			name: "unknown paths dropped, skipped files described by path",
			resp: provider.Response{Content: []provider.Block{toolCall(`{"summary":"S.","changes":[],"files":[` +
				`{"path":"./a.go","description":"Does A."},{"path":"../../etc/passwd","description":"x"},{"path":"a.go","description":"again"}]}`)}},
			want: Overview{
				Summary: "S.",
				Files:   []File{{"a.go", "Does A."}, {"b.go", PathOnly}},
				Problems: []string{
					"a.go described twice; kept the first",
					`dropped descriptions of paths not reviewed in the change: "../../etc/passwd"`,
					`no description of b.go; marked "(described by path only)"`,
				},
			},
		},
		{
			name:    "invalid JSON in tool input",
			resp:    provider.Response{Content: []provider.Block{toolCall(`{"summary": "S.", "files": [`)}},
			wantErr: "invalid JSON in submit_overview input",
		},
		{
			name:    "summary of the wrong type",
			resp:    provider.Response{Content: []provider.Block{toolCall(`{"summary": ["S."], "changes": [], "files": []}`)}},
			wantErr: `"summary" is array, want string`,
		},
		{
			name:    "files of the wrong type",
			resp:    provider.Response{Content: []provider.Block{toolCall(`{"summary": "S.", "changes": [], "files": "a.go"}`)}},
			wantErr: `"files" is string`,
		},
		{
			name:    "empty summary",
			resp:    provider.Response{Content: []provider.Block{toolCall(`{"summary": "  ", "changes": [], "files": []}`)}},
			wantErr: "empty summary",
		},
		{
			name:    "prose without JSON",
			resp:    provider.Response{Content: []provider.Block{textBlock("This PR looks great!")}},
			wantErr: "no submit_overview call and no JSON object",
		},
		{
			name:    "JSON without a summary",
			resp:    provider.Response{Content: []provider.Block{textBlock(`{"findings": []}`)}},
			wantErr: `no JSON object with a "summary" key`,
		},
		{
			name:    "empty answer",
			resp:    provider.Response{},
			wantErr: "empty answer",
		},
		{
			name:    "truncated",
			resp:    provider.Response{StopReason: provider.StopMaxTokens, Content: []provider.Block{textBlock(`{"summary": "S.`)}},
			wantErr: "truncated",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.resp, reviewed)
			if tt.wantErr != "" {
				var ae *AnswerError
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want an *AnswerError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func mustQuote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
