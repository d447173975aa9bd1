package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// Thread is a review thread of a pull request: an inline comment and its replies, which
// GitHub resolves, and marks outdated, as one.
type Thread struct {
	// ID is GitHub's GraphQL node id of the thread ("PRRT_..."): what ResolveThread takes.
	ID string
	// Resolved is set once someone (or ResolveThread) resolved the thread.
	Resolved bool
	// ResolvedBy is the login of who resolved it (GraphQL's resolvedBy); "" when it is not
	// resolved, or GitHub no longer knows the account.
	// https://docs.github.com/graphql/reference/objects#pullrequestreviewthread
	ResolvedBy string
	// Outdated is set when the commented line has changed since: GitHub no longer places the
	// thread on the pull request's diff.
	Outdated bool
	// FirstCommentID is the REST id of the thread's first comment (ReviewComment.ID), which
	// ties a thread to the comment council posted.
	FirstCommentID int64
}

// GraphQL is the only way GitHub offers to list review threads with their state and to
// resolve them; REST knows comments only. Both documents are fixed: every value travels as a
// variable, never spliced into the text.
const (
	reviewThreadsQuery = `query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        nodes { id isResolved isOutdated resolvedBy { login } comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`
	resolveThreadMutation = `mutation($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`
)

// ReviewThreads lists every review thread of a pull request, oldest first, following GitHub's
// cursors across pages of 100.
func (c *Client) ReviewThreads(ctx context.Context, owner, repo string, n int) ([]Thread, error) {
	if err := checkPR(owner, repo, n); err != nil {
		return nil, err
	}
	var all []Thread
	var cursor *string
	for {
		var data struct {
			Repository *struct {
				PullRequest *struct {
					ReviewThreads struct {
						Nodes []struct {
							ID         string `json:"id"`
							IsResolved bool   `json:"isResolved"`
							IsOutdated bool   `json:"isOutdated"`
							ResolvedBy *struct {
								Login string `json:"login"`
							} `json:"resolvedBy"`
							Comments struct {
								Nodes []struct {
									DatabaseID int64 `json:"databaseId"`
								} `json:"nodes"`
							} `json:"comments"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		vars := map[string]any{"owner": owner, "name": repo, "number": n, "cursor": cursor}
		if err := c.graphql(ctx, reviewThreadsQuery, vars, "", &data); err != nil {
			return nil, fmt.Errorf("list review threads of %s/%s#%d: %w", owner, repo, n, err)
		}
		if data.Repository == nil || data.Repository.PullRequest == nil {
			// GitHub names a missing repository or pull request in "errors"; this is an answer
			// that left both out.
			return nil, fmt.Errorf("list review threads of %s/%s#%d: github: the answer holds no pull request", owner, repo, n)
		}
		page := data.Repository.PullRequest.ReviewThreads
		for _, t := range page.Nodes {
			th := Thread{ID: t.ID, Resolved: t.IsResolved, Outdated: t.IsOutdated}
			if t.ResolvedBy != nil {
				th.ResolvedBy = t.ResolvedBy.Login
			}
			if len(t.Comments.Nodes) > 0 {
				th.FirstCommentID = t.Comments.Nodes[0].DatabaseID
			}
			all = append(all, th)
		}
		if !page.PageInfo.HasNextPage {
			return all, nil
		}
		if page.PageInfo.EndCursor == "" || (cursor != nil && *cursor == page.PageInfo.EndCursor) {
			return nil, fmt.Errorf("list review threads of %s/%s#%d: github: GitHub announced a next page without a new cursor", owner, repo, n)
		}
		next := page.PageInfo.EndCursor
		cursor = &next
	}
}

// ResolveThread marks a review thread resolved, as the "Resolve conversation" button does. It
// needs pull_requests:write; resolving a resolved thread is not an error.
func (c *Client) ResolveThread(ctx context.Context, threadID string) error {
	if strings.TrimSpace(threadID) == "" {
		return errors.New("github: resolve review thread: empty thread id")
	}
	var data struct {
		ResolveReviewThread *struct {
			Thread *struct {
				ID         string `json:"id"`
				IsResolved bool   `json:"isResolved"`
			} `json:"thread"`
		} `json:"resolveReviewThread"`
	}
	vars := map[string]any{"id": threadID}
	if err := c.graphql(ctx, resolveThreadMutation, vars, "pull_requests=write", &data); err != nil {
		return fmt.Errorf("resolve review thread %s: %w", threadID, err)
	}
	if r := data.ResolveReviewThread; r == nil || r.Thread == nil || !r.Thread.IsResolved {
		return fmt.Errorf("resolve review thread %s: github: GitHub answered without marking it resolved", threadID)
	}
	return nil
}

// graphqlURL is the GraphQL endpoint that goes with the REST base URL. GitHub Enterprise
// Server serves REST under /api/v3 and GraphQL at /api/graphql; elsewhere GraphQL is the base
// URL plus /graphql, which for github.com is https://api.github.com/graphql.
func (c *Client) graphqlURL() string {
	u := *c.base
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(p, "/api/v3") {
		p = strings.TrimSuffix(p, "/v3")
	}
	u.Path, u.RawPath = p+"/graphql", ""
	return u.String()
}

type graphqlRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

// graphqlError is one entry of a GraphQL answer's "errors". Type is GitHub's classification
// (NOT_FOUND, FORBIDDEN, UNPROCESSABLE, RATE_LIMITED), absent for a malformed document.
type graphqlError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// graphqlStatus is the HTTP status a GitHub GraphQL error type stands for, so that IsNotFound,
// IsAuth and IsUnprocessable work on GraphQL calls as on REST ones.
var graphqlStatus = map[string]int{
	"NOT_FOUND":     http.StatusNotFound,
	"FORBIDDEN":     http.StatusForbidden,
	"UNPROCESSABLE": http.StatusUnprocessableEntity,
}

// graphql posts a document through the same client, and so the same transport, as every REST
// call: it is authenticated, counted in Requests and retried on rate limits. A failed HTTP
// answer becomes the usual typed error; errors in a 200 answer become an *APIError (or a
// *RateLimitError for RATE_LIMITED) carrying GitHub's message. need is the permission a
// FORBIDDEN answer lacked ("pull_requests=write"), for the error's hint when GitHub does not
// name one.
func (c *Client) graphql(ctx context.Context, query string, vars map[string]any, need string, data any) error {
	req, err := c.gh.NewRequest(ctx, http.MethodPost, c.graphqlURL(), graphqlRequest{Query: query, Variables: vars})
	if err != nil {
		return fmt.Errorf("github: %w", err)
	}
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []graphqlError  `json:"errors"`
	}
	resp, err := c.gh.Do(req, &out)
	if err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) || errors.As(err, &te) {
			return fmt.Errorf("github: POST %s: the answer is not a GraphQL response: %w", c.relPath(req.URL.String()), err)
		}
		return c.convert(err)
	}
	if len(out.Errors) > 0 {
		return c.fromGraphQL(resp, need, out.Errors)
	}
	if len(out.Data) == 0 || string(out.Data) == "null" {
		return fmt.Errorf("github: POST %s: the answer holds neither data nor errors", c.relPath(req.URL.String()))
	}
	if err := json.Unmarshal(out.Data, data); err != nil {
		return fmt.Errorf("github: POST %s: decode the answer: %w", c.relPath(req.URL.String()), err)
	}
	return nil
}

// fromGraphQL builds the typed error for the "errors" of a GraphQL answer: the first entry
// gives the message and, through its type, the status; the others become details.
func (c *Client) fromGraphQL(resp *gh.Response, need string, errs []graphqlError) error {
	method, path := http.MethodPost, ""
	if resp.Request != nil {
		method, path = resp.Request.Method, c.relPath(resp.Request.URL.String())
	}
	first := errs[0]
	if first.Type == "RATE_LIMITED" {
		rl := &RateLimitError{
			Status: resp.StatusCode, Secondary: resp.Header.Get("X-Ratelimit-Remaining") != "0",
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.now()),
			Message:    c.redact(first.Message), Path: path, Method: method,
		}
		if !rl.Secondary && resp.Rate.Reset.Unix() > 0 {
			rl.Reset = resp.Rate.Reset.Truncate(time.Second)
		}
		return rl
	}
	e := &APIError{
		Status: resp.StatusCode, Message: c.redact(first.Message), Path: path, Method: method,
		Permissions: resp.Header.Get("X-Accepted-Github-Permissions"),
	}
	if s, ok := graphqlStatus[first.Type]; ok {
		e.Status = s
	}
	if e.Status == http.StatusForbidden && e.Permissions == "" {
		e.Permissions = need
	}
	for _, x := range errs[1:] {
		e.Errors = append(e.Errors, c.redact(x.Message))
	}
	return e
}
