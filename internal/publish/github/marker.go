package ghreview

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// A marker is an HTML comment GitHub keeps in the source of a comment but does not show. A
// later run reads them back from the PR's reviews and comments to learn what it already
// posted, so the format is a contract: change it only with a new version tag.
const markerTag = "council:v1"

// MarkerInfo is what one marker says.
type MarkerInfo struct {
	ID       string // the finding's fingerprint; empty for a review marker
	Reviewer string // the reviewer that owns the finding, or whose review it is
	// Category and Severity are the finding's, as posted; empty for a review marker and for
	// a finding marker written before they were added.
	Category string
	Severity finding.Severity
	Review   bool   // a review marker: Reviewer reviewed the change at Head
	Head     string // the commit a review was computed on; review markers only
}

// Marker is the hidden marker of the finding m describes:
// "<!-- council:v1 id=<id> reviewer=<name> category=<c> severity=<s> -->", without category
// or severity when m has none. It ends every inline comment and every other note in a review
// body; the category and severity let a later reader weigh the replies and reactions a comment
// drew without the report that produced it.
func Marker(m MarkerInfo) string {
	s := "<!-- " + markerTag + " id=" + escape(m.ID) + " reviewer=" + escape(m.Reviewer)
	if m.Category != "" {
		s += " category=" + escape(m.Category)
	}
	if m.Severity != "" {
		s += " severity=" + escape(string(m.Severity))
	}
	return s + " -->"
}

// findingMarker is the marker of f, owned by reviewer.
func findingMarker(f finding.Finding, reviewer string) string {
	return Marker(MarkerInfo{ID: f.ID, Reviewer: reviewer, Category: f.Category, Severity: f.Severity})
}

// AnswerMarker ends council's answer to the reply with this id (a question asked in the thread
// of one of its inline comments): "<!-- council:v1 answer to=<id> -->". A later run finds it
// and does not answer the same question twice. ParseMarkers does not return it.
func AnswerMarker(replyID int64) string {
	return "<!-- " + markerTag + " answer to=" + strconv.FormatInt(replyID, 10) + " -->"
}

// ReviewMarker is the hidden marker of one reviewer's review (or its section of a
// consolidated review): "<!-- council:v1 review reviewer=<name> head=<sha> -->".
func ReviewMarker(reviewer, head string) string {
	return "<!-- " + markerTag + " review reviewer=" + escape(reviewer) + " head=" + escape(head) + " -->"
}

var markerRE = regexp.MustCompile(`<!--\s*` + regexp.QuoteMeta(markerTag) + `\s+(.*?)\s*-->`)

// ParseMarkers returns every marker in body (a comment or a review body), in order. Markers of
// another version and comments that are not markers are ignored.
func ParseMarkers(body string) []MarkerInfo {
	var out []MarkerInfo
	for _, m := range markerRE.FindAllStringSubmatch(body, -1) {
		var mi MarkerInfo
		for _, field := range strings.Fields(m[1]) {
			key, value, ok := strings.Cut(field, "=")
			if !ok {
				mi.Review = mi.Review || field == "review"
				continue
			}
			switch key {
			case "id":
				mi.ID = unescape(value)
			case "reviewer":
				mi.Reviewer = unescape(value)
			case "category":
				mi.Category = unescape(value)
			case "severity":
				mi.Severity = finding.Severity(unescape(value))
			case "head":
				mi.Head = unescape(value)
			}
		}
		if mi.ID != "" || mi.Review {
			out = append(out, mi)
		}
	}
	return out
}

// ReviewKey is the key under which Options.Posted records that reviewer's review was already
// posted for head: a re-run on the same head with nothing new does not post it again.
func ReviewKey(reviewer, head string) string { return "review:" + reviewer + "@" + head }

// PostedFrom builds Options.Posted from markers read off the pull request: the id of every
// finding marker and the ReviewKey of every review marker. The caller passes only the
// markers it wants honoured (those of posted, dismissed, resolved or 👎 comments).
func PostedFrom(markers []MarkerInfo) map[string]bool {
	posted := make(map[string]bool, len(markers))
	for _, m := range markers {
		if m.Review {
			posted[ReviewKey(m.Reviewer, m.Head)] = true
		}
		if m.ID != "" {
			posted[m.ID] = true
		}
	}
	return posted
}

// escape keeps a value inside one field of a marker: no spaces, no "-->". Ordinary names and
// hex fingerprints are left as they are.
func escape(s string) string { return url.QueryEscape(s) }

func unescape(s string) string {
	v, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return v
}
