package openaiapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Offline is an http.RoundTripper that plays Chat Completions without a network: it holds
// every request to Check, answers a refused one with the service's error, and any other with
// the smallest valid completion (a call of the forced or first function with no arguments, or
// "ok"). `council doctor --offline` gives it to the SDK client, so that what is checked is the
// body the SDK actually sends.
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
	req, raw, err := Decode(body)
	var e *Error
	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		e = &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Message: "offline: only POST /chat/completions is played"}
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
