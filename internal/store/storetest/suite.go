package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/council-dev/council/internal/store"
)

// Run runs the behaviour every store.Store must have. open returns a fresh, empty database
// for one test and arranges for it to be closed; tests of what the store does to the job
// queue's table run the queue (River) on it too.
func Run(t *testing.T, open func(t *testing.T) *store.DB) {
	t.Helper()
	for _, test := range []struct {
		name string
		test func(t *testing.T, s *store.DB)
	}{
		{"RecordDelivery", testRecordDelivery},
		{"RecordDeliveryConcurrently", testRecordDeliveryConcurrently},
		{"Installation", testInstallation},
		{"Repositories", testRepositories},
		{"Paused", testPaused},
		{"Runs", testRuns},
		{"RunsFilter", testRunsFilter},
		{"RunsLimit", testRunsLimit},
		{"FinishRun", testFinishRun},
		{"Spend", testSpend},
		{"Ping", testPing},
		{"ForgetDelivery", testForgetDelivery},
		{"JobCounts", testJobCounts},
		{"AbandonRuns", testAbandonRuns},
		{"Installations", testInstallations},
		{"Workers", testWorkers},
		{"RescueJobs", testRescueJobs},
		{"RescueJobsOnlyByTheLeader", testRescueJobsOnlyByTheLeader},
		{"NextJobs", testNextJobs},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			test.test(t, open(t))
		})
	}
}

// base is a time with a whole number of milliseconds, so that it survives any store exactly.
var base = time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

func testRecordDelivery(t *testing.T, s *store.DB) {
	ctx := t.Context()
	for i, test := range []struct {
		id   string
		want bool
	}{
		{"d-1", true},
		{"d-2", true},
		{"d-1", false},
		{"d-2", false},
		{"D-1", true}, // GitHub's ids are UUIDs; they are compared exactly
	} {
		got, err := s.RecordDelivery(ctx, store.Delivery{ID: test.id, Event: "pull_request", Received: base})
		if err != nil {
			t.Fatalf("%d: RecordDelivery(%q): %v", i, test.id, err)
		}
		if got != test.want {
			t.Errorf("%d: RecordDelivery(%q) = %v, want %v", i, test.id, got, test.want)
		}
	}
	if _, err := s.RecordDelivery(ctx, store.Delivery{Event: "ping"}); err == nil {
		t.Error("RecordDelivery with no id: no error")
	}
}

func testRecordDeliveryConcurrently(t *testing.T, s *store.DB) {
	ctx := t.Context()
	const n = 20
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fresh int
		errs  []error
	)
	for range n {
		wg.Go(func() {
			ok, err := s.RecordDelivery(ctx, store.Delivery{ID: "same", Event: "pull_request"})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				fresh++
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if fresh != 1 {
		t.Errorf("%d of %d concurrent RecordDelivery calls of one id said it was new, want 1", fresh, n)
	}
}

func testInstallation(t *testing.T, s *store.DB) {
	ctx := t.Context()
	if _, ok, err := s.Installation(ctx, 1); err != nil || ok {
		t.Fatalf("Installation(1) of an empty store = ok %v, err %v; want false, nil", ok, err)
	}

	want := store.Installation{ID: 1, Account: "octo-org", Settings: store.Settings{ReviewDrafts: true}}
	if err := s.UpsertInstallation(ctx, want); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want store.Installation) {
		t.Helper()
		got, ok, err := s.Installation(ctx, want.ID)
		if err != nil || !ok {
			t.Fatalf("%s: Installation(%d) = ok %v, err %v", step, want.ID, ok, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Installation(%d) (-want +got):\n%s", step, want.ID, diff)
		}
	}
	check("created", want)

	// Settings set by the server's owner survive GitHub's updates of the account.
	if err := s.SetSettings(ctx, 1, store.Settings{MonthlyBudgetUSD: 12.5}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertInstallation(ctx, store.Installation{ID: 1, Account: "renamed", Suspended: true}); err != nil {
		t.Fatal(err)
	}
	check("updated", store.Installation{ID: 1, Account: "renamed", Suspended: true, Settings: store.Settings{MonthlyBudgetUSD: 12.5}})

	// SetSettings creates an installation it does not know.
	if err := s.SetSettings(ctx, 2, store.Settings{MonthlyBudgetUSD: 3}); err != nil {
		t.Fatal(err)
	}
	check("created by SetSettings", store.Installation{ID: 2, Settings: store.Settings{MonthlyBudgetUSD: 3}})
	if err := s.UpsertInstallation(ctx, store.Installation{ID: 2, Account: "later"}); err != nil {
		t.Fatal(err)
	}
	check("upserted after SetSettings", store.Installation{ID: 2, Account: "later", Settings: store.Settings{MonthlyBudgetUSD: 3}})

	if err := s.SetRepositories(ctx, 1, []string{"octo-org/a"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteInstallation(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Installation(ctx, 1); err != nil || ok {
		t.Errorf("Installation(1) after DeleteInstallation = ok %v, err %v; want false, nil", ok, err)
	}
	if repos, err := s.Repositories(ctx, 1); err != nil || len(repos) != 0 {
		t.Errorf("Repositories(1) after DeleteInstallation = %q, %v; want none", repos, err)
	}
	check("the other one", store.Installation{ID: 2, Account: "later", Settings: store.Settings{MonthlyBudgetUSD: 3}})
	if err := s.DeleteInstallation(ctx, 99); err != nil {
		t.Errorf("DeleteInstallation of an unknown installation: %v", err)
	}
}

func testRepositories(t *testing.T, s *store.DB) {
	ctx := t.Context()
	for i, step := range []struct {
		id             int64
		added, removed []string
		want           []string
	}{
		{id: 1, want: nil},
		{id: 1, added: []string{"octo/b", "octo/A", "octo/c"}, want: []string{"octo/A", "octo/b", "octo/c"}},
		{id: 1, added: []string{"octo/b"}, want: []string{"octo/A", "octo/b", "octo/c"}},
		{id: 1, removed: []string{"OCTO/B", "octo/unknown"}, want: []string{"octo/A", "octo/c"}},
		{id: 2, added: []string{"other/x"}, want: []string{"other/x"}},
		{id: 1, added: []string{"octo/d"}, removed: []string{"octo/a"}, want: []string{"octo/c", "octo/d"}},
	} {
		if err := s.SetRepositories(ctx, step.id, step.added, step.removed); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		got, err := s.Repositories(ctx, step.id)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if diff := cmp.Diff(step.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d: Repositories(%d) (-want +got):\n%s", i, step.id, diff)
		}
	}
}

func testPaused(t *testing.T, s *store.DB) {
	ctx := t.Context()
	for i, step := range []struct {
		set    bool // call SetPaused(repo, number, paused) first
		repo   string
		number int
		paused bool
	}{
		{repo: "octo/a", number: 1, paused: false},
		{set: true, repo: "octo/a", number: 1, paused: true},
		{set: true, repo: "octo/a", number: 1, paused: true}, // twice is fine
		{repo: "OCTO/A", number: 1, paused: true},
		{repo: "octo/a", number: 2, paused: false},
		{repo: "octo/b", number: 1, paused: false},
		{set: true, repo: "Octo/A", number: 1, paused: false},
		{repo: "octo/a", number: 1, paused: false},
		{set: true, repo: "octo/a", number: 1, paused: false}, // resuming what runs is fine
	} {
		if step.set {
			if err := s.SetPaused(ctx, step.repo, step.number, step.paused); err != nil {
				t.Fatalf("%d: %v", i, err)
			}
		}
		got, err := s.Paused(ctx, step.repo, step.number)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if got != step.paused {
			t.Errorf("%d: Paused(%q, %d) = %v, want %v", i, step.repo, step.number, got, step.paused)
		}
	}
}

// startRuns starts runs and returns them as Runs should list them, in the order given.
func startRuns(t *testing.T, s store.Store, runs ...store.Run) []store.Run {
	t.Helper()
	out := make([]store.Run, len(runs))
	for i, r := range runs {
		id, err := s.StartRun(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		r.ID = id
		if r.Status == "" {
			r.Status = store.StatusRunning
		}
		out[i] = r
	}
	return out
}

func testRuns(t *testing.T, s *store.DB) {
	ctx := t.Context()
	if got, err := s.Runs(ctx, store.RunFilter{}); err != nil || len(got) != 0 {
		t.Fatalf("Runs of an empty store = %v, %v; want none", got, err)
	}
	runs := startRuns(t, s,
		store.Run{Installation: 7, Repo: "Octo/Repo", Number: 3, Head: "abc", Trigger: "opened", Delivery: "d-1",
			JobID: 11, Attempt: 1, Started: base},
		store.Run{Installation: 7, Repo: "octo/repo", Number: 3, Trigger: "/council review", Attempt: 2,
			Started: base.Add(time.Minute)},
		// The same start as the one before: the later id comes first.
		store.Run{Installation: 8, Repo: "octo/other", Number: 1, Trigger: "synchronize",
			Started: base.Add(time.Minute)},
	)
	if runs[0].ID == runs[1].ID || runs[1].ID == runs[2].ID {
		t.Fatalf("StartRun gave the same id twice: %d, %d, %d", runs[0].ID, runs[1].ID, runs[2].ID)
	}
	got, err := s.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Run{runs[2], runs[1], runs[0]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Runs newest first (-want +got):\n%s", diff)
	}

	// Times keep at least milliseconds and come back in UTC, whatever zone they went in with.
	at := time.Date(2026, 5, 6, 7, 8, 9, 123_456_789, time.FixedZone("UTC+2", 2*3600))
	id, err := s.StartRun(ctx, store.Run{Installation: 9, Repo: "octo/time", Number: 1, Started: at})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.Runs(ctx, store.RunFilter{Installation: 9})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("Runs(installation 9) = %+v, want run %d", got, id)
	}
	if d := got[0].Started.Sub(at).Abs(); d >= time.Millisecond || got[0].Started.Location() != time.UTC {
		t.Errorf("Started = %v, want %v in UTC", got[0].Started, at.UTC())
	}

	// A run started without a time starts now.
	before := time.Now()
	id, err = s.StartRun(ctx, store.Run{Installation: 10, Repo: "octo/now", Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.Runs(ctx, store.RunFilter{Installation: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id || got[0].Started.Before(before.Add(-time.Second)) || got[0].Started.After(time.Now().Add(time.Second)) {
		t.Errorf("Runs(installation 10) = %+v, want run %d started about %v", got, id, before)
	}
}

func testRunsFilter(t *testing.T, s *store.DB) {
	ctx := t.Context()
	runs := startRuns(t, s,
		store.Run{Installation: 1, Repo: "Octo/A", Number: 1, Started: base},
		store.Run{Installation: 1, Repo: "octo/a", Number: 2, Started: base.Add(1 * time.Second)},
		store.Run{Installation: 1, Repo: "octo/b", Number: 1, Started: base.Add(2 * time.Second)},
		store.Run{Installation: 2, Repo: "other/a", Number: 1, Started: base.Add(3 * time.Second)},
		store.Run{Installation: 1, Repo: "octo/a", Number: 1, Started: base.Add(4 * time.Second)},
	)
	if err := s.FinishRun(ctx, runs[1].ID, store.Result{Status: store.StatusSkipped, Error: "paused", Finished: base.Add(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	runs[1].Status, runs[1].Error, runs[1].Finished = store.StatusSkipped, "paused", base.Add(5*time.Second)
	if err := s.FinishRun(ctx, runs[2].ID, store.Result{Status: store.StatusFailed, Error: "boom", Finished: base.Add(6 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	runs[2].Status, runs[2].Error, runs[2].Finished = store.StatusFailed, "boom", base.Add(6*time.Second)

	for _, test := range []struct {
		name   string
		filter store.RunFilter
		want   []int // indexes into runs
	}{
		{"all", store.RunFilter{}, []int{4, 3, 2, 1, 0}},
		{"repo", store.RunFilter{Repo: "octo/a"}, []int{4, 1, 0}},
		{"repo in another case", store.RunFilter{Repo: "OCTO/a"}, []int{4, 1, 0}},
		{"repo and number", store.RunFilter{Repo: "octo/A", Number: 1}, []int{4, 0}},
		{"number", store.RunFilter{Number: 1}, []int{4, 3, 2, 0}},
		{"installation", store.RunFilter{Installation: 2}, []int{3}},
		{"status", store.RunFilter{Status: store.StatusRunning}, []int{4, 3, 0}},
		{"status failed", store.RunFilter{Status: store.StatusFailed}, []int{2}},
		{"everything", store.RunFilter{Repo: "octo/a", Number: 2, Installation: 1, Status: store.StatusSkipped}, []int{1}},
		{"nothing matches", store.RunFilter{Repo: "nobody/none"}, nil},
		{"limit", store.RunFilter{Limit: 2}, []int{4, 3}},
		{"limit with a filter", store.RunFilter{Repo: "octo/a", Limit: 1}, []int{4}},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := s.Runs(ctx, test.filter)
			if err != nil {
				t.Fatal(err)
			}
			var want []store.Run
			for _, i := range test.want {
				want = append(want, runs[i])
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Runs(%+v) (-want +got):\n%s", test.filter, diff)
			}
		})
	}
}

func testRunsLimit(t *testing.T, s *store.DB) {
	ctx := t.Context()
	for i := range 55 {
		if _, err := s.StartRun(ctx, store.Run{Installation: 1, Repo: "octo/a", Number: i, Started: base.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 {
		t.Fatalf("Runs with no limit gave %d runs, want 50", len(got))
	}
	if got[0].Number != 54 || got[49].Number != 5 {
		t.Errorf("Runs with no limit gave numbers %d..%d, want 54..5", got[0].Number, got[49].Number)
	}
	if got, err = s.Runs(ctx, store.RunFilter{Limit: 100}); err != nil || len(got) != 55 {
		t.Errorf("Runs(Limit: 100) gave %d runs, %v; want 55", len(got), err)
	}
}

func testFinishRun(t *testing.T, s *store.DB) {
	ctx := t.Context()
	runs := startRuns(t, s,
		store.Run{Installation: 1, Repo: "octo/a", Number: 1, Head: "old", Trigger: "opened", Started: base},
		store.Run{Installation: 1, Repo: "octo/a", Number: 2, Head: "kept", Started: base.Add(time.Second)},
	)
	findings := []store.Finding{
		{Fingerprint: "f3", Reviewer: "security", Status: "reported", Severity: "high", Category: "injection", Path: "z.go", Line: 30, Title: "SQL built from input"},
		{Fingerprint: "f1", Reviewer: "correctness", Status: "minor", Severity: "low", Category: "style", Path: "a.go", Line: 1, Title: "unused"},
		{Fingerprint: "f2", Reviewer: "correctness", Status: "filtered", Severity: "medium", Category: "bug", Path: "m/ü b.go", Line: 7, Title: "nil map"},
	}
	ledger := []store.LedgerRow{
		{Reviewer: "validator", Model: "m2", Requests: 1, InputTokens: 100, OutputTokens: 10, CacheReadTokens: 5, CacheWriteTokens: 6, CostUSD: 0.25, Seconds: 1.5},
		{Reviewer: "correctness", Model: "m1", Requests: 3, InputTokens: 1000, OutputTokens: 200, CacheReadTokens: 900, CacheWriteTokens: 50, CostUSD: 0.5, Seconds: 12.25},
	}
	finished := base.Add(time.Minute)
	if err := s.FinishRun(ctx, runs[0].ID, store.Result{
		Status: store.StatusSucceeded, Head: "new", Posted: 1, Findings: findings, Ledger: ledger, Finished: finished,
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, runs[1].ID, store.Result{Status: store.StatusFailed, Error: "rate limited", Finished: finished}); err != nil {
		t.Fatal(err)
	}

	want := []store.Run{runs[1], runs[0]}
	want[0].Status, want[0].Error, want[0].Finished = store.StatusFailed, "rate limited", finished
	want[1].Status, want[1].Head, want[1].Posted, want[1].Finished = store.StatusSucceeded, "new", 1, finished
	want[1].Findings, want[1].InputTokens, want[1].OutputTokens, want[1].CostUSD = 3, 1100, 210, 0.75
	got, err := s.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Runs after FinishRun (-want +got):\n%s", diff)
	}

	gotFindings, err := s.Findings(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(findings, gotFindings); diff != "" {
		t.Errorf("Findings, in the order recorded (-want +got):\n%s", diff)
	}
	gotLedger, err := s.Ledger(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ledger, gotLedger); diff != "" {
		t.Errorf("Ledger, in the order recorded (-want +got):\n%s", diff)
	}
	for _, id := range []int64{runs[1].ID, 12345} {
		if f, err := s.Findings(ctx, id); err != nil || len(f) != 0 {
			t.Errorf("Findings(%d) = %v, %v; want none", id, f, err)
		}
		if l, err := s.Ledger(ctx, id); err != nil || len(l) != 0 {
			t.Errorf("Ledger(%d) = %v, %v; want none", id, l, err)
		}
	}

	// Finishing again replaces the rows rather than adding to them.
	if err := s.FinishRun(ctx, runs[0].ID, store.Result{
		Status: store.StatusSucceeded, Findings: findings[:1], Ledger: ledger[1:], Finished: finished,
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Findings(ctx, runs[0].ID); err != nil || len(got) != 1 {
		t.Errorf("Findings after finishing again = %d rows, %v; want 1", len(got), err)
	}
	if got, err := s.Ledger(ctx, runs[0].ID); err != nil || len(got) != 1 {
		t.Errorf("Ledger after finishing again = %d rows, %v; want 1", len(got), err)
	}

	if err := s.FinishRun(ctx, 12345, store.Result{Status: store.StatusSucceeded}); err == nil {
		t.Error("FinishRun of an unknown run: no error")
	}
	if err := s.FinishRun(ctx, runs[0].ID, store.Result{}); err == nil {
		t.Error("FinishRun with no status: no error")
	}
}

func testSpend(t *testing.T, s *store.DB) {
	ctx := t.Context()
	month := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, r := range []struct {
		installation int64
		started      time.Time
		cost         float64
	}{
		{1, month.Add(-time.Millisecond), 100}, // last month
		{1, month, 1.25},                       // the first instant counts
		{1, month.Add(20 * 24 * time.Hour), 2.5},
		{1, month.Add(21 * 24 * time.Hour), 0}, // still running
		{2, month.Add(time.Hour), 40},          // another installation
	} {
		id, err := s.StartRun(ctx, store.Run{Installation: r.installation, Repo: "octo/a", Number: i + 1, Started: r.started})
		if err != nil {
			t.Fatal(err)
		}
		if r.cost == 0 {
			continue
		}
		if err := s.FinishRun(ctx, id, store.Result{
			Status: store.StatusSucceeded,
			Ledger: []store.LedgerRow{{Reviewer: "r", Model: "m", CostUSD: r.cost}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, test := range []struct {
		installation int64
		since        time.Time
		want         float64
	}{
		{1, month, 3.75},
		{1, month.Add(-time.Hour), 103.75},
		{1, month.In(time.FixedZone("UTC-5", -5*3600)), 3.75}, // the same instant in another zone
		{1, month.AddDate(0, 1, 0), 0},
		{2, month, 40},
		{3, month, 0},
	} {
		got, err := s.Spend(ctx, test.installation, test.since)
		if err != nil {
			t.Fatal(err)
		}
		if got != test.want {
			t.Errorf("Spend(%d, %v) = %v, want %v", test.installation, test.since, got, test.want)
		}
	}
}

func testPing(t *testing.T, s *store.DB) {
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func testForgetDelivery(t *testing.T, s *store.DB) {
	ctx := t.Context()
	d := store.Delivery{ID: "forget-1", Event: "pull_request", Received: base}
	if ok, err := s.RecordDelivery(ctx, d); err != nil || !ok {
		t.Fatalf("first record: %v, %v", ok, err)
	}
	if err := s.ForgetDelivery(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RecordDelivery(ctx, d); err != nil || !ok {
		t.Fatalf("record after forgetting: new = %v (%v), want a new delivery", ok, err)
	}
	if ok, err := s.RecordDelivery(ctx, d); err != nil || ok {
		t.Fatalf("record again: new = %v (%v), want a duplicate", ok, err)
	}
	if err := s.ForgetDelivery(ctx, "never-recorded"); err != nil {
		t.Fatalf("forget an unknown delivery: %v", err)
	}
}

// testJobCounts reads the queue's (empty) table: Open created it with River's migrations.
func testJobCounts(t *testing.T, s *store.DB) {
	counts, err := s.JobCounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 0 {
		t.Errorf("counts of a new queue = %v, want none", counts)
	}
}

func testAbandonRuns(t *testing.T, s *store.DB) {
	ctx := t.Context()
	start := func(job int64) int64 {
		id, err := s.StartRun(ctx, store.Run{Installation: 1, Repo: "o/r", Number: 1, JobID: job, Started: base})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	dead, done, other := start(7), start(7), start(8)
	if err := s.FinishRun(ctx, done, store.Result{Status: store.StatusSucceeded, Finished: base}); err != nil {
		t.Fatal(err)
	}
	now := start(7)
	n, err := s.AbandonRuns(ctx, 7, now, "the worker stopped")
	if err != nil || n != 1 {
		t.Fatalf("AbandonRuns = %d, %v; want the one dead run", n, err)
	}
	runs, err := s.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{dead: store.StatusFailed, done: store.StatusSucceeded, other: store.StatusRunning, now: store.StatusRunning}
	for _, r := range runs {
		if r.Status != want[r.ID] {
			t.Errorf("run %d: status %q, want %q", r.ID, r.Status, want[r.ID])
		}
		if r.ID == dead && (r.Error != "the worker stopped" || r.Finished.IsZero()) {
			t.Errorf("abandoned run: %+v", r)
		}
	}
}

func testInstallations(t *testing.T, s *store.DB) {
	ctx := t.Context()
	if got, err := s.Installations(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new store's installations: %v, %v", got, err)
	}
	if err := s.UpsertInstallation(ctx, store.Installation{ID: 9, Account: "zeta", Suspended: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSettings(ctx, 3, store.Settings{MonthlyBudgetUSD: 12.5, ReviewDrafts: true}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Installations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Installation{
		{ID: 3, Settings: store.Settings{MonthlyBudgetUSD: 12.5, ReviewDrafts: true}},
		{ID: 9, Account: "zeta", Suspended: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("installations (-want +got):\n%s", d)
	}
}
