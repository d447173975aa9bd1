package anthropictest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// topLevel lists the body fields the Messages API knows; any other is refused as the service
// refuses it ("Extra inputs are not permitted").
var topLevel = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "system": true, "tools": true,
	"tool_choice": true, "metadata": true, "stop_sequences": true, "stream": true,
	"temperature": true, "top_p": true, "top_k": true, "thinking": true, "service_tier": true,
	"container": true, "mcp_servers": true, "cache_control": true, "output_config": true,
	"inference_geo": true, "speed": true, "diagnostics": true, "context_management": true,
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// maxBreakpoints is how many cache_control markers one request may carry.
const maxBreakpoints = 4

// validate applies the service's request rules and returns the message of the 400 it would
// answer, or "" for a valid request.
func validate(raw map[string]json.RawMessage, req Request, version string) string {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !topLevel[k] {
			return k + ": Extra inputs are not permitted"
		}
	}
	switch {
	case req.Model == "":
		return "model: Field required"
	case req.MaxTokens == nil:
		return "max_tokens: Field required"
	case *req.MaxTokens < 1:
		return "max_tokens: Input should be greater than or equal to 1"
	case len(req.Messages) == 0:
		return "messages: at least one message is required"
	case req.Stream:
		return "stream: this fake answers non-streaming requests only"
	}
	if version >= "2026-10-21" {
		for _, p := range []string{"temperature", "top_p", "top_k"} {
			if _, ok := raw[p]; ok {
				return p + ": is not supported in API version " + version
			}
		}
	}
	if msg := validateTools(req); msg != "" {
		return msg
	}
	for i, b := range req.System {
		if b.Type != "text" {
			return fmt.Sprintf("system.%d.type: Input should be 'text'", i)
		}
		if b.Text == "" {
			return "system: text content blocks must be non-empty"
		}
	}
	if msg := validateMessages(req.Messages); msg != "" {
		return msg
	}
	return validateCacheControl(req)
}

func validateTools(req Request) string {
	names := map[string]bool{}
	for i, t := range req.Tools {
		if t.Type != "" && t.Type != "custom" {
			continue // a server tool (web_search_...), which has no input_schema
		}
		if !toolName.MatchString(t.Name) {
			return fmt.Sprintf("tools.%d.name: String should match pattern '%s'", i, toolName)
		}
		if names[t.Name] {
			return "tools: Tool names must be unique."
		}
		names[t.Name] = true
		if len(t.InputSchema) == 0 {
			return fmt.Sprintf("tools.%d.input_schema: Field required", i)
		}
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return fmt.Sprintf("tools.%d.input_schema: Input should be a valid dictionary", i)
		}
		if schema["type"] != "object" {
			return fmt.Sprintf("tools.%d.input_schema.type: Input should be 'object'", i)
		}
	}
	tc := req.ToolChoice
	if tc == nil {
		return ""
	}
	switch tc.Type {
	case "auto", "none":
	case "any":
		if len(req.Tools) == 0 {
			return "tool_choice: tool_choice.type 'any' requires tools to be provided"
		}
	case "tool":
		if tc.Name == "" {
			return "tool_choice.tool.name: Field required"
		}
		if !names[tc.Name] {
			return fmt.Sprintf("tool_choice: Tool '%s' not found in tools", tc.Name)
		}
	default:
		return fmt.Sprintf("tool_choice: Input tag '%s' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", tc.Type)
	}
	return ""
}

func validateMessages(msgs []Message) string {
	if msgs[0].Role != "user" {
		return `messages: first message must use the "user" role`
	}
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i > 0 && m.Role == msgs[i-1].Role {
			return fmt.Sprintf(`messages: roles must alternate between "user" and "assistant", but found multiple %q roles in a row`, m.Role)
		}
		last := i == len(msgs)-1
		if len(m.Content) == 0 && (!last || m.Role != "assistant") {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		for j, b := range m.Content {
			if msg := validateBlock(m.Role, i, j, b); msg != "" {
				return msg
			}
		}
		if msg := validateToolPairing(msgs, i); msg != "" {
			return msg
		}
	}
	return ""
}

func validateBlock(role string, i, j int, b Block) string {
	at := fmt.Sprintf("messages.%d.content.%d", i, j)
	switch b.Type {
	case "text":
		if b.Text == "" {
			return "messages: text content blocks must be non-empty"
		}
	case "tool_use":
		if role != "assistant" {
			return at + ": tool_use blocks may only appear in assistant messages"
		}
		if b.ID == "" || b.Name == "" {
			return at + ": tool_use blocks need an id and a name"
		}
		var in map[string]any
		if err := json.Unmarshal(b.Input, &in); err != nil || in == nil {
			return at + ".input: Input should be a valid dictionary"
		}
	case "tool_result":
		if role != "user" {
			return at + ": tool_result blocks may only appear in user messages"
		}
		for _, c := range b.Content {
			if c.Type == "text" && c.Text == "" {
				return "messages: text content blocks must be non-empty"
			}
		}
	case "image", "document", "thinking", "redacted_thinking", "search_result":
	default:
		return fmt.Sprintf("%s.type: Input tag '%s' found using 'type' does not match any of the expected tags", at, b.Type)
	}
	return ""
}

// validateToolPairing checks message i against its neighbours: every tool_result answers a
// tool_use of the previous message, and every tool_use is answered in the next message.
func validateToolPairing(msgs []Message, i int) string {
	uses := func(m Message) map[string]bool {
		ids := map[string]bool{}
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				ids[b.ID] = true
			}
		}
		return ids
	}
	m := msgs[i]
	var results []string
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			results = append(results, b.ToolUseID)
		}
	}
	if len(results) > 0 {
		var prev map[string]bool
		if i > 0 {
			prev = uses(msgs[i-1])
		}
		for _, id := range results {
			if !prev[id] {
				return fmt.Sprintf("messages.%d.content: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, id)
			}
		}
	}
	if m.Role == "assistant" && i+1 < len(msgs) {
		answered := map[string]bool{}
		for _, b := range msgs[i+1].Content {
			if b.Type == "tool_result" {
				answered[b.ToolUseID] = true
			}
		}
		var missing []string
		for _, b := range m.Content {
			if b.Type == "tool_use" && !answered[b.ID] {
				missing = append(missing, b.ID)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return ""
}

func validateCacheControl(req Request) string {
	n := 0
	check := func(cc *CacheControl) string {
		if cc == nil {
			return ""
		}
		n++
		if cc.Type != "ephemeral" {
			return "cache_control.type: Input should be 'ephemeral'"
		}
		if cc.TTL != "" && cc.TTL != "5m" && cc.TTL != "1h" {
			return "cache_control.ttl: Input should be '5m' or '1h'"
		}
		return ""
	}
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
	for _, cc := range all {
		if msg := check(cc); msg != "" {
			return msg
		}
	}
	if n > maxBreakpoints {
		return fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, n)
	}
	return ""
}
