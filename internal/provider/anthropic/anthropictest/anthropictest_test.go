package anthropictest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/provider/anthropic/anthropictest"
)

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func post(t *testing.T, s *anthropictest.Server, header map[string]string, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", s.APIKey)
	req.Header.Set("anthropic-version", "2023-06-01")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
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

func errorOf(r reply) (typ, msg string) {
	e, _ := r.body["error"].(map[string]any)
	typ, _ = e["type"].(string)
	msg, _ = e["message"].(string)
	return typ, msg
}

const hello = `"messages":[{"role":"user","content":"hi"}]`

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		header   map[string]string
		body     string
		status   int
		errType  string
		inMsg    string
		noRecord bool
	}{
		{name: "valid", body: `{"model":"claude-haiku-4-5","max_tokens":5,` + hello + `}`, status: 200},
		{name: "key as bearer token", header: map[string]string{"x-api-key": "", "Authorization": "Bearer " + anthropictest.DefaultAPIKey},
			body: `{"model":"claude-haiku-4-5","max_tokens":5,` + hello + `}`, status: 200},
		{name: "no key", header: map[string]string{"x-api-key": ""}, body: `{}`, status: 401, errType: "authentication_error", inMsg: "x-api-key"},
		{name: "wrong key", header: map[string]string{"x-api-key": "sk-ant-wrong"}, body: `{}`, status: 401, errType: "authentication_error", inMsg: "invalid x-api-key"},
		{name: "no version", header: map[string]string{"anthropic-version": ""}, body: `{}`, status: 400, errType: "invalid_request_error", inMsg: "anthropic-version"},
		{name: "unknown version", header: map[string]string{"anthropic-version": "2024-13-01"}, body: `{}`, status: 400, inMsg: "not a valid version"},
		{name: "not JSON", body: `{`, status: 400, inMsg: "invalid request body", noRecord: true},
		{name: "unknown field", body: `{"model":"claude-haiku-4-5","max_tokens":5,"temprature":1,` + hello + `}`, status: 400, inMsg: "temprature: Extra inputs are not permitted"},
		{name: "no model", body: `{"max_tokens":5,` + hello + `}`, status: 400, inMsg: "model: Field required"},
		{name: "no max_tokens", body: `{"model":"claude-haiku-4-5",` + hello + `}`, status: 400, inMsg: "max_tokens: Field required"},
		{name: "zero max_tokens", body: `{"model":"claude-haiku-4-5","max_tokens":0,` + hello + `}`, status: 400, inMsg: "greater than or equal to 1"},
		{name: "no messages", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[]}`, status: 400, inMsg: "at least one message"},
		{name: "assistant first", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"assistant","content":"x"},{"role":"user","content":"y"}]}`, status: 200},
		{name: "consecutive turns are combined", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, status: 200},
		{name: "whitespace-only text", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":" \n"}]}]}`, status: 400, inMsg: "text content blocks must contain non-whitespace text"},
		{name: "prefill on a model without prefill", body: `{"model":"claude-sonnet-4-6","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`,
			status: 400, inMsg: "This model does not support assistant message prefill. The conversation must end with a user message."},
		{name: "bad role", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"system","content":"b"}]}`, status: 400, inMsg: "messages.1.role"},
		{name: "empty text", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, status: 400, inMsg: "text content blocks must be non-empty"},
		{name: "empty system text", body: `{"model":"claude-haiku-4-5","max_tokens":5,"system":[{"type":"text","text":""}],` + hello + `}`, status: 400, inMsg: "system: text content blocks must be non-empty"},
		{name: "sampling parameter under 2026-10-21", header: map[string]string{"anthropic-version": "2026-10-21"},
			body: `{"model":"claude-haiku-4-5","max_tokens":5,"temperature":0.2,` + hello + `}`, status: 400, inMsg: "temperature"},
		{name: "forced tool without tools", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tool_choice":{"type":"tool","name":"report"},` + hello + `}`, status: 400, inMsg: "tool_choice.tool may only be specified while providing tools"},
		{name: "forced tool not defined", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"other","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"report"},` + hello + `}`, status: 400, inMsg: "Tool 'report' not found"},
		{name: "forced tool defined", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"report"},` + hello + `}`, status: 200},
		{name: "any without tools", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tool_choice":{"type":"any"},` + hello + `}`, status: 400, inMsg: "tool_choice.any may only be specified while providing tools"},
		{name: "any with tools", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"},` + hello + `}`, status: 200},
		{name: "unknown tool_choice type", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report","input_schema":{"type":"object"}}],"tool_choice":{"type":"required"},` + hello + `}`, status: 400, inMsg: "does not match any of the expected tags"},
		{name: "tool without schema", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report"}],` + hello + `}`, status: 400, inMsg: "input_schema: Field required"},
		{name: "schema not an object", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report","input_schema":{"type":"array"}}],` + hello + `}`, status: 400, inMsg: "Input should be 'object'"},
		{name: "unknown model", body: `{"model":"claude-nope","max_tokens":5,` + hello + `}`, status: 404, errType: "not_found_error", inMsg: "model: claude-nope"},
		{name: "dated model", body: `{"model":"claude-haiku-4-5-20251001","max_tokens":64000,` + hello + `}`, status: 200},
		{name: "max_tokens over the model's limit", body: `{"model":"claude-haiku-4-5-20251001","max_tokens":64001,` + hello + `}`, status: 400,
			inMsg: "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5-20251001"},
		{name: "schema with a number as a string", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"r","input_schema":{"type":"object","properties":{"n":{"type":"integer","minimum":"1"}}}}],` + hello + `}`,
			status: 400, inMsg: "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12"},
		{name: "prefill ending in whitespace", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b "}]}`,
			status: 400, inMsg: "final assistant content cannot end with trailing whitespace"},
		{name: "prefill", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`, status: 200},
		{name: "text before a tool result", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"r","input_schema":{"type":"object"}}],"messages":[` +
			`{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"r","input":{}}]},` +
			`{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]}`,
			status: 400, inMsg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1."},
		{name: "bad tool name", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"re port","input_schema":{"type":"object"}}],` + hello + `}`, status: 400, inMsg: "tools.0.custom.name"},
		{name: "duplicate tools", body: `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"a","input_schema":{"type":"object"}}],` + hello + `}`, status: 400, inMsg: "unique"},
		{name: "five breakpoints", body: `{"model":"claude-haiku-4-5","max_tokens":5,"system":[` + strings.Repeat(`{"type":"text","text":"s","cache_control":{"type":"ephemeral"}},`, 4) +
			`{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			status: 400, inMsg: "A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{name: "four breakpoints", body: `{"model":"claude-haiku-4-5","max_tokens":5,"system":[` + strings.Repeat(`{"type":"text","text":"s","cache_control":{"type":"ephemeral"}},`, 3) +
			`{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`, status: 200},
		{name: "bad cache type", body: `{"model":"claude-haiku-4-5","max_tokens":5,"system":[{"type":"text","text":"s","cache_control":{"type":"forever"}}],` + hello + `}`, status: 400, inMsg: "ephemeral"},
		{name: "tool result without tool use", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`,
			status: 400, inMsg: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_1"},
		{name: "tool use without result", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{}}]},{"role":"user","content":"c"}]}`,
			status: 400, inMsg: "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{name: "tool use answered", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"x"}]}]}]}`,
			status: 200},
		{name: "tool use from the user", body: `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{}}]}]}`, status: 400, inMsg: "only appear in assistant messages"},
		{name: "streaming", body: `{"model":"claude-haiku-4-5","max_tokens":5,"stream":true,` + hello + `}`, status: 400, inMsg: "stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := anthropictest.New(t)
			r := post(t, s, tt.header, tt.body)
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d; body %v", r.status, tt.status, r.body)
			}
			if s.Calls() != 1 {
				t.Errorf("calls = %d, want 1", s.Calls())
			}
			if got := len(s.Requests()); got != 1 && !tt.noRecord {
				t.Errorf("recorded %d requests, want 1", got)
			}
			if tt.status == 200 {
				if r.body["type"] != "message" {
					t.Errorf("body = %v, want a message", r.body)
				}
				return
			}
			if r.body["type"] != "error" {
				t.Errorf("body type = %v, want error", r.body["type"])
			}
			typ, msg := errorOf(r)
			wantType := tt.errType
			if wantType == "" {
				wantType = "invalid_request_error"
			}
			if typ != wantType {
				t.Errorf("error type = %q, want %q", typ, wantType)
			}
			if !strings.Contains(msg, tt.inMsg) {
				t.Errorf("error message %q lacks %q", msg, tt.inMsg)
			}
		})
	}
}

func TestResponseShape(t *testing.T) {
	t.Parallel()
	s := anthropictest.New(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{Text: "calling", ToolUse: &anthropictest.ToolUse{ID: "toolu_x", Name: "report", Input: map[string]int{"n": 1}}}
	}))
	r := post(t, s, nil, `{"model":"claude-haiku-4-5","max_tokens":5,"tools":[{"name":"report","input_schema":{"type":"object"}}],`+hello+`}`)
	if r.status != 200 {
		t.Fatalf("status %d: %v", r.status, r.body)
	}
	delete(r.body, "id")
	want := map[string]any{
		"type": "message", "role": "assistant", "model": "claude-haiku-4-5",
		"content": []any{
			map[string]any{"type": "text", "text": "calling"},
			map[string]any{"type": "tool_use", "id": "toolu_x", "name": "report", "input": map[string]any{"n": float64(1)}},
		},
		"stop_reason": "tool_use", "stop_sequence": nil,
		"usage": map[string]any{
			// In: "report" + `{"type":"object"}` + "hi", 25 characters; out: "calling" + "report" + `{"n":1}`, 20.
			"input_tokens": float64(7), "output_tokens": float64(5),
			"cache_creation_input_tokens": float64(0), "cache_read_input_tokens": float64(0),
			"cache_creation": map[string]any{"ephemeral_5m_input_tokens": float64(0), "ephemeral_1h_input_tokens": float64(0)},
			"service_tier":   "standard",
		},
	}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestInjectedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  int
		errType string
	}{
		{429, "rate_limit_error"},
		{529, "overloaded_error"},
		{500, "api_error"},
		{404, "not_found_error"},
	}
	for _, tt := range tests {
		t.Run(tt.errType, func(t *testing.T) {
			t.Parallel()
			s := anthropictest.New(t, anthropictest.WithRespond(func(anthropictest.Request) anthropictest.Reply {
				return anthropictest.ErrorReply(tt.status, "12")
			}))
			r := post(t, s, nil, `{"model":"claude-haiku-4-5","max_tokens":5,`+hello+`}`)
			if typ, _ := errorOf(r); r.status != tt.status || typ != tt.errType {
				t.Errorf("got %d %q, want %d %q", r.status, typ, tt.status, tt.errType)
			}
			if got := r.header.Get("retry-after"); got != "12" {
				t.Errorf("retry-after = %q, want 12", got)
			}
		})
	}
}

// TestCacheAccounting drives the prompt-cache bookkeeping with requests built from blocks of a
// known size: each "x" block is 4000 characters, 1000 tokens.
func TestCacheAccounting(t *testing.T) {
	t.Parallel()
	block := func(c string, cache bool) string {
		cc := ""
		if cache {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		return `{"type":"text","text":"` + strings.Repeat(c, 4000) + `"` + cc + `}`
	}
	body := func(model string, system ...string) string {
		return `{"model":"` + model + `","max_tokens":5,"system":[` + strings.Join(system, ",") + `],"messages":[{"role":"user","content":"hi"}]}`
	}
	type usage struct{ input, write, read float64 }
	steps := []struct {
		name string
		body string
		want usage
	}{
		// 1000 tokens: under the 1024 minimum, so nothing is cached.
		{"short prefix", body("claude-haiku-4-5", block("a", true)), usage{input: 1001}},
		{"short prefix again", body("claude-haiku-4-5", block("a", true)), usage{input: 1001}},
		// 2000 tokens up to the breakpoint are written.
		{"write", body("claude-haiku-4-5", block("a", false), block("b", true)), usage{input: 1, write: 2000}},
		{"read", body("claude-haiku-4-5", block("a", false), block("b", true)), usage{input: 1, read: 2000}},
		// The breakpoint moved one block on: the earlier prefix is read, the new block written.
		{"read then write", body("claude-haiku-4-5", block("a", false), block("b", false), block("c", true)), usage{input: 1, read: 2000, write: 1000}},
		// Caches are per model.
		{"other model", body("claude-opus-4-5", block("a", false), block("b", true)), usage{input: 1, write: 2000}},
		// A different first block changes every prefix.
		{"changed prefix", body("claude-haiku-4-5", block("z", false), block("b", true)), usage{input: 1, write: 2000}},
		// No breakpoint: no caching, even of a known prefix.
		{"no breakpoint", body("claude-haiku-4-5", block("a", false), block("b", false)), usage{input: 2001}},
	}
	s := anthropictest.New(t)
	for _, st := range steps {
		r := post(t, s, nil, st.body)
		if r.status != 200 {
			t.Fatalf("%s: status %d: %v", st.name, r.status, r.body)
		}
		u := r.body["usage"].(map[string]any)
		got := usage{input: u["input_tokens"].(float64), write: u["cache_creation_input_tokens"].(float64), read: u["cache_read_input_tokens"].(float64)}
		if got != st.want {
			t.Errorf("%s: usage = %+v, want %+v", st.name, got, st.want)
		}
	}
}

func TestRequestsRecorded(t *testing.T) {
	t.Parallel()
	s := anthropictest.New(t)
	body := bytes.NewBufferString(`{"model":"claude-haiku-4-5","max_tokens":7,"system":"be brief",` + hello + `}`)
	post(t, s, map[string]string{"anthropic-beta": "x"}, body.String())
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	got := reqs[0]
	if got.Model != "claude-haiku-4-5" || *got.MaxTokens != 7 || got.Header.Get("anthropic-beta") != "x" {
		t.Errorf("request = %+v", got)
	}
	if diff := cmp.Diff(anthropictest.Blocks{{Type: "text", Text: "be brief"}}, got.System); diff != "" {
		t.Errorf("a string system prompt decodes to one text block (-want +got):\n%s", diff)
	}
}

// TestAnyCallsFirstTool: with tool_choice "any" the default answer calls the first tool.
func TestAnyCallsFirstTool(t *testing.T) {
	t.Parallel()
	s := anthropictest.New(t)
	tools := `"tools":[{"name":"greet","input_schema":{"type":"object"}},{"name":"report","input_schema":{"type":"object"}}]`
	r := post(t, s, nil, `{"model":"claude-haiku-4-5","max_tokens":5,`+tools+`,"tool_choice":{"type":"any"},`+hello+`}`)
	if r.status != 200 {
		t.Fatalf("status %d: %v", r.status, r.body)
	}
	content := r.body["content"].([]any)
	last := content[len(content)-1].(map[string]any)
	if last["type"] != "tool_use" || last["name"] != "greet" || r.body["stop_reason"] != "tool_use" {
		t.Errorf("body = %v, want a call of greet", r.body)
	}
}

// TestModelsEndpoint: GET /v1/models/{id} answers a served model, and a retired one as one the
// service never served.
func TestModelsEndpoint(t *testing.T) {
	t.Parallel()
	s := anthropictest.New(t)
	for _, tt := range []struct {
		id     string
		status int
	}{
		{"claude-sonnet-5-5", 200},
		{"claude-haiku-4-5-20251001", 200},
		{"claude-sonnet-4-5", 404},
		{"claude-sonnet-4-5-20250929", 404},
		{"claude-3-5-haiku-latest", 404},
		{"claude-nope", 404},
	} {
		req, err := http.NewRequest(http.MethodGet, s.URL+"/v1/models/"+tt.id, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-api-key", s.APIKey)
		req.Header.Set("anthropic-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("GET /v1/models/%s = %d, want %d", tt.id, resp.StatusCode, tt.status)
		}
	}
}

// TestThinkingAnswers: a model that thinks by default begins every answer with a signed, empty
// thinking block, except the call of a forced tool; one that does not think never does.
func TestThinkingAnswers(t *testing.T) {
	t.Parallel()
	tools := `"tools":[{"name":"greet","input_schema":{"type":"object"}},{"name":"report","input_schema":{"type":"object"}}]`
	ask := `"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"Answer now by calling the report tool."}]}]`
	tests := []struct {
		name  string
		body  string
		types []string // the answer's block types
		call  string
	}{
		{"text", `{"model":"claude-sonnet-5-5","max_tokens":5,` + hello + `}`, []string{"thinking", "text"}, ""},
		{"auto with tools calls the first", `{"model":"claude-sonnet-5-5","max_tokens":5,` + tools + `,` + hello + `}`, []string{"thinking", "tool_use"}, "greet"},
		{"auto calls the tool asked for", `{"model":"claude-opus-5-5","max_tokens":5,` + tools + `,` + ask + `}`, []string{"thinking", "tool_use"}, "report"},
		{"forced tool skips thinking", `{"model":"claude-haiku-5-5","max_tokens":5,` + tools + `,"tool_choice":{"type":"tool","name":"report"},` + hello + `}`, []string{"tool_use"}, "report"},
		{"auto on a model that can be forced answers text", `{"model":"claude-haiku-5-5","max_tokens":5,` + tools + `,` + hello + `}`, []string{"thinking", "text"}, ""},
		{"no thinking by default", `{"model":"claude-sonnet-4-6","max_tokens":5,` + hello + `}`, []string{"text"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := anthropictest.New(t)
			r := post(t, s, nil, tt.body)
			if r.status != 200 {
				t.Fatalf("status %d: %v", r.status, r.body)
			}
			var types []string
			call := ""
			for _, c := range r.body["content"].([]any) {
				b := c.(map[string]any)
				types = append(types, b["type"].(string))
				if b["type"] == "thinking" && (b["thinking"] != "" || b["signature"] == "") {
					t.Errorf("thinking block %v, want empty text and a signature", b)
				}
				if b["type"] == "tool_use" {
					call = b["name"].(string)
				}
			}
			if diff := cmp.Diff(tt.types, types); diff != "" || call != tt.call {
				t.Errorf("answer %v, want blocks %v calling %q", r.body["content"], tt.types, tt.call)
			}
		})
	}
}

func TestToolAsked(t *testing.T) {
	t.Parallel()
	user := func(texts ...string) anthropictest.Message {
		m := anthropictest.Message{Role: "user"}
		for _, s := range texts {
			m.Content = append(m.Content, anthropictest.Block{Type: "text", Text: s})
		}
		return m
	}
	tests := []struct {
		name string
		req  anthropictest.Request
		want string
	}{
		{"forced", anthropictest.Request{ToolChoice: &anthropictest.ToolChoice{Type: "tool", Name: "report"}, Messages: []anthropictest.Message{user("hi")}}, "report"},
		{"asked", anthropictest.Request{Messages: []anthropictest.Message{user("hi", "Answer now by calling the submit_review tool.")}}, "submit_review"},
		{"asked in an earlier turn", anthropictest.Request{Messages: []anthropictest.Message{user("Answer now by calling the x tool."), {Role: "assistant", Content: anthropictest.Blocks{{Type: "text", Text: "no"}}}, user("go on")}}, ""},
		{"neither", anthropictest.Request{Messages: []anthropictest.Message{user("hi")}}, ""},
	}
	for _, tt := range tests {
		if got := anthropictest.ToolAsked(tt.req); got != tt.want {
			t.Errorf("%s: ToolAsked = %q, want %q", tt.name, got, tt.want)
		}
	}
}
