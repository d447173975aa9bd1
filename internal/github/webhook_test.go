package github_test

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // to sign a delivery with the algorithm VerifySignature must refuse
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github"
)

func sign256(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	secret := []byte("It's a Secret to Everybody")
	body := []byte("Hello, World!")
	sha1mac := hmac.New(sha1.New, secret)
	sha1mac.Write(body)
	good := sign256(secret, body)
	tests := []struct {
		name   string
		secret []byte
		body   []byte
		header string
		ok     bool
	}{
		// The example from GitHub's documentation: this secret and body give this signature.
		{name: "documented example", secret: secret, body: body, header: "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", ok: true},
		{name: "valid", secret: secret, body: []byte(`{"zen":"Keep it logically awesome."}`), header: sign256(secret, []byte(`{"zen":"Keep it logically awesome."}`)), ok: true},
		{name: "missing", secret: secret, body: body, header: ""},
		{name: "sha1 with a correct digest", secret: secret, body: body, header: "sha1=" + hex.EncodeToString(sha1mac.Sum(nil))},
		{name: "upper-case algorithm", secret: secret, body: body, header: "SHA256=" + strings.TrimPrefix(good, "sha256=")},
		{name: "no algorithm", secret: secret, body: body, header: strings.TrimPrefix(good, "sha256=")},
		{name: "bad hex", secret: secret, body: body, header: "sha256=" + strings.Repeat("zz", sha256.Size)},
		{name: "short", secret: secret, body: body, header: good[:len(good)-2]},
		{name: "long", secret: secret, body: body, header: good + "00"},
		{name: "other body", secret: secret, body: []byte("Hello, World?"), header: good},
		{name: "other secret", secret: []byte("another"), body: body, header: good},
		{name: "one bit off", secret: secret, body: body, header: good[:len(good)-1] + "6"},
		{name: "empty secret", secret: nil, body: body, header: sign256(nil, body)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := github.VerifySignature(tt.secret, tt.body, tt.header)
			if tt.ok {
				if err != nil {
					t.Fatalf("VerifySignature: %v", err)
				}
				return
			}
			if !errors.Is(err, github.ErrSignature) {
				t.Fatalf("VerifySignature = %v, want an ErrSignature", err)
			}
			// The digest (right or wrong) and the secret stay out of the message.
			if d := strings.TrimPrefix(tt.header, "sha256="); len(d) > 8 && strings.Contains(err.Error(), d[:8]) {
				t.Errorf("error %q shows the signature", err)
			}
			if len(tt.secret) > 0 && strings.Contains(err.Error(), string(tt.secret)) {
				t.Errorf("error %q shows the secret", err)
			}
		})
	}
}

func readWebhook(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		event string
		want  github.Event
	}{
		{
			file: "pull_request_opened.json", event: "pull_request",
			want: github.Event{
				Name: "pull_request", Action: "opened", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7,
				Head: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Sender: "alice",
			},
		},
		{
			file: "pull_request_opened_draft.json", event: "pull_request",
			want: github.Event{
				Name: "pull_request", Action: "opened", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 8,
				Head: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Draft: true, Sender: "alice",
			},
		},
		{
			file: "pull_request_review_comment_reply.json", event: "pull_request_review_comment",
			want: github.Event{
				Name: "pull_request_review_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7, IsPullRequest: true, InReplyTo: 1001,
				Comment: "Why would a negative n matter here?", Commenter: "alice", CommenterType: "User", Sender: "alice",
			},
		},
		{
			file: "pull_request_synchronize.json", event: "pull_request",
			want: github.Event{
				Name: "pull_request", Action: "synchronize", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7,
				Head: "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc", Sender: "alice",
			},
		},
		{
			file: "pull_request_closed.json", event: "pull_request",
			want: github.Event{
				Name: "pull_request", Action: "closed", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7,
				Head: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Sender: "alice",
			},
		},
		{
			file: "issue_comment_created_pr.json", event: "issue_comment",
			want: github.Event{
				Name: "issue_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7, IsPullRequest: true,
				Comment: "/council review\r\n\r\nThe tests changed too.", Commenter: "alice",
				CommenterType: "User", Sender: "alice",
			},
		},
		{
			// A comment on a plain issue: no number, so nothing can mistake it for a pull request.
			file: "issue_comment_created_issue.json", event: "issue_comment",
			want: github.Event{
				Name: "issue_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Comment: "/council review", Commenter: "alice",
				CommenterType: "User", Sender: "alice",
			},
		},
		{
			file: "issue_comment_created_bot.json", event: "issue_comment",
			want: github.Event{
				Name: "issue_comment", Action: "created", Installation: 4242, Account: "acme",
				Owner: "acme", Repo: "widget", Number: 7, IsPullRequest: true,
				Comment: "/council review", Commenter: "dependabot[bot]", CommenterType: "Bot",
				Sender: "dependabot[bot]",
			},
		},
		{
			file: "installation_created.json", event: "installation",
			want: github.Event{
				Name: "installation", Action: "created", Installation: 4242, Account: "acme",
				Sender: "alice", ReposAdded: []string{"acme/widget", "acme/gadget"},
			},
		},
		{
			file: "installation_deleted.json", event: "installation",
			want: github.Event{
				Name: "installation", Action: "deleted", Installation: 4242, Account: "acme",
				Sender: "alice",
			},
		},
		{
			file: "installation_repositories_added.json", event: "installation_repositories",
			want: github.Event{
				Name: "installation_repositories", Action: "added", Installation: 4242,
				Account: "acme", Sender: "alice", ReposAdded: []string{"acme/gizmo"},
			},
		},
		{
			file: "installation_repositories_removed.json", event: "installation_repositories",
			want: github.Event{
				Name: "installation_repositories", Action: "removed", Installation: 4242,
				Account: "acme", Sender: "alice", ReposRemoved: []string{"acme/gadget", "acme/gizmo"},
			},
		},
		{
			file: "ping.json", event: "ping",
			want: github.Event{Name: "ping", Sender: "alice"},
		},
		{
			// An event council does not act on: its name and action only.
			file: "check_suite_requested.json", event: "check_suite",
			want: github.Event{Name: "check_suite", Action: "requested"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, err := github.ParseEvent(tt.event, readWebhook(t, tt.file))
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseEvent (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseEventErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event string
		body  string
	}{
		{name: "truncated pull_request", event: "pull_request", body: `{"action":"opened","number":7,"pull_request":{`},
		{name: "not JSON", event: "issue_comment", body: `action=created`},
		{name: "wrong type", event: "installation", body: `{"action":"created","installation":{"id":"many"}}`},
		{name: "unknown event, not JSON", event: "sub_issues", body: `<html>`},
		{name: "pull_request without repository", event: "pull_request", body: `{"action":"opened","number":7,"pull_request":{"number":7,"head":{"sha":"aa"}}}`},
		{name: "pull_request without pull_request", event: "pull_request", body: `{"action":"opened","number":7,"repository":{"name":"widget","owner":{"login":"acme"}}}`},
		{name: "issue_comment without comment", event: "issue_comment", body: `{"action":"created","issue":{"number":7},"repository":{"name":"widget","owner":{"login":"acme"}}}`},
		{name: "installation without installation", event: "installation", body: `{"action":"created"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := github.ParseEvent(tt.event, []byte(tt.body))
			if err == nil {
				t.Fatal("ParseEvent: no error")
			}
			if !strings.Contains(err.Error(), tt.event) {
				t.Errorf("error %q does not name the event %q", err, tt.event)
			}
		})
	}
}

func TestParseEventUnknownToGoGitHub(t *testing.T) {
	t.Parallel()
	// An event go-github has no type for is still an ignorable event, not an error.
	got, err := github.ParseEvent("sub_issues", []byte(`{"action":"sub_issue_added","sub_issue_id":1}`))
	if err != nil {
		t.Fatalf("ParseEvent: %v", err)
	}
	if d := cmp.Diff(github.Event{Name: "sub_issues", Action: "sub_issue_added"}, got); d != "" {
		t.Errorf("ParseEvent (-want +got):\n%s", d)
	}
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		comment string
		want    github.Command
		ok      bool
	}{
		{comment: "/council review", want: github.CommandReview, ok: true},
		{comment: "/council full-review", want: github.CommandFullReview, ok: true},
		{comment: "/council pause", want: github.CommandPause, ok: true},
		{comment: "/council resume", want: github.CommandResume, ok: true},
		{comment: "  /council review  ", want: github.CommandReview, ok: true},
		{comment: "\n\r\n \t\n/council review\r\n", want: github.CommandReview, ok: true},
		{comment: "/council REVIEW", want: github.CommandReview, ok: true},
		{comment: "/council Full-Review", want: github.CommandFullReview, ok: true},
		{comment: "/council\treview", want: github.CommandReview, ok: true},
		{comment: "/council review\n\nThe tests changed too; /council pause later.", want: github.CommandReview, ok: true},
		{comment: ""},
		{comment: "\n  \n"},
		{comment: "/council"},
		{comment: "/council reviewplease"},
		{comment: "/council review please"},
		{comment: "/council re-view"},
		{comment: "/councilreview"},
		{comment: "please /council review"},
		{comment: "LGTM\n/council review"},
		{comment: "> /council review"},
		{comment: "`/council review`"},
		{comment: "/Council review"},
		{comment: "/council approve"},
	}
	for _, tt := range tests {
		t.Run(tt.comment, func(t *testing.T) {
			t.Parallel()
			got, ok := github.ParseCommand(tt.comment)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseCommand(%q) = %q, %t; want %q, %t", tt.comment, got, ok, tt.want, tt.ok)
			}
		})
	}
}
