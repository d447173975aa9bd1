package consolidate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/council-dev/council/internal/finding"
)

func TestSuppress(t *testing.T) {
	t.Parallel()
	onPath := func(p string) func(finding.Finding) bool {
		return func(f finding.Finding) bool { return f.Path == p }
	}
	logging := fnd(correctness, "log.go", 3, finding.Low, "Consider logging", "")
	logging2 := fnd(maint, "log.go", 9, finding.Medium, "Log more", "")
	minor := with(fnd(correctness, "log.go", 12, finding.Nit, "Wording", ""), func(f *finding.Finding) { f.Status = finding.Minor })
	rejected := with(fnd(correctness, "log.go", 20, finding.Low, "Vague", ""), func(f *finding.Finding) {
		f.Status, f.FilterReason = finding.Filtered, "validator: vague"
	})
	critical := fnd(security, "log.go", 30, finding.Critical, "Secret logged", "")
	other := fnd(correctness, "store.go", 5, finding.High, "Race", "")

	fs := []finding.Finding{logging, logging2, minor, rejected, critical, other}
	got := Suppress(fs, []Suppression{
		{Reason: "learning no-logging: the team does not want logging advice", Match: onPath("log.go")},
		{Reason: "learning second: never reached for log.go", Match: func(finding.Finding) bool { return true }},
		{Reason: "learning none: matches nothing", Match: func(finding.Finding) bool { return false }},
	})
	// The first suppression that matches wins; the second takes what the first left.
	if diff := cmp.Diff([]int{3, 1, 0}, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	for i, want := range []struct {
		status finding.Status
		reason string
	}{
		{finding.Filtered, "learning no-logging: the team does not want logging advice"},
		{finding.Filtered, "learning no-logging: the team does not want logging advice"},
		{finding.Filtered, "learning no-logging: the team does not want logging advice"},
		{finding.Filtered, "validator: vague"}, // filtered before: untouched, not counted
		{finding.Reported, ""},                 // critical: never suppressed
		{finding.Filtered, "learning second: never reached for log.go"},
	} {
		if fs[i].Status != want.status || fs[i].FilterReason != want.reason {
			t.Errorf("%s: status %s reason %q, want %s %q", fs[i].Title, fs[i].Status, fs[i].FilterReason, want.status, want.reason)
		}
	}
	if len(fs) != 6 {
		t.Errorf("%d findings, want all 6 kept", len(fs))
	}
}

func TestSuppressNothing(t *testing.T) {
	t.Parallel()
	fs := []finding.Finding{fnd(correctness, "a.go", 1, finding.Low, "A", "")}
	want := append([]finding.Finding(nil), fs...)
	if got := Suppress(fs, nil); len(got) != 0 {
		t.Errorf("counts = %v, want none", got)
	}
	if diff := cmp.Diff(want, fs); diff != "" {
		t.Errorf("findings changed (-want +got):\n%s", diff)
	}
}
