package server

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"

	"github.com/council-dev/council/internal/store"
)

// River takes a worker's jobs in its queue's order, as many as the worker has free slots
// (MaxWorkers), and cannot tell one installation's jobs from another's: limits by a job's
// arguments are River Pro's. A worker at its installation's share (COUNCIL_INSTALLATION_CONCURRENCY)
// would take jobs it cannot start, hand them back and take them again, always holding some: a
// worker killed then leaves them running, never started, and a worker with room for them
// cannot have them meanwhile. So River's driver is given a gate on the one query by which a
// worker takes jobs: it looks at the jobs River would take next and lets River take only as
// many from the head of the queue as this process can start. When the head is jobs it has no
// room for and one it has room for waits behind them, it first moves those to the back of the
// queue, still available to every worker, so that other installations' jobs do not wait behind
// one installation's burst. Everything else of the driver is River's own.

// lookAhead is how many jobs past its free slots the gate reads to find one it has room for.
const lookAhead = 100

// waitingJobs is what the gate reads and moves in the queue.
type waitingJobs interface {
	NextJobs(ctx context.Context, queue string, limit int) ([]store.QueuedJob, error)
	MoveBack(ctx context.Context, ids []int64) error
}

var _ waitingJobs = store.Store(nil)

// fetchGate decides how many jobs River may take for this process.
type fetchGate struct {
	db  waitingJobs
	log *slog.Logger
	// room is how many more review jobs of an installation this process can start.
	room func(installation int64) int
}

// queued is a waiting job as the gate sees it.
type queued struct {
	id           int64
	installation int64 // of a review job; 0 for a job that takes no installation's share
}

// plan decides, for the next jobs of the queue in River's order, how many River may take from
// the head (at most free), and which jobs to move to the back first: those at the head this
// process has no room for, when one it has room for waits behind them. Nothing moves when no
// job in sight fits: the jobs stay where they are for the workers with room.
func plan(next []queued, free int, room func(installation int64) int) (take int, back []int64) {
	used := map[int64]int{}
	fits := func(j queued) bool { return j.installation == 0 || used[j.installation] < room(j.installation) }
	head := 0
	for head < len(next) && !fits(next[head]) {
		head++
	}
	if head == len(next) {
		return 0, nil
	}
	for _, j := range next[:head] {
		back = append(back, j.id)
	}
	for _, j := range next[head:] {
		if take == free || !fits(j) {
			break
		}
		if j.installation != 0 {
			used[j.installation]++
		}
		take++
	}
	return take, back
}

// limit is how many of queue's next jobs River may take for this process, at most free.
func (g *fetchGate) limit(ctx context.Context, queue string, free int) (int, error) {
	jobs, err := g.db.NextJobs(ctx, queue, free+lookAhead)
	if err != nil {
		return 0, err
	}
	next := make([]queued, len(jobs))
	for i, j := range jobs {
		next[i].id = j.ID
		var a ReviewArgs
		if j.Kind == a.Kind() && json.Unmarshal(j.Args, &a) == nil {
			next[i].installation = a.Installation
		}
	}
	take, back := plan(next, free, g.room)
	if len(back) > 0 {
		if err := g.db.MoveBack(ctx, back); err != nil {
			return 0, err
		}
	}
	return take, nil
}

// gatedDriver is a River driver whose executors take jobs through the gate.
type gatedDriver[TTx any] struct {
	riverdriver.Driver[TTx]
	gate *fetchGate
}

func (d gatedDriver[TTx]) GetExecutor() riverdriver.Executor {
	return gatedExecutor{Executor: d.Driver.GetExecutor(), gate: d.gate}
}

type gatedExecutor struct {
	riverdriver.Executor
	gate *fetchGate
}

var (
	_ riverdriver.Driver[pgx.Tx] = gatedDriver[pgx.Tx]{}
	_ riverdriver.Executor       = gatedExecutor{}
)

// JobGetAvailable takes jobs for this process as River would, only fewer. Should the gate fail,
// River takes what it would have taken, and a job over its installation's share goes back to
// the queue from the worker (Server.review).
func (e gatedExecutor) JobGetAvailable(ctx context.Context, params *riverdriver.JobGetAvailableParams) (*riverdriver.JobGetAvailableResult, error) {
	take, err := e.gate.limit(ctx, params.Queue, params.MaxToLock)
	if err != nil {
		e.gate.log.Warn("look at the next jobs before taking any", "queue", params.Queue, "error", err.Error())
		take = params.MaxToLock
	}
	if take <= 0 {
		return &riverdriver.JobGetAvailableResult{}, nil
	}
	p := *params
	p.MaxToLock = min(take, params.MaxToLock)
	return e.Executor.JobGetAvailable(ctx, &p)
}
