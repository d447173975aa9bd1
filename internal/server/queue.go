package server

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/council-dev/council/internal/store"
)

// ReviewArgs is one review job: a pull request to review at its newest head. The head is not
// part of the job: the worker reads it when the job runs, so a burst of pushes queues one job
// that reviews the newest head, and a push while the job runs makes it run again (see
// Server.review).
type ReviewArgs struct {
	Installation int64  `json:"installation"`
	Owner        string `json:"owner" river:"unique"` // lower case: GitHub's names are case-insensitive
	Repo         string `json:"repo" river:"unique"`
	Number       int    `json:"number" river:"unique"`
	Full         bool   `json:"full,omitempty" river:"unique"` // review the whole pull request again
	Trigger      string `json:"trigger"`                       // what queued it: "synchronize", "/council review", ...
	Delivery     string `json:"delivery,omitempty"`
}

// Kind names the job in the queue's table.
func (ReviewArgs) Kind() string { return "council_review" }

// InsertOpts make a job unique per pull request (and full or not) among the jobs not yet
// finished. River requires running among the states, so a push during a review does not queue
// a second job: the running one runs again when it sees the head moved.
func (ReviewArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		},
	}}
}

// CommandArgs is a `/council ...` comment: the worker checks that its author can write to the
// repository before it acts (a webhook must answer fast and cannot ask GitHub).
type CommandArgs struct {
	Installation int64  `json:"installation"`
	Owner        string `json:"owner"`
	Repo         string `json:"repo"`
	Number       int    `json:"number"`
	Command      string `json:"command"`
	Commenter    string `json:"commenter"`
	Delivery     string `json:"delivery,omitempty"`
}

// Kind names the job in the queue's table.
func (CommandArgs) Kind() string { return "council_command" }

// queue is the server's use of River, whatever the database.
type queue interface {
	insert(ctx context.Context, args river.JobArgs) (duplicate bool, err error)
	start(ctx context.Context) error
	// complete marks a running review job completed at once, from inside its Work. River
	// otherwise completes jobs in batches up to 250ms after Work returns, and until then the
	// job holds its unique slot: a push or a /council resume in that window would be
	// deduplicated against a job that never runs again, and be lost.
	complete(ctx context.Context, job *river.Job[ReviewArgs]) error
	// stop waits for running jobs until ctx ends, then cancels them.
	stop(ctx context.Context) error
	// id is the queue client's id, which River records in attempted_by of each job it takes.
	id() string
}

type riverQueue[TTx any] struct {
	c          *river.Client[TTx]
	completeTx func(ctx context.Context, job *river.Job[ReviewArgs]) error
}

func (q riverQueue[TTx]) insert(ctx context.Context, args river.JobArgs) (bool, error) {
	res, err := q.c.Insert(ctx, args, nil)
	if err != nil {
		return false, err
	}
	return res.UniqueSkippedAsDuplicate, nil
}

func (q riverQueue[TTx]) start(ctx context.Context) error { return q.c.Start(ctx) }

func (q riverQueue[TTx]) id() string { return q.c.ID() }

func (q riverQueue[TTx]) complete(ctx context.Context, job *river.Job[ReviewArgs]) error {
	return q.completeTx(ctx, job)
}

func (q riverQueue[TTx]) stop(ctx context.Context) error {
	err := q.c.Stop(ctx)
	if err == nil || ctx.Err() == nil {
		return err
	}
	// The deadline passed with jobs still running: cancel them. Their workers snooze them, so
	// they run again at once on the next worker, and their markers keep what they posted.
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return q.c.StopAndCancel(cctx)
}

// queueOptions configure newQueue.
type queueOptions struct {
	work        bool // run jobs (roles all and worker); else insert only
	workers     *river.Workers
	maxWorkers  int
	jobTimeout  time.Duration
	rescueAfter time.Duration
	poll        time.Duration
	maxAttempts int
	log         *slog.Logger
	gate        *fetchGate // when work: what River takes for this process
}

// newQueue makes the River client for db.
func newQueue(db *store.DB, o queueOptions) (queue, error) {
	cfg := &river.Config{
		Logger:               o.log,
		MaxAttempts:          o.maxAttempts,
		JobTimeout:           o.jobTimeout,
		RescueStuckJobsAfter: o.rescueAfter,
		FetchPollInterval:    o.poll,
		FetchCooldown:        min(o.poll, 100*time.Millisecond),
		// Completed jobs are kept a day (the store keeps runs for good).
		CompletedJobRetentionPeriod: 24 * time.Hour,
	}
	if o.work {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.maxWorkers}}
		cfg.Workers = o.workers
	}
	switch db.Kind {
	case "postgres":
		c, err := river.NewClient(gated(riverpgxv5.New(db.Pool), o.gate), cfg)
		if err != nil {
			return nil, fmt.Errorf("start the job queue: %w", err)
		}
		return riverQueue[pgx.Tx]{c: c, completeTx: func(ctx context.Context, job *river.Job[ReviewArgs]) error {
			tx, err := db.Pool.Begin(ctx)
			if err != nil {
				return fmt.Errorf("complete job %d: %w", job.ID, err)
			}
			defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
			if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
				return fmt.Errorf("complete job %d: %w", job.ID, err)
			}
			return tx.Commit(ctx)
		}}, nil
	case "sqlite":
		// SQLite has no LISTEN/NOTIFY: workers poll.
		cfg.PollOnly = true
		c, err := river.NewClient(gated(riversqlite.New(db.SQL), o.gate), cfg)
		if err != nil {
			return nil, fmt.Errorf("start the job queue: %w", err)
		}
		return riverQueue[*sql.Tx]{c: c, completeTx: func(ctx context.Context, job *river.Job[ReviewArgs]) error {
			tx, err := db.SQL.BeginTx(ctx, nil)
			if err != nil {
				return fmt.Errorf("complete job %d: %w", job.ID, err)
			}
			defer func() { _ = tx.Rollback() }()
			if _, err := river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job); err != nil {
				return fmt.Errorf("complete job %d: %w", job.ID, err)
			}
			return tx.Commit()
		}}, nil
	}
	return nil, fmt.Errorf("start the job queue: unknown database kind %q", db.Kind)
}

// gated is River's driver, through the gate when there is one.
func gated[TTx any](d riverdriver.Driver[TTx], gate *fetchGate) riverdriver.Driver[TTx] {
	if gate == nil {
		return d
	}
	return gatedDriver[TTx]{Driver: d, gate: gate}
}

// lower is how names go into unique job arguments.
func lower(s string) string { return strings.ToLower(s) }
