package server

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/riverqueue/river"

	"github.com/council-dev/council/internal/store"
	"github.com/council-dev/council/internal/store/storetest"
)

// River may take from the head of the queue only jobs this process can start; jobs it has no
// room for move back only when one it has room for waits behind them.
func TestPlan(t *testing.T) {
	t.Parallel()
	const a, b, c = 1, 2, 3 // installations; 0: a job that takes no installation's share
	room := map[int64]int{a: 0, b: 2, c: 1}
	job := func(id, inst int64) queued { return queued{id: id, installation: inst} }
	tests := []struct {
		name     string
		next     []queued
		free     int
		wantTake int
		wantBack []int64
	}{
		{name: "an empty queue", free: 4},
		{name: "room for all", next: []queued{job(1, b), job(2, c), job(3, 0)}, free: 4, wantTake: 3},
		{name: "no more than the free slots", next: []queued{job(1, b), job(2, 0), job(3, 0)}, free: 2, wantTake: 2},
		{name: "an installation's share", next: []queued{job(1, b), job(2, b), job(3, b), job(4, c)}, free: 4, wantTake: 2},
		{name: "stops at the first it has no room for", next: []queued{job(1, c), job(2, c), job(3, b)}, free: 4, wantTake: 1},
		{name: "only jobs it has no room for: nothing moves", next: []queued{job(1, a), job(2, a), job(3, a)}, free: 2},
		{
			name: "another installation's job behind them", next: []queued{job(1, a), job(2, a), job(3, b), job(4, a), job(5, c)},
			free: 2, wantTake: 1, wantBack: []int64{1, 2},
		},
		{
			name: "commands run whatever the share", next: []queued{job(1, a), job(2, 0), job(3, 0), job(4, b)},
			free: 4, wantTake: 3, wantBack: []int64{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			take, back := plan(tt.next, tt.free, func(inst int64) int { return room[inst] })
			if take != tt.wantTake {
				t.Errorf("take = %d, want %d", take, tt.wantTake)
			}
			if d := cmp.Diff(tt.wantBack, back, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("moved back (-want +got):\n%s", d)
			}
		})
	}
}

// On the queue itself: a worker with four slots and a share of two takes two jobs of one
// installation and the other installation's job queued behind the rest, and leaves the third
// job of the first in the queue, never taken (no job is handed back).
func TestGateTakesOnlyWhatItCanStart(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{store.KindSQLite, store.KindPostgres} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			url := storetest.SQLiteURL(t)
			if kind == store.KindPostgres {
				url = storetest.PostgresURL(t)
			}
			db, err := store.Open(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })

			const share = 2
			w := &holdReviews{running: map[int64]int{}, started: make(chan ReviewArgs, 10), release: make(chan struct{})}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q, err := newQueue(db, queueOptions{
				work: true, workers: workers, maxWorkers: 4, jobTimeout: time.Minute, rescueAfter: time.Hour,
				poll: 200 * time.Millisecond, maxAttempts: 5, log: slog.New(slog.DiscardHandler),
				gate: &fetchGate{db: db, log: slog.New(slog.DiscardHandler), room: func(inst int64) int { return share - w.count(inst) }},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, inst := range []int64{1, 1, 1, 2} {
				if _, err := q.insert(t.Context(), ReviewArgs{Installation: inst, Owner: "o", Repo: "r", Number: i + 1}); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.start(context.WithoutCancel(t.Context())); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				close(w.release)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = q.stop(ctx)
			})
			var got []int
			for range 3 {
				select {
				case a := <-w.started:
					got = append(got, a.Number)
				case <-time.After(30 * time.Second):
					t.Fatalf("started %v within 30s; want 3 jobs", got)
				}
			}
			slices.Sort(got)
			if d := cmp.Diff([]int{1, 2, 4}, got); d != "" {
				t.Errorf("jobs started (-want +got):\n%s", d)
			}
			// Many fetches later, the third job of installation 1 is still waiting, untouched.
			time.Sleep(time.Second)
			next, err := db.NextJobs(t.Context(), river.QueueDefault, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(next) != 1 {
				t.Fatalf("waiting jobs %+v; want the third of installation 1", next)
			}
			counts, err := db.JobCounts(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if counts["running"] != 3 || counts["available"] != 1 {
				t.Errorf("jobs by state %v; want 3 running, 1 available", counts)
			}
			if snoozed := w.snoozedJobs(); len(snoozed) != 0 {
				t.Errorf("jobs handed back after being taken: %v; want none", snoozed)
			}
		})
	}
}

// holdReviews runs review jobs until released, counting them by installation, and hands back
// one over the share as Server.review does.
type holdReviews struct {
	river.WorkerDefaults[ReviewArgs]
	mu      sync.Mutex
	running map[int64]int
	snoozed []int64
	started chan ReviewArgs
	release chan struct{}
}

func (w *holdReviews) count(inst int64) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running[inst]
}

func (w *holdReviews) snoozedJobs() []int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.snoozed)
}

func (w *holdReviews) Work(ctx context.Context, job *river.Job[ReviewArgs]) error {
	inst := job.Args.Installation
	w.mu.Lock()
	if w.running[inst] >= 2 {
		w.snoozed = append(w.snoozed, job.ID)
		w.mu.Unlock()
		return river.JobSnooze(0)
	}
	w.running[inst]++
	w.mu.Unlock()
	w.started <- job.Args
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil
}
