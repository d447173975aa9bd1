package review

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider"
)

// fakeBox answers read_file with a fixed text and runs out after limit calls.
type fakeBox struct {
	calls []string
	limit int
}

func (b *fakeBox) Tools() []provider.Tool {
	return []provider.Tool{{Name: "read_file", Description: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (b *fakeBox) Call(_ context.Context, name string, input json.RawMessage) (string, bool) {
	b.calls = append(b.calls, name+string(input))
	return "  12 | mu.Unlock()", false
}

func (b *fakeBox) Exhausted() bool { return b.limit > 0 && len(b.calls) >= b.limit }

// modelScript answers turn by turn and keeps every request it saw.
type modelScript struct {
	turns []provider.Response
	seen  []provider.Request
}

func (m *modelScript) Complete(_ context.Context, req provider.Request) (provider.Response, error) {
	m.seen = append(m.seen, req)
	r := m.turns[min(len(m.seen), len(m.turns))-1]
	r.Usage = provider.Usage{Requests: 1, InputTokens: 100, OutputTokens: 10}
	return r, nil
}

func toolCall(id, name, input string) provider.Response {
	return provider.Response{Content: []provider.Block{{Type: provider.ToolUse, ToolUseID: id, Name: name, Input: json.RawMessage(input)}}}
}

func TestConverse(t *testing.T) {
	t.Parallel()
	submit := toolCall("t9", SubmitTool, `{"findings":[]}`)
	read := toolCall("t1", "read_file", `{"path":"lock.go"}`)
	tests := []struct {
		name       string
		turns      []provider.Response
		maxTurns   int
		maxTokens  int64
		limit      int
		wantTurns  int
		wantCalls  int
		wantForced bool // the last request forced the answer tool
	}{
		{"answer at once", []provider.Response{submit}, 8, 0, 0, 1, 0, false},
		{"read, then answer", []provider.Response{read, submit}, 8, 0, 0, 2, 1, false},
		{"turn limit forces the answer", []provider.Response{read, read, submit}, 3, 0, 0, 3, 2, true},
		{"tool budget forces the answer", []provider.Response{read, submit}, 8, 0, 1, 2, 1, true},
		// Each turn uses 110 tokens: after two, 220 >= 200 and the third must answer.
		{"token limit forces the answer", []provider.Response{read, read, submit}, 8, 200, 0, 3, 2, true},
		{"a text answer ends it", []provider.Response{read, {Content: []provider.Block{{Type: provider.Text, Text: `{"findings":[]}`}}}}, 8, 0, 0, 2, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &modelScript{turns: tt.turns}
			box := &fakeBox{limit: tt.limit}
			req := Request(input(1, 100), 0, Builtin()[0], "m", 100)
			_, usage, err := Converse(context.Background(), m, req, box, SubmitTool, Limits{MaxTurns: tt.maxTurns, MaxTokens: tt.maxTokens},
				func(u provider.Usage) provider.Usage { u.CostUSD = 1; return u })
			if err != nil {
				t.Fatal(err)
			}
			if len(m.seen) != tt.wantTurns || len(box.calls) != tt.wantCalls || usage.Requests != tt.wantTurns || usage.CostUSD != float64(tt.wantTurns) {
				t.Fatalf("turns %d, tool calls %d, usage %+v; want %d turns, %d calls", len(m.seen), len(box.calls), usage, tt.wantTurns, tt.wantCalls)
			}
			first, last := m.seen[0], m.seen[len(m.seen)-1]
			if !first.RequireTool || first.ToolName != "" || first.Tools[0].Name != "read_file" || first.Tools[len(first.Tools)-1].Name != SubmitTool {
				t.Errorf("first turn: require=%v forced=%q tools=%v", first.RequireTool, first.ToolName, first.Tools)
			}
			if forced := last.ToolName == SubmitTool; forced != tt.wantForced {
				t.Errorf("last turn forced=%v, want %v", forced, tt.wantForced)
			}
			for i, req := range m.seen {
				if n := breakpoints(req); n > 2 {
					t.Errorf("turn %d has %d cache breakpoints; at most the prefix and the newest turn", i+1, n)
				}
			}
			if tt.wantCalls > 0 {
				second := m.seen[1]
				res := second.Messages[len(second.Messages)-1].Content[0]
				if res.Type != provider.ToolResult || res.ToolUseID != "t1" || !strings.Contains(res.Text, "mu.Unlock()") || !res.Cache {
					t.Errorf("tool result sent back: %+v", res)
				}
			}
		})
	}
}

func breakpoints(req provider.Request) int {
	n := 0
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if b.Cache {
				n++
			}
		}
	}
	return n
}

func TestConverseWithoutToolsIsOneRequest(t *testing.T) {
	t.Parallel()
	m := &modelScript{turns: []provider.Response{toolCall("x", SubmitTool, `{"findings":[]}`)}}
	req := Request(input(1, 100), 0, Builtin()[0], "m", 100)
	if _, _, err := Converse(context.Background(), m, req, nil, SubmitTool, Limits{}, func(u provider.Usage) provider.Usage { return u }); err != nil {
		t.Fatal(err)
	}
	if len(m.seen) != 1 || m.seen[0].ToolName != SubmitTool || len(m.seen[0].Tools) != 1 {
		t.Errorf("without tools: %d requests, forced %q", len(m.seen), m.seen[0].ToolName)
	}
}

// countedBox is a fakeBox that says how many calls it allows.
type countedBox struct{ fakeBox }

func (b *countedBox) MaxCalls() int { return 12 }

var _ CallBudget = (*countedBox)(nil)

// TestConverseTellsTheBudget: the first turn tells the model how many rounds (and, when the
// toolbox says, calls) it has and what happens after, in a block after the cached prefix, so
// that the prefix stays the same bytes as without tools and across reviewers.
func TestConverseTellsTheBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		box    Toolbox
		limits Limits
		want   []string
		not    []string
	}{
		{"default turns", &fakeBox{}, Limits{},
			[]string{"at most 7 rounds of tool calls.", "batch the reads", "your next turn can only call submit_review"},
			[]string{" calls in all", "token budget"}},
		{"turns, calls and tokens", &countedBox{}, Limits{MaxTurns: 3, MaxTokens: 1000},
			[]string{"at most 2 rounds of tool calls and at most 12 calls in all.", "token budget"}, nil},
		{"one round", &fakeBox{}, Limits{MaxTurns: 2}, []string{"at most 1 round of tool calls."}, nil},
		{"no round", &fakeBox{}, Limits{MaxTurns: 1}, []string{"no rounds of tool calls are left", "calling submit_review"}, []string{"batch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &modelScript{turns: []provider.Response{toolCall("t9", SubmitTool, `{"findings":[]}`)}}
			in := input(1, 100)
			plain := Request(in, 0, Builtin()[0], "m", 100)
			if _, _, err := Converse(context.Background(), m, plain, tt.box, SubmitTool, tt.limits,
				func(u provider.Usage) provider.Usage { return u }); err != nil {
				t.Fatal(err)
			}
			first := m.seen[0]
			blocks := first.Messages[0].Content
			if len(blocks) != 2 {
				t.Fatalf("first turn has %d blocks, want the prefix and the reviewer's own", len(blocks))
			}
			// After the cached prefix, at the start of the reviewer's block, whose closing "now"
			// stays last.
			own := plain.Messages[0].Content[1].Text
			if !cmp.Equal(blocks[0], plain.Messages[0].Content[0]) || blocks[1].Cache || !strings.HasSuffix(blocks[1].Text, "\n\n"+own) {
				t.Error("the budget changed the prefix or the reviewer's block, or carries a cache breakpoint")
			}
			got := strings.TrimSuffix(blocks[1].Text, "\n\n"+own)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("budget %q does not say %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("budget %q says %q", got, w)
				}
			}
			if len(plain.Messages[0].Content) != 2 {
				t.Error("WithTools changed the caller's request")
			}
			// The warm-up and the estimates see the first turn as Converse sends it.
			o := Options{NewToolbox: func() Toolbox { return tt.box }, Limits: tt.limits}
			if diff := cmp.Diff(first, o.FirstTurn(plain)); diff != "" {
				t.Errorf("FirstTurn differs from the first request sent (-sent +FirstTurn):\n%s", diff)
			}
		})
	}
}

func TestWithBudgetKeepsCacheBreakpoints(t *testing.T) {
	t.Parallel()
	text := func(s string, cache bool) provider.Block {
		return provider.Block{Type: provider.Text, Text: s, Cache: cache}
	}
	tests := []struct {
		name       string
		give, want []provider.Block
	}{
		{"at the start of the asker's block", []provider.Block{text("prefix", true), text("now", false)},
			[]provider.Block{text("prefix", true), text("B\n\nnow", false)}},
		{"after a cached last block", []provider.Block{text("prefix", true)},
			[]provider.Block{text("prefix", true), text("B", false)}},
		{"alone", nil, []provider.Block{text("B", false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, withBudget(tt.give, "B")); diff != "" {
				t.Errorf("withBudget mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConverseRemindsOnceWhenForcingFails: a model that calls another tool on the turn that
// had to answer (one that cannot be forced) gets that call refused, unrun, and one more turn;
// a second refusal to answer fails the conversation.
func TestConverseRemindsOnceWhenForcingFails(t *testing.T) {
	t.Parallel()
	read := toolCall("t1", "read_file", `{"path":"lock.go"}`)
	submit := toolCall("t9", SubmitTool, `{"findings":[]}`)
	run := func(turns ...provider.Response) (*modelScript, *fakeBox, error) {
		m := &modelScript{turns: turns}
		box := &fakeBox{}
		req := Request(input(1, 100), 0, Builtin()[0], "m", 100)
		_, _, err := Converse(context.Background(), m, req, box, SubmitTool, Limits{MaxTurns: 2}, func(u provider.Usage) provider.Usage { return u })
		return m, box, err
	}
	m, box, err := run(read, read, submit)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.seen) != 3 || len(box.calls) != 1 {
		t.Fatalf("turns %d, calls run %d; want 3 turns and only the first call run", len(m.seen), len(box.calls))
	}
	last := m.seen[2]
	res := last.Messages[len(last.Messages)-1].Content[0]
	if last.ToolName != SubmitTool || res.Type != provider.ToolResult || !res.IsError || !strings.Contains(res.Text, "calling "+SubmitTool) {
		t.Errorf("third turn: forced %q, result %+v; want the refused call and the answer tool forced", last.ToolName, res)
	}
	if _, _, err := run(read, read, read); err == nil || !strings.Contains(err.Error(), "when it had to call "+SubmitTool) {
		t.Errorf("a model that never answers: err %v", err)
	}
}

// TestConverseSendsThinkingBack: the assistant turn goes back as the model sent it, thinking
// blocks included, as the Messages API asks of a tool conversation.
func TestConverseSendsThinkingBack(t *testing.T) {
	t.Parallel()
	thinking := provider.Block{Type: provider.Thinking, Signature: "sig-1"}
	read := toolCall("t1", "read_file", `{"path":"lock.go"}`)
	read.Content = append([]provider.Block{thinking}, read.Content...)
	m := &modelScript{turns: []provider.Response{read, toolCall("t9", SubmitTool, `{"findings":[]}`)}}
	req := Request(input(1, 100), 0, Builtin()[0], "m", 100)
	if _, _, err := Converse(context.Background(), m, req, &fakeBox{}, SubmitTool, Limits{}, func(u provider.Usage) provider.Usage { return u }); err != nil {
		t.Fatal(err)
	}
	msgs := m.seen[1].Messages
	if diff := cmp.Diff(read.Content, msgs[len(msgs)-2].Content); diff != "" {
		t.Errorf("assistant turn sent back differs (-answer +sent):\n%s", diff)
	}
}
