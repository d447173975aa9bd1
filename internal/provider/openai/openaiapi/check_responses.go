package openaiapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/provider"
)

// Pages the Responses API's rules cite. Where no page gives the service's wording, the comment
// beside the rule cites a public report of the service's answer.
const (
	docResponses  = "https://platform.openai.com/docs/api-reference/responses/create"
	docFunctions  = "https://developers.openai.com/api/docs/guides/function-calling"
	docStrict     = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"
	docReasoning  = "https://developers.openai.com/api/docs/guides/reasoning#encrypted-reasoning-items"
	docConvState  = "https://developers.openai.com/api/docs/guides/conversation-state"
	docPromptKeys = "https://developers.openai.com/api/docs/guides/prompt-caching"
)

// responsesParameters lists the request body's fields the Responses API knows (docResponses);
// any other is refused ("Unknown parameter: 'reasoning.max_tokens'.", code unknown_parameter,
// observed: https://github.com/bestruirui/octopus/issues/31).
var responsesParameters = map[string]bool{
	"access_programs": true, "background": true, "context_management": true, "conversation": true,
	"image": true, "include": true, "input": true, "instructions": true, "max_output_tokens": true,
	"max_tool_calls": true, "metadata": true, "model": true, "moderation": true,
	"parallel_tool_calls": true, "previous_response_id": true, "prompt": true, "prompt_cache_key": true,
	"prompt_cache_options": true, "prompt_cache_retention": true, "reasoning": true,
	"safety_identifier": true, "service_tier": true, "store": true, "stream": true,
	"stream_options": true, "temperature": true, "text": true, "tool_choice": true, "tools": true,
	"top_logprobs": true, "top_p": true, "truncation": true, "user": true,
}

// Limits of the Responses API: max_output_tokens is at least 16 ("Invalid 'max_output_tokens':
// integer below minimum value. Expected a value >= 16, but got 1 instead.", observed:
// https://github.com/earendil-works/pi/issues/6265, https://github.com/vectorize-io/hindsight/issues/58),
// and prompt_cache_key at most 64 characters (docPromptKeys; wording observed:
// https://github.com/theopenco/llmgateway/pull/3110).
const (
	MinOutputTokens      = 16
	MaxPromptCacheKeyLen = 64
)

func missing(param string) *Error {
	return invalid(param, "missing_required_parameter", "Missing required parameter: '%s'.", param)
}

// CheckResponses returns the error the service would answer for a Responses request, or nil.
// raw is the body's top-level fields (DecodeResponses). models is as for Check. The encrypted
// content of reasoning items is the issuer's to verify (the fake signs what it issues).
func CheckResponses(raw map[string]json.RawMessage, req ResponsesRequest, models Models) *Error {
	if k := unknown(raw, responsesParameters); k != "" {
		return invalid(k, "unknown_parameter", "Unknown parameter: '%s'.", k)
	}
	switch {
	case req.Model == "":
		return missing("model")
	case req.MaxOutputTokens != nil && *req.MaxOutputTokens < MinOutputTokens:
		return invalid("max_output_tokens", "integer_below_min_value", "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= %d, but got %d instead.", MinOutputTokens, *req.MaxOutputTokens)
	case len(req.PromptCacheKey) > MaxPromptCacheKeyLen:
		return invalid("prompt_cache_key", "string_above_max_length", "Invalid 'prompt_cache_key': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", MaxPromptCacheKeyLen, len(req.PromptCacheKey))
	}
	if e := checkModelLimit(req.Model, "max_output_tokens", req.MaxOutputTokens, models); e != nil {
		return e
	}
	// "The API rejects requests that set reasoning effort to none"
	// (https://developers.openai.com/api/docs/models/gpt-6.2-sol): the Responses API too; the
	// wording is Chat Completions' (checkReasoning), none was found for Responses.
	if m, _ := models.Lookup(req.Model); m.NoneEffortRefused && req.Reasoning != nil && req.Reasoning.Effort == "none" {
		return invalid("reasoning.effort", "unsupported_value", "Unsupported value: 'reasoning.effort' does not support 'none' with this model.")
	}
	names := map[string]bool{}
	for i, t := range req.Tools {
		if e := checkResponsesTool(i, t); e != nil {
			return e
		}
		names[t.Name] = true
	}
	if e := checkResponsesToolChoice(req, names); e != nil {
		return e
	}
	return checkItems(req)
}

// checkResponsesTool holds a function tool to docResponses (tools: name and parameters
// required, flat beside the type; a Chat Completions tool, whose name is under "function",
// lacks one: "Missing required parameter: 'tools[0].name'.", observed:
// https://community.openai.com/t/responses-api-function-calling-tool-specs-vs-completions-api/1324866)
// and to docFunctions: parameters is a JSON Schema object, and with strict true it must meet
// strict mode's requirements (docStrict), else "the request will be rejected with details
// about the missing constraints" (docFunctions). Without strict the service makes the schema
// strict itself, "which can make previously optional fields mandatory" (docFunctions): not
// refused, but a client that means optional fields must send strict false.
func checkResponsesTool(i int, t ResponsesTool) *Error {
	at := fmt.Sprintf("tools[%d]", i)
	if t.Type != "function" {
		return nil // the built-in tools, which council never sends
	}
	switch {
	case t.Name == "":
		return missing(at + ".name")
	case !functionName.MatchString(t.Name):
		return invalid(at+".name", "invalid_value", "Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", at)
	case len(t.Parameters) == 0:
		return missing(at + ".parameters")
	}
	if string(t.Parameters) == "null" {
		return nil // "parameters: map | null"
	}
	// Wording and param observed: https://github.com/lastmile-ai/openai-agents-mcp/issues/2,
	// https://github.com/kevinwatt/mysql-mcp/issues/5.
	bad := func(format string, args ...any) *Error {
		return invalid(at+".parameters", "invalid_function_parameters", "Invalid schema for function '%s': %s", t.Name, fmt.Sprintf(format, args...))
	}
	if err := provider.CheckToolSchema(t.Parameters); err != nil {
		return bad("%s.", err)
	}
	if t.Strict != nil && *t.Strict {
		if problem := StrictSchemaProblem(t.Parameters); problem != "" {
			return bad("%s", problem)
		}
	}
	return nil
}

// StrictSchemaProblem says why a function's parameters cannot be strict, in the service's
// words, or "" when they can. Strict mode wants every object to set additionalProperties to
// false and to list every one of its properties in required, and supports a subset of JSON
// Schema (docStrict: besides the structure, pattern and format for strings, multipleOf,
// maximum, exclusiveMaximum, minimum and exclusiveMinimum for numbers, minItems and maxItems
// for arrays; not minLength, maxLength, uniqueItems and the like). The wording, "In
// context=('properties', 'permissions'), 'additionalProperties' is required to be supplied and
// to be false.", "In context=(), 'required' is required to be supplied and to be an array
// including every key in properties. Missing 'params'." and "In context=(…), 'minimum' is not
// permitted.", was observed: https://github.com/lastmile-ai/openai-agents-mcp/issues/2,
// https://github.com/kevinwatt/mysql-mcp/issues/5, https://github.com/liam-hq/liam/pull/1162.
// Nodes are checked before their children, properties in the order the schema gives them.
func StrictSchemaProblem(schema json.RawMessage) string {
	return strictProblem(schema, nil)
}

// strictKeywords are the keywords strict mode permits (docStrict).
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
	"enum": true, "const": true, "anyOf": true, "$ref": true, "$defs": true, "definitions": true,
	"description": true, "title": true,
	"pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true,
}

func strictProblem(node json.RawMessage, ctx []string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(node, &obj) != nil || obj == nil {
		return "" // true, false: nothing to close
	}
	props := objectKeys(obj["properties"])
	if hasType(obj["type"], "object") || obj["properties"] != nil {
		if string(bytes.TrimSpace(obj["additionalProperties"])) != "false" {
			return fmt.Sprintf("In context=%s, 'additionalProperties' is required to be supplied and to be false.", pyTuple(ctx))
		}
		var required []string
		_ = json.Unmarshal(obj["required"], &required)
		for _, p := range props {
			if !slices.Contains(required, p) {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", pyTuple(ctx), p)
			}
		}
	}
	for _, kw := range objectKeys(node) {
		if !strictKeywords[kw] {
			return fmt.Sprintf("In context=%s, '%s' is not permitted.", pyTuple(ctx), kw)
		}
	}
	var children map[string]json.RawMessage
	_ = json.Unmarshal(obj["properties"], &children)
	for _, p := range props {
		if problem := strictProblem(children[p], append(slices.Clone(ctx), "properties", p)); problem != "" {
			return problem
		}
	}
	if items, ok := obj["items"]; ok {
		if problem := strictProblem(items, append(slices.Clone(ctx), "items")); problem != "" {
			return problem
		}
	}
	for _, kw := range []string{"anyOf", "$defs", "definitions"} {
		var list []json.RawMessage
		if json.Unmarshal(obj[kw], &list) == nil {
			for i, s := range list {
				if problem := strictProblem(s, append(slices.Clone(ctx), kw, strconv.Itoa(i))); problem != "" {
					return problem
				}
			}
			continue
		}
		var defs map[string]json.RawMessage
		_ = json.Unmarshal(obj[kw], &defs)
		for _, name := range objectKeys(obj[kw]) {
			if problem := strictProblem(defs[name], append(slices.Clone(ctx), kw, name)); problem != "" {
				return problem
			}
		}
	}
	return ""
}

// hasType reports whether a schema's type is, or includes, want.
func hasType(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return slices.Contains(many, want)
}

// objectKeys lists a JSON object's keys in the order they are written; nil for anything else.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, fmt.Sprint(tok))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// pyTuple writes a schema path as the service's messages do, a Python tuple: (), ('items',),
// ('properties', 'findings', 'items'); list indexes bare.
func pyTuple(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil && i > 0 && (path[i-1] == "anyOf") {
			parts[i] = p
			continue
		}
		parts[i] = "'" + p + "'"
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// checkResponsesToolChoice holds tool_choice to docResponses: "none", "auto", "required" or a
// named function among the tools. The wording of the refusals was checked against the service
// by vLLM's maintainers (https://github.com/vllm-project/vllm/pull/40399).
func checkResponsesToolChoice(req ResponsesRequest, names map[string]bool) *Error {
	if e, isMode := checkMode(req.ToolChoice, len(req.Tools) > 0, "Tool choice 'required' must be specified with 'tools' parameter."); isMode {
		return e
	}
	if name := req.ForcedFunction(); name == "" || !names[name] {
		return invalid("tool_choice", "", "Tool choice 'function' not found in 'tools' parameter.")
	}
	return nil
}

// checkItems holds the input items to docFunctions and docConvState: every function_call has
// a call_id, name and arguments and is answered by a function_call_output with its call_id
// later in the input, and every output answers a call before it (wording observed:
// https://github.com/continuedev/continue/issues/10092, "No tool call found for function call
// output with call_id …", and https://github.com/router-for-me/CLIProxyAPI/issues/2368, "No tool
// output found for function call …"; param input). A reasoning item comes back with its id and
// summary; without store, only its encrypted content lets the service use it again
// (docReasoning: store false with include ["reasoning.encrypted_content"]), and one without it
// is looked up and not found (404, wording observed: https://github.com/can1357/oh-my-pi/issues/41).
func checkItems(req ResponsesRequest) *Error {
	called := map[string]bool{}
	var calls []string // in order, for the message naming the first unanswered
	answered := map[string]bool{}
	for i, it := range req.Items {
		at := fmt.Sprintf("input[%d]", i)
		switch it.Kind() {
		case "message":
			if !slices.Contains([]string{"user", "assistant", "system", "developer"}, it.Role) {
				return invalid(at+".role", "invalid_value", "Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)
			}
			if len(it.Content) == 0 || string(it.Content) == "null" {
				return missing(at + ".content")
			}
		case "function_call":
			switch {
			case it.CallID == "":
				return missing(at + ".call_id")
			case it.Name == "":
				return missing(at + ".name")
			case it.Arguments == nil:
				return missing(at + ".arguments")
			}
			if !called[it.CallID] {
				calls = append(calls, it.CallID)
			}
			called[it.CallID] = true
		case "function_call_output":
			switch {
			case it.CallID == "":
				return missing(at + ".call_id")
			case len(it.Output) == 0 || string(it.Output) == "null":
				return missing(at + ".output")
			case !called[it.CallID]:
				return invalid("input", "", "No tool call found for function call output with call_id %s.", it.CallID)
			}
			answered[it.CallID] = true
		case "reasoning":
			switch {
			case it.ID == "":
				return missing(at + ".id")
			case len(it.Summary) == 0:
				return missing(at + ".summary")
			case it.EncryptedContent == nil && !req.Stored():
				return notStored(it.ID)
			}
		case "item_reference":
			if !req.Stored() {
				return notStored(it.ID)
			}
		default:
			// The fake's wording: council sends no other kind of item.
			return invalid(at+".type", "invalid_value", "Invalid value: '%s'.", it.Kind())
		}
	}
	for _, id := range calls {
		if !answered[id] {
			return invalid("input", "", "No tool output found for function call %s.", id)
		}
	}
	return nil
}

func notStored(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Param: ptr("input"),
		Message: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", id)}
}
