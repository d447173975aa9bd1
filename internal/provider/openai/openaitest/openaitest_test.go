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
		name   string
		key    string // "-" for none
		path   string
		body   string
		status int
		inMsg  string
		code   string
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, openaitest.WithModel("llama3.1:8b", 0))
			url := s.URL + "/chat/completions"
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
				if r.body["object"] != "chat.completion" {
					t.Errorf("body = %v, want a chat.completion", r.body)
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
