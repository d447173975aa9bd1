package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleRequest() Request {
	return Request{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 100,
		System:    []Block{{Type: Text, Text: "system", Cache: true}},
		Messages:  []Message{{Role: User, Content: []Block{{Type: Text, Text: "hello"}}}},
		Tools:     []Tool{{Name: "report", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}},
	}
}

func TestRequestHash(t *testing.T) {
	t.Parallel()
	base := RequestHash("anthropic", sampleRequest())
	if len(base) != 32 {
		t.Fatalf("hash %q is not 32 hex digits", base)
	}
	tests := []struct {
		name     string
		provider string
		change   func(*Request)
		same     bool
	}{
		{"identical", "anthropic", func(*Request) {}, true},
		{"schema key order and spacing", "anthropic", func(r *Request) {
			r.Tools[0].InputSchema = json.RawMessage(`{ "properties": {"a": {"type": "string"}}, "type": "object" }`)
		}, true},
		{"other provider", "openai", func(*Request) {}, false},
		{"other model", "anthropic", func(r *Request) { r.Model = "claude-opus-4-5" }, false},
		{"other text", "anthropic", func(r *Request) { r.Messages[0].Content[0].Text = "hello!" }, false},
		{"cache flag", "anthropic", func(r *Request) { r.System[0].Cache = false }, false},
		{"forced tool", "anthropic", func(r *Request) { r.ToolName = "report" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := sampleRequest()
			tt.change(&req)
			if got := RequestHash(tt.provider, req); (got == base) != tt.same {
				t.Errorf("hash %s vs %s: same = %v, want %v", got, base, got == base, tt.same)
			}
		})
	}
}

// stub answers every request with a fixed response and counts calls.
type stub struct {
	resp  Response
	err   error
	calls int
}

func (s *stub) Complete(context.Context, Request) (Response, error) {
	s.calls++
	return s.resp, s.err
}

func TestRecordReplay(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "exchanges")
	want := Response{
		Model: "claude-sonnet-4-5", StopReason: StopEndTurn,
		Content: []Block{{Type: Text, Text: "answer"}},
		Usage:   Usage{Requests: 1, InputTokens: 10, OutputTokens: 2, CacheReadTokens: 5, CostUSD: 0.01},
	}
	next := &stub{resp: want}
	req := sampleRequest()

	got, err := Record(next, "anthropic", dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded call (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != RequestHash("anthropic", req)+".json" {
		t.Fatalf("dir holds %v, want one <hash>.json and no temporary file", entries)
	}
	data, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n  \"provider\": \"anthropic\"") {
		t.Errorf("exchange is not indented JSON:\n%s", data)
	}

	replayed, err := Replay("anthropic", dir).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, replayed); diff != "" {
		t.Errorf("replayed (-want +got):\n%s", diff)
	}
	if next.calls != 1 {
		t.Errorf("next called %d times, want 1", next.calls)
	}
}

func TestRecordDoesNotStoreFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	next := &stub{err: &RateLimitError{Provider: "p"}}
	_, err := Record(next, "p", dir).Complete(context.Background(), sampleRequest())
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v, want the RateLimitError through", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed call was recorded: %v", entries)
	}
}

func TestRecordWriteFailure(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	resp, err := Record(&stub{resp: Response{Model: "m"}}, "p", file).Complete(context.Background(), sampleRequest())
	if err == nil || !strings.Contains(err.Error(), "record p exchange") {
		t.Fatalf("err = %v, want a record error", err)
	}
	if resp.Model != "m" {
		t.Errorf("response not returned alongside the write error")
	}
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := sampleRequest()
	hash, err := SaveRequest("anthropic", dir, req)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		provider   string
		req        Request
		wantDryRun bool
		wantIn     []string
	}{
		{"dry run saved only", "anthropic", req, true, []string{hash, dir, "dry run", "--record"}},
		{"never recorded", "openai", req, false, []string{RequestHash("openai", req), dir, "--record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Replay(tt.provider, dir).Complete(context.Background(), tt.req)
			var missing *MissingExchangeError
			if !errors.As(err, &missing) || missing.DryRun != tt.wantDryRun || missing.Dir != dir {
				t.Fatalf("err = %#v, want MissingExchangeError{DryRun: %v}", err, tt.wantDryRun)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestSaveRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := sampleRequest()
	hash, err := SaveRequest("anthropic", dir, req)
	if err != nil {
		t.Fatal(err)
	}
	if hash != RequestHash("anthropic", req) {
		t.Errorf("hash = %s, want RequestHash", hash)
	}
	data, err := os.ReadFile(filepath.Join(dir, hash+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex Exchange
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	want := Exchange{
		Provider: "anthropic", Model: req.Model, Request: req,
		Usage: &Usage{InputTokens: int64(EstimateTokens(req))},
	}
	// The file is indented, raw JSON fields included: compare them compacted.
	compact := cmp.Transformer("compact", func(r json.RawMessage) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, r); err != nil {
			return string(r)
		}
		return buf.String()
	})
	if diff := cmp.Diff(want, ex, compact); diff != "" {
		t.Errorf("exchange (-want +got):\n%s", diff)
	}
	if RequestHash(ex.Provider, ex.Request) != hash {
		t.Error("the stored request does not hash to its file name")
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  Request
		want int
	}{
		{"empty", Request{}, 0},
		{"rounds up", Request{Messages: []Message{{Role: User, Content: []Block{{Type: Text, Text: "hello"}}}}}, 2},
		{"counts runes", Request{System: []Block{{Type: Text, Text: "héllo wörld"}}}, 3},
		{"tools and calls", Request{
			Tools: []Tool{{Name: "abcd", Description: "efgh", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			Messages: []Message{{Role: Assistant, Content: []Block{
				{Type: ToolUse, Name: "abcd", Input: json.RawMessage(`{}`)},
			}}},
		}, 8}, // 4 + 4 + 17 + 4 + 2 = 31 chars
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := EstimateTokens(tt.req); got != tt.want {
				t.Errorf("EstimateTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestReplayOr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recorded := Response{Model: "m", StopReason: StopEndTurn, Content: []Block{{Type: Text, Text: "recorded"}}}
	req := sampleRequest()
	if _, err := Record(&stub{resp: recorded}, "anthropic", dir).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	live := &stub{resp: Response{Model: "m", StopReason: StopEndTurn, Content: []Block{{Type: Text, Text: "live"}}}}
	c := ReplayOr("anthropic", dir, live)

	got, err := c.Complete(context.Background(), req)
	if err != nil || got.Text() != "recorded" || live.calls != 0 {
		t.Errorf("a recorded request: %q, %v, %d live calls; want the recording and no live call", got.Text(), err, live.calls)
	}
	other := req
	other.MaxTokens++
	got, err = c.Complete(context.Background(), other)
	if err != nil || got.Text() != "live" || live.calls != 1 {
		t.Errorf("a request not recorded: %q, %v, %d live calls; want one live call", got.Text(), err, live.calls)
	}
}
