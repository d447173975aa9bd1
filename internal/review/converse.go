package review

import (
	"context"
	"encoding/json"
	"fmt"

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

// WithTools turns a single-answer request into the first turn of a tool conversation: the
// repository tools come before the answer tool (the same for every reviewer, so the cached
// prefix stays shared), and the model must call one of them.
func WithTools(req provider.Request, box Toolbox) provider.Request {
	req.Tools = append(append([]provider.Tool{}, box.Tools()...), req.Tools...)
	req.ToolName = ""
	req.RequireTool = true
	return req
}

// Limits bound a conversation with tools.
type Limits struct {
	MaxTurns  int   // model turns, the final answer's included; DefaultMaxTurns when 0
	MaxTokens int64 // prompt and answer tokens of all turns so far; 0 means no limit
}

// Converse runs a conversation to its final answer: it sends req and, while the model calls
// repository tools, runs them and sends their results back. It stops when the model calls
// final (or answers in text); when the turns, the tokens or the toolbox run out, the next turn
// forces final. With a nil box it is a single request. usage sums every turn, each priced.
func Converse(ctx context.Context, c Completer, req provider.Request, box Toolbox, final string, l Limits,
	price func(provider.Usage) provider.Usage) (resp provider.Response, usage provider.Usage, err error) {
	if box == nil {
		resp, err = c.Complete(ctx, req)
		if err == nil {
			usage = price(resp.Usage)
		}
		return resp, usage, err
	}
	maxTurns := l.MaxTurns
	if maxTurns < 1 {
		maxTurns = DefaultMaxTurns
	}
	req = WithTools(req, box)
	for turn := 1; ; turn++ {
		used := usage.InputTokens + usage.CacheReadTokens + usage.CacheWriteTokens + usage.OutputTokens
		if turn >= maxTurns || box.Exhausted() || (l.MaxTokens > 0 && used >= l.MaxTokens) {
			req.ToolName, req.RequireTool = final, false
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
		if req.ToolName == final {
			return resp, usage, fmt.Errorf("model called %s when it had to call %s", calls[0].Name, final)
		}
		results := make([]provider.Block, len(calls))
		for i, call := range calls {
			out, isErr := box.Call(ctx, call.Name, call.Input)
			results[i] = provider.Block{Type: provider.ToolResult, ToolUseID: call.ToolUseID, Text: out, IsError: isErr}
		}
		// Cache the conversation so far: the next turn reads it instead of paying for it again.
		// Only the shared prefix and the newest turn carry breakpoints (Anthropic allows four).
		results[len(results)-1].Cache = true
		req.Messages = append(uncache(req.Messages),
			provider.Message{Role: provider.Assistant, Content: resp.Content},
			provider.Message{Role: provider.User, Content: results})
	}
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
