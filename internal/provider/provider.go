// Package provider is the neutral side of the model providers: the request and response types
// every reviewer speaks, typed errors, retries, usage and cost, and record/replay. It must never
// import a provider SDK: each SDK is imported by exactly one package below it
// (provider/anthropic, provider/openai), so that nothing else pays to compile it.
package provider

import (
	"context"
	"encoding/json"
	"time"
)

// Client sends one request to a model and returns its answer.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Role of a message.
type Role string

// Message roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockType is the kind of a content block.
type BlockType string

// Content block kinds.
const (
	Text       BlockType = "text"
	ToolUse    BlockType = "tool_use"
	ToolResult BlockType = "tool_result"
	// Thinking and RedactedThinking are an Anthropic model's thinking in an answer. They mean
	// nothing to council, but a tool conversation sends them back unchanged with the turn that
	// made the calls, as the Messages API asks; other providers never produce them.
	Thinking         BlockType = "thinking"
	RedactedThinking BlockType = "redacted_thinking"
	// Reasoning is an OpenAI reasoning item (Responses API) with its encrypted content: like
	// thinking, it means nothing to council and goes back unchanged with the turn that made the
	// calls, so that a conversation keeps the model's reasoning without OpenAI storing it.
	Reasoning BlockType = "reasoning"
)

// Block is one piece of a message's content.
type Block struct {
	Type BlockType `json:"type"`
	Text string    `json:"text,omitempty"` // Text; ToolResult's content
	// Cache marks the end of a prompt prefix the provider should cache (Anthropic
	// cache_control); providers that cache prefixes automatically ignore it.
	Cache     bool            `json:"cache,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"` // ToolUse and ToolResult
	Name      string          `json:"name,omitempty"`        // ToolUse: the tool called
	Input     json.RawMessage `json:"input,omitempty"`       // ToolUse: its arguments
	IsError   bool            `json:"is_error,omitempty"`    // ToolResult
	Signature string          `json:"signature,omitempty"`   // Thinking (Text holds its text, often empty)
	Data      string          `json:"data,omitempty"`        // RedactedThinking; Reasoning's encrypted content
	ID        string          `json:"id,omitempty"`          // Reasoning: the item's id
}

// AskTool is what a request that must end in a call of tool says at the end of its last user
// turn, for models that cannot be forced to call a tool (Anthropic's advice for them is auto
// tool choice and a prompt that says when to call the tool,
// https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported).
// A conversation that keeps its history writes it into the turn itself, so that the turn is
// sent the same way again later; a client adds it to a request that lacks it.
func AskTool(tool string) string { return "Answer now by calling the " + tool + " tool." }

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Tool is a function the model may call; InputSchema is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Request is one model call. System blocks come first, then Tools, then Messages: that order
// is the prompt prefix providers cache.
type Request struct {
	Model    string    `json:"model"`
	System   []Block   `json:"system,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	ToolName string    `json:"tool_name,omitempty"` // when set, the model must call this tool
	// RequireTool, when ToolName is empty, makes the model call one of Tools, whichever it
	// chooses (Anthropic tool_choice "any", OpenAI "required").
	RequireTool bool `json:"require_tool,omitempty"`
	MaxTokens   int  `json:"max_tokens"`
}

// Response is the model's answer.
type Response struct {
	Model      string  `json:"model"`
	Content    []Block `json:"content"` // Text and ToolUse blocks
	StopReason string  `json:"stop_reason"`
	Usage      Usage   `json:"usage"`
}

// Stop reasons every client reports in Response.StopReason. Clients map their provider's
// vocabulary onto these where one matches (OpenAI's "stop" is StopEndTurn, "tool_calls" is
// StopToolUse) and pass any other reason through unchanged.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens" // Anthropic's truncation
	StopLength    = "length"     // OpenAI's truncation, kept under its own name
)

// Truncated reports whether the answer was cut off by the token limit, under either
// provider's name for it.
func (r Response) Truncated() bool {
	return r.StopReason == StopMaxTokens || r.StopReason == StopLength
}

// Text joins the answer's text blocks.
func (r Response) Text() string {
	var s string
	for _, b := range r.Content {
		if b.Type == Text {
			s += b.Text
		}
	}
	return s
}

// Usage counts one or more requests. InputTokens excludes cached tokens: the total prompt is
// InputTokens + CacheReadTokens + CacheWriteTokens (Anthropic's accounting; the OpenAI client
// converts to it).
type Usage struct {
	Requests         int     `json:"requests"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Requests:         u.Requests + o.Requests,
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		CostUSD:          u.CostUSD + o.CostUSD,
	}
}

// ModelInfo is what a provider's models endpoint says of a model.
type ModelInfo struct {
	ID string
	// MaxOutput is the largest output limit the model takes; 0 when the provider does not say.
	MaxOutput int
	// Lifecycle is "active", "deprecated" or "retired"; "" when the provider does not say.
	Lifecycle string
	// RetiresAt is when a deprecated model stops answering; zero when not scheduled or not said.
	RetiresAt time.Time
}
