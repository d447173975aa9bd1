package persona

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/council-dev/council/internal/review"
)

// Reasons a comment is left out, in the order they are checked.
const (
	ExcludedBot         = "by a bot"
	ExcludedOtherAuthor = "by another author"
	ExcludedAck         = "only acknowledges"
)

// Selection is what Select kept of a maintainer's comments, and what it left out and why.
type Selection struct {
	Kept []Comment
	// Excluded counts the comments left out, by reason, in the order of the reasons above;
	// a reason that excluded nothing is not listed.
	Excluded []review.Count
	// Authors are the distinct authors of Kept, sorted.
	Authors []string
}

// Select keeps the comments worth learning a reviewer from: not by a bot (a login ending in
// "[bot]"), by login when it is not empty (case-insensitively), and not a reply that only
// acknowledges (IsAcknowledgement). Every comment left out is counted under its reason.
func Select(comments []Comment, login string) Selection {
	counts := map[string]int{}
	var s Selection
	authors := map[string]bool{}
	for _, c := range comments {
		switch {
		case IsBot(c.Author):
			counts[ExcludedBot]++
		case login != "" && !strings.EqualFold(c.Author, login):
			counts[ExcludedOtherAuthor]++
		case IsAcknowledgement(c.Body):
			counts[ExcludedAck]++
		default:
			s.Kept = append(s.Kept, c)
			authors[c.Author] = true
		}
	}
	for _, r := range []string{ExcludedBot, ExcludedOtherAuthor, ExcludedAck} {
		if counts[r] > 0 {
			s.Excluded = append(s.Excluded, review.Count{Name: r, Count: counts[r]})
		}
	}
	for a := range authors {
		s.Authors = append(s.Authors, a)
	}
	slices.Sort(s.Authors)
	return s
}

// IsBot reports whether a login is a GitHub App's ("dependabot[bot]").
func IsBot(login string) bool {
	return strings.HasSuffix(strings.ToLower(strings.TrimSpace(login)), "[bot]")
}

// maxAckRunes bounds an acknowledgement: a longer reply says something even if it starts
// with "thanks".
const maxAckRunes = 60

// ackPhrases are what an acknowledgement is made of; ackFiller may come between them.
var (
	ackPhrases = []string{
		"thanks", "thank you", "thx", "ty", "done", "lgtm", "+1", "fixed", "good catch", "nice catch",
		"great catch", "ack", "acked", "agreed", "sounds good", "makes sense", "will do", "ok", "okay",
		"yes", "yep", "sure", "nice", "great", "addressed", "updated", "resolved", "good point",
		"ship it", "looks good", "looks good to me", "fixed it", "done it", "perfect", "cool",
	}
	ackFiller = map[string]bool{
		"for": true, "the": true, "review": true, "so": true, "much": true, "a": true, "lot": true,
		"again": true, "all": true, "now": true, "in": true, "this": true, "that": true, "it": true,
		"pr": true, "commit": true, "latest": true, "you": true, "to": true, "me": true, "here": true,
	}
)

// IsAcknowledgement reports whether a comment only acknowledges ("Thanks!", "Done.", "LGTM",
// "+1", "good catch, fixed") and so says nothing of how its author reviews: it is short
// (at most 60 characters) and, once lowercased and stripped of punctuation, made only of
// acknowledging phrases and a few filler words, at least one phrase among them.
func IsAcknowledgement(body string) bool {
	body = strings.TrimSpace(body)
	if body == "" || utf8.RuneCountInString(body) > maxAckRunes {
		return false
	}
	body = strings.NewReplacer("👍", " +1 ", "🎉", " ", "🙏", " thanks ", "✅", " done ").Replace(strings.ToLower(body))
	words := strings.FieldsFunc(body, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '\''
	})
	phrases := 0
	for i := 0; i < len(words); {
		n := matchPhrase(words[i:])
		switch {
		case n > 0:
			phrases++
			i += n
		case ackFiller[words[i]]:
			i++
		default:
			return false
		}
	}
	return phrases > 0
}

// matchPhrase returns how many words of the longest acknowledging phrase words starts with, or 0.
func matchPhrase(words []string) int {
	best := 0
	for _, p := range ackPhrases {
		pw := strings.Fields(p)
		if len(pw) > len(words) || len(pw) <= best {
			continue
		}
		if slices.Equal(pw, words[:len(pw)]) {
			best = len(pw)
		}
	}
	return best
}

// ExclusionLine says in one line what Select left out, or "" when nothing was.
func ExclusionLine(excluded []review.Count) string {
	if len(excluded) == 0 {
		return ""
	}
	parts := make([]string, len(excluded))
	total := 0
	for i, e := range excluded {
		parts[i] = fmt.Sprintf("%d %s", e.Count, e.Name)
		total += e.Count
	}
	return fmt.Sprintf("excluded %d: %s", total, strings.Join(parts, ", "))
}
