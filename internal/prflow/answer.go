package prflow

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/council-dev/council/internal/github"
	ghreview "github.com/council-dev/council/internal/publish/github"
)

// MaxAnswers caps the questions council answers in one run: each is a model call and a
// comment, and a busy pull request should not turn one run into a conversation.
const MaxAnswers = 5

// maxAnswerRunes caps an answer's text, far below GitHub's limit on a comment's body.
const maxAnswerRunes = 4000

// asksQuestion says whether a reply asks council something. It is deliberately simple: the
// reply contains a question mark. A reply without one ("fixed in the next commit", "won't
// fix") is feedback to read, not a question to answer.
func asksQuestion(body string) bool { return strings.Contains(body, "?") }

// answerQuestions answers the questions asked in the threads of council's own inline comments.
// A question is a reply, by anyone but council, that asksQuestion and that no answer of
// council's (its AnswerMarker) names yet; a model answers it from the comment and the file as
// it is at head, and says when it cannot, in which case nothing is posted. Questions on a
// file that is gone at head are not answered. At most MaxAnswers are answered, oldest first.
// A failure is logged and ends nothing: the review is posted whatever happens here.
func (p *PR) answerQuestions(ctx context.Context, log io.Writer) {
	if p.Answer == nil {
		return
	}
	n := 0
	for _, q := range p.questions() {
		if n >= MaxAnswers || ctx.Err() != nil {
			break
		}
		a, err := p.Answer(ctx, q.root.Body, q.reply.Body, q.root.Path)
		if err != nil {
			fmt.Fprintf(log, "council: could not answer comment %d on %s: %v\n", q.reply.ID, p.Ref(), err)
			continue
		}
		if !a.CanAnswer {
			continue
		}
		body := answerText(a.Text) + "\n\n" + ghreview.AnswerMarker(q.reply.ID)
		if _, err := p.GH.ReplyToReviewComment(ctx, p.Owner, p.Repo, p.Number, q.root.ID, body); err != nil {
			fmt.Fprintf(log, "council: could not post the answer to comment %d on %s: %v\n", q.reply.ID, p.Ref(), err)
			continue
		}
		n++
	}
	if n > 0 {
		fmt.Fprintf(log, "council: answered %d question(s) in review threads on %s\n", n, p.Ref())
	}
}

// question is a reply that asks council something in the thread of root.
type question struct{ root, reply github.ReviewComment }

// questions are the questions waiting for an answer, oldest first: replies, by anyone but
// council, in the threads of council's inline comments that carry a finding, that
// asksQuestion and that no answer of council's (its AnswerMarker) names yet.
func (p *PR) questions() []question {
	roots := map[int64]github.ReviewComment{}
	var said []string // council's replies, which hold its answer markers
	for _, c := range p.comments {
		switch {
		case c.InReplyTo == 0 && p.trusted(c.User) && hasFindingMarker(c.Body):
			roots[c.ID] = c
		case c.InReplyTo != 0 && p.trusted(c.User):
			said = append(said, c.Body)
		}
	}
	answered := func(reply int64) bool {
		marker := ghreview.AnswerMarker(reply)
		for _, b := range said {
			if strings.Contains(b, marker) {
				return true
			}
		}
		return false
	}
	var out []question
	for _, q := range p.comments {
		root, ok := roots[q.InReplyTo]
		// A reply carrying a council marker is council's own, posted under another identity.
		if !ok || p.trusted(q.User) || strings.Contains(q.Body, "<!-- council:v1") || !asksQuestion(q.Body) || answered(q.ID) {
			continue
		}
		out = append(out, question{root: root, reply: q})
	}
	return out
}

func hasFindingMarker(body string) bool {
	for _, m := range ghreview.ParseMarkers(body) {
		if !m.Review && m.ID != "" {
			return true
		}
	}
	return false
}

// answerText is a model's answer made safe to post: it cannot open an HTML comment (a forged
// council marker in a comment council posted would count as council's own), and it is cut
// to maxAnswerRunes.
func answerText(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "<!--", "&lt;!--")
	if r := []rune(s); len(r) > maxAnswerRunes {
		s = string(r[:maxAnswerRunes]) + "…"
	}
	return s
}
