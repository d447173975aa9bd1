package openaitest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// reasoningModel matches the models that refuse max_tokens (o-series, gpt-5 and later), also
// behind a vendor prefix ("openai/o3").
var reasoningModel = regexp.MustCompile(`^(?:[\w.-]+/)?(?:o\d|gpt-[5-9])`)

func invalid(param, code, format string, args ...any) (apiError, bool) {
	return apiError{Message: fmt.Sprintf(format, args...), Type: "invalid_request_error", Param: ptr(param), Code: ptr(code)}, false
}

// validate applies the service's request rules: it returns the error of the 400 the service
// would answer, or ok.
func validate(req Request) (apiError, bool) {
	switch {
	case req.Model == "":
		return invalid("", "", "you must provide a model parameter")
	case len(req.Messages) == 0:
		return invalid("messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	case req.Stream:
		return invalid("stream", "", "this fake answers non-streaming requests only")
	case req.MaxTokens != nil && reasoningModel.MatchString(req.Model):
		return invalid("max_tokens", "unsupported_parameter", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	case req.MaxTokens != nil && *req.MaxTokens < 1:
		return invalid("max_tokens", "integer_below_min_value", "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxTokens)
	case req.MaxCompletionTokens != nil && *req.MaxCompletionTokens < 1:
		return invalid("max_completion_tokens", "integer_below_min_value", "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxCompletionTokens)
	}
	names := map[string]bool{}
	for i, t := range req.Tools {
		if t.Type != "function" {
			return invalid(fmt.Sprintf("tools[%d].type", i), "invalid_value", "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", t.Type)
		}
		if !functionName.MatchString(t.Function.Name) {
			return invalid(fmt.Sprintf("tools[%d].function.name", i), "invalid_value", "Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i)
		}
		names[t.Function.Name] = true
		if len(t.Function.Parameters) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(t.Function.Parameters, &schema); err != nil || schema["type"] != "object" {
				return invalid(fmt.Sprintf("tools[%d].function.parameters", i), "invalid_function_parameters", "Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"'.", t.Function.Name)
			}
		}
	}
	if e, ok := validateToolChoice(req, names); !ok {
		return e, false
	}
	return validateMessages(req.Messages)
}

func validateToolChoice(req Request, names map[string]bool) (apiError, bool) {
	if len(req.ToolChoice) == 0 || string(req.ToolChoice) == "null" {
		return apiError{}, true
	}
	var mode string
	if json.Unmarshal(req.ToolChoice, &mode) == nil {
		switch mode {
		case "none", "auto":
			return apiError{}, true
		case "required":
			if len(req.Tools) == 0 {
				return invalid("tool_choice", "", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")
			}
			return apiError{}, true
		}
		return invalid("tool_choice", "invalid_value", "Invalid value: '%s'. Supported values are: 'none', 'auto', and 'required'.", mode)
	}
	name := req.ForcedFunction()
	switch {
	case name == "":
		return invalid("tool_choice", "invalid_value", "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a named function.")
	case len(req.Tools) == 0:
		return invalid("tool_choice", "", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")
	case !names[name]:
		return invalid("tool_choice", "", "Invalid value for 'tool_choice': function '%s' not found in 'tools'.", name)
	}
	return apiError{}, true
}

// validateMessages checks roles and the tool-call protocol: each tool message answers a call
// of the assistant message before it, and every call is answered before the next non-tool
// message.
func validateMessages(msgs []Message) (apiError, bool) {
	var pending map[string]bool // calls of the last assistant message not yet answered
	var lastCalls map[string]bool
	lastAssistant := -1
	unanswered := func(at int) (apiError, bool) {
		if len(pending) == 0 {
			return apiError{}, true
		}
		var ids []string
		for _, c := range msgs[lastAssistant].ToolCalls {
			if pending[c.ID] {
				ids = append(ids, c.ID)
			}
		}
		return invalid(fmt.Sprintf("messages.[%d].role", at), "", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
	}
	for i, m := range msgs {
		switch m.Role {
		case "system", "developer", "user":
			if e, ok := unanswered(lastAssistant); !ok {
				return e, false
			}
		case "assistant":
			if e, ok := unanswered(lastAssistant); !ok {
				return e, false
			}
			if len(m.ToolCalls) == 0 && (len(m.Content) == 0 || string(m.Content) == "null") {
				return invalid(fmt.Sprintf("messages.[%d].content", i), "", "Invalid value for 'content': expected a string, got null.")
			}
			lastAssistant = i
			pending, lastCalls = map[string]bool{}, map[string]bool{}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Function.Name == "" {
					return invalid(fmt.Sprintf("messages.[%d].tool_calls.[%d]", i, j), "", "Missing required parameter: 'messages.[%d].tool_calls.[%d].id'.", i, j)
				}
				pending[c.ID], lastCalls[c.ID] = true, true
			}
		case "tool":
			if lastCalls == nil || (i > 0 && msgs[i-1].Role != "assistant" && msgs[i-1].Role != "tool") {
				return invalid(fmt.Sprintf("messages.[%d].role", i), "", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.") //nolint:misspell // OpenAI's own wording
			}
			if !lastCalls[m.ToolCallID] {
				return invalid(fmt.Sprintf("messages.[%d].tool_call_id", i), "", "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			return invalid(fmt.Sprintf("messages[%d].role", i), "invalid_value", "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role)
		}
	}
	return unanswered(len(msgs) - 1)
}
