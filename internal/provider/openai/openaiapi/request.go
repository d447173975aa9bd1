// Package openaiapi is the wire format of OpenAI's Chat Completions API
// (POST {base}/chat/completions) and Responses API (POST {base}/responses) as the service reads
// them, and the rules the service applies to a request before it answers, each with the
// documentation page that states it. The loopback fake (openaitest) refuses what these rules
// refuse, and `council doctor --offline` checks council's own request bodies against them.
//
// It must never import the OpenAI SDK: rules written from the documented wire format check the
// SDK's encoding instead of sharing its assumptions.
package openaiapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// Decode reads a request body as the service does: the request, and its top-level fields as
// raw JSON (which Check needs to find parameters the API does not know).
func Decode(body []byte) (Request, map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&raw); err != nil {
		return Request{}, nil, err
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		return Request{}, raw, err
	}
	return req, raw, nil
}

// Request is a decoded request body with the request's headers.
type Request struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"` // "auto", "none", "required" or an object
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"` // "" when not sent
	Stream              bool            `json:"stream,omitempty"`
	Header              http.Header     `json:"-"`
}

// ForcedFunction is the function tool_choice forces, or "".
func (r Request) ForcedFunction() string {
	var tc struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(r.ToolChoice, &tc) != nil || tc.Type != "function" {
		return ""
	}
	return tc.Function.Name
}

// ToolRequired reports whether tool_choice is "required": the model must call some tool.
func (r Request) ToolRequired() bool {
	var mode string
	return json.Unmarshal(r.ToolChoice, &mode) == nil && mode == "required"
}

// Message is one chat message.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"` // a string, an array of parts, or null
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Text is the message's content: the string, or its text parts joined.
func (m Message) Text() string { return contentText(m.Content) }

// contentText reads content given as a string or as a list of parts with text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	return sb.String()
}

// ToolCall is a call an assistant message made.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is a function tool definition.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      *bool           `json:"strict,omitempty"`
	} `json:"function"`
}
