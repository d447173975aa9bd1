// Package anthropicapi is the wire format of Anthropic's Messages API (POST /v1/messages) as
// the service reads it, and the rules the service applies to a request before it answers,
// each with the documentation page that states it. The loopback fake (anthropictest) refuses
// what these rules refuse, and `council doctor --offline` checks council's own request bodies
// against them.
//
// It must never import the Anthropic SDK: rules written from the documented wire format check
// the SDK's encoding instead of sharing its assumptions.
package anthropicapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/council-dev/council/internal/provider"
)

// Decode reads a request body as the service does: the request, and its top-level fields as
// raw JSON (which Check needs to find fields the API does not know).
func Decode(body []byte) (Request, map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return Request{}, nil, err
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, raw, err
	}
	return req, raw, nil
}

// Request is a decoded request body, as the service reads it, with the request's headers.
type Request struct {
	Model         string        `json:"model"`
	MaxTokens     *int          `json:"max_tokens"`
	System        Blocks        `json:"system,omitempty"`
	Messages      []Message     `json:"messages"`
	Tools         []Tool        `json:"tools,omitempty"`
	ToolChoice    *ToolChoice   `json:"tool_choice,omitempty"`
	CacheControl  *CacheControl `json:"cache_control,omitempty"`
	StopSequences []string      `json:"stop_sequences,omitempty"`
	Stream        bool          `json:"stream,omitempty"`
	Temperature   *float64      `json:"temperature,omitempty"`
	TopP          *float64      `json:"top_p,omitempty"`
	TopK          *int          `json:"top_k,omitempty"`
	Header        http.Header   `json:"-"`
}

// Message is one turn.
type Message struct {
	Role    string `json:"role"`
	Content Blocks `json:"content"`
}

// Blocks is a content list; the API also takes a bare string for one text block.
type Blocks []Block

// UnmarshalJSON accepts a string or an array of blocks.
func (b *Blocks) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = Blocks{{Type: "text", Text: s}}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(data, &blocks); err != nil {
		return err
	}
	*b = blocks
	return nil
}

// Block is a content block: text, tool_use, tool_result, thinking or redacted_thinking (others
// are kept by type only).
type Block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`  // thinking: its text, empty at the default display
	Signature    string          `json:"signature,omitempty"` // thinking: the service's seal on it
	Data         string          `json:"data,omitempty"`      // redacted_thinking: opaque
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      Blocks          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// Tool is a client tool definition.
type Tool struct {
	Type         string          `json:"type,omitempty"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// ToolChoice is auto, any, tool (with Name) or none.
type ToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

// CacheControl marks a cache breakpoint.
type CacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// DefaultTool is the tool a fake's default answer to req calls, or "" for a text answer: the
// forced tool, or under "any" the first client tool. On a model of m that cannot be forced
// (NoForcedTool) a request with tools and no forcing is answered as a model told what to call
// would: the tool the last user turn asks for, else the first client tool.
func DefaultTool(req Request, m Model) string {
	first := ""
	for _, t := range req.Tools {
		if t.Type == "" || t.Type == "custom" {
			first = t.Name
			break
		}
	}
	tc := req.ToolChoice
	switch {
	case tc != nil && tc.Type == "tool":
		return tc.Name
	case tc != nil && tc.Type == "any":
		return first
	case !m.NoForcedTool || (tc != nil && tc.Type == "none"):
		return ""
	}
	if name := AskedTool(req); name != "" {
		return name
	}
	return first
}

// askPrefix and askSuffix frame the tool's name in council's sentence (provider.AskTool).
var askPrefix, askSuffix, _ = strings.Cut(provider.AskTool("\x00"), "\x00")

// AskedTool is the tool the last user turn of req asks the model to call, in the words council
// uses on a model that cannot be forced (provider.AskTool, a text block of its own), or "".
func AskedTool(req Request) string {
	n := len(req.Messages)
	if n == 0 || req.Messages[n-1].Role != "user" {
		return ""
	}
	for _, b := range req.Messages[n-1].Content {
		if name, ok := strings.CutPrefix(b.Text, askPrefix); ok && b.Type == "text" {
			if name, ok = strings.CutSuffix(name, askSuffix); ok && name != "" {
				return name
			}
		}
	}
	return ""
}
