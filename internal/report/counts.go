package report

import "github.com/council-dev/council/internal/finding"

// Tally counts findings by what became of them.
type Tally struct {
	Reported  int // anchored, shown inline
	OtherNote int // shown in the review body with path:line
	Minor     int // true but minor: listed once, collapsed, in the review body
	Filtered  int // removed by a stage, kept with a reason
	Credited  int // raised too, but owned by another reviewer
}

// Shown is how many findings a reader is asked to look at: reported and other notes. It is
// the number a reviewer's headline counts; minor notes are counted apart.
func (t Tally) Shown() int { return t.Reported + t.OtherNote }

func (t *Tally) add(s finding.Status) {
	switch s {
	case finding.Reported:
		t.Reported++
	case finding.OtherNote:
		t.OtherNote++
	case finding.Minor:
		t.Minor++
	case finding.Filtered:
		t.Filtered++
	}
}

// Counts tallies, per reviewer name, the findings it owns by status and the ones it is
// credited with. Every reviewer of the report has an entry, even with nothing to count; so
// does the owner of a finding that names no reviewer of the report.
func (r Report) Counts() map[string]Tally {
	counts := make(map[string]Tally, len(r.Reviewers))
	for _, rv := range r.Reviewers {
		counts[rv.Name] = Tally{}
	}
	for _, f := range r.Findings {
		t := counts[f.Owner()]
		t.add(f.Status)
		counts[f.Owner()] = t
		for _, name := range f.Lenses[min(1, len(f.Lenses)):] {
			c := counts[name]
			c.Credited++
			counts[name] = c
		}
	}
	return counts
}

// Totals tallies every finding of the report by status; Credited counts the findings raised
// by more than one reviewer.
func (r Report) Totals() Tally {
	var t Tally
	for _, f := range r.Findings {
		t.add(f.Status)
		if len(f.Lenses) > 1 {
			t.Credited++
		}
	}
	return t
}

// Owned returns the findings the named reviewer owns with the given status, in report order.
func (r Report) Owned(reviewer string, status finding.Status) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Owner() == reviewer && f.Status == status {
			out = append(out, f)
		}
	}
	return out
}

// Unowned returns the findings whose owner is not a reviewer of the report (or that name no
// reviewer at all), in report order. A renderer that goes reviewer by reviewer shows these
// separately so that nothing is dropped silently.
func (r Report) Unowned() []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if _, ok := r.Reviewer(f.Owner()); !ok {
			out = append(out, f)
		}
	}
	return out
}

// Reviewer returns the reviewer with the given name.
func (r Report) Reviewer(name string) (Reviewer, bool) {
	for _, rv := range r.Reviewers {
		if rv.Name == name {
			return rv, true
		}
	}
	return Reviewer{}, false
}

// MaxSeverity is the highest severity among the findings a reader sees (reported and other
// notes; minor and filtered findings do not count), or "" when there are none. --fail-on compares
// against it.
func (r Report) MaxSeverity() finding.Severity {
	var top finding.Severity
	for _, f := range r.Findings {
		if f.Status != finding.Reported && f.Status != finding.OtherNote {
			continue
		}
		if f.Severity.Rank() > top.Rank() {
			top = f.Severity
		}
	}
	return top
}

// Failed returns the reviewers that recorded errors, in report order. A reviewer may have
// failed on some units and still succeeded on others (Succeeded says which).
func (r Report) Failed() []Reviewer {
	var out []Reviewer
	for _, rv := range r.Reviewers {
		if len(rv.Errors) > 0 {
			out = append(out, rv)
		}
	}
	return out
}
