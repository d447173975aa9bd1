package persona

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/council-dev/council/internal/review"
)

// DocumentOptions say who the persona is and how it was built.
type DocumentOptions struct {
	Name  string // the reviewer's id
	Title string // display name; Name capitalized when empty
	Login string // whose comments; never stored when Anonymize
	// Anonymize puts Name in place of Login everywhere, the comments' text included.
	Anonymize      bool
	CouncilVersion string
	Model          string
	BuiltAt        time.Time
	Excluded       []review.Count // what Select left out
	Stats          Stats
	// Repositories are the repositories the comments were harvested from; when empty, those
	// the comments name.
	Repositories []string
}

// Document builds the persona from the comments given to Distill and its result. Exemplars
// are those comments, verbatim but for what must not be stored: quoted lines ("> ...", another
// person's words), e-mail addresses and things shaped like access tokens; each is preceded by
// its trimmed hunk in a fenced block when it has one. The instructions are written from the
// themes, what the maintainer pushes back on and what they let pass.
func Document(comments []Comment, res Result, o DocumentOptions) review.Reviewer {
	title := o.Title
	if title == "" {
		r, size := utf8.DecodeRuneInString(o.Name)
		title = string(unicode.ToUpper(r)) + o.Name[size:]
	}
	n := res.Notes
	var themes []string
	var counts []review.ThemeCount
	for _, t := range n.Themes {
		themes = append(themes, t.Name)
		counts = append(counts, review.ThemeCount{Name: t.Name, Comments: t.Count})
	}
	var exemplars []string
	for _, i := range n.Exemplars {
		exemplars = append(exemplars, exemplar(comments[i]))
	}
	repos := map[string]bool{}
	for _, r := range o.Repositories {
		repos[r] = true
	}
	for _, c := range comments {
		if c.Repo != "" {
			repos[c.Repo] = true
		}
	}
	var repoList []string
	for r := range repos {
		repoList = append(repoList, r)
	}
	slices.Sort(repoList)

	r := review.Reviewer{
		Name:         o.Name,
		Kind:         review.Persona,
		Title:        title,
		Alert:        "NOTE",
		Noun:         "issue",
		Focus:        themes[:min(5, len(themes))],
		Instructions: instructions(title, n),
		Voice:        n.Voice[:min(10, len(n.Voice))],
		Priorities:   themes,
		PushesBackOn: n.PushesBackOn,
		Exemplars:    exemplars,
		Source: review.Provenance{
			Repositories: repoList,
			Login:        o.Login,
			Anonymized:   o.Anonymize,
			From:         o.Stats.From,
			To:           o.Stats.To,
			Comments:     len(comments),
			Council:      o.CouncilVersion,
			Model:        o.Model,
			BuiltAt:      o.BuiltAt.UTC().Format(time.RFC3339),
			Themes:       counts,
			Excluded:     o.Excluded,
			Stats:        o.Stats,
		},
	}
	if res.Sampled {
		r.Source.Sampled = res.Shown
	}
	if o.Anonymize {
		r.Source.Login = o.Name
		r = scrubLogin(r, o.Login, o.Name)
	}
	return r
}

// instructions is a short paragraph addressed to the simulated reviewer.
func instructions(title string, n Notes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review the way %s does, as their past review comments show.", title)
	if len(n.Themes) > 0 {
		names := make([]string, 0, 4)
		for _, t := range n.Themes[:min(4, len(n.Themes))] {
			names = append(names, t.Name)
		}
		fmt.Fprintf(&b, " Most of your comments are about %s.", list(names))
	}
	if len(n.PushesBackOn) > 0 {
		fmt.Fprintf(&b, " You push back on %s.", list(lower(n.PushesBackOn[:min(5, len(n.PushesBackOn))])))
	}
	if len(n.LetsPass) > 0 {
		fmt.Fprintf(&b, " You let pass %s: do not comment on that.", list(lower(n.LetsPass)))
	}
	b.WriteString(" Comment only where you would have, be concrete about what to change, and keep the length and tone of your exemplars.")
	return b.String()
}

func lower(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = strings.TrimRight(s, ".")
		if r, size := utf8.DecodeRuneInString(out[i]); unicode.IsUpper(r) && (len(out[i]) == size || !unicode.IsUpper(rune(out[i][size]))) {
			out[i] = string(unicode.ToLower(r)) + out[i][size:]
		}
	}
	return out
}

func list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], "; ") + "; and " + items[len(items)-1]
}

var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	tokenRE = regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b`)
)

// Redact removes what a persona document must never store: e-mail addresses and strings
// shaped like access tokens.
func Redact(s string) string {
	return emailRE.ReplaceAllString(tokenRE.ReplaceAllString(s, "<redacted>"), "<email>")
}

// exemplar quotes a comment: its trimmed hunk in a fence, then its text without quoted lines.
func exemplar(c Comment) string {
	var lines []string
	for line := range strings.Lines(strings.ReplaceAll(c.Body, "\r\n", "\n")) {
		if !strings.HasPrefix(strings.TrimSpace(line), ">") {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	body := strings.TrimSpace(strings.Join(lines, "\n"))
	if h := strings.TrimSpace(c.DiffHunk); h != "" {
		h = TrimHunk(c.DiffHunk)
		f := review.Fence(h)
		body = fmt.Sprintf("%sdiff\n%s\n%s\n\n%s", f, h, f, body)
	}
	return Redact(body)
}

// ReplaceLogin puts name in place of every mention of login in s (@login included),
// case-insensitively: what --anonymize does to each text it keeps.
func ReplaceLogin(s, login, name string) string {
	if strings.TrimSpace(login) == "" {
		return s
	}
	return regexp.MustCompile(`(?i)@?\b`+regexp.QuoteMeta(login)+`\b`).ReplaceAllString(s, name)
}

// scrubLogin puts name in place of every mention of login in what the document says.
func scrubLogin(r review.Reviewer, login, name string) review.Reviewer {
	if strings.TrimSpace(login) == "" {
		return r
	}
	fix := func(s string) string { return ReplaceLogin(s, login, name) }
	all := func(items []string) []string {
		out := make([]string, len(items))
		for i, s := range items {
			out[i] = fix(s)
		}
		return out
	}
	r.Instructions = fix(r.Instructions)
	r.Focus, r.Voice, r.Priorities = all(r.Focus), all(r.Voice), all(r.Priorities)
	r.PushesBackOn, r.Exemplars = all(r.PushesBackOn), all(r.Exemplars)
	r.Source.Repositories = all(r.Source.Repositories) // a personal repository carries the login
	for i := range r.Source.Themes {
		r.Source.Themes[i].Name = fix(r.Source.Themes[i].Name)
	}
	return r
}

// document is the YAML layout of a built persona, in reading order.
type document struct {
	Name         string            `yaml:"name"`
	Kind         review.Kind       `yaml:"kind"`
	Title        string            `yaml:"title"`
	Alert        string            `yaml:"alert,omitempty"`
	Noun         string            `yaml:"noun,omitempty"`
	Focus        []string          `yaml:"focus,omitempty"`
	Instructions string            `yaml:"instructions"`
	Voice        []string          `yaml:"voice,omitempty"`
	Priorities   []string          `yaml:"priorities,omitempty"`
	PushesBackOn []string          `yaml:"pushes_back_on,omitempty"`
	Exemplars    []string          `yaml:"exemplars,omitempty"`
	Source       review.Provenance `yaml:"source"`
}

// Marshal writes a persona as the YAML document council review --personas reads, with a
// header comment saying where it came from.
func Marshal(r review.Reviewer) ([]byte, error) {
	d := document{
		Name: r.Name, Kind: r.Kind, Title: r.Title, Alert: r.Alert, Noun: r.Noun, Focus: r.Focus,
		Instructions: r.Instructions, Voice: r.Voice, Priorities: r.Priorities, PushesBackOn: r.PushesBackOn,
		Exemplars: r.Exemplars, Source: r.Source,
	}
	data, err := yaml.MarshalWithOptions(d, yaml.UseLiteralStyleIfMultiline(true), yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("encode persona %s: %w", r.Name, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Persona %q, built by council persona build from %d review comments.\n", r.Title, r.Source.Comments)
	b.WriteString("# Edit it freely: the exemplars are real comments; the source block is informational.\n")
	b.Write(data)
	return b.Bytes(), nil
}
