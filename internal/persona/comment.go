// Package persona builds a persona, a reviewer document that imitates one maintainer, from
// that maintainer's past review comments: it reads them (the JSON-lines contract of Comment,
// or harvested from GitHub through a client and a cache the caller gives, Harvest),
// selects the ones that say something, computes their statistics exactly, asks a model to
// distill themes and voice from them, and writes the document with exemplars quoted verbatim
// from real comments.
//
// It must never do I/O of its own (files, network, clock, environment): readers, writers, the
// model client and the time come from the caller. It never imports a provider SDK. Comment
// text is untrusted data: it is shown to the model marked as such and never as instructions,
// and an exemplar is always a real comment chosen by index, never text the model wrote.
package persona

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Comment is one review comment of a maintainer: one line of the JSON-lines contract that
// council persona build --from-file reads and that a harvester (GitHub, later) writes. The
// JSON names are a contract (docs/personas.md); other fields on input are ignored.
type Comment struct {
	// ID is the comment's id where the source has one; replies refer to it.
	ID   int64  `json:"id,omitempty"`
	Repo string `json:"repo"` // "owner/name"
	PR   int    `json:"pr"`
	Path string `json:"path"`           // empty for a review's top-level text
	Line int    `json:"line,omitempty"` // 0: unknown
	Side string `json:"side,omitempty"` // "RIGHT", "LEFT" or empty
	// DiffHunk is the diff GitHub shows above an inline comment, ending at its line.
	DiffHunk  string    `json:"diff_hunk"`
	Body      string    `json:"body"`
	Author    string    `json:"author"`
	CreatedAt time.Time `json:"created_at"`
	// InReplyTo is the id of the comment this one replies to; nil starts a thread. Addressed
	// is whether the author of the change acted on it; nil is unknown. Both are pointers
	// because the contract tells null from a value.
	InReplyTo *int64 `json:"in_reply_to"`
	Addressed *bool  `json:"addressed"`
	// ReviewBody marks a review's top-level text rather than an inline comment.
	ReviewBody bool `json:"review_body"`
	// Replies are what others answered in the thread this comment started, oldest first:
	// kept with the harvest, never shown to the model nor written into a persona.
	Replies []Reply `json:"replies,omitempty"`
	// Commit is the commit an inline comment was made on (GitHub's original_commit_id), as a
	// harvest read it; empty otherwise.
	Commit string `json:"commit,omitempty"`
}

// Reply is another person's answer in a thread.
type Reply struct {
	Author string `json:"author"`
	Body   string `json:"body"`
}

// LineError is a line of a comments file that does not meet the contract.
type LineError struct {
	File  string
	Line  int    // 1-based
	Field string // the JSON field at fault; empty when the line is not a JSON object
	Msg   string // what is wrong and what to do
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// wire is a line as it arrives: created_at as text, so that a bad time names its field.
type wire struct {
	Comment
	CreatedAt *string `json:"created_at"`
}

// ReadJSONL reads comments, one JSON object per line, from r, read from name (used in
// errors). Blank lines are skipped. A line that is not a JSON object, has a field of the wrong
// type, lacks body, author or created_at, has a created_at that is not RFC 3339, or a side
// other than RIGHT or LEFT is a *LineError naming name:line and the field.
func ReadJSONL(r io.Reader, name string) ([]Comment, error) {
	br := bufio.NewReader(r)
	var out []Comment
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if strings.TrimSpace(line) != "" {
			c, lerr := parseLine(line)
			if lerr != nil {
				lerr.File, lerr.Line = name, n
				return nil, lerr
			}
			out = append(out, c)
		}
		if err != nil {
			return out, nil
		}
	}
}

func parseLine(line string) (Comment, *LineError) {
	var w wire
	if err := json.Unmarshal([]byte(line), &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return Comment{}, &LineError{Msg: fmt.Sprintf("is a JSON %s, want an object: write one comment object per line", te.Value)}
			}
			return Comment{}, &LineError{Field: strings.TrimPrefix(te.Field, "Comment."), Msg: fmt.Sprintf("is a JSON %s, want %s", te.Value, jsonType(te.Type.Kind().String()))}
		}
		return Comment{}, &LineError{Msg: "not valid JSON (" + err.Error() + "): write one comment object per line"}
	}
	c := w.Comment
	switch {
	case strings.TrimSpace(c.Body) == "":
		return Comment{}, &LineError{Field: "body", Msg: "missing or empty: every comment needs its text"}
	case strings.TrimSpace(c.Author) == "":
		return Comment{}, &LineError{Field: "author", Msg: "missing or empty: give the login of who wrote the comment"}
	case w.CreatedAt == nil || strings.TrimSpace(*w.CreatedAt) == "":
		return Comment{}, &LineError{Field: "created_at", Msg: `missing: give when the comment was written, in RFC 3339 ("2024-05-01T12:00:00Z")`}
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(*w.CreatedAt))
	if err != nil {
		return Comment{}, &LineError{Field: "created_at", Msg: fmt.Sprintf(`%q is not an RFC 3339 time: write it like "2024-05-01T12:00:00Z"`, *w.CreatedAt)}
	}
	c.CreatedAt = t
	switch c.Side {
	case "", "RIGHT", "LEFT":
	default:
		return Comment{}, &LineError{Field: "side", Msg: fmt.Sprintf("%q is not RIGHT or LEFT: use RIGHT for the new code, LEFT for the old, or leave it out", c.Side)}
	}
	c.Author = strings.TrimSpace(c.Author)
	return c, nil
}

func jsonType(kind string) string {
	switch kind {
	case "int", "int64":
		return "a number"
	case "bool":
		return "true, false or null"
	case "string":
		return "a string"
	case "ptr":
		return "a number or null"
	}
	return kind
}

// WriteJSONL writes comments in the contract's format, one object per line: what ReadJSONL
// reads back.
func WriteJSONL(w io.Writer, comments []Comment) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, c := range comments {
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("write comment %d: %w", i+1, err)
		}
	}
	return nil
}
