package githubtest

import (
	"crypto/sha1" //nolint:gosec // git object ids are SHA-1; nothing here is security-relevant
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/finding"
)

// PR is a pull request to serve. Empty fields get defaults: State "open", BaseRef "main",
// HeadRef "feature", Author "octocat", SHAs derived from the patch.
type PR struct {
	Number           int
	Title, Body      string
	Author           string
	State            string
	Draft            bool
	BaseRef, BaseSHA string
	HeadRef, HeadSHA string
	// HeadRepo is the "owner/repo" the head branch lives in: empty for the base repository,
	// another repository for a fork.
	HeadRepo string
}

type repoState struct {
	owner, name string
	private     bool // SetPrivate
	prs         map[int]*prState
	files       map[string]map[string]string // ref -> path -> content
	commits     map[string]bool              // every SHA the repository knows
	checkRuns   map[int64]*CheckRunState
}

type prState struct {
	pr            PR
	commits       []*commitState // oldest first; the last is the head
	reviews       map[int64]*reviewState
	comments      map[int64]*commentState
	issueComments map[int64]*issueCommentState
	// created is when AddPR registered it; MarkMerged sets the rest.
	created, mergedAt, closedAt time.Time
	merged                      bool
	mergeCommit                 string
}

func (p *prState) head() *commitState { return p.commits[len(p.commits)-1] }

func (p *prState) commit(sha string) *commitState {
	for _, c := range p.commits {
		if c.sha == sha {
			return c
		}
	}
	return nil
}

// commitState is one head the pull request has had, with its diff against the base.
type commitState struct {
	sha     string
	patch   string
	files   []diff.File
	patches []string // each file's hunks as the files endpoint shows them
	index   *diff.Index
	lines   int       // lines of hunks, for the diff size limit
	pushed  time.Time // when it became the head (AddPR, SetHead): updated_at
}

func (s *Server) newCommit(sha, patch string) *commitState {
	s.t.Helper()
	files, err := diff.Parse([]byte(patch))
	if err != nil {
		s.t.Fatalf("githubtest: parse the patch of %s: %v", sha, err)
	}
	sections := splitFiles(patch)
	if len(sections) != len(files) {
		s.t.Fatalf("githubtest: the patch of %s has %d file sections for %d files: give a git diff with 'diff --git' headers", sha, len(sections), len(files))
	}
	c := &commitState{sha: sha, patch: patch, files: files, index: diff.NewIndex(files)}
	for i, sec := range sections {
		c.patches = append(c.patches, hunksOf(sec))
		for _, h := range files[i].Hunks {
			c.lines += len(h.Lines)
		}
	}
	return c
}

// splitFiles cuts a git patch at its "diff --git" lines.
func splitFiles(patch string) []string {
	var out []string
	lines := strings.SplitAfter(patch, "\n")
	cur := -1
	for _, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			out = append(out, "")
			cur++
		}
		if cur >= 0 {
			out[cur] += l
		}
	}
	return out
}

// hunksOf is a file section from its first "@@" on, without the final newline: the "patch"
// of the files endpoint.
func hunksOf(section string) string {
	i := strings.Index(section, "\n@@")
	if i < 0 {
		return ""
	}
	return strings.TrimSuffix(section[i+1:], "\n")
}

// lineText returns the text of line on side of path in c's diff.
func (c *commitState) lineText(path string, side finding.Side, line int) (string, bool) {
	pos, ok := c.index.Lookup(path, side, line)
	if !ok {
		return "", false
	}
	h := c.files[pos.File].Hunks[pos.Hunk]
	for _, l := range h.Lines {
		n := l.New
		if side == finding.Left {
			n = l.Old
		}
		if n == line && ((side == finding.Left && l.Op != diff.Add) || (side == finding.Right && l.Op != diff.Delete)) {
			return string(l.Op) + l.Text, true
		}
	}
	return "", false
}

// diffHunk is the hunk holding line, up to that line, as review comments carry it.
func (c *commitState) diffHunk(path string, side finding.Side, line int) string {
	pos, ok := c.index.Lookup(path, side, line)
	if !ok {
		return ""
	}
	h := c.files[pos.File].Hunks[pos.Hunk]
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@%s", h.OldStart, h.OldLines, h.NewStart, h.NewLines, sectionSuffix(h.Section))
	for _, l := range h.Lines {
		b.WriteString("\n" + string(l.Op) + l.Text)
		if (side == finding.Right && l.New == line && l.Op != diff.Delete) || (side == finding.Left && l.Old == line && l.Op != diff.Add) {
			break
		}
	}
	return b.String()
}

func sectionSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

func gitSHA(kind, content string) string {
	h := sha1.New() //nolint:gosec // git object ids
	fmt.Fprintf(h, "%s %d\x00%s", kind, len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

func repoKey(owner, repo string) string { return strings.ToLower(owner + "/" + repo) }

// AddPR serves a pull request of owner/repo: pr's metadata, patch (a git diff of the pull
// request, base to head) and files (ref -> path -> content, for the contents endpoint; refs
// are branch names or SHAs, and accumulate across calls).
func (s *Server) AddPR(owner, repo string, pr PR, patch string, files map[string]map[string]string) {
	s.t.Helper()
	if pr.Number <= 0 {
		s.t.Fatalf("githubtest: AddPR %s/%s: pull request number %d", owner, repo, pr.Number)
	}
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.BaseRef == "" {
		pr.BaseRef = "main"
	}
	if pr.HeadRef == "" {
		pr.HeadRef = "feature"
	}
	if pr.Author == "" {
		pr.Author = "octocat"
	}
	if pr.BaseSHA == "" {
		pr.BaseSHA = gitSHA("commit", "base "+strconv.Itoa(pr.Number)+patch)
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = gitSHA("commit", "head "+strconv.Itoa(pr.Number)+patch)
	}
	c := s.newCommit(pr.HeadSHA, patch)

	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo, true)
	c.pushed = s.now()
	r.prs[pr.Number] = &prState{
		pr: pr, commits: []*commitState{c},
		reviews: map[int64]*reviewState{}, comments: map[int64]*commentState{}, issueComments: map[int64]*issueCommentState{},
		created: c.pushed,
	}
	r.commits[pr.BaseSHA], r.commits[pr.HeadSHA] = true, true
	for ref, fs := range files {
		if r.files[ref] == nil {
			r.files[ref] = map[string]string{}
		}
		for p, content := range fs {
			r.files[ref][p] = content
		}
	}
}

// SetHead simulates a push: the pull request's head becomes sha, whose diff against the base
// is patch. Earlier heads stay commits of the pull request (a review may still name them), and
// comments whose line no longer reads the same at the new head come back outdated (line null).
func (s *Server) SetHead(owner, repo string, n int, sha, patch string) {
	s.t.Helper()
	c := s.newCommit(sha, patch)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo, false)
	if r == nil || r.prs[n] == nil {
		s.t.Fatalf("githubtest: SetHead: no pull request %s/%s#%d", owner, repo, n)
		return
	}
	p := r.prs[n]
	c.pushed = s.now()
	p.commits = append(p.commits, c)
	p.pr.HeadSHA = sha
	r.commits[sha] = true
}

// repo finds a repository, creating it when create is set. Call with s.mu held.
func (s *Server) repo(owner, name string, create bool) *repoState {
	k := repoKey(owner, name)
	r := s.repos[k]
	if r == nil && create {
		r = &repoState{
			owner: owner, name: name, prs: map[int]*prState{}, files: map[string]map[string]string{},
			commits: map[string]bool{}, checkRuns: map[int64]*CheckRunState{},
		}
		s.repos[k] = r
	}
	return r
}

// lookupPR finds the request's repository and pull request, or answers 404. Call with s.mu
// held.
func (s *Server) lookupPR(w http.ResponseWriter, r *http.Request) (*repoState, *prState) {
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	n, err := strconv.Atoi(r.PathValue("n"))
	if rs == nil || err != nil || rs.prs[n] == nil {
		notFound(w)
		return nil, nil
	}
	return rs, rs.prs[n]
}

func (s *Server) prURL(rs *repoState, n int) string {
	return fmt.Sprintf("%s/%s/%s/pull/%d", s.WebURL, rs.owner, rs.name, n)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, p := s.lookupPR(w, r)
	if p == nil || !readable(w, r, PullRequestsRead) {
		return
	}
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, ".diff") || strings.Contains(accept, ".patch") {
		h := p.head()
		if len(h.files) > s.maxDiffFiles || h.lines > s.maxDiffLines {
			msg := fmt.Sprintf("Sorry, the diff exceeded the maximum number of files (%d). Consider using 'List pull requests files' API or locally cloning the repository instead.", s.maxDiffFiles)
			if len(h.files) <= s.maxDiffFiles {
				msg = fmt.Sprintf("Sorry, the diff exceeded the maximum number of lines (%d)", s.maxDiffLines)
			}
			writeError(w, http.StatusNotAcceptable, msg,
				[]map[string]string{{"resource": "PullRequest", "field": "diff", "code": "too_large"}},
				"https://docs.github.com/rest/pulls/pulls#list-pull-requests-files")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(h.patch))
		return
	}
	base := rs.owner + "/" + rs.name
	headRepo := p.pr.HeadRepo
	if headRepo == "" {
		headRepo = base
	}
	fork := !strings.EqualFold(headRepo, base)
	m := map[string]any{
		"number": p.pr.Number, "title": p.pr.Title, "body": p.pr.Body, "state": p.pr.State, "draft": p.pr.Draft,
		"html_url": s.prURL(rs, p.pr.Number),
		"url":      fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, base, p.pr.Number),
		"user":     userJSON(p.pr.Author),
		"head": map[string]any{
			"ref": p.pr.HeadRef, "sha": p.pr.HeadSHA, "label": strings.Split(headRepo, "/")[0] + ":" + p.pr.HeadRef,
			"repo": map[string]any{"full_name": headRepo, "fork": fork},
		},
		"base": map[string]any{
			"ref": p.pr.BaseRef, "sha": p.pr.BaseSHA, "label": rs.owner + ":" + p.pr.BaseRef,
			"repo": map[string]any{"full_name": base, "fork": false},
		},
		"changed_files": len(p.head().files),
	}
	for k, v := range pullTimes(p) {
		m[k] = v
	}
	writeJSON(w, http.StatusOK, m)
}

// githubStatus is the files endpoint's name for what happened to a file.
func githubStatus(f diff.File) string {
	switch f.Status {
	case diff.Added:
		return "added"
	case diff.Deleted:
		return "removed"
	case diff.Renamed:
		return "renamed"
	case diff.Copied:
		return "copied"
	}
	if len(f.Hunks) == 0 && !f.Binary {
		return "changed"
	}
	return "modified"
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p := s.lookupPR(w, r)
	if p == nil || !readable(w, r, PullRequestsRead) {
		return
	}
	h := p.head()
	all := make([]map[string]any, 0, len(h.files))
	for i, f := range h.files {
		e := map[string]any{
			"sha": gitSHA("blob", h.patches[i]), "filename": f.Path(), "status": githubStatus(f),
			"additions": f.Added, "deletions": f.Deleted, "changes": f.Added + f.Deleted,
		}
		if h.patches[i] != "" {
			e["patch"] = h.patches[i]
		}
		if f.Status == diff.Renamed || f.Status == diff.Copied {
			e["previous_filename"] = f.OldPath
		}
		all = append(all, e)
	}
	writeJSON(w, http.StatusOK, paginate(s, w, r, all))
}

// largeFile is the size above which the contents API stops inlining a file (encoding "none").
const largeFile = 1 << 20

func (s *Server) contents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repo(r.PathValue("owner"), r.PathValue("repo"), false)
	if rs == nil {
		notFound(w)
		return
	}
	if !readable(w, r, ContentsRead) {
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	files, ok := rs.files[ref]
	if !ok {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref, nil,
			"https://docs.github.com/rest/repos/contents#get-repository-content")
		return
	}
	path := strings.Trim(r.PathValue("path"), "/")
	content, ok := files[path]
	if !ok {
		var entries []map[string]any
		names := make([]string, 0, len(files))
		for p := range files {
			names = append(names, p)
		}
		sort.Strings(names)
		seen := map[string]bool{}
		for _, p := range names {
			rest, under := strings.CutPrefix(p, path+"/")
			if !under {
				continue
			}
			name, _, isDir := strings.Cut(rest, "/")
			if seen[name] {
				continue
			}
			seen[name] = true
			kind := "file"
			if isDir {
				kind = "dir"
			}
			entries = append(entries, map[string]any{"type": kind, "name": name, "path": path + "/" + name})
		}
		if entries == nil {
			writeError(w, http.StatusNotFound, "Not Found", nil, "https://docs.github.com/rest/repos/contents#get-repository-content")
			return
		}
		writeJSON(w, http.StatusOK, entries)
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "vnd.github.raw") {
		w.Header().Set("Content-Type", "application/vnd.github.raw")
		_, _ = w.Write([]byte(content))
		return
	}
	name := path[strings.LastIndex(path, "/")+1:]
	e := map[string]any{
		"type": "file", "name": name, "path": path, "size": len(content), "sha": gitSHA("blob", content),
		"encoding": "base64", "content": wrap(base64.StdEncoding.EncodeToString([]byte(content)), 60),
	}
	if len(content) > largeFile {
		e["encoding"], e["content"] = "none", ""
	}
	writeJSON(w, http.StatusOK, e)
}

// wrap breaks s into lines of n characters, as GitHub breaks base64 content.
func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	b.WriteString(s)
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
