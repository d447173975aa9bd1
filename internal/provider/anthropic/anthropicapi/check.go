package anthropicapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/council-dev/council/internal/provider"
)

// Documentation pages the rules below cite.
const (
	docCreate   = "https://platform.claude.com/docs/en/api/messages/create"
	docToolUse  = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use"
	docToolCall = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls"
	docPrefill  = "https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6#prefill-removal"
	docCaching  = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
	docModels   = "https://platform.claude.com/docs/en/about-claude/models/overview"
	docErrors   = "https://platform.claude.com/docs/en/api/errors"
	docVersions = "https://platform.claude.com/docs/en/api/versioning"
	docNoForced = "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported"
)

// NoForcedToolMessage is the service's answer to a forced tool_choice on a model that refuses
// it (docNoForced).
const NoForcedToolMessage = `tool_choice: type "tool" and "any" are not supported for this model.`

// Error is the service's answer to a request it refuses: the HTTP status and the error
// object's type and message.
type Error struct {
	Status  int
	Type    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

func invalid(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: fmt.Sprintf(format, args...)}
}

// Versions of the API the service accepts in the anthropic-version header (docVersions).
var knownVersions = map[string]bool{"2023-01-01": true, "2023-06-01": true, "2026-10-21": true}

// topLevel lists the body fields the Messages API knows (docCreate); any other is refused as
// the service refuses it ("Extra inputs are not permitted").
var topLevel = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "system": true, "tools": true,
	"tool_choice": true, "metadata": true, "stop_sequences": true, "stream": true,
	"temperature": true, "top_p": true, "top_k": true, "thinking": true, "service_tier": true,
	"container": true, "mcp_servers": true, "cache_control": true, "output_config": true,
	"inference_geo": true, "speed": true, "diagnostics": true, "context_management": true,
}

// toolName is the pattern a custom tool's name must match (docCreate, tools.name).
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// maxBreakpoints is how many cache_control markers one request may carry (docCaching).
const maxBreakpoints = 4

// Check returns the error the service would answer for a request, or nil. header carries the
// anthropic-version; raw is the body's top-level fields (Decode). models is the table of the
// models the service serves: an unknown model is refused as the service refuses it, and
// max_tokens is held to the model's output limit; with nil models any name is accepted and
// no limit is checked. Authentication is the caller's to check.
func Check(header http.Header, raw map[string]json.RawMessage, req Request, models Models) *Error {
	if e := CheckVersion(header); e != nil {
		return e
	}
	version := header.Get("anthropic-version")
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !topLevel[k] {
			return invalid("%s: Extra inputs are not permitted", k)
		}
	}
	// Required fields (docCreate): model, max_tokens >= 1, at least one message.
	switch {
	case req.Model == "":
		return invalid("model: Field required")
	case req.MaxTokens == nil:
		return invalid("max_tokens: Field required")
	case *req.MaxTokens < 1:
		return invalid("max_tokens: Input should be greater than or equal to 1")
	case len(req.Messages) == 0:
		return invalid("messages: at least one message is required")
	}
	model, e := checkModel(req, models)
	if e != nil {
		return e
	}
	// API version 2026-10-21, which the SDK sends, dropped the sampling parameters: the service
	// refuses them as unknown fields, default values included (docVersions, and
	// https://platform.claude.com/docs/en/api/migration-2026-10-21).
	if version >= "2026-10-21" {
		for _, p := range []string{"temperature", "top_p", "top_k"} {
			if _, ok := raw[p]; ok {
				return invalid("%s: Extra inputs are not permitted", p)
			}
		}
	}
	if e := checkTools(req); e != nil {
		return e
	}
	if tc := req.ToolChoice; model.NoForcedTool && tc != nil && (tc.Type == "any" || tc.Type == "tool") {
		return invalid("%s", NoForcedToolMessage)
	}
	for i, b := range req.System {
		if b.Type != "text" {
			return invalid("system.%d.type: Input should be 'text'", i)
		}
		if b.Text == "" {
			return invalid("system: text content blocks must be non-empty")
		}
	}
	if e := checkMessages(req.Messages, model); e != nil {
		return e
	}
	return checkCacheControl(req)
}

// CheckVersion refuses a request without a known anthropic-version header (docVersions): the
// service reads it before the body, on every endpoint.
func CheckVersion(header http.Header) *Error {
	switch version := header.Get("anthropic-version"); {
	case version == "":
		return invalid("anthropic-version: header is required")
	case !knownVersions[version]:
		return invalid("anthropic-version: %q is not a valid version", version)
	}
	return nil
}

// checkModel refuses a model the service does not serve, or no longer does (Retired), with a
// 404 not_found_error (docErrors), and a max_tokens above the model's maximum output
// (docModels, "Max output").
func checkModel(req Request, models Models) (Model, *Error) {
	if models == nil {
		return Model{}, nil
	}
	m, ok := models.Lookup(req.Model)
	if !ok || m.Retired {
		return m, &Error{Status: http.StatusNotFound, Type: "not_found_error", Message: "model: " + req.Model}
	}
	if m.MaxTokens > 0 && *req.MaxTokens > m.MaxTokens {
		return m, invalid("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", *req.MaxTokens, m.MaxTokens, req.Model)
	}
	return m, nil
}

func checkTools(req Request) *Error {
	names := map[string]bool{}
	for i, t := range req.Tools {
		if t.Type != "" && t.Type != "custom" {
			continue // a server tool (web_search_...), which has no input_schema
		}
		if !toolName.MatchString(t.Name) {
			return invalid("tools.%d.custom.name: String should match pattern '%s'", i, toolName)
		}
		if names[t.Name] {
			return invalid("tools: Tool names must be unique.")
		}
		names[t.Name] = true
		if len(t.InputSchema) == 0 {
			return invalid("tools.%d.custom.input_schema: Field required", i)
		}
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return invalid("tools.%d.custom.input_schema: Input should be a valid dictionary", i)
		}
		if schema["type"] != "object" {
			return invalid("tools.%d.custom.input_schema.type: Input should be 'object'", i)
		}
		// Every schema is checked against JSON Schema draft 2020-12 (docToolUse, "input_schema":
		// "A JSON Schema object"), with this message.
		if err := provider.CheckToolSchema(t.InputSchema); err != nil {
			return invalid("tools.%d.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.", i)
		}
	}
	// tool_choice (docToolUse, "Forcing tool use"): any and tool need tools, and tool names one.
	tc := req.ToolChoice
	if tc == nil {
		return nil
	}
	switch tc.Type {
	case "auto", "none", "any", "tool":
	default:
		return invalid("tool_choice: Input tag '%s' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", tc.Type)
	}
	if len(req.Tools) == 0 {
		return invalid("tool_choice.%s may only be specified while providing tools", tc.Type)
	}
	if tc.Type == "tool" {
		if tc.Name == "" {
			return invalid("tool_choice.tool.name: Field required")
		}
		if !names[tc.Name] {
			// The service's wording for this one was not found; the rule is docToolUse's.
			return invalid("tool_choice: Tool '%s' not found in tools", tc.Name)
		}
	}
	return nil
}

// checkMessages applies the conversation rules of docCreate ("messages"): consecutive turns of
// one role count as one turn, as the service combines them; every turn has content but an
// optional final assistant one (a prefill, which some models refuse and the others take only
// without trailing whitespace, docPrefill); and tool blocks pair up (docToolCall).
func checkMessages(msgs []Message, m Model) *Error {
	for i, msg := range msgs {
		if msg.Role != "user" && msg.Role != "assistant" {
			return invalid("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
	}
	turns := combine(msgs)
	for i, t := range turns {
		last := i == len(turns)-1
		if len(t.Content) == 0 && (!last || t.Role != "assistant") {
			return invalid("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		for j, b := range t.Content {
			if e := checkBlock(t.Role, i, j, b); e != nil {
				return e
			}
		}
		if last && t.Role == "assistant" {
			if m.NoPrefill {
				return invalid("This model does not support assistant message prefill. The conversation must end with a user message.")
			}
			if n := len(t.Content); n > 0 && t.Content[n-1].Type == "text" && strings.TrimRightFunc(t.Content[n-1].Text, unicode.IsSpace) != t.Content[n-1].Text {
				return invalid("messages: final assistant content cannot end with trailing whitespace")
			}
		}
		if e := checkToolPairing(turns, i); e != nil {
			return e
		}
	}
	return nil
}

// combine joins consecutive messages of one role into one turn, as the service does (docCreate:
// "Consecutive user or assistant turns in your request will be combined into a single turn").
func combine(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content = append(slices.Clone(out[n-1].Content), m.Content...)
			continue
		}
		out = append(out, m)
	}
	return out
}

func checkBlock(role string, i, j int, b Block) *Error {
	at := fmt.Sprintf("messages.%d.content.%d", i, j)
	switch b.Type {
	case "text":
		// Observed answers (no documentation states them): an empty text block, and one of only
		// whitespace, are refused.
		if b.Text == "" {
			return invalid("messages: text content blocks must be non-empty")
		}
		if strings.TrimSpace(b.Text) == "" {
			return invalid("messages: text content blocks must contain non-whitespace text")
		}
	case "tool_use":
		if role != "assistant" {
			return invalid("%s: tool_use blocks may only appear in assistant messages", at)
		}
		if b.ID == "" || b.Name == "" {
			return invalid("%s: tool_use blocks need an id and a name", at)
		}
		var in map[string]any
		if err := json.Unmarshal(b.Input, &in); err != nil || in == nil {
			return invalid("%s.input: Input should be a valid dictionary", at)
		}
	case "tool_result":
		if role != "user" {
			return invalid("%s: tool_result blocks may only appear in user messages", at)
		}
		for _, c := range b.Content {
			if c.Type == "text" && c.Text == "" {
				return invalid("messages: text content blocks must be non-empty")
			}
		}
	case "thinking", "redacted_thinking":
		// Only the model writes thinking: a user turn cannot carry it. No page was found that
		// states it: the rule and its wording are this package's. In an assistant turn it goes
		// back as it came
		// (https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows); the
		// fake checks the signatures it issued.
		if role != "assistant" {
			return invalid("%s: %s blocks may only appear in assistant messages", at, b.Type)
		}
	case "image", "document", "search_result":
	default:
		return invalid("%s.type: Input tag '%s' found using 'type' does not match any of the expected tags", at, b.Type)
	}
	return nil
}

// checkToolPairing checks turn i against its neighbours (docToolCall: "Tool result blocks must
// immediately follow their corresponding tool use blocks", and "the tool_result blocks must
// come FIRST in the content array"): every tool_result answers a tool_use of the turn before,
// and every tool_use is answered at the start of the next turn. A result after other content
// does not count as an answer, which is how the service reports it.
func checkToolPairing(turns []Message, i int) *Error {
	t := turns[i]
	if i > 0 {
		prev := map[string]bool{}
		for _, b := range turns[i-1].Content {
			if b.Type == "tool_use" {
				prev[b.ID] = true
			}
		}
		for j, b := range t.Content {
			if b.Type == "tool_result" && !prev[b.ToolUseID] {
				return invalid("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
		}
	} else {
		for j, b := range t.Content {
			if b.Type == "tool_result" {
				return invalid("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
		}
	}
	if t.Role != "assistant" || i+1 >= len(turns) {
		return nil
	}
	answered := map[string]bool{}
	for _, b := range turns[i+1].Content {
		if b.Type != "tool_result" {
			break // only the results at the start of the turn answer
		}
		answered[b.ToolUseID] = true
	}
	var missing []string
	for _, b := range t.Content {
		if b.Type == "tool_use" && !answered[b.ID] {
			missing = append(missing, b.ID)
		}
	}
	if len(missing) > 0 {
		return invalid("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
	}
	return nil
}

// checkCacheControl holds the request to docCaching: at most four breakpoints, each of the
// ephemeral type with a 5m or 1h ttl.
func checkCacheControl(req Request) *Error {
	var all []*CacheControl
	for _, t := range req.Tools {
		all = append(all, t.CacheControl)
	}
	for _, b := range req.System {
		all = append(all, b.CacheControl)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			all = append(all, b.CacheControl)
			for _, c := range b.Content {
				all = append(all, c.CacheControl)
			}
		}
	}
	all = append(all, req.CacheControl)
	n := 0
	for _, cc := range all {
		if cc == nil {
			continue
		}
		n++
		if cc.Type != "ephemeral" {
			return invalid("cache_control.type: Input should be 'ephemeral'")
		}
		if cc.TTL != "" && cc.TTL != "5m" && cc.TTL != "1h" {
			return invalid("cache_control.ttl: Input should be '5m' or '1h'")
		}
	}
	if n > maxBreakpoints {
		return invalid("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, n)
	}
	return nil
}
