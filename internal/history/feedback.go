package history

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/source"
)

// A walk of a repository's merges (Reader.Feedback) finds, on each merged branch, the first
// commit that answers review, and takes what it changed as what the reviewers asked for. These
// are the rules, meant to be read and argued with like bench's classify.go.
//
// A commit answers review (AnswersReview) when it is not a merge and either it applies review
// suggestions on GitHub with a person other than its author credited (see AnswersReview), or
// its subject (FeedbackPhrase), compared case-insensitively:
//   - starts with "fixup!", "squash!" or "amend!" (git's autosquash commits);
//   - says it addresses, applies, incorporates or resolves review, comments, feedback, nits,
//     suggestions or remarks ("Address review comments", "Apply suggestions from code
//     review", "address comments on PR", "Addressing feedback");
//   - names what review asked for ("review markups", "review comments", "code review
//     feedback", "review fixes", "review findings", "review nits", "review suggestions");
//   - says the change is owed to review ("per review", "after review", "from code review",
//     "following review", "as reviewed");
//   - speaks of the pull request's comments ("PR comments", "PR feedback", "MR nits");
//   - starts with "review:", "feedback:" or "nit:", or with the word "nit" or "nits", or says
//     it fixes nits ("fix code nits").
//
// Not review by a person, so never a feedback commit: a subject that speaks of a self-review
// ("Self-review markups"), or names an AI reviewer or a bot (Copilot, CodeRabbit, Gemini,
// Sourcery, Greptile, Ellipsis, Qodo, Korbit, Bugbot, Claude, Codex, ChatGPT, "AI review",
// "bot"), or one of the logins the walk is told to ignore (--ignore-user).
var feedbackRules = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^\s*(fixup|squash|amend)!`),
	regexp.MustCompile(`(?i)\b(address(es|ed|ing)?|apply|applie[sd]|applying|incorporat(e|es|ed|ing)|resolv(e|es|ed|ing)|respond(s|ed|ing)? to)\b.{0,60}?\b(reviews?|reviewer'?s?|comments?|feedback|nits?|suggestions?|remarks)( (comments?|feedback|nits?|suggestions?|remarks|markups?|findings))*\b`),
	regexp.MustCompile(`(?i)\breview (markups?|comments?|feedback|fix(es)?|findings|nits?|suggestions?|remarks|round|changes|updates?)\b`),
	regexp.MustCompile(`(?i)\b(per|after|from|following|as) (the |a |code |pr )?(code |pr )?review(ed|s)?\b`),
	regexp.MustCompile(`(?i)\b(pr|mr)[- ](comments?|feedback|reviews?|nits?|suggestions?|remarks)\b`),
	regexp.MustCompile(`(?i)^\s*(review|feedback|nits?)\s*:`),
	regexp.MustCompile(`(?i)^\s*nits?\b`),
	regexp.MustCompile(`(?i)\bfix(es|ed|ing)? (\w+ )?nits?\b`),
}

var notPersonReview = regexp.MustCompile(`(?i)\b(self[- ]review\w*|copilot|coderabbit\w*|gemini|sourcery|greptile|ellipsis|qodo|korbit|bugbot|claude|codex|chatgpt|ai[- ]review\w*|bots?)\b`)

// FeedbackPhrase reports whether a commit subject says the commit answers review, and the
// words that say so. ignore are logins that are bots without saying so: a subject that names
// one is not a person's review.
func FeedbackPhrase(subject string, ignore []string) (string, bool) {
	if notPersonReview.MatchString(subject) {
		return "", false
	}
	if namesIgnored(subject, ignore) {
		return "", false
	}
	for _, re := range feedbackRules {
		if m := re.FindString(subject); m != "" {
			return strings.TrimSpace(m), true
		}
	}
	return "", false
}

// appliedSuggestion is the subject GitHub gives the commit of review suggestions applied in
// its web interface: "Apply suggestions from code review" for a batch, "Update <path>" (or
// "Apply suggestion from @login") for one.
var (
	appliedSuggestion = regexp.MustCompile(`(?i)^\s*(apply suggestions? from (code review|@\S+)\s*$|update \S+$)`)
	coAuthor          = regexp.MustCompile(`(?im)^co-authored-by:\s*(.*?)\s*<([^>]*)>\s*$`)
)

// githubCommitted reports whether GitHub made the commit in its web interface.
func githubCommitted(c source.Commit) bool {
	return strings.EqualFold(c.CommitterEmail, "noreply@github.com")
}

// mayAnswerReview is what a commit's subject and committer alone allow: whether it could
// answer review once its message is read (AnswersReview).
func mayAnswerReview(c source.Commit, ignore []string) bool {
	if len(c.Parents) > 1 {
		return false
	}
	if _, ok := FeedbackPhrase(c.Subject, ignore); ok {
		return true
	}
	return githubCommitted(c) && appliedSuggestion.MatchString(c.Subject)
}

// AnswersReview reports whether a commit answers a person's review, and the words that say
// so. A merge never does. Review suggestions applied on GitHub ("Apply suggestions from code
// review", or "Update <path>" committed by GitHub) answer a review when the commit is
// co-authored by a person other than its author who is not an AI reviewer or a bot (GitHub
// credits the suggestions' authors so; Copilot Autofix's, or the author's own, are no one's
// review). Any other commit answers review when its subject says so (FeedbackPhrase).
func AnswersReview(c source.Commit, message string, ignore []string) (string, bool) {
	if len(c.Parents) > 1 {
		return "", false
	}
	if appliedSuggestion.MatchString(c.Subject) && (githubCommitted(c) || strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.Subject)), "apply")) {
		for _, m := range coAuthor.FindAllStringSubmatch(message, -1) {
			name, email := strings.TrimSpace(m[1]), strings.ToLower(m[2])
			if strings.EqualFold(name, c.Author) || notPersonReview.MatchString(name+" "+email) ||
				strings.Contains(email, "[bot]") || namesIgnored(name+" "+email, ignore) {
				continue
			}
			return strings.TrimSpace(c.Subject), true
		}
		return "", false
	}
	return FeedbackPhrase(c.Subject, ignore)
}

// namesIgnored reports whether text names one of the ignored logins, as a whole word.
func namesIgnored(text string, ignore []string) bool {
	lower := strings.ToLower(text)
	for _, l := range ignore {
		l = strings.ToLower(strings.TrimSpace(l))
		for rest, at := lower, 0; l != ""; {
			i := strings.Index(rest, l)
			if i < 0 {
				break
			}
			start, end := at+i, at+i+len(l)
			if !wordByte(lower, start-1) && !wordByte(lower, end) {
				return true
			}
			rest, at = lower[start+1:], start+1
		}
	}
	return false
}

// wordByte reports whether s[i] is a letter, digit or underscore; false outside s. It is
// called for every subject of a walk, so it compiles nothing.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// WithoutFeedbackWords is a feedback commit message less what says that it answers review:
// the words FeedbackPhrase finds ("address review comments" speaks of comments, not of what
// changed), and the subject of a "fixup!" commit (it names the commit it fixes). What is left
// is what the message says of the change itself.
func WithoutFeedbackWords(message string, ignore []string) string {
	var rest []string
	for _, line := range strings.Split(message, "\n") {
		if feedbackRules[0].MatchString(line) {
			continue
		}
		if p, ok := FeedbackPhrase(line, ignore); ok {
			line = strings.Replace(line, p, " ", 1)
		}
		rest = append(rest, line)
	}
	return strings.Join(rest, "\n")
}

// Reasons a feedback hunk is not something a reviewer of the head could have asked for,
// besides plan's (generated, vendored, lock and binary files).
const (
	DropTestData   = "test data"
	DropWhitespace = "only whitespace changed"
	DropImports    = "only imports changed"
	DropAddedFile  = "a file the feedback added: nothing at head to point at"
	DropNotAtHead  = "its lines are not in the file at head"
	DropOutside    = "outside --paths"
	DropUntouched  = "in a file the reviewed change does not touch"
)

// testDataDirs are directory names that hold test inputs and expected outputs, not code.
var testDataDirs = map[string]bool{"testdata": true, "test_data": true, "test-data": true, "fixtures": true,
	"__snapshots__": true, "golden": true}

// isTestData reports whether p is test data: under a test data directory, or a golden or
// snapshot file.
func isTestData(p string) bool {
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if testDataDirs[dir] {
			return true
		}
	}
	switch path.Ext(p) {
	case ".golden", ".snap":
		return true
	}
	return false
}

// importLine matches a line that only imports: a Go import clause or spec, Python's import
// and from-import, JavaScript's and TypeScript's import and require, Java's and Kotlin's
// import, Rust's use, C's #include.
var importLine = regexp.MustCompile(`^\s*(` +
	`import\s*\(|\)|import\s+((\w+|_|\.)\s+)?"[^"]*"|((\w+|_|\.)\s+)?"[^"]*"` + // Go
	`|(from\s+[\w.]+\s+)?import\s+[\w.*, ()]+` + // Python
	`|import\s.*\bfrom\s+['"][^'"]+['"];?|import\s+['"][^'"]+['"];?|(const|let|var)\s+.*=\s*require\(['"][^'"]+['"]\);?` + // JS, TS
	`|import\s+(static\s+)?[\w.*]+;?` + // Java, Kotlin
	`|(pub\s+)?use\s+[\w:{}, *]+;` + // Rust
	`|#\s*include\s*[<"][^>"]+[>"]` + // C, C++
	`)\s*(//.*|#.*)?$`)

// hunkDropReason says why a hunk of a feedback diff is not ground truth: it changes only
// whitespace, or only imports. "" keeps it.
func hunkDropReason(h diff.Hunk) string {
	var del, add strings.Builder
	imports := true
	changed := false
	for _, l := range h.Lines {
		if l.Op == diff.Context {
			continue
		}
		changed = true
		b := &add
		if l.Op == diff.Delete {
			b = &del
		}
		b.WriteString(strings.Join(strings.Fields(l.Text), ""))
		if strings.TrimSpace(l.Text) != "" && !importLine.MatchString(l.Text) {
			imports = false
		}
	}
	switch {
	case !changed:
		return DropWhitespace
	case del.String() == add.String():
		return DropWhitespace
	case imports:
		return DropImports
	}
	return ""
}

// hunkSpan is the line range at the old side that a hunk is about: from the first to the last
// line it deletes or replaces, and for lines it inserts, the line above each insertion (the
// first line of the file for an insertion at its top).
func hunkSpan(h diff.Hunk) (first, last int) {
	prevOld := h.OldStart - 1 // the old line above the hunk's first line
	if h.OldLines == 0 {
		prevOld = h.OldStart // git numbers a pure insertion by the line it follows
	}
	note := func(n int) {
		n = max(n, 1)
		if first == 0 || n < first {
			first = n
		}
		last = max(last, n)
	}
	for _, l := range h.Lines {
		switch l.Op {
		case diff.Context:
			prevOld = l.Old
		case diff.Delete:
			note(l.Old)
			prevOld = l.Old
		case diff.Add:
			note(prevOld)
		}
	}
	return first, last
}

// hunkText renders a hunk as a unified diff fragment, cut after maxLines lines.
func hunkText(h diff.Hunk, maxLines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	if h.Section != "" {
		b.WriteString(" " + h.Section)
	}
	b.WriteString("\n")
	for i, l := range h.Lines {
		if i == maxLines {
			fmt.Fprintf(&b, "… (%d more lines)\n", len(h.Lines)-maxLines)
			break
		}
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
