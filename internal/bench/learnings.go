package bench

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The learnings a run reviews with (`council bench run --learnings FILE`) must not know the
// answers: a learning resting on a comment of one of the dataset's own pull requests, or built
// from pull requests opened after the dataset's, would score the council on what it was told.
// The check is pure: the caller reads the learnings file and passes what it says here, so
// that bench does not depend on how learnings are stored.

// LearningsUsed is what run.json records of the learnings every sample was reviewed with.
type LearningsUsed struct {
	File      string    `json:"file"`   // the path as given to --learnings
	SHA256    string    `json:"sha256"` // of the file's bytes
	Learnings int       `json:"learnings"`
	Until     time.Time `json:"until,omitzero"` // the file's source.until
	// LeakAllowed: --allow-learnings-leak let a file through that the leak check refused;
	// Leaks says what it found. Such a run measures nothing about unseen pull requests.
	LeakAllowed bool     `json:"leak_allowed,omitempty"`
	Leaks       []string `json:"leaks,omitempty"`
}

// LearningsFileUsed is one of several learnings files of a run (--learnings given more than
// once): it applies to the samples of its source.repos.
type LearningsFileUsed struct {
	LearningsUsed
	Repos []string `json:"repos"` // the file's source.repos
}

// LearningsEvidence is one evidence link of a learning, as the leak check needs it.
type LearningsEvidence struct {
	Learning string // the learning's id
	URL      string // the evidence's link: a comment on a pull request
}

// LearningsSource is what the leak check needs of a learnings file.
type LearningsSource struct {
	Evidence []LearningsEvidence
	Until    time.Time // source.until: only pull requests created before it; zero when unknown
}

// Leak is one reason a learnings file could have seen the dataset's answers.
type Leak struct {
	Sample   string // the sample's id
	Learning string // the learning's id; "" for a leak of the whole file (its date)
	URL      string // the evidence that cites the sample's pull request
	Reason   string
}

func (l Leak) String() string {
	if l.Learning == "" {
		return fmt.Sprintf("%s: %s", l.Sample, l.Reason)
	}
	return fmt.Sprintf("learning %q: evidence %s: %s", l.Learning, l.URL, l.Reason)
}

// LearningsLeaks says how a learnings file could have seen the samples' answers:
//
//   - a learning's evidence cites a comment on the pull request of one of the samples (the
//     evidence URL's owner/repo/pull/N against the sample's repository and number);
//   - source.until is after the earliest pull request creation time among the samples that
//     have one (pr.created), or the file has no source.until while samples have such times.
//
// Samples without pr.created cannot be dated: only the first rule holds them.
func LearningsLeaks(src LearningsSource, samples []Sample) []Leak {
	var leaks []Leak
	byPR := map[string]Sample{}
	for _, s := range samples {
		if repo := s.RepoName(); repo != "" && s.PR.Number > 0 {
			byPR[strings.ToLower(repo)+"#"+strconv.Itoa(s.PR.Number)] = s
		}
	}
	for _, ev := range src.Evidence {
		repo, n, ok := PullOf(ev.URL)
		if !ok {
			continue
		}
		if s, hit := byPR[strings.ToLower(repo)+"#"+strconv.Itoa(n)]; hit {
			leaks = append(leaks, Leak{Sample: s.ID, Learning: ev.Learning, URL: ev.URL,
				Reason: fmt.Sprintf("it is a comment on %s#%d, the pull request of sample %s", repo, n, s.ID)})
		}
	}
	earliest, ok := EarliestCreated(samples)
	switch {
	case !ok:
	case src.Until.IsZero():
		leaks = append(leaks, Leak{Sample: earliest.ID, Reason: fmt.Sprintf(
			"the learnings file has no source.until, so it may have learnt from pull requests opened after %s (created %s), the dataset's earliest; build it with council learn --until %s",
			earliest.ID, earliest.PR.Created.UTC().Format(time.RFC3339), earliest.PR.Created.UTC().Format(time.DateOnly))})
	case src.Until.After(earliest.PR.Created):
		leaks = append(leaks, Leak{Sample: earliest.ID, Reason: fmt.Sprintf(
			"the learnings file's source.until %s is after %s was created (%s), the dataset's earliest pull request; build it with council learn --until %s",
			src.Until.UTC().Format(time.RFC3339), earliest.ID, earliest.PR.Created.UTC().Format(time.RFC3339), earliest.PR.Created.UTC().Format(time.DateOnly))})
	}
	return leaks
}

// EarliestCreated is the sample whose pull request was created first, among those that say
// when (pr.created); false when none does.
func EarliestCreated(samples []Sample) (Sample, bool) {
	var first Sample
	found := false
	for _, s := range samples {
		if s.PR.Created.IsZero() {
			continue
		}
		if !found || s.PR.Created.Before(first.PR.Created) {
			first, found = s, true
		}
	}
	return first, found
}

// RepoName is the sample's owner/repo: repo.name, else read from pr.url or repo.url; "" when
// none says.
func (s Sample) RepoName() string {
	if s.Repo.Name != "" {
		return s.Repo.Name
	}
	if repo, _, ok := PullOf(s.PR.URL); ok {
		return repo
	}
	if u, err := url.Parse(s.Repo.URL); err == nil && u.Host != "" {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) == 2 && parts[0] != "" && parts[1] != "" {
			return parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
		}
	}
	return ""
}

// PullOf reads owner/repo and the number from a link to a pull request or to something on it
// (https://github.com/owner/repo/pull/12#discussion_r34, .../pull/12/files#r34); false for
// anything else.
func PullOf(raw string) (repo string, number int, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", 0, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || (parts[2] != "pull" && parts[2] != "pulls") || parts[0] == "" || parts[1] == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return parts[0] + "/" + parts[1], n, true
}
