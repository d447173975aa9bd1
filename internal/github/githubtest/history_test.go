package githubtest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/github/githubtest"
)

func TestPullMergeStateAndTimes(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	s := setup(t, githubtest.WithClock(func() time.Time { return created }),
		githubtest.WithUser("tok-bot", "helper[bot]", githubtest.PullRequestsWrite))
	pull := func() map[string]any {
		t.Helper()
		resp, m, raw := do(t, "GET", s.URL+"/repos/o/r/pulls/1", tok, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET pull: %d %s", resp.StatusCode, raw)
		}
		return m
	}
	pick := func(m map[string]any, keys ...string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			out[k] = m[k]
		}
		return out
	}
	keys := []string{"state", "merged", "merged_at", "merge_commit_sha", "closed_at", "created_at", "updated_at"}
	want := map[string]any{
		"state": "open", "merged": false, "merged_at": nil, "merge_commit_sha": nil, "closed_at": nil,
		"created_at": "2026-01-02T12:00:00Z", "updated_at": "2026-01-02T12:00:00Z",
	}
	if d := cmp.Diff(want, pick(pull(), keys...)); d != "" {
		t.Errorf("an open pull request (-want +got):\n%s", d)
	}
	if u := pull()["user"].(map[string]any); u["type"] != "User" {
		t.Errorf("author %v: want type User", u)
	}

	// A bot reviews an hour later; the pull request is merged a day later.
	s.SetClock(func() time.Time { return created.Add(time.Hour) })
	resp, m, raw := do(t, "POST", s.URL+"/repos/o/r/pulls/1/reviews", "tok-bot", `{"event":"COMMENT","body":"auto"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("bot review: %d %s", resp.StatusCode, raw)
	}
	if d := cmp.Diff(map[string]any{"login": "helper[bot]", "type": "Bot"}, m["user"]); d != "" {
		t.Errorf("the bot's review user (-want +got):\n%s", d)
	}
	s.SetClock(func() time.Time { return created.Add(24 * time.Hour) })
	s.MarkMerged("o", "r", 1, "")
	got := pick(pull(), keys...)
	sha, _ := got["merge_commit_sha"].(string)
	if len(sha) != 40 {
		t.Errorf("merge_commit_sha %q: want a derived SHA", sha)
	}
	delete(got, "merge_commit_sha")
	want = map[string]any{
		"state": "closed", "merged": true, "merged_at": "2026-01-03T12:00:00Z", "closed_at": "2026-01-03T12:00:00Z",
		"created_at": "2026-01-02T12:00:00Z", "updated_at": "2026-01-03T12:00:00Z",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a merged pull request (-want +got):\n%s", d)
	}
}

func TestDeleteUserServesNull(t *testing.T) {
	t.Parallel()
	s := setup(t, githubtest.WithUser("tok-alice", "alice", githubtest.PullRequestsWrite))
	if resp, _, raw := do(t, "POST", s.URL+"/repos/o/r/pulls/1/reviews", "tok-alice",
		`{"event":"COMMENT","body":"b","comments":[{"path":"a.go","line":1,"body":"c"}]}`); resp.StatusCode != 200 {
		t.Fatalf("review: %d %s", resp.StatusCode, raw)
	}
	s.DeleteUser("alice")
	s.DeleteUser("octocat") // the pull request's author
	users := func(path string) []any {
		t.Helper()
		resp, _, raw := do(t, "GET", s.URL+path, tok, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, raw)
		}
		var items []map[string]any
		if err := json.Unmarshal([]byte(raw), &items); err != nil {
			var one map[string]any
			if err := json.Unmarshal([]byte(raw), &one); err != nil {
				t.Fatal(err)
			}
			items = append(items, one)
		}
		var out []any
		for _, it := range items {
			u, ok := it["user"]
			if !ok {
				t.Errorf("GET %s: an item without a user field: %v", path, it)
			}
			out = append(out, u)
		}
		return out
	}
	for _, path := range []string{"/repos/o/r/pulls/1", "/repos/o/r/pulls/1/reviews", "/repos/o/r/pulls/1/comments"} {
		if d := cmp.Diff([]any{nil}, users(path)); d != "" {
			t.Errorf("GET %s: users (-want +got):\n%s", path, d)
		}
	}
}
