package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresStore is the Store on Postgres.
type postgresStore struct {
	pool *pgxpool.Pool
}

var _ Store = (*postgresStore)(nil)

func (s *postgresStore) RecordDelivery(ctx context.Context, d Delivery) (bool, error) {
	if d.ID == "" {
		return false, errors.New("record delivery: empty id")
	}
	// ON CONFLICT DO NOTHING makes the check and the insert one statement, so two processes
	// racing on one delivery cannot both see it as new.
	tag, err := s.pool.Exec(ctx, `INSERT INTO deliveries (id, event, received) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO NOTHING`, d.ID, d.Event, orNow(d.Received))
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", d.ID, err)
	}
	return tag.RowsAffected() == 1, nil
}

func (s *postgresStore) ForgetDelivery(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM deliveries WHERE id = $1`, id); err != nil {
		return fmt.Errorf("forget delivery %s: %w", id, err)
	}
	return nil
}

func (s *postgresStore) JobCounts(ctx context.Context) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT state::text, count(*) FROM river_job GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		out[state] = n
	}
	return out, rows.Err()
}

func (s *postgresStore) NextJobs(ctx context.Context, queue string, limit int) ([]QueuedJob, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, args FROM river_job
		WHERE state = 'available' AND queue = $1 AND scheduled_at <= now()
		ORDER BY priority, scheduled_at, id LIMIT $2`, queue, limit)
	if err != nil {
		return nil, fmt.Errorf("list the next jobs of queue %s: %w", queue, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueuedJob, error) {
		var j QueuedJob
		err := row.Scan(&j.ID, &j.Kind, &j.Args)
		return j, err
	})
	if err != nil {
		return nil, fmt.Errorf("list the next jobs of queue %s: %w", queue, err)
	}
	return out, nil
}

func (s *postgresStore) MoveBack(ctx context.Context, ids []int64) error {
	// SKIP LOCKED: a job another worker is taking right now is not waiting any more.
	if _, err := s.pool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() WHERE id IN (
		SELECT id FROM river_job WHERE id = ANY($1) AND state = 'available' FOR UPDATE SKIP LOCKED)`, ids); err != nil {
		return fmt.Errorf("move jobs to the back of the queue: %w", err)
	}
	return nil
}

func (s *postgresStore) UpsertInstallation(ctx context.Context, in Installation) error {
	settings, err := encodeSettings(in.Settings)
	if err != nil {
		return fmt.Errorf("upsert installation %d: %w", in.ID, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO installations (id, account, suspended, settings, created, updated)
		VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (id) DO UPDATE SET account = excluded.account, suspended = excluded.suspended, updated = excluded.updated`,
		in.ID, in.Account, in.Suspended, settings, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("upsert installation %d: %w", in.ID, err)
	}
	return nil
}

func (s *postgresStore) DeleteInstallation(ctx context.Context, id int64) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM installation_repositories WHERE installation_id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM installations WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete installation %d: %w", id, err)
	}
	return nil
}

func (s *postgresStore) Installation(ctx context.Context, id int64) (Installation, bool, error) {
	in := Installation{ID: id}
	var settings string
	err := s.pool.QueryRow(ctx, `SELECT account, suspended, settings FROM installations WHERE id = $1`, id).
		Scan(&in.Account, &in.Suspended, &settings)
	if errors.Is(err, pgx.ErrNoRows) {
		return Installation{}, false, nil
	}
	if err != nil {
		return Installation{}, false, fmt.Errorf("read installation %d: %w", id, err)
	}
	if in.Settings, err = decodeSettings(settings); err != nil {
		return Installation{}, false, fmt.Errorf("read installation %d: %w", id, err)
	}
	return in, true, nil
}

func (s *postgresStore) Installations(ctx context.Context) ([]Installation, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, account, suspended, settings FROM installations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list installations: %w", err)
	}
	defer rows.Close()
	var out []Installation
	for rows.Next() {
		var in Installation
		var settings string
		if err := rows.Scan(&in.ID, &in.Account, &in.Suspended, &settings); err != nil {
			return nil, fmt.Errorf("list installations: %w", err)
		}
		if in.Settings, err = decodeSettings(settings); err != nil {
			return nil, fmt.Errorf("list installations: installation %d: %w", in.ID, err)
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

func (s *postgresStore) SetSettings(ctx context.Context, id int64, set Settings) error {
	settings, err := encodeSettings(set)
	if err != nil {
		return fmt.Errorf("set settings of installation %d: %w", id, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO installations (id, settings, created, updated) VALUES ($1, $2, $3, $3)
		ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated = excluded.updated`,
		id, settings, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("set settings of installation %d: %w", id, err)
	}
	return nil
}

func (s *postgresStore) SetRepositories(ctx context.Context, id int64, added, removed []string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, repo := range added {
			if _, err := tx.Exec(ctx, `INSERT INTO installation_repositories (installation_id, repo_key, repo)
				VALUES ($1, $2, $3) ON CONFLICT (installation_id, repo_key) DO UPDATE SET repo = excluded.repo`,
				id, repoKey(repo), repo); err != nil {
				return err
			}
		}
		for _, repo := range removed {
			if _, err := tx.Exec(ctx, `DELETE FROM installation_repositories WHERE installation_id = $1 AND repo_key = $2`,
				id, repoKey(repo)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set repositories of installation %d: %w", id, err)
	}
	return nil
}

func (s *postgresStore) Repositories(ctx context.Context, id int64) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT repo FROM installation_repositories WHERE installation_id = $1 ORDER BY repo_key`, id)
	if err != nil {
		return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
	}
	repos, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
	}
	return repos, nil
}

func (s *postgresStore) SetPaused(ctx context.Context, repo string, number int, paused bool) error {
	q := `DELETE FROM paused_pulls WHERE repo_key = $1 AND number = $2`
	if paused {
		q = `INSERT INTO paused_pulls (repo_key, number) VALUES ($1, $2) ON CONFLICT DO NOTHING`
	}
	if _, err := s.pool.Exec(ctx, q, repoKey(repo), number); err != nil {
		return fmt.Errorf("set paused of %s#%d: %w", repo, number, err)
	}
	return nil
}

func (s *postgresStore) Paused(ctx context.Context, repo string, number int) (bool, error) {
	var paused bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM paused_pulls WHERE repo_key = $1 AND number = $2)`,
		repoKey(repo), number).Scan(&paused)
	if err != nil {
		return false, fmt.Errorf("read paused of %s#%d: %w", repo, number, err)
	}
	return paused, nil
}

func (s *postgresStore) StartRun(ctx context.Context, r Run) (int64, error) {
	status := r.Status
	if status == "" {
		status = StatusRunning
	}
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO runs (installation_id, repo, repo_key, number, head, trigger_name,
		delivery_id, job_id, attempt, status, started) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		RETURNING id`,
		r.Installation, r.Repo, repoKey(r.Repo), r.Number, r.Head, r.Trigger, r.Delivery, r.JobID, r.Attempt,
		status, orNow(r.Started)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("start run of %s#%d: %w", r.Repo, r.Number, err)
	}
	return id, nil
}

func (s *postgresStore) AbandonRuns(ctx context.Context, jobID, keep int64, reason string) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE runs SET status = $1, error = $2, finished = $3
		WHERE job_id = $4 AND status = $5 AND id <> $6`,
		StatusFailed, reason, time.Now().UTC(), jobID, StatusRunning, keep)
	if err != nil {
		return 0, fmt.Errorf("abandon the runs of job %d: %w", jobID, err)
	}
	return int(tag.RowsAffected()), nil
}

func (s *postgresStore) FinishRun(ctx context.Context, id int64, res Result) error {
	if res.Status == "" {
		return fmt.Errorf("finish run %d: empty status", id)
	}
	in, out, cost := totals(res.Ledger)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE runs SET status = $1, head = CASE WHEN $2 = '' THEN head ELSE $2 END,
			posted = $3, error = $4, finished = $5, findings = $6, input_tokens = $7, output_tokens = $8, cost_usd = $9
			WHERE id = $10`,
			res.Status, res.Head, res.Posted, res.Error, orNow(res.Finished), len(res.Findings), in, out, cost, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errors.New("no such run")
		}
		// Replace rather than add, so that finishing a run twice does not double its rows.
		if _, err := tx.Exec(ctx, `DELETE FROM findings WHERE run_id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM ledger WHERE run_id = $1`, id); err != nil {
			return err
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"findings"},
			[]string{"run_id", "seq", "fingerprint", "reviewer", "status", "severity", "category", "path", "line", "title"},
			pgx.CopyFromSlice(len(res.Findings), func(i int) ([]any, error) {
				f := res.Findings[i]
				return []any{id, i, f.Fingerprint, f.Reviewer, f.Status, f.Severity, f.Category, f.Path, f.Line, f.Title}, nil
			}))
		if err != nil {
			return err
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"ledger"},
			[]string{"run_id", "seq", "reviewer", "model", "requests", "input_tokens", "output_tokens",
				"cache_read_tokens", "cache_write_tokens", "cost_usd", "seconds"},
			pgx.CopyFromSlice(len(res.Ledger), func(i int) ([]any, error) {
				l := res.Ledger[i]
				return []any{id, i, l.Reviewer, l.Model, l.Requests, l.InputTokens, l.OutputTokens,
					l.CacheReadTokens, l.CacheWriteTokens, l.CostUSD, l.Seconds}, nil
			}))
		return err
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	return nil
}

func (s *postgresStore) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		where = append(where, cond+" = $"+strconv.Itoa(len(args)))
	}
	if f.Repo != "" {
		add("repo_key", repoKey(f.Repo))
	}
	if f.Number != 0 {
		add("number", f.Number)
	}
	if f.Installation != 0 {
		add("installation_id", f.Installation)
	}
	if f.Status != "" {
		add("status", f.Status)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultRunLimit
	}
	args = append(args, limit)
	q += ` ORDER BY started DESC, id DESC LIMIT $` + strconv.Itoa(len(args))

	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	runs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Run, error) {
		var r Run
		var finished *time.Time
		err := row.Scan(&r.ID, &r.Installation, &r.Repo, &r.Number, &r.Head, &r.Trigger, &r.Delivery, &r.JobID,
			&r.Attempt, &r.Status, &r.Started, &finished, &r.Findings, &r.Posted, &r.InputTokens, &r.OutputTokens,
			&r.CostUSD, &r.Error)
		r.Started = r.Started.UTC()
		if finished != nil {
			r.Finished = finished.UTC()
		}
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}

func (s *postgresStore) Findings(ctx context.Context, runID int64) ([]Finding, error) {
	rows, err := s.pool.Query(ctx, `SELECT fingerprint, reviewer, status, severity, category, path, line, title
		FROM findings WHERE run_id = $1 ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list findings of run %d: %w", runID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Finding, error) {
		var f Finding
		err := row.Scan(&f.Fingerprint, &f.Reviewer, &f.Status, &f.Severity, &f.Category, &f.Path, &f.Line, &f.Title)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("list findings of run %d: %w", runID, err)
	}
	return out, nil
}

func (s *postgresStore) Ledger(ctx context.Context, runID int64) ([]LedgerRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT reviewer, model, requests, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, cost_usd, seconds FROM ledger WHERE run_id = $1 ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list ledger of run %d: %w", runID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LedgerRow, error) {
		var l LedgerRow
		err := row.Scan(&l.Reviewer, &l.Model, &l.Requests, &l.InputTokens, &l.OutputTokens, &l.CacheReadTokens,
			&l.CacheWriteTokens, &l.CostUSD, &l.Seconds)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("list ledger of run %d: %w", runID, err)
	}
	return out, nil
}

func (s *postgresStore) Spend(ctx context.Context, installation int64, since time.Time) (float64, error) {
	var spend float64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(cost_usd), 0) FROM runs WHERE installation_id = $1 AND started >= $2`,
		installation, since).Scan(&spend)
	if err != nil {
		return 0, fmt.Errorf("sum spend of installation %d: %w", installation, err)
	}
	return spend, nil
}

func (s *postgresStore) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

func (s *postgresStore) Close() error {
	s.pool.Close()
	return nil
}

func (s *postgresStore) AddWorker(ctx context.Context, w Worker) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO workers (id, host, pid, started, heartbeat)
		VALUES ($1, $2, $3, coalesce($4, now()), coalesce($5, now()))
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, started = excluded.started,
			heartbeat = excluded.heartbeat`,
		w.ID, w.Host, w.PID, pgTime(w.Started), pgTime(w.Heartbeat))
	if err != nil {
		return fmt.Errorf("add worker %s: %w", w.ID, err)
	}
	return nil
}

func (s *postgresStore) Heartbeat(ctx context.Context, id string, at time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE workers SET heartbeat = coalesce($2, now()) WHERE id = $1`, id, pgTime(at))
	if err != nil {
		return false, fmt.Errorf("record the heartbeat of worker %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

func (s *postgresStore) RemoveWorker(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM workers WHERE id = $1`, id); err != nil {
		return fmt.Errorf("remove worker %s: %w", id, err)
	}
	return nil
}

func (s *postgresStore) Workers(ctx context.Context) ([]Worker, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, host, pid, started, heartbeat FROM workers ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanPgWorker)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	return out, nil
}

func scanPgWorker(row pgx.CollectableRow) (Worker, error) {
	var w Worker
	err := row.Scan(&w.ID, &w.Host, &w.PID, &w.Started, &w.Heartbeat)
	w.Started, w.Heartbeat = w.Started.UTC(), w.Heartbeat.UTC()
	return w, err
}

func (s *postgresStore) RescueJobs(ctx context.Context, p RescueParams) ([]DeadWorker, error) {
	var out []DeadWorker
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		out = nil // a retried transaction starts over
		var now time.Time
		var leads bool
		// River's elector keeps expires_at by the database's clock, whatever p.Now says.
		if err := tx.QueryRow(ctx, `SELECT coalesce($1, now()),
			$2 = '' OR EXISTS (SELECT 1 FROM river_leader WHERE leader_id = $2 AND expires_at > now())`,
			pgTime(p.Now), p.Leader).Scan(&now, &leads); err != nil {
			return err
		}
		if !leads {
			return nil
		}
		// SKIP LOCKED: a worker whose heartbeat is being recorded right now is not dead.
		rows, err := tx.Query(ctx, `SELECT id, host, pid, started, heartbeat FROM workers
			WHERE heartbeat < $1 ORDER BY id FOR UPDATE SKIP LOCKED`, now.Add(-p.DeadAfter))
		if err != nil {
			return err
		}
		dead, err := pgx.CollectRows(rows, scanPgWorker)
		if err != nil {
			return err
		}
		for _, w := range dead {
			// As River's own rescuer does it (an attempt error, river:rescue_count), but at
			// once rather than after a backoff: the job did not fail, its worker died.
			rows, err := tx.Query(ctx, `UPDATE river_job SET
					state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'available' END::river_job_state,
					scheduled_at = CASE WHEN attempt >= max_attempts THEN scheduled_at ELSE $2 END,
					finalized_at = CASE WHEN attempt >= max_attempts THEN $2 END,
					errors = array_append(errors, jsonb_build_object('at', $2::timestamptz, 'attempt', attempt, 'error', $3::text, 'trace', '')),
					metadata = metadata || jsonb_build_object('river:rescue_count', coalesce(
						CASE WHEN jsonb_typeof(metadata -> 'river:rescue_count') = 'number' THEN (metadata ->> 'river:rescue_count')::int END, 0) + 1)
				WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] = $1
				RETURNING id, state = 'discarded'`, w.ID, now, rescueReason(w))
			if err != nil {
				return err
			}
			d := DeadWorker{Worker: w}
			var id int64
			var discarded bool
			if _, err := pgx.ForEachRow(rows, []any{&id, &discarded}, func() error {
				d.add(id, discarded)
				return nil
			}); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM workers WHERE id = $1`, w.ID); err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rescue the jobs of dead workers: %w", err)
	}
	return out, nil
}

// pgTime is t for a query, or NULL when it is zero (the query then uses now()).
func pgTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
