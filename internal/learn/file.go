package learn

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/council-dev/council/internal/config"
	"github.com/council-dev/council/internal/glob"
)

// MaxTextLen bounds a learning's text, in characters: a learning is one short statement,
// and every reviewer pays for it on every review.
const MaxTextLen = 500

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// fileYAML is File as written: the config decoder checks every key and type, but it knows
// nothing of time.Time, so times are strings here and parsed after.
type fileYAML struct {
	Learnings []Learning  `yaml:"learnings"`
	Source    *sourceYAML `yaml:"source,omitempty"`
}

// fileDecode is fileYAML for the config decoder, which takes no pointer fields; whether the
// file has a source is asked of the document.
type fileDecode struct {
	Learnings []Learning `yaml:"learnings"`
	Source    sourceYAML `yaml:"source"`
}

type sourceYAML struct {
	Repos   []string `yaml:"repos"`
	Since   string   `yaml:"since,omitempty"`
	Until   string   `yaml:"until,omitempty"`
	PRs     int      `yaml:"prs"`
	Signals int      `yaml:"signals"`
	Model   string   `yaml:"model,omitempty"`
	Built   string   `yaml:"built,omitempty"`
}

// Parse reads a learnings file, strictly: an unknown key, a value of the wrong type or an
// invalid learning is a *config.Error naming the file, the line and the entry. An empty file,
// or one with only comments, holds no learnings and is not an error.
func Parse(source string, data []byte) (File, error) {
	doc, err := config.ParseYAML(source, data)
	if err != nil {
		return File{}, err
	}
	if doc.Empty() {
		return File{}, nil
	}
	var raw fileDecode
	if err := doc.Decode(&raw); err != nil {
		return File{}, err
	}
	f := File{Learnings: raw.Learnings}
	if doc.ErrorAt("", "source").Line > 0 { // the key is in the file
		s := raw.Source
		f.Source = &Source{Repos: s.Repos, PRs: s.PRs, Signals: s.Signals, Model: s.Model}
		for _, t := range []struct {
			key string
			in  string
			out *time.Time
		}{{"since", s.Since, &f.Source.Since}, {"until", s.Until, &f.Source.Until}, {"built", s.Built, &f.Source.Built}} {
			if t.in == "" {
				continue
			}
			v, err := time.Parse(time.RFC3339Nano, t.in)
			if err != nil {
				return File{}, doc.ErrorAt(fmt.Sprintf("%q is not an RFC 3339 time; write it like \"2025-05-01T00:00:00Z\"", t.in), "source", t.key)
			}
			*t.out = v
		}
	}
	if p := f.problem(); p != nil {
		return File{}, doc.ErrorAt(p.msg, p.key...)
	}
	return f, nil
}

// problem is the first thing wrong with a learning of a file, and where.
type problem struct {
	key []any // path in the document: "learnings", index, field
	msg string
}

// problem checks the learnings the way Parse does; Distill checks its result with it too, so
// that what it writes always reads back.
func (f File) problem() *problem {
	seen := map[string]int{}
	for i, l := range f.Learnings {
		at := func(field string, format string, args ...any) *problem {
			name := fmt.Sprintf("learning %d", i+1)
			if l.ID != "" {
				name = fmt.Sprintf("learning %q", l.ID)
			}
			key := []any{"learnings", i}
			if field != "" {
				key = append(key, field)
			}
			return &problem{key: key, msg: name + ": " + fmt.Sprintf(format, args...)}
		}
		switch {
		case l.ID == "":
			return at("", "id is missing; give it a short name of lower-case letters, digits and '-'")
		case !idPattern.MatchString(l.ID):
			return at("id", "id %q is not lower-case letters, digits and '-' (starting with a letter or digit); rename it", l.ID)
		}
		if j, dup := seen[l.ID]; dup {
			return at("id", "id %q is already used by learning %d; ids must be unique, rename one", l.ID, j+1)
		}
		seen[l.ID] = i
		switch {
		case l.Kind == "":
			return at("", "kind is missing; set it to %s, %s or %s", Suppress, Emphasise, Ask)
		case l.Kind != Suppress && l.Kind != Emphasise && l.Kind != Ask:
			return at("kind", "kind %q is not %s, %s or %s", l.Kind, Suppress, Emphasise, Ask)
		case strings.TrimSpace(l.Text) == "":
			return at("", "text is missing; say what reviewers should (not) raise, and why")
		case utf8.RuneCountInString(l.Text) > MaxTextLen:
			return at("text", "text is %d characters, more than %d; shorten it", utf8.RuneCountInString(l.Text), MaxTextLen)
		}
		for k, p := range l.Paths {
			if err := glob.Validate(p); err != nil {
				return &problem{key: []any{"learnings", i, "paths", k}, msg: at("", "paths[%d]: %v", k, err).msg}
			}
		}
		for k, e := range l.Evidence {
			if strings.TrimSpace(e.URL) == "" {
				return &problem{key: []any{"learnings", i, "evidence", k}, msg: at("", "evidence[%d] has no url; link the comment it rests on, or remove the entry", k).msg}
			}
		}
		for o, n := range l.Counts {
			switch Outcome(o) {
			case Accepted, Rejected, Ignored:
			default:
				return &problem{key: []any{"learnings", i, "counts", o}, msg: at("", "counts: %q is not %s, %s or %s", o, Accepted, Rejected, Ignored).msg}
			}
			if n < 0 {
				return &problem{key: []any{"learnings", i, "counts", o}, msg: at("", "counts.%s is %d; counts cannot be negative", o, n).msg}
			}
		}
	}
	return nil
}

// header opens every file Marshal writes, for whoever finds it in a pull request.
const header = `# council learnings: what this repository's maintainers taught council through the way they
# received its review comments (replies, reactions, resolved threads, fixes), and what its
# reviewers asked authors for.
# "suppress" learnings stop a kind of finding from being raised; "emphasise" ones make reviewers
# look for it; "ask" ones say what reviewers here ask for, and put such minor findings up front
# as nits. Edit freely: reword, narrow the paths, or delete a learning to forget it.
# council reads this file from a pull request's base revision, so changes apply once merged.
`

// Marshal writes f as YAML that Parse reads back to f, under a header that says what the file
// is for.
func (f File) Marshal() ([]byte, error) {
	raw := fileYAML{Learnings: f.Learnings}
	if raw.Learnings == nil {
		raw.Learnings = []Learning{} // "learnings: []" says there are none, not that the key is lost
	}
	if s := f.Source; s != nil {
		raw.Source = &sourceYAML{Repos: s.Repos, PRs: s.PRs, Signals: s.Signals, Model: s.Model,
			Since: formatTime(s.Since), Until: formatTime(s.Until), Built: formatTime(s.Built)}
	}
	data, err := yaml.MarshalWithOptions(raw, yaml.IndentSequence(true), yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return nil, fmt.Errorf("marshal learnings: %w", err)
	}
	return append([]byte(header), data...), nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}
