package openaiapi

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// ResponsesRequest is a decoded body of the Responses API (POST {base}/responses) with the
// request's headers.
type ResponsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"` // a string, or a list of items
	// Items are Input's items; a string input is one user message.
	Items             []Item          `json:"-"`
	Tools             []ResponsesTool `json:"tools,omitempty"`
	ToolChoice        json.RawMessage `json:"tool_choice,omitempty"` // "auto", "none", "required" or an object
	MaxOutputTokens   *int            `json:"max_output_tokens,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	Store             *bool           `json:"store,omitempty"` // true when left out
	Include           []string        `json:"include,omitempty"`
	PromptCacheKey    string          `json:"prompt_cache_key,omitempty"`
	Reasoning         *struct {
		Effort string `json:"effort,omitempty"`
	} `json:"reasoning,omitempty"`
	Stream bool        `json:"stream,omitempty"`
	Header http.Header `json:"-"`
}

// Item is one input item: a message (by role), a function_call, a function_call_output or a
// reasoning item.
type Item struct {
	Type    string          `json:"type,omitempty"` // may be left out for a message
	Role    string          `json:"role,omitempty"`
	Content json.RawMessage `json:"content,omitempty"` // message: a string or a list of parts
	ID      string          `json:"id,omitempty"`
	// function_call and function_call_output
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments *string         `json:"arguments,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	// reasoning
	Summary          json.RawMessage `json:"summary,omitempty"`
	EncryptedContent *string         `json:"encrypted_content,omitempty"`
}

// Kind is the item's type, "message" for one given by its role alone.
func (it Item) Kind() string {
	if it.Type == "" && it.Role != "" {
		return "message"
	}
	return it.Type
}

// Text is a message's text: the string, or its parts' text joined; a function_call_output's
// output as text.
func (it Item) Text() string {
	if it.Kind() == "function_call_output" {
		return contentText(it.Output)
	}
	return contentText(it.Content)
}

// ResponsesTool is a tool definition. Function tools are flat: name and parameters beside the
// type, not under "function" as in Chat Completions.
type ResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"` // left out: the service makes the schema strict
}

// DecodeResponses reads a Responses request body as the service does: the request, and its
// top-level fields as raw JSON (which CheckResponses needs to find unknown parameters).
func DecodeResponses(body []byte) (ResponsesRequest, map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&raw); err != nil {
		return ResponsesRequest{}, nil, err
	}
	var req ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return ResponsesRequest{}, raw, err
	}
	var text string
	switch {
	case len(req.Input) == 0 || string(req.Input) == "null":
	case json.Unmarshal(req.Input, &text) == nil:
		req.Items = []Item{{Role: "user", Content: req.Input}}
	default:
		if err := json.Unmarshal(req.Input, &req.Items); err != nil {
			return ResponsesRequest{}, raw, err
		}
	}
	return req, raw, nil
}

// ForcedFunction is the function tool_choice forces ({"type": "function", "name": ...}), or "".
func (r ResponsesRequest) ForcedFunction() string {
	var tc struct{ Type, Name string }
	if json.Unmarshal(r.ToolChoice, &tc) != nil || tc.Type != "function" {
		return ""
	}
	return tc.Name
}

// ToolRequired reports whether tool_choice is "required": the model must call some tool.
func (r ResponsesRequest) ToolRequired() bool {
	var mode string
	return json.Unmarshal(r.ToolChoice, &mode) == nil && mode == "required"
}

// Stored reports whether the service keeps the response (store, true when left out).
func (r ResponsesRequest) Stored() bool { return r.Store == nil || *r.Store }

// IncludesEncryptedReasoning reports whether the answer's reasoning items carry their
// encrypted content (include: ["reasoning.encrypted_content"]).
func (r ResponsesRequest) IncludesEncryptedReasoning() bool {
	for _, s := range r.Include {
		if s == IncludeEncryptedReasoning {
			return true
		}
	}
	return false
}

// IncludeEncryptedReasoning is the include value that puts the encrypted content in the
// answer's reasoning items.
const IncludeEncryptedReasoning = "reasoning.encrypted_content"
