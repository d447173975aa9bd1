package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Exchange is one model call as stored on disk by Record and SaveRequest, and read back by
// Replay: DIR/<RequestHash>.json, indented JSON. Response is nil for a request saved by a dry
// run. Usage is the response's usage, or for a dry run an estimate of the input tokens
// (EstimateTokens) with Requests 0: nothing was sent.
type Exchange struct {
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Request  Request   `json:"request"`
	Response *Response `json:"response"`
	Usage    *Usage    `json:"usage,omitempty"`
}

// MissingExchangeError is a replay that has no recorded answer for a request: nothing was
// recorded for it (the prompt changed since, or the run was never recorded), or only a dry
// run saved it.
type MissingExchangeError struct {
	Hash   string
	Dir    string
	DryRun bool // the file exists but holds a dry run's request, with no response
}

func (e *MissingExchangeError) Error() string {
	if e.DryRun {
		return fmt.Sprintf("replay: exchange %s in %s was saved by a dry run and has no response: re-record with --record", e.Hash, e.Dir)
	}
	return fmt.Sprintf("replay: no recorded exchange %s in %s (the request differs from every recorded one): re-record with --record", e.Hash, e.Dir)
}

// RequestHash identifies a request for record and replay: the SHA-256 of the canonical JSON of
// {"provider": providerName, "request": req}, cut to its first 16 bytes (32 hex digits).
// Canonical means object keys sorted and no insignificant space, inside tool schemas and tool
// inputs too, so that a schema that only changed its key order or spacing keeps its hash.
func RequestHash(providerName string, req Request) string {
	sum := sha256.Sum256(canonicalJSON(struct {
		Provider string  `json:"provider"`
		Request  Request `json:"request"`
	}{providerName, req}))
	return hex.EncodeToString(sum[:16])
}

func canonicalJSON(v any) []byte {
	raw, err := json.Marshal(v)
	if err == nil {
		// Decoding into any and encoding again sorts every object's keys; UseNumber keeps
		// numbers exactly as written.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var tree any
		if err = dec.Decode(&tree); err == nil {
			raw, err = json.Marshal(tree)
		}
	}
	if err != nil {
		// Only invalid JSON in a RawMessage field gets here: hash what the caller gave, so that
		// equal requests still hash equal.
		return fmt.Appendf(nil, "%#v", v)
	}
	return raw
}

// Record returns a Client that calls c and stores each successful exchange in dir (created if
// needed), atomically: a temporary file renamed into place. A failed write is returned as an
// error, alongside the response, which the call has already paid for.
func Record(c Client, providerName, dir string) Client {
	return &recorder{next: c, provider: providerName, dir: dir}
}

type recorder struct {
	next     Client
	provider string
	dir      string
}

func (r *recorder) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := r.next.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	usage := resp.Usage
	ex := Exchange{Provider: r.provider, Model: req.Model, Request: req, Response: &resp, Usage: &usage}
	if _, err := writeExchange(r.dir, ex); err != nil {
		return resp, fmt.Errorf("record %s exchange: %w", r.provider, err)
	}
	return resp, nil
}

// SaveRequest stores req as an Exchange without a response, for --dry-run, and returns its
// hash.
func SaveRequest(providerName, dir string, req Request) (hash string, err error) {
	ex := Exchange{
		Provider: providerName,
		Model:    req.Model,
		Request:  req,
		Usage:    &Usage{InputTokens: int64(EstimateTokens(req))},
	}
	hash, err = writeExchange(dir, ex)
	if err != nil {
		return "", fmt.Errorf("save %s request: %w", providerName, err)
	}
	return hash, nil
}

func writeExchange(dir string, ex Exchange) (string, error) {
	hash := RequestHash(ex.Provider, ex.Request)
	data, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode exchange %s: %w", hash, err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+hash+"-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write exchange %s: %w", hash, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, hash+".json"))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write exchange %s: %w", hash, err)
	}
	return hash, nil
}

// Replay returns a Client that answers from the exchanges recorded in dir and never touches
// the network. The answer is the recorded response with its token usage, so that a replayed run
// reports the tokens the recorded one used; cost is priced again by the caller.
func Replay(providerName, dir string) Client {
	return &replayer{provider: providerName, dir: dir}
}

type replayer struct {
	provider string
	dir      string
}

func (r *replayer) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	hash := RequestHash(r.provider, req)
	path := filepath.Join(r.dir, hash+".json")
	data, err := os.ReadFile(path) //nolint:gosec // the path is dir joined with a hex hash
	if errors.Is(err, fs.ErrNotExist) {
		return Response{}, &MissingExchangeError{Hash: hash, Dir: r.dir}
	}
	if err != nil {
		return Response{}, fmt.Errorf("replay exchange %s: %w", hash, err)
	}
	var ex Exchange
	if err := json.Unmarshal(data, &ex); err != nil {
		return Response{}, fmt.Errorf("replay exchange %s: decode %s: %w", hash, path, err)
	}
	if ex.Response == nil {
		return Response{}, &MissingExchangeError{Hash: hash, Dir: r.dir, DryRun: true}
	}
	return *ex.Response, nil
}

// ReplayOr answers from the exchanges recorded in dir, like Replay, and sends a request that
// has none to next: a run after a prompt change pays only for the requests that changed.
// Wrapped in Record, it leaves a complete recording of the new run.
func ReplayOr(providerName, dir string, next Client) Client {
	return &replayOr{replay: &replayer{provider: providerName, dir: dir}, next: next}
}

type replayOr struct {
	replay *replayer
	next   Client
}

func (r *replayOr) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := r.replay.Complete(ctx, req)
	var missing *MissingExchangeError
	if errors.As(err, &missing) {
		return r.next.Complete(ctx, req)
	}
	return resp, err
}

// EstimateTokens guesses the prompt size of req without a tokenizer: one token per four
// characters (rounded up) of every text the model reads: system, messages, tool calls and
// results, and tool names, descriptions and schemas.
func EstimateTokens(req Request) int {
	n := 0
	count := func(s string) { n += utf8.RuneCountInString(s) }
	for _, b := range req.System {
		count(b.Text)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			count(b.Text)
			count(b.Name)
			count(string(b.Input))
		}
	}
	for _, t := range req.Tools {
		count(t.Name)
		count(t.Description)
		count(string(t.InputSchema))
	}
	return (n + 3) / 4
}
