package review

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/provider"
)

// Toolbox is one conversation's read-only repository tools (*tools.Box satisfies it).
type Toolbox interface {
	Tools() []provider.Tool
	Call(ctx context.Context, name string, input json.RawMessage) (result string, isError bool)
	// Exhausted says the conversation used up its tool budget: the next turn must answer.
	Exhausted() bool
}

// DefaultMaxTurns bounds a conversation with tools: model turns in all, the final answer's
// included.
const DefaultMaxTurns = 8

// CallBudget is a Toolbox that can say how many tool calls it allows a conversation; when the
// toolbox implements it, the model is told the number.
type CallBudget interface {
	MaxCalls() int
}

// WithTools turns a single-answer request into the first turn of a tool conversation: the
// repository tools come before the answer tool (the same for every reviewer, so the cached
// prefix stays shared), and the model must call one of them. The model is told its tool budget
// after every cache breakpoint, at the start of the asker's own last block, so that the cached
// prefix stays byte-identical however the budget is set.
func WithTools(req provider.Request, box Toolbox, l Limits, final string) provider.Request {
	req.Tools = append(append([]provider.Tool{}, box.Tools()...), req.Tools...)
	req.ToolName = ""
	req.RequireTool = true
	if l.turns() < 2 {
		req.ToolName, req.RequireTool = final, false // no round for tools: answer at once
	}
	if n := len(req.Messages); n > 0 {
		msgs := append([]provider.Message{}, req.Messages...)
		msgs[n-1].Content = withBudget(msgs[n-1].Content, budget(l, box, final))
		req.Messages = msgs
	}
	return req
}

// withBudget returns blocks with the budget text put at the start of the last one, which is
// the asker's own and closes with what to do now ("Review the change above as Correctness
// now"); the blocks stay as many as they were. When the last block carries a cache breakpoint,
// which the budget must not move, the text comes as a block of its own after it.
func withBudget(blocks []provider.Block, text string) []provider.Block {
	out := slices.Clone(blocks)
	if n := len(out); n > 0 && !out[n-1].Cache && out[n-1].Type == provider.Text {
		out[n-1].Text = text + "\n\n" + out[n-1].Text
		return out
	}
	return append(out, provider.Block{Type: provider.Text, Text: text})
}

// budget is what the model is told about its tool budget: the rounds of tool calls it has
// before it must answer with final, and the calls in all when the toolbox says.
func budget(l Limits, box Toolbox, final string) string {
	rounds := l.turns() - 1
	if rounds < 1 {
		return fmt.Sprintf("Tool budget: no rounds of tool calls are left in this conversation; answer now by calling %s.", final)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tool budget: you have at most %s of tool calls", plural(rounds, "round"))
	if cb, ok := box.(CallBudget); ok && cb.MaxCalls() > 0 {
		fmt.Fprintf(&b, " and at most %s in all", plural(cb.MaxCalls(), "call"))
	}
	b.WriteString(". A round is one turn of yours: the calls you make in one turn run together, so batch the reads you need into as few rounds as you can.")
	if l.MaxTokens > 0 {
		b.WriteString(" Long results use up the conversation's token budget too: read line ranges rather than whole files.")
	}
	fmt.Fprintf(&b, " When the budget is spent, your next turn can only call %s: answer then with what you have.", final)
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Limits bound a conversation with tools.
type Limits struct {
	MaxTurns  int   // model turns, the final answer's included; DefaultMaxTurns when 0
	MaxTokens int64 // prompt and answer tokens of all turns so far; 0 means no limit
}

// turns is MaxTurns with its default.
func (l Limits) turns() int {
	if l.MaxTurns < 1 {
		return DefaultMaxTurns
	}
	return l.MaxTurns
}

// Converse runs a conversation to its final answer: it sends req and, while the model calls
// repository tools, runs them and sends their results back. It stops when the model calls
// final (or answers in text); when the turns, the tokens or the toolbox run out, the next turn
// forces final. The first turn tells the model that budget (WithTools), whoever converses:
// reviewers and the validator alike. With a nil box it is a single request. usage sums every
// turn, each priced.
func Converse(ctx context.Context, c Completer, req provider.Request, box Toolbox, final string, l Limits,
	price func(provider.Usage) provider.Usage) (resp provider.Response, usage provider.Usage, err error) {
	if box == nil {
		resp, err = c.Complete(ctx, req)
		if err == nil {
			usage = price(resp.Usage)
		}
		return resp, usage, err
	}
	maxTurns := l.turns()
	req = WithTools(req, box, l, final)
	reminded := false
	for turn := 1; ; turn++ {
		used := usage.InputTokens + usage.CacheReadTokens + usage.CacheWriteTokens + usage.OutputTokens
		if turn >= maxTurns || box.Exhausted() || (l.MaxTokens > 0 && used >= l.MaxTokens) {
			req.ToolName, req.RequireTool = final, false
		}
		if req.ToolName == final && len(req.Messages) > 1 {
			req.Messages = askFinal(req.Messages, final)
		}
		resp, err = c.Complete(ctx, req)
		if err != nil {
			return resp, usage, err
		}
		usage = usage.Add(price(resp.Usage))
		var calls []provider.Block
		for _, b := range resp.Content {
			if b.Type != provider.ToolUse {
				continue
			}
			if b.Name == final {
				return resp, usage, nil
			}
			calls = append(calls, b)
		}
		if len(calls) == 0 {
			return resp, usage, nil // a text answer: the parser looks for JSON in it
		}
		results := make([]provider.Block, len(calls))
		if req.ToolName == final {
			// Models that cannot be forced to call a tool (Anthropic's newest) may still reach
			// for another one: they are refused once, and told to answer.
			if reminded {
				return resp, usage, fmt.Errorf("model called %s when it had to call %s", calls[0].Name, final)
			}
			reminded = true
			for i, call := range calls {
				results[i] = provider.Block{Type: provider.ToolResult, ToolUseID: call.ToolUseID, IsError: true,
					Text: fmt.Sprintf("Not run: the tool budget is spent. Answer now by calling %s with what you have.", final)}
			}
		} else {
			for i, call := range calls {
				out, isErr := box.Call(ctx, call.Name, call.Input)
				results[i] = provider.Block{Type: provider.ToolResult, ToolUseID: call.ToolUseID, Text: out, IsError: isErr}
			}
		}
		// Cache the conversation so far: the next turn reads it instead of paying for it again.
		// Only the shared prefix and the newest turn carry breakpoints (Anthropic allows four).
		results[len(results)-1].Cache = true
		req.Messages = append(uncache(req.Messages),
			provider.Message{Role: provider.Assistant, Content: resp.Content},
			provider.Message{Role: provider.User, Content: results})
	}
}

// askFinal ends the newest turn, the tool results, by asking for the final call
// (provider.AskTool), once. It is part of the conversation, sent the same in every later
// turn, because a model that cannot be forced to call a tool needs it said, and Anthropic
// refuses a conversation whose earlier turns changed under the model's thinking.
func askFinal(ms []provider.Message, final string) []provider.Message {
	last := ms[len(ms)-1]
	ask := provider.AskTool(final)
	if n := len(last.Content); last.Role != provider.User || (n > 0 && last.Content[n-1].Text == ask) {
		return ms
	}
	out := slices.Clone(ms)
	out[len(out)-1].Content = append(slices.Clone(last.Content), provider.Block{Type: provider.Text, Text: ask})
	return out
}

// uncache drops the cache breakpoints of earlier turns, keeping the first message's (the shared
// prefix).
func uncache(ms []provider.Message) []provider.Message {
	out := make([]provider.Message, len(ms))
	for i, m := range ms {
		out[i] = m
		if i == 0 {
			continue
		}
		blocks := make([]provider.Block, len(m.Content))
		for j, b := range m.Content {
			b.Cache = false
			blocks[j] = b
		}
		out[i].Content = blocks
	}
	return out
}
