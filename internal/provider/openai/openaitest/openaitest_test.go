package openaitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/council-dev/council/internal/provider/openai/openaitest"
)

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func post(t *testing.T, url, key, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header}
	if err := json.Unmarshal(data, &r.body); err != nil {
		t.Fatalf("body %q is not JSON: %v", data, err)
	}
	return r
}

func errorOf(r reply) (msg, code string) {
	e, _ := r.body["error"].(map[string]any)
	msg, _ = e["message"].(string)
	code, _ = e["code"].(string)
	return msg, code
}

const (
	hi     = `"messages":[{"role":"user","content":"hi"}]`
	report = `"tools":[{"type":"function","function":{"name":"report","parameters":{"type":"object"}}}]`
)

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		key       string // "-" for none
		path      string
		responses bool // POST /responses (openaiapi cites the page or report of each rule)
		body      string
		status    int
		inMsg     string
		code      string
	}{
		{name: "valid", body: `{"model":"gpt-4.1",` + hi + `}`, status: 200},
		{name: "no key", key: "-", body: `{"model":"gpt-4.1",` + hi + `}`, status: 401, inMsg: "You didn't provide an API key"},
		{name: "wrong key is masked", key: "sk-wrongwrongwrong9876", body: `{}`, status: 401, inMsg: "Incorrect API key provided: sk-w**************9876.", code: "invalid_api_key"},
		{name: "path without /v1", path: "/chat/completions", body: `{}`, status: 404, inMsg: "Invalid URL (POST /chat/completions)"},
		{name: "not JSON", body: `{`, status: 400, inMsg: "could not parse the JSON body"},
		{name: "no model", body: `{` + hi + `}`, status: 400, inMsg: "you must provide a model parameter"},
		{name: "unknown parameter", body: `{"model":"gpt-4.1","max_output_tokens":5,` + hi + `}`, status: 400, inMsg: "Unrecognized request argument supplied: max_output_tokens"},
		{name: "unknown model", body: `{"model":"gpt-nope",` + hi + `}`, status: 404, inMsg: "gpt-nope\x60 does not exist or you do not have access to it", code: "model_not_found"},
		{name: "dated model", body: `{"model":"gpt-4.1-2025-04-14","max_tokens":32768,` + hi + `}`, status: 200},
		{name: "output over the model's limit", body: `{"model":"gpt-4.1-2025-04-14","max_tokens":32769,` + hi + `}`, status: 400,
			inMsg: "max_tokens is too large: 32769. This model supports at most 32768 completion tokens, whereas you provided 32769.", code: "invalid_value"},
		{name: "schema with a number as a string", body: `{"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"r","parameters":{"type":"object","properties":{"n":{"type":"integer","minimum":"1"}}}}}],` + hi + `}`,
			status: 400, inMsg: "Invalid schema for function 'r'", code: "invalid_function_parameters"},
		{name: "no messages", body: `{"model":"gpt-4.1","messages":[]}`, status: 400, inMsg: "empty array", code: "empty_array"},
		{name: "bad role", body: `{"model":"gpt-4.1","messages":[{"role":"robot","content":"x"}]}`, status: 400, code: "invalid_value"},
		{name: "max_tokens on a reasoning model", body: `{"model":"o3","max_tokens":5,` + hi + `}`, status: 400, inMsg: "Use 'max_completion_tokens' instead", code: "unsupported_parameter"},
		{name: "max_completion_tokens on a reasoning model", body: `{"model":"gpt-5-mini","max_completion_tokens":5,` + hi + `}`, status: 200},
		{name: "max_tokens elsewhere", body: `{"model":"llama3.1:8b","max_tokens":5,` + hi + `}`, status: 200},
		{name: "tool_choice without tools", body: `{"model":"gpt-4.1","tool_choice":"required",` + hi + `}`, status: 400, inMsg: "only allowed when 'tools' are specified"},
		{name: "required with tools", body: `{"model":"gpt-4.1",` + report + `,"tool_choice":"required",` + hi + `}`, status: 200},
		{name: "unknown tool_choice mode", body: `{"model":"gpt-4.1",` + report + `,"tool_choice":"any",` + hi + `}`, status: 400, inMsg: "Supported values are", code: "invalid_value"},
		{name: "forced function not defined", body: `{"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"other"}}],"tool_choice":{"type":"function","function":{"name":"report"}},` + hi + `}`, status: 400, inMsg: "function 'report' not found"},
		{name: "forced function defined", body: `{"model":"gpt-4.1",` + report + `,"tool_choice":{"type":"function","function":{"name":"report"}},` + hi + `}`, status: 200},
		{name: "bad function name", body: `{"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"re port"}}],` + hi + `}`, status: 400, code: "invalid_value"},
		{name: "parameters not an object", body: `{"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"r","parameters":{"type":"array"}}}],` + hi + `}`, status: 400, code: "invalid_function_parameters"},
		{name: "tool message without a call", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`, status: 400, inMsg: "must be a response to a preceeding message with 'tool_calls'"}, //nolint:misspell // OpenAI's own wording
		{name: "tool message answering another id", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"r","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_2","content":"x"}]}`, status: 400, inMsg: "'call_2' not found"},
		{name: "call left unanswered", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"r","arguments":"{}"}}]},{"role":"user","content":"b"}]}`, status: 400, inMsg: "did not have response messages: call_1"},
		{name: "calls answered", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"r","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"r","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"tool","tool_call_id":"call_2","content":"y"},{"role":"user","content":"b"}]}`, status: 200},
		{name: "assistant with nothing", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null},{"role":"user","content":"b"}]}`, status: 400, inMsg: "expected a string, got null"},
		{responses: true, name: "responses: valid", body: `{"model":"gpt-6.2-sol",` + in + `}`, status: 200},
		{responses: true, name: "responses: string input", body: `{"model":"gpt-6.2-sol","input":"hi"}`, status: 200},
		{responses: true, name: "responses: unknown parameter", body: `{"model":"gpt-6.2-sol","max_tokens":100,` + in + `}`, status: 400, inMsg: "Unknown parameter: 'max_tokens'.", code: "unknown_parameter"},
		{responses: true, name: "responses: no model", body: `{` + in + `}`, status: 400, inMsg: "Missing required parameter: 'model'.", code: "missing_required_parameter"},
		{responses: true, name: "responses: unknown model", body: `{"model":"gpt-nope",` + in + `}`, status: 404, inMsg: "The model `gpt-nope` does not exist or you do not have access to it.", code: "model_not_found"},
		{responses: true, name: "responses: max_output_tokens below 16", body: `{"model":"gpt-6.2-sol","max_output_tokens":1,` + in + `}`, status: 400,
			inMsg: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead.", code: "integer_below_min_value"},
		{responses: true, name: "responses: max_output_tokens above the model's", body: `{"model":"gpt-6.2-sol","max_output_tokens":128001,` + in + `}`, status: 400, inMsg: "max_output_tokens is too large: 128001.", code: "invalid_value"},
		{responses: true, name: "responses: prompt_cache_key too long", body: `{"model":"gpt-6.2-sol","prompt_cache_key":"` + strings.Repeat("k", 65) + `",` + in + `}`, status: 400,
			inMsg: "Invalid 'prompt_cache_key': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.", code: "string_above_max_length"},
		{responses: true, name: "responses: reasoning effort none on gpt-6.2-sol", body: `{"model":"gpt-6.2-sol","reasoning":{"effort":"none"},` + in + `}`, status: 400, code: "unsupported_value"},
		{responses: true, name: "responses: a tool in Chat Completions' shape", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","function":{"name":"report","parameters":{"type":"object"}}}],` + in + `}`, status: 400,
			inMsg: "Missing required parameter: 'tools[0].name'.", code: "missing_required_parameter"},
		{responses: true, name: "responses: function tool without parameters", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"report","strict":false}],` + in + `}`, status: 400,
			inMsg: "Missing required parameter: 'tools[0].parameters'.", code: "missing_required_parameter"},
		{responses: true, name: "responses: parameters that are not JSON Schema", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"r","strict":false,"parameters":{"type":"object","properties":{"n":{"type":"integer","minimum":"1"}}}}],` + in + `}`, status: 400,
			inMsg: "Invalid schema for function 'r'", code: "invalid_function_parameters"},
		{responses: true, name: "responses: strict with an optional property", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"r","strict":true,"parameters":` + openSch + `}],` + in + `}`, status: 400,
			inMsg: "Invalid schema for function 'r': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'n'.", code: "invalid_function_parameters"},
		{responses: true, name: "responses: strict with an open nested object", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"r","strict":true,"parameters":` + nestedSch + `}],` + in + `}`, status: 400,
			inMsg: "In context=('properties', 'f', 'items'), 'additionalProperties' is required to be supplied and to be false.", code: "invalid_function_parameters"},
		{responses: true, name: "responses: strict with a keyword strict mode does not support", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"r","strict":true,"parameters":{"type":"object","properties":{"s":{"type":"string","minLength":1}},"required":["s"],"additionalProperties":false}}],` + in + `}`, status: 400,
			inMsg: "Invalid schema for function 'r': In context=('properties', 's'), 'minLength' is not permitted.", code: "invalid_function_parameters"},
		{responses: true, name: "responses: not strict with an optional property", body: `{"model":"gpt-6.2-sol","tools":[{"type":"function","name":"r","strict":false,"parameters":` + openSch + `}],` + in + `}`, status: 200},
		{responses: true, name: "responses: strict with every property required", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],` + in + `}`, status: 200},
		{responses: true, name: "responses: required without tools", body: `{"model":"gpt-6.2-sol","tool_choice":"required",` + in + `}`, status: 400, inMsg: "Tool choice 'required' must be specified with 'tools' parameter."},
		{responses: true, name: "responses: forced function not among the tools", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],"tool_choice":{"type":"function","name":"other"},` + in + `}`, status: 400, inMsg: "Tool choice 'function' not found in 'tools' parameter."},
		{responses: true, name: "responses: forced function", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],"tool_choice":{"type":"function","name":"report"},` + in + `}`, status: 200},
		{responses: true, name: "responses: unknown tool_choice mode", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],"tool_choice":"any",` + in + `}`, status: 400, code: "invalid_value"},
		{responses: true, name: "responses: call and output paired", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],"input":[{"role":"user","content":"hi"},` + callPair + `]}`, status: 200},
		{responses: true, name: "responses: output without its call", body: `{"model":"gpt-6.2-sol","input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"call_9","output":"x"}]}`, status: 400,
			inMsg: "No tool call found for function call output with call_id call_9."},
		{responses: true, name: "responses: call without its output", body: `{"model":"gpt-6.2-sol","tools":[` + fnReport + `],"input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"call_1","name":"report","arguments":"{}"},{"role":"user","content":"go on"}]}`, status: 400,
			inMsg: "No tool output found for function call call_1."},
		{responses: true, name: "responses: output without output", body: `{"model":"gpt-6.2-sol","input":[{"type":"function_call","call_id":"call_1","name":"report","arguments":"{}"},{"type":"function_call_output","call_id":"call_1"}]}`, status: 400,
			inMsg: "Missing required parameter: 'input[1].output'.", code: "missing_required_parameter"},
		{responses: true, name: "responses: bad role", body: `{"model":"gpt-6.2-sol","input":[{"role":"tool","content":"x"}]}`, status: 400, code: "invalid_value"},
		{responses: true, name: "responses: reasoning item without summary", body: `{"model":"gpt-6.2-sol","store":false,"input":[{"type":"reasoning","id":"rs_1","encrypted_content":"x"},{"role":"user","content":"hi"}]}`, status: 400,
			inMsg: "Missing required parameter: 'input[0].summary'.", code: "missing_required_parameter"},
		{responses: true, name: "responses: reasoning item without its content, not stored", body: `{"model":"gpt-6.2-sol","store":false,"input":[{"type":"reasoning","id":"rs_1","summary":[]},{"role":"user","content":"hi"}]}`, status: 404,
			inMsg: "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false."},
		{responses: true, name: "responses: reasoning item not issued by the service", body: `{"model":"gpt-6.2-sol","store":false,"input":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAforgedforgedforged=="},{"role":"user","content":"hi"}]}`, status: 400,
			inMsg: "The encrypted content gAAA...ed== could not be verified.", code: "invalid_encrypted_content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, openaitest.WithModel("llama3.1:8b", 0))
			url, object := s.URL+"/chat/completions", "chat.completion"
			if tt.responses {
				url, object = s.URL+"/responses", "response"
			}
			if tt.path != "" {
				url = strings.TrimSuffix(s.URL, openaitest.BasePath) + tt.path
			}
			key := s.APIKey
			switch tt.key {
			case "-":
				key = ""
			case "":
			default:
				key = tt.key
			}
			r := post(t, url, key, tt.body)
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d; body %v", r.status, tt.status, r.body)
			}
			if tt.status == 200 {
				if r.body["object"] != object {
					t.Errorf("body = %v, want a %s", r.body, object)
				}
				return
			}
			msg, code := errorOf(r)
			if !strings.Contains(msg, tt.inMsg) || code != tt.code {
				t.Errorf("error = %q (code %q), want it to contain %q (code %q)", msg, code, tt.inMsg, tt.code)
			}
		})
	}
}

func TestNoAuth(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.WithNoAuth(), openaitest.WithModel("llama3.1:8b", 0))
	if r := post(t, s.URL+"/chat/completions", "", `{"model":"llama3.1:8b",`+hi+`}`); r.status != 200 {
		t.Errorf("status = %d, want 200 without a key", r.status)
	}
	if r := post(t, s.URL+"/chat/completions", "anything", `{"model":"llama3.1:8b",`+hi+`}`); r.status != 200 {
		t.Errorf("status = %d, want 200 with any key", r.status)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.WithRespond(func(openaitest.Request) openaitest.Reply {
		return openaitest.ErrorReply(429, "3")
	}))
	r := post(t, s.URL+"/chat/completions", s.APIKey, `{"model":"gpt-4.1",`+hi+`}`)
	if _, code := errorOf(r); r.status != 429 || code != "rate_limit_exceeded" {
		t.Fatalf("got %d %q, want 429 rate_limit_exceeded", r.status, code)
	}
	for k, want := range map[string]string{
		"retry-after": "3", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "2.4s", "x-ratelimit-limit-requests": "500",
	} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// TestPrefixCaching checks OpenAI's automatic caching: nothing under 1024 tokens, then the
// shared prefix in 1024 + 128*n tokens.
func TestPrefixCaching(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	body := func(model, system, user string) string {
		return `{"model":"` + model + `","messages":[{"role":"system","content":"` + system + `"},{"role":"user","content":"` + user + `"}]}`
	}
	long := strings.Repeat("x", 6000) // with "system\x00" and "\x00": 6008 characters
	steps := []struct {
		name       string
		body       string
		wantCached float64
	}{
		{"first", body("gpt-4.1", long, "one"), 0},
		// Shared: 6008 + "user\x00" = 6013 characters, 1503 tokens: 1024 + 3*128.
		{"same prefix", body("gpt-4.1", long, "two"), 1408},
		{"other model", body("gpt-4.1-mini", long, "two"), 0},
		{"short prompt", body("gpt-4.1", "short", "one"), 0},
		{"short prompt again", body("gpt-4.1", "short", "one"), 0},
	}
	for _, st := range steps {
		r := post(t, s.URL+"/chat/completions", s.APIKey, st.body)
		if r.status != 200 {
			t.Fatalf("%s: status %d", st.name, r.status)
		}
		u := r.body["usage"].(map[string]any)
		got := u["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)
		if got != st.wantCached {
			t.Errorf("%s: cached_tokens = %v, want %v", st.name, got, st.wantCached)
		}
		if u["total_tokens"].(float64) != u["prompt_tokens"].(float64)+u["completion_tokens"].(float64) {
			t.Errorf("%s: total_tokens is not prompt + completion: %v", st.name, u)
		}
	}
}

func TestForcedCallFinishReason(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	r := post(t, s.URL+"/chat/completions", s.APIKey, `{"model":"gpt-4.1",`+report+`,"tool_choice":{"type":"function","function":{"name":"report"}},`+hi+`}`)
	choice := r.body["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	calls := msg["tool_calls"].([]any)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	if choice["finish_reason"] != "stop" || fn["name"] != "report" || fn["arguments"] != "{}" || msg["content"] != nil {
		t.Errorf("choice = %v, want a forced call of report ending with stop", choice)
	}
}

// TestRequiredCall: with tool_choice "required" the default answer calls the first function,
// and ends with "tool_calls" as the service does for a call it did not name.
func TestRequiredCall(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	tools := `"tools":[{"type":"function","function":{"name":"greet","parameters":{"type":"object"}}},{"type":"function","function":{"name":"report","parameters":{"type":"object"}}}]`
	r := post(t, s.URL+"/chat/completions", s.APIKey, `{"model":"gpt-4.1",`+tools+`,"tool_choice":"required",`+hi+`}`)
	choice := r.body["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	calls := msg["tool_calls"].([]any)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	if choice["finish_reason"] != "tool_calls" || fn["name"] != "greet" || fn["arguments"] != "{}" {
		t.Errorf("choice = %v, want a call of greet ending with tool_calls", choice)
	}
	if !s.Requests()[0].ToolRequired() {
		t.Error("ToolRequired() = false for tool_choice \"required\"")
	}
}

const (
	in        = `"input":[{"role":"user","content":"hi"}]`
	fnReport  = `{"type":"function","name":"report","parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":true}`
	callPair  = `{"type":"function_call","call_id":"call_1","name":"report","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"done"}`
	openSch   = `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	nestedSch = `{"type":"object","properties":{"f":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}},"required":["f"],"additionalProperties":false}`
)

// TestResponsesReasoningItems: a reasoning model's answer begins with a reasoning item whose
// encrypted content comes only when asked for; sent back unchanged it is accepted, changed it
// is refused.
func TestResponsesReasoningItems(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	r := post(t, s.URL+"/responses", s.APIKey, `{"model":"gpt-6.2-sol","store":false,"include":["reasoning.encrypted_content"],"tools":[`+fnReport+`],"tool_choice":"required",`+in+`}`)
	out := r.body["output"].([]any)
	if len(out) != 2 {
		t.Fatalf("output = %v, want a reasoning item and a call", out)
	}
	rs, fc := out[0].(map[string]any), out[1].(map[string]any)
	enc, _ := rs["encrypted_content"].(string)
	if rs["type"] != "reasoning" || enc == "" || fc["type"] != "function_call" || fc["name"] != "report" {
		t.Fatalf("output = %v", out)
	}
	if u := r.body["usage"].(map[string]any); u["output_tokens_details"].(map[string]any)["reasoning_tokens"].(float64) <= 0 {
		t.Errorf("usage = %v, want reasoning tokens", u)
	}
	next := func(enc string) reply {
		item := `{"type":"reasoning","id":"` + rs["id"].(string) + `","summary":[],"encrypted_content":"` + enc + `"}`
		call := `{"type":"function_call","call_id":"` + fc["call_id"].(string) + `","name":"report","arguments":"{}"},{"type":"function_call_output","call_id":"` + fc["call_id"].(string) + `","output":"ok"}`
		return post(t, s.URL+"/responses", s.APIKey, `{"model":"gpt-6.2-sol","store":false,"tools":[`+fnReport+`],"input":[{"role":"user","content":"hi"},`+item+`,`+call+`]}`)
	}
	if r := next(enc); r.status != 200 {
		t.Errorf("unchanged reasoning item refused: %d %v", r.status, r.body)
	}
	if r := next(enc[:len(enc)-4] + "AAA="); r.status != 400 {
		t.Errorf("changed reasoning item: status %d, want 400", r.status)
	}
	// Without include, the item carries no encrypted content.
	r = post(t, s.URL+"/responses", s.APIKey, `{"model":"gpt-6.2-sol",`+in+`}`)
	if _, ok := r.body["output"].([]any)[0].(map[string]any)["encrypted_content"]; ok {
		t.Errorf("encrypted content without include: %v", r.body["output"])
	}
}

// TestResponsesPromptCacheKey: the shared prefix is read from the cache under the same
// prompt_cache_key only.
func TestResponsesPromptCacheKey(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	long := strings.Repeat("x", 6000)
	body := func(key, user string) string {
		return `{"model":"gpt-6.2-sol","prompt_cache_key":"` + key + `","instructions":"` + long + `","input":[{"role":"user","content":"` + user + `"}]}`
	}
	for _, st := range []struct {
		name, body string
		cached     bool
	}{
		{"first", body("k1", "one"), false},
		{"same key", body("k1", "two"), true},
		{"another key", body("k2", "two"), false},
	} {
		r := post(t, s.URL+"/responses", s.APIKey, st.body)
		cached := r.body["usage"].(map[string]any)["input_tokens_details"].(map[string]any)["cached_tokens"].(float64)
		if (cached > 0) != st.cached {
			t.Errorf("%s: cached_tokens = %v, want cached %v", st.name, cached, st.cached)
		}
	}
}

// TestServerPlays: a compatible server without the Responses API, a key without access to a
// model, a model without tools, and the shutdown date on the models endpoint.
func TestServerPlays(t *testing.T) {
	t.Parallel()
	chatOnly := openaitest.New(t, openaitest.WithoutResponsesAPI())
	if r := post(t, chatOnly.URL+"/responses", chatOnly.APIKey, `{"model":"gpt-6.2-sol",`+in+`}`); r.status != 404 {
		t.Errorf("chat-only server: /responses status %d, want 404", r.status)
	}
	if r := post(t, chatOnly.URL+"/chat/completions", chatOnly.APIKey, `{"model":"gpt-4.1",`+hi+`}`); r.status != 200 {
		t.Errorf("chat-only server: /chat/completions status %d, want 200", r.status)
	}
	if got := chatOnly.Paths(); len(got) != 2 || got[0] != "POST /v1/responses" || got[1] != "POST /v1/chat/completions" {
		t.Errorf("paths = %v", got)
	}

	s := openaitest.New(t, openaitest.WithoutAccess("gpt-6-astra"), openaitest.WithoutTools("gpt-6-luna"))
	r := post(t, s.URL+"/responses", s.APIKey, `{"model":"gpt-6-astra",`+in+`}`)
	if msg, code := errorOf(r); r.status != 403 || code != "model_not_found" || !strings.Contains(msg, "does not have access to model `gpt-6-astra`") {
		t.Errorf("no access: %d %q %q", r.status, code, msg)
	}
	r = post(t, s.URL+"/chat/completions", s.APIKey, `{"model":"gpt-6-luna",`+report+`,"reasoning_effort":"none",`+hi+`}`)
	if msg, _ := errorOf(r); r.status != 400 || msg != "registry.ollama.ai/library/gpt-6-luna does not support tools" {
		t.Errorf("no tools: %d %q", r.status, msg)
	}
	if r := post(t, s.URL+"/chat/completions", s.APIKey, `{"model":"gpt-6-luna",`+hi+`}`); r.status != 200 {
		t.Errorf("no tools, none sent: status %d", r.status)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/models/gpt-4.1", nil)
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m["shutdown_date"] != "2027-01-14" {
		t.Errorf("gpt-4.1: %v, want shutdown_date 2027-01-14", m)
	}
}
