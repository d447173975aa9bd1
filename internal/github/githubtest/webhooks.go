package githubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// What GitHub sends an App's webhook URL, for tests of a server that receives them: the
// payloads carry the fields GitHub documents for each event
// (https://docs.github.com/webhooks/webhook-events-and-payloads), and Deliver sends one the way
// GitHub does (https://docs.github.com/webhooks/webhook-events-and-payloads#delivery-headers).

// PullRequestPayload is a pull_request event of owner/repo#n at head.
func (s *Server) PullRequestPayload(action, owner, repo string, n int, head string, draft bool, installation int64) []byte {
	return mustJSON(map[string]any{
		"action": action, "number": n,
		"pull_request": map[string]any{
			"number": n, "state": "open", "draft": draft, "html_url": fmt.Sprintf("%s/%s/%s/pull/%d", s.WebURL, owner, repo, n),
			"head": map[string]any{"sha": head, "ref": "feature"},
			"user": userJSON("dev"),
		},
		"repository":   repoPayload(owner, repo),
		"installation": map[string]any{"id": installation},
		"sender":       userJSON("dev"),
	})
}

// IssueCommentPayload is an issue_comment created event on pull request owner/repo#n.
func (s *Server) IssueCommentPayload(owner, repo string, n int, login, body string, installation int64) []byte {
	return mustJSON(map[string]any{
		"action": "created",
		"issue": map[string]any{
			"number": n, "state": "open", "user": userJSON("dev"),
			"pull_request": map[string]any{"url": fmt.Sprintf("%s/repos/%s/%s/pulls/%d", s.URL, owner, repo, n)},
		},
		"comment":      map[string]any{"id": 1, "body": body, "user": userJSON(login)},
		"repository":   repoPayload(owner, repo),
		"installation": map[string]any{"id": installation},
		"sender":       userJSON(login),
	})
}

func repoPayload(owner, repo string) map[string]any {
	return map[string]any{"name": repo, "full_name": owner + "/" + repo, "owner": userJSON(owner), "private": false}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Sign is the X-Hub-Signature-256 of body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Deliver posts one delivery to url as GitHub does and returns the status.
func Deliver(ctx context.Context, client *http.Client, url, secret, event, delivery string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/council-test")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-GitHub-Hook-ID", "1")
	req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// ReviewCommentPayload is a pull_request_review_comment created event: login's comment on
// owner/repo#n, a reply to review comment inReplyTo (0 for a new thread).
// https://docs.github.com/webhooks/webhook-events-and-payloads#pull_request_review_comment
func (s *Server) ReviewCommentPayload(owner, repo string, n int, id, inReplyTo int64, login, body string, installation int64) []byte {
	comment := map[string]any{"id": id, "body": body, "user": userJSON(login), "path": "store.go"}
	if inReplyTo != 0 {
		comment["in_reply_to_id"] = inReplyTo
	}
	return mustJSON(map[string]any{
		"action":       "created",
		"comment":      comment,
		"pull_request": map[string]any{"number": n, "state": "open", "user": userJSON("dev")},
		"repository":   repoPayload(owner, repo),
		"installation": map[string]any{"id": installation},
		"sender":       userJSON(login),
	})
}
