package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// sqliteStore is the Store on SQLite. Times are stored as microseconds since the epoch.
type sqliteStore struct {
	db *sql.DB
}

var _ Store = (*sqliteStore)(nil)

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func (s *sqliteStore) RecordDelivery(ctx context.Context, d Delivery) (bool, error) {
	if d.ID == "" {
		return false, errors.New("record delivery: empty id")
	}
	// ON CONFLICT DO NOTHING makes the check and the insert one statement, so two processes
	// racing on one delivery cannot both see it as new.
	res, err := s.db.ExecContext(ctx, `INSERT INTO deliveries (id, event, received) VALUES (?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, d.ID, d.Event, micros(orNow(d.Received)))
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", d.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", d.ID, err)
	}
	return n == 1, nil
}

func (s *sqliteStore) ForgetDelivery(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM deliveries WHERE id = ?`, id); err != nil {
		return fmt.Errorf("forget delivery %s: %w", id, err)
	}
	return nil
}

func (s *sqliteStore) JobCounts(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT state, count(*) FROM river_job GROUP BY state`)
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

func (s *sqliteStore) NextJobs(ctx context.Context, queue string, limit int) ([]QueuedJob, error) {
	// River's SQLite driver compares its text times, in its own format.
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, json(args) FROM river_job
		WHERE state = 'available' AND queue = ? AND scheduled_at <= ? AND priority >= 0
		ORDER BY priority, scheduled_at, id LIMIT ?`, queue, time.Now().UTC().Format(riverSQLiteTime), limit)
	if err != nil {
		return nil, fmt.Errorf("list the next jobs of queue %s: %w", queue, err)
	}
	defer rows.Close()
	var out []QueuedJob
	for rows.Next() {
		var j QueuedJob
		if err := rows.Scan(&j.ID, &j.Kind, &j.Args); err != nil {
			return nil, fmt.Errorf("list the next jobs of queue %s: %w", queue, err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

func (s *sqliteStore) MoveBack(ctx context.Context, ids []int64) error {
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("move jobs to the back of the queue: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `UPDATE river_job SET scheduled_at = ?
		WHERE id IN (SELECT value FROM json_each(?)) AND state = 'available'`,
		time.Now().UTC().Format(riverSQLiteTime), string(list))
	if err != nil {
		return fmt.Errorf("move jobs to the back of the queue: %w", err)
	}
	return nil
}

func (s *sqliteStore) UpsertInstallation(ctx context.Context, in Installation) error {
	settings, err := encodeSettings(in.Settings)
	if err != nil {
		return fmt.Errorf("upsert installation %d: %w", in.ID, err)
	}
	now := micros(time.Now())
	_, err = s.db.ExecContext(ctx, `INSERT INTO installations (id, account, suspended, settings, created, updated)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET account = excluded.account, suspended = excluded.suspended, updated = excluded.updated`,
		in.ID, in.Account, in.Suspended, settings, now, now)
	if err != nil {
		return fmt.Errorf("upsert installation %d: %w", in.ID, err)
	}
	return nil
}

func (s *sqliteStore) DeleteInstallation(ctx context.Context, id int64) error {
	err := sqliteTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM installation_repositories WHERE installation_id = ?`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM installations WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete installation %d: %w", id, err)
	}
	return nil
}

func (s *sqliteStore) Installation(ctx context.Context, id int64) (Installation, bool, error) {
	in := Installation{ID: id}
	var settings string
	err := s.db.QueryRowContext(ctx, `SELECT account, suspended, settings FROM installations WHERE id = ?`, id).
		Scan(&in.Account, &in.Suspended, &settings)
	if errors.Is(err, sql.ErrNoRows) {
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

func (s *sqliteStore) Installations(ctx context.Context) ([]Installation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, account, suspended, settings FROM installations ORDER BY id`)
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

func (s *sqliteStore) SetSettings(ctx context.Context, id int64, set Settings) error {
	settings, err := encodeSettings(set)
	if err != nil {
		return fmt.Errorf("set settings of installation %d: %w", id, err)
	}
	now := micros(time.Now())
	_, err = s.db.ExecContext(ctx, `INSERT INTO installations (id, settings, created, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated = excluded.updated`,
		id, settings, now, now)
	if err != nil {
		return fmt.Errorf("set settings of installation %d: %w", id, err)
	}
	return nil
}

func (s *sqliteStore) SetRepositories(ctx context.Context, id int64, added, removed []string) error {
	err := sqliteTx(ctx, s.db, func(tx *sql.Tx) error {
		for _, repo := range added {
			if _, err := tx.ExecContext(ctx, `INSERT INTO installation_repositories (installation_id, repo_key, repo)
				VALUES (?, ?, ?) ON CONFLICT (installation_id, repo_key) DO UPDATE SET repo = excluded.repo`,
				id, repoKey(repo), repo); err != nil {
				return err
			}
		}
		for _, repo := range removed {
			if _, err := tx.ExecContext(ctx, `DELETE FROM installation_repositories WHERE installation_id = ? AND repo_key = ?`,
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

func (s *sqliteStore) Repositories(ctx context.Context, id int64) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT repo FROM installation_repositories WHERE installation_id = ? ORDER BY repo_key`, id)
	if err != nil {
		return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
	}
	defer rows.Close()
	var repos []string
	for rows.Next() {
		var repo string
		if err := rows.Scan(&repo); err != nil {
			return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
		}
		repos = append(repos, repo)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
	}
	return repos, nil
}

func (s *sqliteStore) SetPaused(ctx context.Context, repo string, number int, paused bool) error {
	q := `DELETE FROM paused_pulls WHERE repo_key = ? AND number = ?`
	if paused {
		q = `INSERT INTO paused_pulls (repo_key, number) VALUES (?, ?) ON CONFLICT DO NOTHING`
	}
	if _, err := s.db.ExecContext(ctx, q, repoKey(repo), number); err != nil {
		return fmt.Errorf("set paused of %s#%d: %w", repo, number, err)
	}
	return nil
}

func (s *sqliteStore) Paused(ctx context.Context, repo string, number int) (bool, error) {
	var paused bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM paused_pulls WHERE repo_key = ? AND number = ?)`,
		repoKey(repo), number).Scan(&paused)
	if err != nil {
		return false, fmt.Errorf("read paused of %s#%d: %w", repo, number, err)
	}
	return paused, nil
}

func (s *sqliteStore) StartRun(ctx context.Context, r Run) (int64, error) {
	status := r.Status
	if status == "" {
		status = StatusRunning
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO runs (installation_id, repo, repo_key, number, head, trigger_name,
		delivery_id, job_id, attempt, status, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Installation, r.Repo, repoKey(r.Repo), r.Number, r.Head, r.Trigger, r.Delivery, r.JobID, r.Attempt,
		status, micros(orNow(r.Started)))
	if err != nil {
		return 0, fmt.Errorf("start run of %s#%d: %w", r.Repo, r.Number, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("start run of %s#%d: %w", r.Repo, r.Number, err)
	}
	return id, nil
}

func (s *sqliteStore) AbandonRuns(ctx context.Context, jobID, keep int64, reason string) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, error = ?, finished = ?
		WHERE job_id = ? AND status = ? AND id <> ?`,
		StatusFailed, reason, micros(time.Now()), jobID, StatusRunning, keep)
	if err != nil {
		return 0, fmt.Errorf("abandon the runs of job %d: %w", jobID, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (s *sqliteStore) FinishRun(ctx context.Context, id int64, res Result) error {
	if res.Status == "" {
		return fmt.Errorf("finish run %d: empty status", id)
	}
	in, out, cost := totals(res.Ledger)
	err := sqliteTx(ctx, s.db, func(tx *sql.Tx) error {
		upd, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, head = CASE WHEN ? = '' THEN head ELSE ? END,
			posted = ?, error = ?, finished = ?, findings = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?
			WHERE id = ?`,
			res.Status, res.Head, res.Head, res.Posted, res.Error, micros(orNow(res.Finished)), len(res.Findings),
			in, out, cost, id)
		if err != nil {
			return err
		}
		if n, err := upd.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errors.New("no such run")
		}
		// Replace rather than add, so that finishing a run twice does not double its rows.
		if _, err := tx.ExecContext(ctx, `DELETE FROM findings WHERE run_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM ledger WHERE run_id = ?`, id); err != nil {
			return err
		}
		for i, f := range res.Findings {
			if _, err := tx.ExecContext(ctx, `INSERT INTO findings (run_id, seq, fingerprint, reviewer, status, severity,
				category, path, line, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, f.Fingerprint, f.Reviewer, f.Status, f.Severity, f.Category, f.Path, f.Line, f.Title); err != nil {
				return err
			}
		}
		for i, l := range res.Ledger {
			if _, err := tx.ExecContext(ctx, `INSERT INTO ledger (run_id, seq, reviewer, model, requests, input_tokens,
				output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, seconds)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, l.Reviewer, l.Model, l.Requests, l.InputTokens, l.OutputTokens, l.CacheReadTokens,
				l.CacheWriteTokens, l.CostUSD, l.Seconds); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	return nil
}

func (s *sqliteStore) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	if f.Repo != "" {
		where, args = append(where, "repo_key = ?"), append(args, repoKey(f.Repo))
	}
	if f.Number != 0 {
		where, args = append(where, "number = ?"), append(args, f.Number)
	}
	if f.Installation != 0 {
		where, args = append(where, "installation_id = ?"), append(args, f.Installation)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultRunLimit
	}
	q += ` ORDER BY started DESC, id DESC LIMIT ?`
	args = append(args, limit)

	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		var r Run
		var started int64
		var finished sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Installation, &r.Repo, &r.Number, &r.Head, &r.Trigger, &r.Delivery, &r.JobID,
			&r.Attempt, &r.Status, &started, &finished, &r.Findings, &r.Posted, &r.InputTokens, &r.OutputTokens,
			&r.CostUSD, &r.Error); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		r.Started = fromMicros(started)
		if finished.Valid {
			r.Finished = fromMicros(finished.Int64)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}

func (s *sqliteStore) Findings(ctx context.Context, runID int64) ([]Finding, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT fingerprint, reviewer, status, severity, category, path, line, title
		FROM findings WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list findings of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Finding
	for rows.Next() {
		var f Finding
		if err := rows.Scan(&f.Fingerprint, &f.Reviewer, &f.Status, &f.Severity, &f.Category, &f.Path, &f.Line, &f.Title); err != nil {
			return nil, fmt.Errorf("list findings of run %d: %w", runID, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list findings of run %d: %w", runID, err)
	}
	return out, nil
}

func (s *sqliteStore) Ledger(ctx context.Context, runID int64) ([]LedgerRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT reviewer, model, requests, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, cost_usd, seconds FROM ledger WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list ledger of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []LedgerRow
	for rows.Next() {
		var l LedgerRow
		if err := rows.Scan(&l.Reviewer, &l.Model, &l.Requests, &l.InputTokens, &l.OutputTokens, &l.CacheReadTokens,
			&l.CacheWriteTokens, &l.CostUSD, &l.Seconds); err != nil {
			return nil, fmt.Errorf("list ledger of run %d: %w", runID, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list ledger of run %d: %w", runID, err)
	}
	return out, nil
}

func (s *sqliteStore) Spend(ctx context.Context, installation int64, since time.Time) (float64, error) {
	var spend float64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(cost_usd), 0) FROM runs WHERE installation_id = ? AND started >= ?`,
		installation, micros(since)).Scan(&spend)
	if err != nil {
		return 0, fmt.Errorf("sum spend of installation %d: %w", installation, err)
	}
	return spend, nil
}

func (s *sqliteStore) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

func (s *sqliteStore) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

func (s *sqliteStore) AddWorker(ctx context.Context, w Worker) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO workers (id, host, pid, started, heartbeat) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, started = excluded.started,
			heartbeat = excluded.heartbeat`,
		w.ID, w.Host, w.PID, micros(orNow(w.Started)), micros(orNow(w.Heartbeat)))
	if err != nil {
		return fmt.Errorf("add worker %s: %w", w.ID, err)
	}
	return nil
}

func (s *sqliteStore) Heartbeat(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE workers SET heartbeat = ? WHERE id = ?`, micros(orNow(at)), id)
	if err != nil {
		return false, fmt.Errorf("record the heartbeat of worker %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record the heartbeat of worker %s: %w", id, err)
	}
	return n == 1, nil
}

func (s *sqliteStore) RemoveWorker(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, id); err != nil {
		return fmt.Errorf("remove worker %s: %w", id, err)
	}
	return nil
}

func (s *sqliteStore) Workers(ctx context.Context) ([]Worker, error) {
	out, err := sqliteWorkers(ctx, s.db, `SELECT id, host, pid, started, heartbeat FROM workers ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	return out, nil
}

// sqliteWorkers runs a query of workers' id, host, pid, started and heartbeat.
func sqliteWorkers(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, query string, args ...any) ([]Worker, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Worker
	for rows.Next() {
		var w Worker
		var started, beat int64
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &started, &beat); err != nil {
			return nil, err
		}
		w.Started, w.Heartbeat = fromMicros(started), fromMicros(beat)
		out = append(out, w)
	}
	return out, rows.Err()
}

// riverSQLiteTime is how River's SQLite driver writes times into its tables (UTC), which its
// queries compare as text.
const riverSQLiteTime = "2006-01-02 15:04:05.000"

func (s *sqliteStore) RescueJobs(ctx context.Context, p RescueParams) ([]DeadWorker, error) {
	now := orNow(p.Now)
	var out []DeadWorker
	err := sqliteTx(ctx, s.db, func(tx *sql.Tx) error {
		if p.Leader != "" {
			var leads bool
			// River's elector keeps expires_at by the database's clock, whatever p.Now says.
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM river_leader
				WHERE leader_id = ? AND unixepoch(expires_at, 'subsec') > unixepoch('now', 'subsec'))`, p.Leader).Scan(&leads); err != nil {
				return err
			}
			if !leads {
				return nil
			}
		}
		dead, err := sqliteWorkers(ctx, tx, `SELECT id, host, pid, started, heartbeat FROM workers
			WHERE heartbeat < ? ORDER BY id`, micros(now.Add(-p.DeadAfter)))
		if err != nil {
			return err
		}
		at := now.Format(riverSQLiteTime)
		for _, w := range dead {
			d := DeadWorker{Worker: w}
			// As River's own rescuer does it (an attempt error, river:rescue_count), but at
			// once rather than after a backoff: the job did not fail, its worker died.
			rows, err := tx.QueryContext(ctx, `UPDATE river_job SET
					state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'available' END,
					scheduled_at = CASE WHEN attempt >= max_attempts THEN scheduled_at ELSE ?1 END,
					finalized_at = CASE WHEN attempt >= max_attempts THEN ?1 END,
					errors = jsonb_insert(coalesce(errors, jsonb('[]')), '$[#]',
						json_object('at', ?2, 'attempt', attempt, 'error', ?3, 'trace', '')),
					metadata = jsonb_set(coalesce(metadata, jsonb('{}')), '$."river:rescue_count"',
						coalesce(json_extract(metadata, '$."river:rescue_count"'), 0) + 1)
				WHERE state = 'running' AND attempted_by ->> '$[#-1]' = ?4
				RETURNING id, state = 'discarded'`, at, now.Format(time.RFC3339Nano), rescueReason(w), w.ID)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				var discarded bool
				if err := rows.Scan(&id, &discarded); err != nil {
					_ = rows.Close() // the scan's error says what went wrong
					return err
				}
				d.add(id, discarded)
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if err := rows.Err(); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, w.ID); err != nil {
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
