package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// GraphQLPath is where the GraphQL API is served: /api/graphql next to the REST API's
// /api/v3, as on GitHub Enterprise Server, which is where a client derives it from a base URL
// ending in /api/v3. Count and Log name its requests by this path.
//
// It answers two operations, recognised by their root fields: the query
// repository(owner, name) { pullRequest(number) { reviewThreads(first, after) ... } } and the
// mutation resolveReviewThread(input: {threadId}). Threads are built from the stored review
// comments (a first comment and its replies; id "PRRT_<first comment id>"); a thread is
// outdated when its line no longer reads the same at the head (SetHead), as the REST comments
// then show line null. Errors come as GitHub sends them: HTTP 200 with an "errors" array. The
// fake answers with every field of the schema subset it knows, whatever the selection.
const GraphQLPath = "/api/graphql"

// apiPath reports whether a request's path is one the fake serves and authenticates: under
// BasePath, or GraphQLPath.
func apiPath(p string) bool { return strings.HasPrefix(p, BasePath+"/") || p == GraphQLPath }

// resolved returns s's resolved threads (by first comment id). Call with s.mu held.
func (s *Server) resolved() map[int64]bool {
	if s.resolvedThreads == nil {
		s.resolvedThreads = map[int64]bool{}
	}
	return s.resolvedThreads
}

// ThreadResolved reports whether the review thread that starts with commentID was resolved.
func (s *Server) ThreadResolved(commentID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resolved()[commentID]
}

// ResolveThreadAs resolves the review thread that starts with commentID as login would with
// the "Resolve conversation" button: the thread's resolvedBy is then login. Resolving a
// resolved thread changes nothing, as on GitHub.
func (s *Server) ResolveThreadAs(commentID int64, login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.repos {
		for _, p := range rs.prs {
			if c := p.comments[commentID]; c != nil {
				if c.inReplyTo != 0 {
					s.t.Fatalf("githubtest: ResolveThreadAs: comment %d is a reply, not the start of a thread", commentID)
				}
				s.resolveAs(commentID, login)
				return
			}
		}
	}
	s.t.Fatalf("githubtest: ResolveThreadAs: no review comment %d", commentID)
}

// resolveAs marks a thread resolved by login, keeping the first resolver. Call with s.mu held.
func (s *Server) resolveAs(firstComment int64, login string) {
	if s.resolved()[firstComment] {
		return
	}
	s.resolved()[firstComment] = true
	if s.resolvers == nil {
		s.resolvers = map[int64]string{}
	}
	s.resolvers[firstComment] = login
}

type gqlError struct {
	Type    string   `json:"type,omitempty"`
	Path    []string `json:"path,omitempty"`
	Message string   `json:"message"`
}

// gqlFail answers a GraphQL error: HTTP 200, data (nil leaves it out) and one error.
func gqlFail(w http.ResponseWriter, data any, typ, message string, path ...string) {
	body := map[string]any{"errors": []gqlError{{Type: typ, Path: path, Message: message}}}
	if data != nil {
		body["data"] = data
	}
	writeJSON(w, http.StatusOK, body)
}

var (
	gqlName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]*`)
	// gqlArg is one argument: a name and a variable, string, number, boolean or null.
	gqlArg = regexp.MustCompile(`([_A-Za-z][_0-9A-Za-z]*)\s*:\s*(\$[_A-Za-z][_0-9A-Za-z]*|"(?:[^"\\]|\\.)*"|-?\d+|true|false|null)`)
)

// gqlArgs returns the arguments of the first selection of field in query, with variables
// replaced by their values; nested input objects are flattened into the same map. ok is false
// when the query does not select field.
func gqlArgs(query, field string, vars map[string]any) (map[string]any, bool) {
	loc := regexp.MustCompile(`\b` + field + `\b\s*(\()?`).FindStringSubmatchIndex(query)
	if loc == nil {
		return nil, false
	}
	args := map[string]any{}
	if loc[2] < 0 {
		return args, true
	}
	rest := query[loc[1]:]
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return args, true
	}
	for _, m := range gqlArg.FindAllStringSubmatch(rest[:end], -1) {
		name, raw := m[1], m[2]
		switch {
		case strings.HasPrefix(raw, "$"):
			v := vars[raw[1:]]
			if obj, ok := v.(map[string]any); ok { // input: $input
				for k, x := range obj {
					args[k] = x
				}
				continue
			}
			args[name] = v
		case strings.HasPrefix(raw, `"`):
			s, err := strconv.Unquote(raw)
			if err != nil {
				s = strings.Trim(raw, `"`)
			}
			args[name] = s
		case raw == "null":
			args[name] = nil
		case raw == "true" || raw == "false":
			args[name] = raw == "true"
		default:
			f, _ := strconv.ParseFloat(raw, 64)
			args[name] = f
		}
	}
	return args, true
}

func argString(args map[string]any, name string) (string, bool) {
	s, ok := args[name].(string)
	return s, ok
}

func argInt(args map[string]any, name string) (int, bool) {
	f, ok := args[name].(float64)
	if !ok || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// graphql is POST GraphQLPath.
func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badJSON(w)
		return
	}
	q := strings.TrimSpace(req.Query)
	kind := "Query"
	switch {
	case strings.HasPrefix(q, "mutation"):
		kind = "Mutation"
	case strings.HasPrefix(q, "query"), strings.HasPrefix(q, "{"):
	default:
		gqlFail(w, nil, "", "githubtest: only queries and mutations are served")
		return
	}
	root := ""
	if i := strings.IndexByte(q, '{'); i >= 0 {
		root = gqlName.FindString(strings.TrimSpace(q[i+1:]))
	}
	switch {
	case kind == "Query" && root == "repository":
		s.gqlReviewThreads(w, q, req.Variables)
	case kind == "Mutation" && root == "resolveReviewThread":
		s.gqlResolveThread(w, r, q, req.Variables)
	default:
		gqlFail(w, nil, "", fmt.Sprintf("Field '%s' doesn't exist on type '%s'", root, kind), strings.ToLower(kind), root)
	}
}

// gqlReviewThreads answers repository { pullRequest { reviewThreads } }.
func (s *Server) gqlReviewThreads(w http.ResponseWriter, q string, vars map[string]any) {
	repoArgs, _ := gqlArgs(q, "repository", vars)
	prArgs, okPR := gqlArgs(q, "pullRequest", vars)
	threadArgs, okThreads := gqlArgs(q, "reviewThreads", vars)
	if !okPR || !okThreads {
		gqlFail(w, nil, "", "githubtest: only repository { pullRequest { reviewThreads } } is served", "query", "repository")
		return
	}
	owner, ok1 := argString(repoArgs, "owner")
	name, ok2 := argString(repoArgs, "name")
	n, ok3 := argInt(prArgs, "number")
	first, ok4 := argInt(threadArgs, "first")
	if !ok1 || !ok2 || !ok3 {
		gqlFail(w, nil, "", "Argument 'owner', 'name' or 'number' has an invalid value", "query", "repository")
		return
	}
	if !ok4 || first < 0 || first > 100 {
		gqlFail(w, nil, "", fmt.Sprintf("You must provide a `first` value between 0 and 100 to properly paginate the `reviewThreads` connection (got %v).", threadArgs["first"]),
			"repository", "pullRequest", "reviewThreads")
		return
	}
	after := 0
	if c, ok := argString(threadArgs, "after"); ok {
		id, err := decodeCursor(c)
		if err != nil {
			gqlFail(w, map[string]any{"repository": nil}, "", fmt.Sprintf("`%s` does not appear to be a valid cursor.", c), "repository", "pullRequest", "reviewThreads")
			return
		}
		after = int(id)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(owner, name, false)
	if rs == nil {
		gqlFail(w, map[string]any{"repository": nil}, "NOT_FOUND",
			fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name), "repository")
		return
	}
	p := rs.prs[n]
	if p == nil {
		gqlFail(w, map[string]any{"repository": map[string]any{"pullRequest": nil}}, "NOT_FOUND",
			fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n), "repository", "pullRequest")
		return
	}

	var starts []*commentState
	for _, id := range sortedIDs(p.comments) {
		c := p.comments[id]
		if rv := p.reviews[c.reviewID]; c.inReplyTo != 0 || (rv != nil && rv.state == "PENDING") {
			continue
		}
		if id > int64(after) {
			starts = append(starts, c)
		}
	}
	per := min(first, s.maxPerPage)
	page := starts[:min(per, len(starts))]
	nodes := make([]map[string]any, 0, len(page))
	head := p.head()
	resolved := s.resolved()
	for _, c := range page {
		// resolvedBy is null while the thread is open, and for an account since deleted.
		// https://docs.github.com/graphql/reference/objects#pullrequestreviewthread
		var by any
		if l := s.resolvers[c.id]; resolved[c.id] && l != "" {
			by = map[string]any{"login": l}
		}
		outdated := false
		if c.commit != head.sha {
			text, ok := head.lineText(c.path, finding.Side(c.side), c.line)
			outdated = !ok || text != c.text
		}
		nodes = append(nodes, map[string]any{
			"id": threadID(c.id), "isResolved": resolved[c.id], "isOutdated": outdated, "resolvedBy": by,
			"comments": map[string]any{"nodes": []map[string]any{{"databaseId": c.id}}},
		})
	}
	var end any
	if len(page) > 0 {
		end = encodeCursor(page[len(page)-1].id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": map[string]any{
			"nodes":    nodes,
			"pageInfo": map[string]any{"hasNextPage": len(page) < len(starts), "endCursor": end},
		}}},
	}})
}

// gqlResolveThread answers resolveReviewThread(input: {threadId}).
func (s *Server) gqlResolveThread(w http.ResponseWriter, r *http.Request, q string, vars map[string]any) {
	args, _ := gqlArgs(q, "resolveReviewThread", vars)
	id, ok := argString(args, "threadId")
	if !ok {
		gqlFail(w, nil, "", "Argument 'threadId' on InputObject 'ResolveReviewThreadInput' is required.", "mutation", "resolveReviewThread")
		return
	}
	none := map[string]any{"resolveReviewThread": nil}
	s.mu.Lock()
	defer s.mu.Unlock()
	var thread *commentState
	if n, err := strconv.ParseInt(strings.TrimPrefix(id, "PRRT_"), 10, 64); err == nil && strings.HasPrefix(id, "PRRT_") {
		for _, rs := range s.repos {
			for _, p := range rs.prs {
				if c := p.comments[n]; c != nil && c.inReplyTo == 0 {
					thread = c
				}
			}
		}
	}
	if thread == nil {
		gqlFail(w, none, "NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id), "resolveReviewThread")
		return
	}
	if t, _ := r.Context().Value(ctxKey{}).(*token); t == nil || !t.scopes[PullRequestsWrite] {
		gqlFail(w, none, "FORBIDDEN", "Resource not accessible by integration", "resolveReviewThread")
		return
	}
	s.resolveAs(thread.id, login(r))
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"resolveReviewThread": map[string]any{"thread": map[string]any{"id": id, "isResolved": true}},
	}})
}

func threadID(firstComment int64) string { return "PRRT_" + strconv.FormatInt(firstComment, 10) }

// Cursors are opaque to clients, as GitHub's are; here they carry the last thread's first
// comment id.
func encodeCursor(id int64) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.FormatInt(id, 10)))
}

func decodeCursor(c string) (int64, error) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, fmt.Errorf("decode cursor: %w", err)
	}
	rest, ok := strings.CutPrefix(string(b), "cursor:v2:")
	if !ok {
		return 0, fmt.Errorf("cursor %q: unknown shape", c)
	}
	return strconv.ParseInt(rest, 10, 64)
}
