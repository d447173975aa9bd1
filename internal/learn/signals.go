package learn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reactions that count for and against a comment. Others ("laugh", "eyes") say nothing about
// whether the comment was right.
var (
	positiveReactions = []string{"+1", "heart", "hooray", "rocket"}
	negativeReactions = []string{"-1", "confused"}
)

// Outcome says what the signal tells of the comment. The rule is deterministic, so that the
// same signals always give the same statistics and counts, whatever model distils them:
//
//  1. Accepted when the commented lines changed before the merge (Addressed): the strongest
//     evidence, as someone acted on the comment.
//  2. Accepted when positive reactions (+1, heart, hooray, rocket) outnumber negative ones.
//  3. Rejected when negative reactions (-1, confused) outnumber positive ones.
//  4. Rejected when nothing changed but someone who could push replied, or the thread was
//     resolved: a maintainer saw the comment and moved on without acting on it.
//  5. Ignored otherwise: nobody said or did anything that tells either way.
//
// Equal positive and negative reactions cancel out and fall through to rules 4 and 5.
//
// A change found in git history (SourceFeedback) is the author's answer to review: accepted.
func (s Signal) Outcome() Outcome {
	if s.Addressed || s.Source == SourceFeedback {
		return Accepted
	}
	pos, neg := s.reactionBalance()
	switch {
	case pos > neg:
		return Accepted
	case neg > pos:
		return Rejected
	}
	if s.Resolved || s.maintainerReply() != nil {
		return Rejected
	}
	return Ignored
}

func (s Signal) reactionBalance() (pos, neg int) {
	for _, r := range positiveReactions {
		pos += max(0, s.Reactions[r])
	}
	for _, r := range negativeReactions {
		neg += max(0, s.Reactions[r])
	}
	return pos, neg
}

// maintainerReply is the first reply by someone with write access, or nil.
func (s Signal) maintainerReply() *Reply {
	for i := range s.Replies {
		if s.Replies[i].WriteAccess {
			return &s.Replies[i]
		}
	}
	return nil
}

// ReadSignals reads a JSON-lines signals file: one Signal object per line, blank lines
// skipped. Unknown fields are refused, so that a typo or a file of another kind is caught
// rather than read as empty signals.
func ReadSignals(r io.Reader) ([]Signal, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20) // a signal carries a comment and its replies
	var out []Signal
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var s Signal
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("read signals: line %d: %s", n, describeJSONError(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("read signals: line %d: more than one JSON value; write one signal object per line", n)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read signals: %w", err)
	}
	return out, nil
}

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s: is a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Sprintf("is a JSON %s, want a signal object", te.Value)
	}
	return "not a valid signal (" + err.Error() + "); write one signal object per line"
}

// WriteSignals writes ss as JSON lines, the format ReadSignals reads.
func WriteSignals(w io.Writer, ss []Signal) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // comment bodies are full of <, > and &; keep them readable
	for i, s := range ss {
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("write signal %d: %w", i+1, err)
		}
	}
	return nil
}
