package openaiapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/provider"
)

// Documentation pages the rules below cite.
const (
	docCreate  = "https://platform.openai.com/docs/api-reference/chat/create"
	docTools   = "https://platform.openai.com/docs/guides/function-calling"
	docModels  = "https://platform.openai.com/docs/models"
	docErrors  = "https://platform.openai.com/docs/guides/error-codes"
	docReasons = "https://platform.openai.com/docs/guides/reasoning"
)

// Error is the service's answer to a request it refuses: the HTTP status and the body's error
// object, which the fake writes as it is.
type Error struct {
	Status  int     `json:"-"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// functionName is the pattern of a function's name (docCreate, tools.function.name).
var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// reasoningModel matches the models that refuse max_tokens (o-series, gpt-5 and later), also
// behind a vendor prefix ("openai/o3"): docCreate, max_tokens is "not compatible with o-series
// models", and docReasons.
var reasoningModel = regexp.MustCompile(`^(?:[\w.-]+/)?(?:o\d|gpt-[5-9])`)

// parameters lists the request body's fields the Chat Completions API knows (docCreate); any
// other is refused.
var parameters = map[string]bool{
	"model": true, "messages": true, "audio": true, "frequency_penalty": true, "function_call": true,
	"functions": true, "logit_bias": true, "logprobs": true, "max_completion_tokens": true,
	"max_tokens": true, "metadata": true, "modalities": true, "n": true, "parallel_tool_calls": true,
	"prediction": true, "presence_penalty": true, "prompt_cache_key": true,
	"prompt_cache_retention": true, "reasoning_effort": true, "response_format": true,
	"safety_identifier": true, "seed": true, "service_tier": true, "stop": true, "store": true,
	"stream": true, "stream_options": true, "temperature": true, "tool_choice": true, "tools": true,
	"top_logprobs": true, "top_p": true, "user": true, "verbosity": true, "web_search_options": true,
}

func invalid(param, code, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...), Type: "invalid_request_error", Param: ptr(param), Code: ptr(code)}
}

// Check returns the error the service would answer for a request, or nil. raw is the body's
// top-level fields (Decode). models is the table of the models the service serves: an unknown
// model is refused as OpenAI refuses it, and the output limit is held to the model's maximum;
// with nil models any name is accepted and no limit is checked. Authentication is the caller's
// to check.
func Check(raw map[string]json.RawMessage, req Request, models Models) *Error {
	if k := unknown(raw, parameters); k != "" {
		return invalid("", "", "Unrecognized request argument supplied: %s", k)
	}
	// Required fields and the output limit's two names (docCreate).
	switch {
	case req.Model == "":
		return invalid("", "", "you must provide a model parameter")
	case len(req.Messages) == 0:
		return invalid("messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	case req.MaxTokens != nil && reasoningModel.MatchString(req.Model):
		return invalid("max_tokens", "unsupported_parameter", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	case req.MaxTokens != nil && *req.MaxTokens < 1:
		return invalid("max_tokens", "integer_below_min_value", "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxTokens)
	case req.MaxCompletionTokens != nil && *req.MaxCompletionTokens < 1:
		return invalid("max_completion_tokens", "integer_below_min_value", "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxCompletionTokens)
	}
	if e := checkModel(req, models); e != nil {
		return e
	}
	if e := checkReasoning(req, models); e != nil {
		return e
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
		// parameters is "described as a JSON Schema object" (docTools); one that is not is
		// refused with invalid_function_parameters.
		if len(t.Function.Parameters) > 0 {
			if err := provider.CheckToolSchema(t.Function.Parameters); err != nil {
				return invalid(fmt.Sprintf("tools[%d].function.parameters", i), "invalid_function_parameters", "Invalid schema for function '%s': %s.", t.Function.Name, err)
			}
		}
	}
	if e := checkToolChoice(req, names); e != nil {
		return e
	}
	return checkMessages(req.Messages)
}

// unknown is the first, by name, of the body's fields that known lacks, or "".
func unknown(raw map[string]json.RawMessage, known map[string]bool) string {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !known[k] {
			return k
		}
	}
	return ""
}

// checkModel holds the model and the output limit to checkModelLimit, under the name the
// request used for the limit.
func checkModel(req Request, models Models) *Error {
	param, limit := "max_completion_tokens", req.MaxCompletionTokens
	if limit == nil {
		param, limit = "max_tokens", req.MaxTokens
	}
	return checkModelLimit(req.Model, param, limit, models)
}

// checkModelLimit refuses a model the service does not serve (404 model_not_found, docErrors)
// and an output limit, named param, above the model's maximum (docModels, "Max output tokens").
// The wording is Chat Completions'; the Responses API's for the limit was not found.
func checkModelLimit(model, param string, limit *int, models Models) *Error {
	if models == nil {
		return nil
	}
	m, ok := models.Lookup(model)
	if !ok {
		return ModelNotFound(model)
	}
	if m.MaxOutput > 0 && limit != nil && *limit > m.MaxOutput {
		return invalid(param, "invalid_value", "%s is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.", param, *limit, m.MaxOutput, *limit)
	}
	return nil
}

// ModelNotFound is the service's answer to a model it does not serve, or that the key may not
// use (docErrors); a model past its shutdown date is answered so too
// (https://developers.openai.com/api/docs/deprecations: "no longer accessible").
func ModelNotFound(model string) *Error {
	return &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Code: ptr("model_not_found"),
		Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)}
}

// checkReasoning holds reasoning_effort and function tools to the model's rules (Model's
// flags cite the pages). The message refusing tools is the one the service answers on a
// reasoning model that calls tools through Responses only (observed on gpt-5.6-sol,
// https://community.openai.com/t/gpt-5-6-chat-completion-reasoning-effort-bug-behavior-change/1386454),
// with the request's model; its param and code were not given there, so none is set. No
// wording was found for the refusal of "none": it follows the service's other unsupported_value
// errors.
func checkReasoning(req Request, models Models) *Error {
	if models == nil {
		return nil
	}
	m, _ := models.Lookup(req.Model)
	if m.NoneEffortRefused && req.ReasoningEffort == "none" {
		return invalid("reasoning_effort", "unsupported_value", "Unsupported value: 'reasoning_effort' does not support 'none' with this model.")
	}
	if len(req.Tools) > 0 && (m.ToolsNeedResponses || (m.ToolsNeedNoReasoning && req.ReasoningEffort != "none")) {
		return invalid("", "", "Function tools with reasoning_effort are not supported for %s in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.", req.Model)
	}
	return nil
}

// checkToolChoice holds tool_choice to docCreate (tool_choice: "none is the default when no
// tools are present"): "required" or a named function only with tools, the name among them;
// parallel_tool_calls too only with tools.
func checkToolChoice(req Request, names map[string]bool) *Error {
	if req.ParallelToolCalls != nil && len(req.Tools) == 0 {
		return invalid("parallel_tool_calls", "", "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.")
	}
	if e, isMode := checkMode(req.ToolChoice, len(req.Tools) > 0,
		"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."); isMode {
		return e
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
	return nil
}

// checkMode holds a tool_choice left out or given as a mode to the modes both APIs know:
// "none", "auto", and "required", which needs tools (else requiredAlone is the answer). isMode
// is false for a tool_choice that names a tool, which the caller checks.
func checkMode(choice json.RawMessage, tools bool, requiredAlone string) (e *Error, isMode bool) {
	if len(choice) == 0 || string(choice) == "null" {
		return nil, true
	}
	var mode string
	if json.Unmarshal(choice, &mode) != nil {
		return nil, false
	}
	switch mode {
	case "none", "auto":
		return nil, true
	case "required":
		if !tools {
			return invalid("tool_choice", "", "%s", requiredAlone), true
		}
		return nil, true
	}
	return invalid("tool_choice", "invalid_value", "Invalid value: '%s'. Supported values are: 'none', 'auto', and 'required'.", mode), true
}

// checkMessages checks roles and the tool-call protocol (docTools, "Handling function calls";
// docCreate, messages): each tool message answers a call of the assistant message before it,
// and every call is answered before the next non-tool message.
func checkMessages(msgs []Message) *Error {
	var pending map[string]bool // calls of the last assistant message not yet answered
	var lastCalls map[string]bool
	lastAssistant := -1
	unanswered := func(at int) *Error {
		if len(pending) == 0 {
			return nil
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
			if e := unanswered(lastAssistant); e != nil {
				return e
			}
		case "assistant":
			if e := unanswered(lastAssistant); e != nil {
				return e
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
