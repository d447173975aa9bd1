package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/store"
)

// DefaultMaxBody caps a webhook body. GitHub caps payloads at 25 MB and drops the delivery
// beyond that
// (https://docs.github.com/webhooks/webhook-events-and-payloads#payload-cap), so nothing
// genuine is larger; the cap keeps an unauthenticated sender from making the server buffer
// more before the signature is checked.
const DefaultMaxBody = 25 << 20

// Deliveries records webhook deliveries so that each is handled once.
type Deliveries interface {
	// RecordDelivery notes d and says whether it is new (store.Store's method).
	RecordDelivery(ctx context.Context, d store.Delivery) (bool, error)
}

// DeliveryForgetter is an optional capability of Deliveries. GitHub keeps X-GitHub-Delivery
// when a failed delivery is redelivered, so a delivery recorded before its Dispatch failed
// would be refused as a duplicate when redelivered; a Deliveries that can forget one is asked
// to, so that the redelivery is handled.
type DeliveryForgetter interface {
	ForgetDelivery(ctx context.Context, id string) error
}

// Dispatcher enqueues the work an event asks for.
type Dispatcher interface {
	// Dispatch must be fast: GitHub counts a delivery as failed when the answer takes more
	// than ten seconds, so it enqueues and returns. delivery is the X-GitHub-Delivery id.
	Dispatch(ctx context.Context, e github.Event, delivery string) error
}

// WebhookOptions configures NewWebhookHandler.
type WebhookOptions struct {
	// Secret is the GitHub App's webhook secret. Empty refuses every delivery.
	Secret []byte
	// MaxBody caps the request body in bytes; DefaultMaxBody when 0.
	MaxBody    int64
	Deliveries Deliveries
	Dispatch   Dispatcher
	// Log gets one line per request; discarded when nil.
	Log *slog.Logger
	// Metrics, when set, is called once per request with the event name ("" until the
	// signature is verified: the header of an unverified request is anyone's text, and a
	// metric label must not take unbounded values) and one of the outcomes below.
	Metrics func(event, outcome string)
	// Now stamps recorded deliveries; time.Now when nil.
	Now func() time.Time
}

// Outcomes of a webhook request, as logged and passed to WebhookOptions.Metrics.
const (
	OutcomeAccepted     = "accepted"      // dispatched
	OutcomeDuplicate    = "duplicate"     // the delivery was seen before
	OutcomeIgnored      = "ignored"       // an event or action the server does not act on
	OutcomeBadSignature = "bad_signature" // missing, malformed, wrong algorithm or wrong
	OutcomeTooLarge     = "too_large"     // body over MaxBody
	OutcomeBadRequest   = "bad_request"   // wrong method, missing headers, unreadable payload
	OutcomeError        = "error"         // the store or the dispatcher failed
)

// Request headers GitHub sets on every delivery.
const (
	headerEvent     = "X-GitHub-Event"
	headerDelivery  = "X-GitHub-Delivery"
	headerSignature = "X-Hub-Signature-256"
)

// maxLogged bounds how much of a header is logged: before the signature is checked the
// headers are whatever the sender wrote.
const maxLogged = 64

// NewWebhookHandler serves POST /webhook. It verifies the signature before reading anything
// else from the request, records the delivery, parses the event and passes those the server
// acts on to o.Dispatch.
//
// Answers: 202 "accepted" when dispatched; 200 "duplicate", "ignored" or "pong" when there is
// nothing to do (200 rather than 202 since nothing was queued: the status alone tells the
// two apart in GitHub's delivery list); 401 with an empty body for any signature problem (a
// forger learns nothing); 413 over the size cap; 400 for missing headers or a payload that
// does not parse; 405 for other methods; 500 when the store or the dispatcher fails, so that
// GitHub shows the delivery as failed and it can be redelivered.
func NewWebhookHandler(o WebhookOptions) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = func(string, string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &webhookHandler{o: o}
}

type webhookHandler struct {
	o WebhookOptions
}

// result is what one request came to, for the log line, the metric and the answer.
type result struct {
	status   int
	body     string
	outcome  string
	verified bool // the signature was checked: the headers are GitHub's
	level    slog.Level
	err      error
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	delivery, name := r.Header.Get(headerDelivery), r.Header.Get(headerEvent)
	var e github.Event
	res := h.handle(w, r, delivery, name, &e)

	if res.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	if res.body != "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
	}
	w.WriteHeader(res.status)
	if res.body != "" {
		_, _ = io.WriteString(w, res.body) // a client gone away is not the server's problem
	}

	metricEvent := ""
	if res.verified {
		metricEvent = name
	}
	h.o.Metrics(metricEvent, res.outcome)

	repo := ""
	if e.Owner != "" {
		repo = e.Owner + "/" + e.Repo
	}
	attrs := []slog.Attr{
		slog.String("delivery", clip(delivery)),
		slog.String("event", clip(name)),
		slog.String("action", e.Action),
		slog.String("repo", repo),
		slog.String("outcome", res.outcome),
		slog.Int("status", res.status),
		slog.Duration("duration", time.Since(start)),
	}
	if e.Number != 0 {
		attrs = append(attrs, slog.Int("number", e.Number))
	}
	if e.Installation != 0 {
		attrs = append(attrs, slog.Int64("installation", e.Installation))
	}
	if res.err != nil {
		// Errors here come from VerifySignature (which never shows the signature or the
		// secret), ParseEvent (a JSON syntax error, no payload text beyond a token), the store
		// and the dispatcher.
		attrs = append(attrs, slog.String("error", res.err.Error()))
	}
	h.o.Log.LogAttrs(r.Context(), res.level, "webhook", attrs...)
}

func (h *webhookHandler) handle(w http.ResponseWriter, r *http.Request, delivery, name string, e *github.Event) result {
	if r.Method != http.MethodPost {
		return result{status: http.StatusMethodNotAllowed, outcome: OutcomeBadRequest, level: slog.LevelWarn}
	}
	body, res, ok := h.readBody(w, r)
	if !ok {
		return res
	}
	// Nothing of the request is trusted, parsed or stored before this.
	if err := github.VerifySignature(h.o.Secret, body, r.Header.Get(headerSignature)); err != nil {
		return result{status: http.StatusUnauthorized, outcome: OutcomeBadSignature, level: slog.LevelWarn, err: err}
	}
	if name == "" || delivery == "" {
		return result{
			status: http.StatusBadRequest, body: "missing " + headerEvent + " or " + headerDelivery,
			outcome: OutcomeBadRequest, verified: true, level: slog.LevelWarn,
		}
	}
	ctx := r.Context()
	isNew, err := h.o.Deliveries.RecordDelivery(ctx, store.Delivery{ID: delivery, Event: name, Received: h.o.Now()})
	if err != nil {
		return result{status: http.StatusInternalServerError, body: "internal error", outcome: OutcomeError, verified: true, level: slog.LevelError, err: err}
	}
	if !isNew {
		return result{status: http.StatusOK, body: OutcomeDuplicate, outcome: OutcomeDuplicate, verified: true, level: slog.LevelInfo}
	}
	*e, err = github.ParseEvent(name, body)
	if err != nil {
		return result{status: http.StatusBadRequest, body: "bad payload", outcome: OutcomeBadRequest, verified: true, level: slog.LevelWarn, err: err}
	}
	if name == "ping" {
		return result{status: http.StatusOK, body: "pong", outcome: OutcomeIgnored, verified: true, level: slog.LevelInfo}
	}
	if !actsOn(*e) {
		return result{status: http.StatusOK, body: OutcomeIgnored, outcome: OutcomeIgnored, verified: true, level: slog.LevelInfo}
	}
	if err := h.o.Dispatch.Dispatch(ctx, *e, delivery); err != nil {
		if f, ok := h.o.Deliveries.(DeliveryForgetter); ok {
			// Forget with a context that outlives a cancelled request: a delivery left recorded
			// would make GitHub's redelivery a duplicate.
			if ferr := f.ForgetDelivery(context.WithoutCancel(ctx), delivery); ferr != nil {
				err = errors.Join(err, ferr)
			}
		}
		return result{status: http.StatusInternalServerError, body: "internal error", outcome: OutcomeError, verified: true, level: slog.LevelError, err: err}
	}
	return result{status: http.StatusAccepted, body: OutcomeAccepted, outcome: OutcomeAccepted, verified: true, level: slog.LevelInfo}
}

// readBody reads at most MaxBody bytes. A Content-Length over the cap is refused before
// reading; a body that lies about its length or has none is stopped by http.MaxBytesReader,
// which also tells the server (through w) to close the connection after the answer rather
// than drain the rest.
func (h *webhookHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, result, bool) {
	tooLarge := result{status: http.StatusRequestEntityTooLarge, outcome: OutcomeTooLarge, level: slog.LevelWarn}
	if r.ContentLength > h.o.MaxBody {
		return nil, tooLarge, false
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		// One allocation of the right size instead of io.ReadAll's doublings; +1 so that the
		// read that finds the end does not grow it.
		buf.Grow(int(r.ContentLength) + 1)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge, false
		}
		return nil, result{status: http.StatusBadRequest, outcome: OutcomeBadRequest, level: slog.LevelWarn, err: err}, false
	}
	return buf.Bytes(), result{}, true
}

// Actions the server acts on, per event. issue_comment is further limited to commands on
// pull requests (actsOn).
var actions = map[string]map[string]bool{
	"pull_request":  {"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true},
	"issue_comment": {"created": true},
	// A reply in a review thread: maybe a question to council (the worker checks whose thread).
	"pull_request_review_comment": {"created": true},
	"installation": {
		"created": true, "deleted": true, "suspend": true, "unsuspend": true,
		"new_permissions_accepted": true,
	},
	"installation_repositories": {"added": true, "removed": true},
}

// actsOn says whether e is dispatched. Drafts are: whether to review one depends on the
// installation's settings, which the dispatcher reads.
func actsOn(e github.Event) bool {
	if !actions[e.Name][e.Action] {
		return false
	}
	if e.Name != "issue_comment" && e.Name != "pull_request_review_comment" {
		return true
	}
	// Bots are ignored so that no bot (council's own replies included) can start a review
	// loop or spend an installation's budget.
	if !e.IsPullRequest || e.CommenterType == "Bot" {
		return false
	}
	if e.Name == "pull_request_review_comment" {
		return e.InReplyTo != 0 && strings.Contains(e.Comment, "?") // prflow's test of a question
	}
	_, ok := github.ParseCommand(e.Comment)
	return ok
}

// clip bounds a header value for the log.
func clip(s string) string {
	if len(s) > maxLogged {
		return s[:maxLogged] + "…"
	}
	return s
}
