// Package store is the server's database: runs, their findings and ledger rows, webhook
// deliveries, installations with their settings and monthly budget, and paused pull requests.
// One interface, two implementations on the same database the job queue uses: SQLite
// (modernc.org/sqlite, the default, one machine) and Postgres (pgx, several machines). Its
// migrations are embedded and applied by Open. It never stores a secret.
package store

import (
	"context"
	"errors"
	"time"
)

// Store is what the server keeps. Every method is safe for concurrent use.
type Store interface {
	// RecordDelivery notes a webhook delivery (X-GitHub-Delivery) and says whether it is new:
	// false when the same id was recorded before, by this process or another.
	RecordDelivery(ctx context.Context, d Delivery) (bool, error)
	// ForgetDelivery removes a recorded delivery whose work could not be queued, so that
	// GitHub's redelivery (same id) is not taken for a duplicate.
	ForgetDelivery(ctx context.Context, id string) error
	// JobCounts counts the job queue's jobs by state (River's table, all processes).
	JobCounts(ctx context.Context) (map[string]int64, error)
	// NextJobs lists, up to limit, the jobs of queue that River would take next: available
	// and due, by priority, then scheduled_at, then id.
	NextJobs(ctx context.Context, queue string, limit int) ([]QueuedJob, error)
	// MoveBack moves the jobs ids that are still available to the back of their queue: due
	// now, as if just queued. They stay available to every worker.
	MoveBack(ctx context.Context, ids []int64) error

	// UpsertInstallation creates or updates an installation's account and state; its settings
	// and budget are kept when it exists.
	UpsertInstallation(ctx context.Context, in Installation) error
	// DeleteInstallation forgets an uninstalled installation (its runs stay).
	DeleteInstallation(ctx context.Context, id int64) error
	// Installation reads one; ok is false when it is unknown.
	Installation(ctx context.Context, id int64) (in Installation, ok bool, err error)
	// Installations lists every installation the store knows, by id.
	Installations(ctx context.Context) ([]Installation, error)
	// SetSettings replaces an installation's settings, creating the installation if needed.
	SetSettings(ctx context.Context, id int64, s Settings) error
	// SetRepositories adds and removes repositories ("owner/name") of an installation.
	SetRepositories(ctx context.Context, id int64, added, removed []string) error
	// Repositories lists an installation's repositories, sorted.
	Repositories(ctx context.Context, id int64) ([]string, error)

	// SetPaused pauses or resumes reviews of one pull request (repo is "owner/name").
	SetPaused(ctx context.Context, repo string, number int, paused bool) error
	// Paused says whether reviews of a pull request are paused.
	Paused(ctx context.Context, repo string, number int) (bool, error)

	// StartRun records a run that begins now and returns its id.
	StartRun(ctx context.Context, r Run) (int64, error)
	// FinishRun records how a run ended, with its findings and ledger rows, and its totals.
	FinishRun(ctx context.Context, id int64, res Result) error
	// AbandonRuns ends the runs of a queue job that are still "running" but for the run
	// keep: a worker that died mid-job (killed, its machine lost) left them so. They become
	// failed with reason. It returns how many it ended.
	AbandonRuns(ctx context.Context, jobID, keep int64, reason string) (int, error)
	// Runs lists runs, newest first.
	Runs(ctx context.Context, f RunFilter) ([]Run, error)
	// Findings lists a run's findings in the order they were recorded.
	Findings(ctx context.Context, runID int64) ([]Finding, error)
	// Ledger lists a run's ledger rows in the order they were recorded.
	Ledger(ctx context.Context, runID int64) ([]LedgerRow, error)
	// Spend is what an installation's runs cost (USD) from since on.
	Spend(ctx context.Context, installation int64, since time.Time) (float64, error)

	// AddWorker records a process that runs jobs, with its first heartbeat (replacing a
	// record of the same id).
	AddWorker(ctx context.Context, w Worker) error
	// Heartbeat records that a worker is alive at at (zero: now, by the database's clock). It
	// returns false when the store does not know the worker: RescueJobs took it for dead.
	Heartbeat(ctx context.Context, id string, at time.Time) (bool, error)
	// RemoveWorker forgets a worker that stopped cleanly.
	RemoveWorker(ctx context.Context, id string) error
	// Workers lists the workers the store knows, by id.
	Workers(ctx context.Context) ([]Worker, error)
	// RescueJobs takes for dead every worker whose last heartbeat is older than p.DeadAfter:
	// it puts back in the queue, to run again at once, the jobs such a worker was running (the
	// queue's own record of who runs a job: the last of its attempted_by), discards those that
	// used their every attempt, and forgets the worker. A job's errors say why. It does nothing
	// unless p.Leader, when set, is the queue's elected leader, so that one process rescues at
	// a time. It returns the dead workers with what became of their jobs.
	RescueJobs(ctx context.Context, p RescueParams) ([]DeadWorker, error)

	// Ping says whether the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// Delivery is one webhook delivery.
type Delivery struct {
	ID       string // X-GitHub-Delivery
	Event    string // X-GitHub-Event
	Received time.Time
}

// QueuedJob is a job waiting in the queue.
type QueuedJob struct {
	ID   int64
	Kind string
	Args []byte // JSON
}

// Installation is one installation of the GitHub App.
type Installation struct {
	ID        int64
	Account   string // the user or organisation it is installed on
	Suspended bool
	Settings  Settings
}

// Settings are an installation's own settings.
type Settings struct {
	// MonthlyBudgetUSD stops reviews for the rest of the calendar month (UTC) once the
	// installation's runs cost this much; 0 means the server's default.
	MonthlyBudgetUSD float64 `json:"monthly_budget_usd,omitempty"`
	// ReviewDrafts reviews draft pull requests too.
	ReviewDrafts bool `json:"review_drafts,omitempty"`
}

// Run statuses.
const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded" // reviewed (and posted)
	StatusSkipped   = "skipped"   // nothing to do: already reviewed, paused, over budget, a draft
	StatusFailed    = "failed"    // an error; the job may run again
)

// Run is one review job's attempt.
type Run struct {
	ID           int64
	Installation int64
	Repo         string // owner/name
	Number       int
	Head         string // the head commit reviewed ("" until known)
	Trigger      string // "opened", "synchronize", "/council review", ...
	Delivery     string // the webhook delivery that caused it, "" for none
	JobID        int64  // the queue's job id
	Attempt      int
	Status       string
	Started      time.Time
	Finished     time.Time // zero while running
	// Totals, set by FinishRun.
	Findings     int
	Posted       int // reviews posted this run
	InputTokens  int64
	OutputTokens int64
	CostUSD      float64
	Error        string // why it failed or was skipped
}

// Result is how a run ended.
type Result struct {
	Status   string
	Head     string
	Posted   int
	Error    string
	Findings []Finding
	Ledger   []LedgerRow
	Finished time.Time
}

// Finding is one finding of a run, as the report has it.
type Finding struct {
	Fingerprint string // finding.Finding.ID: stable across runs of the same problem
	Reviewer    string
	Status      string // reported, other_note, minor, filtered
	Severity    string
	Category    string
	Path        string
	Line        int
	Title       string
}

// LedgerRow is what one reviewer (or the validator, the overview, the cache warm-up) used.
type LedgerRow struct {
	Reviewer         string
	Model            string
	Requests         int
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	CostUSD          float64
	Seconds          float64
}

// Worker is a process that runs jobs, as its heartbeats record it.
type Worker struct {
	ID        string // the job queue client's id, as River records it in a job's attempted_by
	Host      string
	PID       int
	Started   time.Time // zero: now
	Heartbeat time.Time // the last one; zero: now, by the database's clock
}

// RescueParams say whose jobs RescueJobs puts back.
type RescueParams struct {
	// Leader is the job queue client that must be the queue's elected leader (River's
	// river_leader) for RescueJobs to act; "" acts whoever leads.
	Leader string
	// DeadAfter is how old a worker's last heartbeat is when it is taken for dead.
	DeadAfter time.Duration
	// Now is the time heartbeats are measured against and jobs put back at; zero: now, by
	// the database's clock.
	Now time.Time
}

// DeadWorker is a worker RescueJobs took for dead, and what became of the jobs it was running.
type DeadWorker struct {
	Worker
	Requeued  []int64 // back in the queue, to run again at once
	Discarded []int64 // their every attempt used
}

// RunFilter narrows Runs. Zero fields do not filter.
type RunFilter struct {
	Repo         string // owner/name, case-insensitive
	Number       int
	Installation int64
	Status       string
	Limit        int // 50 when 0
}

// ErrUnknownURL is returned by Open for a database URL it cannot use.
var ErrUnknownURL = errors.New("unknown database URL")
