package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/council-dev/council/internal/store"
)

func testWorkers(t *testing.T, s *store.DB) {
	ctx := t.Context()
	if got, err := s.Workers(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new store's workers: %v, %v", got, err)
	}
	a := store.Worker{ID: "host_a_1", Host: "a", PID: 11, Started: base, Heartbeat: base}
	b := store.Worker{ID: "host_b_1", Host: "b", PID: 12, Started: base, Heartbeat: base.Add(time.Second)}
	for _, w := range []store.Worker{b, a} {
		if err := s.AddWorker(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, want ...store.Worker) {
		t.Helper()
		got, err := s.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: workers (-want +got):\n%s", step, d)
		}
	}
	check("added", a, b)

	if known, err := s.Heartbeat(ctx, a.ID, base.Add(time.Minute)); err != nil || !known {
		t.Fatalf("Heartbeat(%s) = %v, %v; want a known worker", a.ID, known, err)
	}
	a.Heartbeat = base.Add(time.Minute)
	check("after a heartbeat", a, b)

	// A heartbeat without a time is now, by the database's clock.
	before := time.Now()
	if known, err := s.Heartbeat(ctx, b.ID, time.Time{}); err != nil || !known {
		t.Fatalf("Heartbeat(%s) = %v, %v; want a known worker", b.ID, known, err)
	}
	got, err := s.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if beat := got[1].Heartbeat; beat.Before(before.Add(-5*time.Second)) || beat.After(time.Now().Add(5*time.Second)) {
		t.Errorf("a heartbeat recorded now is at %v; want about %v", beat, before)
	}

	if err := s.RemoveWorker(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	check("after RemoveWorker", a)
	if known, err := s.Heartbeat(ctx, b.ID, base); err != nil || known {
		t.Errorf("Heartbeat of a removed worker = %v, %v; want false", known, err)
	}
	if err := s.RemoveWorker(ctx, "never-added"); err != nil {
		t.Errorf("RemoveWorker of an unknown worker: %v", err)
	}

	// Adding again (a restart under the same id) replaces the record.
	a2 := store.Worker{ID: a.ID, Host: "a2", PID: 99, Started: base.Add(time.Hour), Heartbeat: base.Add(time.Hour)}
	if err := s.AddWorker(ctx, a2); err != nil {
		t.Fatal(err)
	}
	check("added again", a2)
}

// testRescueJobs has a job queue client start jobs and hold them, as a worker killed mid-job
// leaves them: running, attempted by it. Only the jobs of a worker whose heartbeat is too old
// go back in the queue; another client then runs them.
func testRescueJobs(t *testing.T, s *store.DB) {
	ctx := t.Context()
	dead := startHolder(t, s, "dead")
	unknown := startHolder(t, s, "unknown") // not a worker the store knows: left to River's rescuer
	requeued := dead.insert(t, &river.InsertOpts{})
	discarded := dead.insert(t, &river.InsertOpts{MaxAttempts: 1})
	untouched := unknown.insert(t, &river.InsertOpts{})
	dead.wait(t, requeued, discarded)
	unknown.wait(t, untouched)

	now := time.Now().UTC().Truncate(time.Millisecond)
	deadW := store.Worker{ID: dead.c.ID(), Host: "a", PID: 1, Started: now.Add(-time.Hour), Heartbeat: now.Add(-2 * time.Minute)}
	alive := store.Worker{ID: "alive", Host: "b", PID: 2, Started: now.Add(-time.Hour), Heartbeat: now.Add(-30 * time.Second)}
	for _, w := range []store.Worker{deadW, alive} {
		if err := s.AddWorker(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RescueJobs(ctx, store.RescueParams{DeadAfter: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.DeadWorker{{Worker: deadW, Requeued: []int64{requeued}, Discarded: []int64{discarded}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("RescueJobs (-want +got):\n%s", d)
	}

	job := dead.get(t, requeued)
	if job.State != rivertype.JobStateAvailable || job.Attempt != 1 || job.FinalizedAt != nil || job.ScheduledAt.After(now.Add(time.Millisecond)) {
		t.Errorf("the job put back: state %s, attempt %d, finalized %v, scheduled %v; want available at once, its attempt counted",
			job.State, job.Attempt, job.FinalizedAt, job.ScheduledAt)
	}
	if n := len(job.Errors); n != 1 || job.Errors[0].Attempt != 1 || !job.Errors[0].At.Equal(now) ||
		job.Errors[0].Error != "the worker "+deadW.ID+" stopped: no heartbeat since "+deadW.Heartbeat.Format(time.RFC3339)+"; the job was put back in the queue" {
		t.Errorf("the job put back has errors %+v; want one saying whose heartbeat stopped", job.Errors)
	}
	if string(job.Metadata) == "" || !jsonHas(t, job.Metadata, "river:rescue_count", 1.0) {
		t.Errorf("the job put back has metadata %s; want river:rescue_count 1, as River's rescuer counts", job.Metadata)
	}
	if job := dead.get(t, discarded); job.State != rivertype.JobStateDiscarded || job.FinalizedAt == nil || len(job.Errors) != 1 {
		t.Errorf("the job with no attempt left: state %s, finalized %v, errors %+v; want discarded, with the reason", job.State, job.FinalizedAt, job.Errors)
	}
	if job := unknown.get(t, untouched); job.State != rivertype.JobStateRunning {
		t.Errorf("the job of a client that records no heartbeat: %s; want still running (River's rescuer's)", job.State)
	}

	workers, err := s.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]store.Worker{alive}, workers); d != "" {
		t.Errorf("workers after the rescue (-want +got):\n%s", d)
	}
	if known, err := s.Heartbeat(ctx, deadW.ID, time.Time{}); err != nil || known {
		t.Errorf("a dead worker's heartbeat = %v, %v; want false: it learns it was taken for dead", known, err)
	}
	if again, err := s.RescueJobs(ctx, store.RescueParams{DeadAfter: time.Minute, Now: now}); err != nil || len(again) != 0 {
		t.Errorf("RescueJobs again = %+v, %v; want nothing more", again, err)
	}

	// The job put back runs again on a live client: River takes the row as it was left.
	other := startHolder(t, s, "dead") // the same queue
	other.wait(t, requeued)
	if job := other.get(t, requeued); job.Attempt != 2 || !slices.Equal(job.AttemptedBy, []string{dead.c.ID(), other.c.ID()}) {
		t.Errorf("the job's next attempt: %d by %v; want attempt 2 by %s", job.Attempt, job.AttemptedBy, other.c.ID())
	}
}

func testRescueJobsOnlyByTheLeader(t *testing.T, s *store.DB) {
	ctx := t.Context()
	h := startHolder(t, s, "q")
	id := h.insert(t, &river.InsertOpts{})
	h.wait(t, id)
	if err := s.AddWorker(ctx, store.Worker{ID: h.c.ID(), Started: time.Now().Add(-time.Hour), Heartbeat: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RescueJobs(ctx, store.RescueParams{Leader: "not-the-leader", DeadAfter: time.Minute}); err != nil || len(got) != 0 {
		t.Fatalf("RescueJobs by a client that does not lead = %+v, %v; want nothing", got, err)
	}
	if job := h.get(t, id); job.State != rivertype.JobStateRunning {
		t.Fatalf("a client that does not lead put back a job: %s", job.State)
	}
	// The holder is the only client, so River elects it; until then nothing happens.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		got, err := s.RescueJobs(ctx, store.RescueParams{Leader: h.c.ID(), DeadAfter: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 && slices.Equal(got[0].Requeued, []int64{id}) {
			return
		}
		if len(got) != 0 {
			t.Fatalf("RescueJobs by the leader = %+v; want job %d put back", got, id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("RescueJobs by the elected leader put nothing back within 30s")
}

// holder is a job queue client whose jobs start and then hold on until the test ends: the
// queue sees them running, attempted by the client, as a worker killed mid-job leaves them.
type holder struct {
	c       queueClient
	queue   string
	started chan int64
	seen    map[int64]bool
}

// queueClient is River's client over either database.
type queueClient interface {
	ID() string
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

type holdArgs struct {
	N int `json:"n"`
}

func (holdArgs) Kind() string { return "storetest_hold" }

type holdWorker struct {
	river.WorkerDefaults[holdArgs]
	started chan<- int64
	release <-chan struct{}
}

func (w *holdWorker) Work(ctx context.Context, job *river.Job[holdArgs]) error {
	w.started <- job.ID
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil
}

func startHolder(t *testing.T, db *store.DB, queue string) *holder {
	t.Helper()
	h := &holder{queue: queue, started: make(chan int64, 10), seen: map[int64]bool{}}
	release := make(chan struct{})
	workers := river.NewWorkers()
	river.AddWorker(workers, &holdWorker{started: h.started, release: release})
	cfg := &river.Config{
		Queues:            map[string]river.QueueConfig{queue: {MaxWorkers: 2}}, // every slot held: nothing fetched again
		Workers:           workers,
		FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		JobTimeout: -1, Logger: quietRiver(), TestOnly: true,
	}
	h.c = newQueueClient(t, db, cfg)
	if err := h.c.Start(context.WithoutCancel(t.Context())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := h.c.Stop(ctx); err != nil {
			t.Errorf("stop the job queue client: %v", err)
		}
	})
	return h
}

func (h *holder) insert(t *testing.T, opts *river.InsertOpts) int64 {
	t.Helper()
	opts.Queue = h.queue
	res, err := h.c.Insert(t.Context(), holdArgs{N: len(h.seen)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Job.ID
}

// wait waits until the holder's client has started the jobs ids.
func (h *holder) wait(t *testing.T, ids ...int64) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for _, id := range ids {
		for !h.seen[id] {
			select {
			case got := <-h.started:
				h.seen[got] = true
			case <-timeout:
				t.Fatalf("job %d did not start within 30s", id)
			}
		}
	}
}

func (h *holder) get(t *testing.T, id int64) *rivertype.JobRow {
	t.Helper()
	job, err := h.c.JobGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// jsonHas says whether the JSON object doc has key set to want.
func jsonHas(t *testing.T, doc []byte, key string, want any) bool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatalf("decode %s: %v", doc, err)
	}
	return m[key] == want
}

// quietRiver keeps the test clients' River lines at warning and above.
func quietRiver() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// testNextJobs: the jobs River would take next, in its order, and moving some to the back.
func testNextJobs(t *testing.T, s *store.DB) {
	ctx := t.Context()
	c := newQueueClient(t, s, &river.Config{Logger: quietRiver()})
	insert := func(n int, opts *river.InsertOpts) int64 {
		t.Helper()
		res, err := c.Insert(ctx, holdArgs{N: n}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res.Job.ID
	}
	low := insert(1, &river.InsertOpts{Queue: "q", Priority: 2})
	a := insert(2, &river.InsertOpts{Queue: "q"})
	b := insert(3, &river.InsertOpts{Queue: "q"})
	cc := insert(4, &river.InsertOpts{Queue: "q"})
	insert(5, &river.InsertOpts{Queue: "q", ScheduledAt: time.Now().Add(time.Hour)}) // not due
	insert(6, &river.InsertOpts{Queue: "other"})

	ids := func(limit int) []int64 {
		t.Helper()
		jobs, err := s.NextJobs(ctx, "q", limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, j := range jobs {
			if j.Kind != "storetest_hold" || !jsonHas(t, j.Args, "n", float64(map[int64]int{low: 1, a: 2, b: 3, cc: 4}[j.ID])) {
				t.Errorf("job %d: kind %q, args %s", j.ID, j.Kind, j.Args)
			}
			out = append(out, j.ID)
		}
		return out
	}
	if d := cmp.Diff([]int64{a, b, cc, low}, ids(10)); d != "" {
		t.Errorf("NextJobs: by priority, then as queued (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int64{a, b}, ids(2)); d != "" {
		t.Errorf("NextJobs with a limit (-want +got):\n%s", d)
	}

	time.Sleep(5 * time.Millisecond) // SQLite's times have milliseconds
	if err := s.MoveBack(ctx, []int64{a, b}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{cc, a, b, low}, ids(10)); d != "" {
		t.Errorf("NextJobs after moving two back (-want +got):\n%s", d)
	}
	if err := s.MoveBack(ctx, nil); err != nil {
		t.Errorf("MoveBack of nothing: %v", err)
	}
}

// newQueueClient is a River client on db with cfg.
func newQueueClient(t *testing.T, db *store.DB, cfg *river.Config) queueClient {
	t.Helper()
	var c queueClient
	var err error
	switch db.Kind {
	case store.KindPostgres:
		c, err = river.NewClient[pgx.Tx](riverpgxv5.New(db.Pool), cfg)
	default:
		cfg.PollOnly = true
		c, err = river.NewClient[*sql.Tx](riversqlite.New(db.SQL), cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}
