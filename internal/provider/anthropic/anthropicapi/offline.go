package anthropicapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// Offline is an http.RoundTripper that plays the Messages API without a network: it holds
// every request to Check, answers a refused one with the service's error, and any other with
// the smallest valid message (a call with no arguments of the tool DefaultTool picks, or "ok").
// `council doctor --offline` gives it to the SDK client, so that what is checked is the body
// the SDK actually sends.
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
	e := CheckVersion(r.Header)
	switch {
	case e != nil:
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		e = &Error{Status: http.StatusNotFound, Type: "not_found_error", Message: "offline: only POST /v1/messages is played"}
	case err != nil:
		e = invalid("invalid request body: %v", err)
	default:
		e = Check(r.Header, raw, req, o.Models)
	}
	if e != nil {
		return reply(r, e.Status, map[string]any{"type": "error", "error": map[string]string{"type": e.Type, "message": e.Message}})
	}
	content := []map[string]any{{"type": "text", "text": "ok"}}
	stop := "end_turn"
	m, _ := o.Models.Lookup(req.Model)
	name := DefaultTool(req, m)
	if name != "" {
		content = []map[string]any{{"type": "tool_use", "id": "toolu_offline", "name": name, "input": map[string]any{}}}
		stop = "tool_use"
	}
	return reply(r, http.StatusOK, map[string]any{
		"id": "msg_offline", "type": "message", "role": "assistant", "model": req.Model, "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0},
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
