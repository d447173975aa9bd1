package server_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // to sign a delivery with the algorithm the handler must refuse
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
	"github.com/council-dev/council/internal/server"
	"github.com/council-dev/council/internal/store"
)

const secret = "s3cr3t-webhook-key"

// fakeDeliveries is the store's RecordDelivery in memory, with its rule: an id is new once.
type fakeDeliveries struct {
	mu     sync.Mutex
	seen   map[string]store.Delivery
	err    error // returned by RecordDelivery when set
	forget []string
}

var (
	_ server.Deliveries        = (*fakeDeliveries)(nil)
	_ server.DeliveryForgetter = (*fakeDeliveries)(nil)
)

func (f *fakeDeliveries) RecordDelivery(_ context.Context, d store.Delivery) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return false, f.err
	}
	if d.ID == "" || d.Event == "" || d.Received.IsZero() {
		return false, fmt.Errorf("record delivery: incomplete %+v", d)
	}
	if _, ok := f.seen[d.ID]; ok {
		return false, nil
	}
	f.seen[d.ID] = d
	return true, nil
}

func (f *fakeDeliveries) ForgetDelivery(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.seen, id)
	f.forget = append(f.forget, id)
	return nil
}

func (f *fakeDeliveries) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

type dispatched struct {
	Event    github.Event
	Delivery string
}

type fakeDispatcher struct {
	mu   sync.Mutex
	got  []dispatched
	errs []error // returned by successive calls while any remain
}

func (f *fakeDispatcher) Dispatch(_ context.Context, e github.Event, delivery string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return err
	}
	f.got = append(f.got, dispatched{e, delivery})
	return nil
}

func (f *fakeDispatcher) events() []dispatched {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]dispatched(nil), f.got...)
}

type bundle struct {
	h        http.Handler
	store    *fakeDeliveries
	dispatch *fakeDispatcher
	log      *syncBuffer
	mu       sync.Mutex
	metrics  []string // "event/outcome"
}

// syncBuffer lets the handler write the log while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func setup(t testing.TB, maxBody int64) *bundle {
	t.Helper()
	b := &bundle{
		store:    &fakeDeliveries{seen: map[string]store.Delivery{}},
		dispatch: &fakeDispatcher{},
		log:      &syncBuffer{},
	}
	b.h = server.NewWebhookHandler(server.WebhookOptions{
		Secret:     []byte(secret),
		MaxBody:    maxBody,
		Deliveries: b.store,
		Dispatch:   b.dispatch,
		Log:        slog.New(slog.NewJSONHandler(b.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Metrics: func(event, outcome string) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.metrics = append(b.metrics, event+"/"+outcome)
		},
		Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) },
	})
	return b
}

func sign(body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// request builds a delivery as GitHub sends it; sig "" leaves the signature out.
func request(event, delivery, body, sig string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "GitHub-Hookshot/044aadd")
	if event != "" {
		r.Header.Set("X-GitHub-Event", event)
	}
	if delivery != "" {
		r.Header.Set("X-GitHub-Delivery", delivery)
	}
	if sig != "" {
		r.Header.Set("X-Hub-Signature-256", sig)
	}
	return r
}

const repoJSON = `"repository":{"id":1296269,"name":"widget","full_name":"acme/widget","owner":{"login":"acme","type":"Organization"}},"installation":{"id":4242}`

func prPayload(action string, draft bool) string {
	return fmt.Sprintf(`{"action":%q,"number":7,"pull_request":{"number":7,"state":"open","draft":%t,`+
		`"head":{"ref":"feature","sha":"c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"},"base":{"ref":"main","sha":"9049f1265b7d61be4a8904a9a27120d2064dab3b"}},`+
		`%s,"sender":{"login":"alice","type":"User"}}`, action, draft, repoJSON)
}

func commentPayload(body, login, userType string, onPR bool) string {
	pr := ""
	if onPR {
		pr = `,"pull_request":{"url":"https://api.github.com/repos/acme/widget/pulls/7"}`
	}
	return fmt.Sprintf(`{"action":"created","issue":{"number":7,"state":"open"%s},`+
		`"comment":{"id":1146825,"body":%q,"user":{"login":%q,"type":%q}},%s,"sender":{"login":%q,"type":%q}}`,
		pr, body, login, userType, repoJSON, login, userType)
}

const pingPayload = `{"zen":"Design for failure.","hook_id":109948940,"hook":{"type":"App","id":109948940,"events":["pull_request"]},"sender":{"login":"alice"}}`

func TestWebhook(t *testing.T) {
	t.Parallel()
	sha1mac := hmac.New(sha1.New, []byte(secret))
	sha1mac.Write([]byte(prPayload("opened", false)))
	sha1sig := "sha1=" + hex.EncodeToString(sha1mac.Sum(nil))
	big := prPayload("opened", false) + strings.Repeat(" ", 2048) // still valid JSON
	prEvent := func(action string, draft bool) github.Event {
		return github.Event{
			Name: "pull_request", Action: action, Installation: 4242, Account: "acme", Owner: "acme",
			Repo: "widget", Number: 7, Head: "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc", Draft: draft,
			Sender: "alice",
		}
	}
	tests := []struct {
		name         string
		method       string
		event, body  string
		sig          string // "" for none; "sign" to sign body
		noDelivery   bool
		chunked      bool // no Content-Length: the cap must hold while reading
		wantStatus   int
		wantBody     string
		wantRecorded int
		wantDispatch []github.Event
		wantMetric   string
	}{
		{
			name: "pull_request opened", event: "pull_request", body: prPayload("opened", false), sig: "sign",
			wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{prEvent("opened", false)}, wantMetric: "pull_request/accepted",
		},
		{
			name: "draft opened is dispatched", event: "pull_request", body: prPayload("opened", true), sig: "sign",
			wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{prEvent("opened", true)}, wantMetric: "pull_request/accepted",
		},
		{
			name: "ready_for_review", event: "pull_request", body: prPayload("ready_for_review", false), sig: "sign",
			wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{prEvent("ready_for_review", false)}, wantMetric: "pull_request/accepted",
		},
		{
			name: "closed is ignored", event: "pull_request", body: prPayload("closed", false), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "pull_request/ignored",
		},
		{
			name: "invalid signature", event: "pull_request", body: prPayload("opened", false),
			sig:        sign(prPayload("closed", false)),
			wantStatus: 401, wantMetric: "/bad_signature",
		},
		{
			name: "missing signature", event: "pull_request", body: prPayload("opened", false),
			wantStatus: 401, wantMetric: "/bad_signature",
		},
		{
			name: "sha1 signature, correct digest", event: "pull_request", body: prPayload("opened", false), sig: sha1sig,
			wantStatus: 401, wantMetric: "/bad_signature",
		},
		{
			name: "over the cap", event: "pull_request", body: big, sig: "sign",
			wantStatus: 413, wantMetric: "/too_large",
		},
		{
			name: "over the cap without Content-Length", event: "pull_request", body: big, sig: "sign", chunked: true,
			wantStatus: 413, wantMetric: "/too_large",
		},
		{
			name: "missing delivery id", event: "pull_request", body: prPayload("opened", false), sig: "sign", noDelivery: true,
			wantStatus: 400, wantMetric: "pull_request/bad_request",
		},
		{
			name: "missing event name", event: "", body: prPayload("opened", false), sig: "sign",
			wantStatus: 400, wantMetric: "/bad_request",
		},
		{
			name: "payload that does not parse", event: "pull_request", body: `{"action":"opened","number":`, sig: "sign",
			wantStatus: 400, wantRecorded: 1, wantMetric: "pull_request/bad_request",
		},
		{
			name: "GET", method: http.MethodGet, event: "pull_request", body: "", sig: "sign",
			wantStatus: 405, wantMetric: "/bad_request",
		},
		{
			name: "command on a pull request", event: "issue_comment",
			body: commentPayload("/council full-review\n\nplease", "alice", "User", true), sig: "sign",
			wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{{
				Name: "issue_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7, IsPullRequest: true,
				Comment: "/council full-review\n\nplease", Commenter: "alice", CommenterType: "User",
				Sender: "alice",
			}},
			wantMetric: "issue_comment/accepted",
		},
		{
			name: "a question in a review thread", event: "pull_request_review_comment",
			body: reviewCommentPayload("Why would a negative n matter?", "alice", "User", 1001), sig: "sign",
			wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{{
				Name: "pull_request_review_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7, IsPullRequest: true, InReplyTo: 1001,
				Comment: "Why would a negative n matter?", Commenter: "alice", CommenterType: "User", Sender: "alice",
			}},
			wantMetric: "pull_request_review_comment/accepted",
		},
		{
			name: "a reply that asks nothing", event: "pull_request_review_comment",
			body: reviewCommentPayload("Fixed, thanks.", "alice", "User", 1001), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "pull_request_review_comment/ignored",
		},
		{
			name: "a new review thread", event: "pull_request_review_comment",
			body: reviewCommentPayload("Why not a map?", "alice", "User", 0), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "pull_request_review_comment/ignored",
		},
		{
			name: "a bot's question", event: "pull_request_review_comment",
			body: reviewCommentPayload("Why?", "council[bot]", "Bot", 1001), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "pull_request_review_comment/ignored",
		},
		{
			name: "comment that is not a command", event: "issue_comment",
			body: commentPayload("Looks good; /council review later?", "alice", "User", true), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "issue_comment/ignored",
		},
		{
			name: "a bot's command", event: "issue_comment",
			body: commentPayload("/council review", "council[bot]", "Bot", true), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "issue_comment/ignored",
		},
		{
			name: "command on an issue", event: "issue_comment",
			body: commentPayload("/council review", "alice", "User", false), sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "issue_comment/ignored",
		},
		{
			name: "installation created", event: "installation",
			body: `{"action":"created","installation":{"id":4242,"account":{"login":"acme"}},"repositories":[{"name":"widget","full_name":"acme/widget"}],"sender":{"login":"alice"}}`,
			sig:  "sign", wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{{
				Name: "installation", Action: "created", Installation: 4242, Account: "acme",
				Sender: "alice", ReposAdded: []string{"acme/widget"},
			}},
			wantMetric: "installation/accepted",
		},
		{
			name: "installation_repositories removed", event: "installation_repositories",
			body: `{"action":"removed","installation":{"id":4242,"account":{"login":"acme"}},"repositories_removed":[{"name":"widget","full_name":"acme/widget"}],"sender":{"login":"alice"}}`,
			sig:  "sign", wantStatus: 202, wantBody: "accepted", wantRecorded: 1,
			wantDispatch: []github.Event{{
				Name: "installation_repositories", Action: "removed", Installation: 4242,
				Account: "acme", Sender: "alice", ReposRemoved: []string{"acme/widget"},
			}},
			wantMetric: "installation_repositories/accepted",
		},
		{
			name: "ping", event: "ping", body: pingPayload, sig: "sign",
			wantStatus: 200, wantBody: "pong", wantRecorded: 1, wantMetric: "ping/ignored",
		},
		{
			name: "event not acted on", event: "push", body: `{"ref":"refs/heads/main"}`, sig: "sign",
			wantStatus: 200, wantBody: "ignored", wantRecorded: 1, wantMetric: "push/ignored",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, 1024)
			sig := tt.sig
			if sig == "sign" {
				sig = sign(tt.body)
			}
			delivery := "72d3162e-cc78-11e3-81ab-4c9367dc0958"
			if tt.noDelivery {
				delivery = ""
			}
			r := request(tt.event, delivery, tt.body, sig)
			if tt.method != "" {
				r.Method = tt.method
			}
			if tt.chunked {
				r.ContentLength = -1
			}
			w := httptest.NewRecorder()
			b.h.ServeHTTP(w, r)

			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", w.Code, tt.wantStatus)
			}
			if got := w.Body.String(); tt.wantBody != "" && got != tt.wantBody {
				t.Errorf("body %q, want %q", got, tt.wantBody)
			}
			if (tt.wantStatus == 401 || tt.wantStatus == 413) && w.Body.Len() != 0 {
				t.Errorf("body %q, want none", w.Body.String())
			}
			if n := b.store.count(); n != tt.wantRecorded {
				t.Errorf("%d deliveries recorded, want %d", n, tt.wantRecorded)
			}
			var got []github.Event
			for _, d := range b.dispatch.events() {
				if d.Delivery != delivery {
					t.Errorf("dispatched with delivery %q, want %q", d.Delivery, delivery)
				}
				got = append(got, d.Event)
			}
			if d := cmp.Diff(tt.wantDispatch, got); d != "" {
				t.Errorf("dispatched (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{tt.wantMetric}, b.metrics); d != "" {
				t.Errorf("metrics (-want +got):\n%s", d)
			}
			logs := b.log.String()
			if strings.Count(logs, "\n") != 1 {
				t.Errorf("want one log line, got:\n%s", logs)
			}
			// Neither the secret, the signature nor anything only the body holds.
			_, digest, _ := strings.Cut(sig, "=")
			for _, leak := range []string{secret, digest, "feature", "Design for failure", "please", "refs/heads"} {
				if leak != "" && strings.Contains(logs, leak) {
					t.Errorf("log shows %q:\n%s", leak, logs)
				}
			}
			if tt.wantStatus == 401 && (!strings.Contains(logs, `"level":"WARN"`) || !strings.Contains(logs, delivery) || !strings.Contains(logs, `"event":"pull_request"`)) {
				t.Errorf("bad signature not logged at warn with delivery and event:\n%s", logs)
			}
		})
	}
}

func TestWebhookDuplicate(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	body := prPayload("synchronize", false)
	var codes []int
	var bodies []string
	for range 3 {
		w := httptest.NewRecorder()
		b.h.ServeHTTP(w, request("pull_request", "dup-1", body, sign(body)))
		codes = append(codes, w.Code)
		bodies = append(bodies, w.Body.String())
	}
	if d := cmp.Diff([]int{202, 200, 200}, codes); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"accepted", "duplicate", "duplicate"}, bodies); d != "" {
		t.Errorf("bodies (-want +got):\n%s", d)
	}
	if n := len(b.dispatch.events()); n != 1 {
		t.Errorf("dispatched %d times, want once", n)
	}
}

func TestWebhookFailures(t *testing.T) {
	t.Parallel()
	body := prPayload("opened", false)

	t.Run("store error", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 0)
		b.store.err = errors.New("database is locked")
		w := httptest.NewRecorder()
		b.h.ServeHTTP(w, request("pull_request", "d-1", body, sign(body)))
		if w.Code != http.StatusInternalServerError {
			t.Errorf("status %d, want 500", w.Code)
		}
		if n := len(b.dispatch.events()); n != 0 {
			t.Errorf("dispatched %d, want none", n)
		}
		if !strings.Contains(b.log.String(), "database is locked") {
			t.Errorf("log does not say why:\n%s", b.log.String())
		}
	})

	t.Run("dispatch error, then redelivery", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 0)
		b.dispatch.errs = []error{errors.New("enqueue: queue full")}
		// GitHub's redelivery keeps the X-GitHub-Delivery id: the failed one must not make it a
		// duplicate.
		var codes []int
		for range 2 {
			w := httptest.NewRecorder()
			b.h.ServeHTTP(w, request("pull_request", "d-2", body, sign(body)))
			codes = append(codes, w.Code)
		}
		if d := cmp.Diff([]int{500, 202}, codes); d != "" {
			t.Errorf("statuses (-want +got):\n%s", d)
		}
		if n := len(b.dispatch.events()); n != 1 {
			t.Errorf("dispatched %d times, want once", n)
		}
		if d := cmp.Diff([]string{"d-2"}, b.store.forget); d != "" {
			t.Errorf("forgotten (-want +got):\n%s", d)
		}
	})
}

func TestWebhookNoSecret(t *testing.T) {
	t.Parallel()
	// A server started without a secret refuses everything, even a delivery "signed" with the
	// empty key.
	d := &fakeDeliveries{seen: map[string]store.Delivery{}}
	h := server.NewWebhookHandler(server.WebhookOptions{Deliveries: d, Dispatch: &fakeDispatcher{}})
	body := pingPayload
	m := hmac.New(sha256.New, nil)
	m.Write([]byte(body))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, request("ping", "d-3", body, "sha256="+hex.EncodeToString(m.Sum(nil))))
	if w.Code != http.StatusUnauthorized || d.count() != 0 {
		t.Errorf("status %d with %d recorded, want 401 and none", w.Code, d.count())
	}
}

func BenchmarkWebhook(b *testing.B) {
	bb := setup(b, 0)
	body := prPayload("synchronize", false)
	sig := sign(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	i := 0
	for b.Loop() {
		i++
		w := httptest.NewRecorder()
		bb.h.ServeHTTP(w, request("pull_request", "bench-"+strconv.Itoa(i), body, sig))
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// reviewCommentPayload is a pull_request_review_comment created event on acme/widget#7.
func reviewCommentPayload(body, login, userType string, inReplyTo int64) string {
	c := map[string]any{"id": 2001, "body": body, "path": "store.go", "user": map[string]any{"login": login, "type": userType}}
	if inReplyTo != 0 {
		c["in_reply_to_id"] = inReplyTo
	}
	b, err := json.Marshal(map[string]any{
		"action": "created", "comment": c,
		"pull_request": map[string]any{"number": 7, "state": "open"},
		"repository":   map[string]any{"name": "widget", "full_name": "acme/widget", "owner": map[string]any{"login": "acme"}},
		"installation": map[string]any{"id": 4242},
		"sender":       map[string]any{"login": login, "type": userType},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}
