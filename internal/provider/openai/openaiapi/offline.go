package openaiapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Offline is an http.RoundTripper that plays Chat Completions and the Responses API without a
// network: it holds every request to Check or CheckResponses, answers a refused one with the
// service's error, and any other with the smallest valid answer (a call of the forced or first
// function with no arguments, or "ok"). `council doctor --offline` gives it to the SDK client,
// so that what is checked is the body the SDK actually sends.
type Offline struct {
	Models Models // nil: any model name, no output limit checked
}

// RoundTrip answers one request.
func (o Offline) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		_ = r.Body.Close()
	}
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses") {
		return o.responses(r, body)
	}
	req, raw, err := Decode(body)
	var e *Error
	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		e = &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Message: "offline: only POST /chat/completions and /responses are played"}
	case err != nil:
		e = invalid("", "", "We could not parse the JSON body of your request.")
	default:
		e = Check(raw, req, o.Models)
	}
	if e != nil {
		return reply(r, e.Status, map[string]any{"error": e})
	}
	msg := map[string]any{"role": "assistant", "content": "ok"}
	finish := "stop"
	name := req.ForcedFunction()
	if name == "" && req.ToolRequired() {
		name = req.Tools[0].Function.Name
	}
	if name != "" {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
			"id": "call_offline", "type": "function", "function": map[string]string{"name": name, "arguments": "{}"},
		}}}
		finish = "tool_calls"
	}
	return reply(r, http.StatusOK, map[string]any{
		"id": "chatcmpl-offline", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

func (o Offline) responses(r *http.Request, body []byte) (*http.Response, error) {
	req, raw, err := DecodeResponses(body)
	e := invalid("", "", "We could not parse the JSON body of your request.")
	if err == nil {
		e = CheckResponses(raw, req, o.Models)
	}
	if e != nil {
		return reply(r, e.Status, map[string]any{"error": e})
	}
	item := map[string]any{"type": "message", "id": "msg_offline", "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": "ok", "annotations": []any{}}}}
	name := req.ForcedFunction()
	if name == "" && req.ToolRequired() {
		name = req.Tools[0].Name
	}
	if name != "" {
		item = map[string]any{"type": "function_call", "id": "fc_offline", "call_id": "call_offline", "name": name, "arguments": "{}", "status": "completed"}
	}
	return reply(r, http.StatusOK, map[string]any{
		"id": "resp_offline", "object": "response", "created_at": 0, "status": "completed", "model": req.Model,
		"output": []map[string]any{item},
		"usage": map[string]any{"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
			"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}},
	})
}

func reply(r *http.Request, status int, v any) (*http.Response, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(bytes.NewReader(data)), ContentLength: int64(len(data)), Request: r,
	}, nil
}
