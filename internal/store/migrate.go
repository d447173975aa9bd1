package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations
var migrationFiles embed.FS

// migration is one embedded SQL file, migrations/<kind>/NNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations reads a database kind's migrations, oldest first.
func migrations(kind string) ([]migration, error) {
	dir := path.Join("migrations", kind)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("read migration %s: want NNN_name.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("read migration %s: version %d is also %s", name, v, other)
		}
		seen[v] = name
		b, err := fs.ReadFile(migrationFiles, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrateSQLite applies council's migrations and then River's. Each council migration runs in
// its own immediate transaction that first checks it is still pending, so a second process
// opening the same file waits for the first and then skips it.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	ms, err := migrations(KindSQLite)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS council_migration (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create migration table: %w", err)
	}
	for _, m := range ms {
		err := sqliteTx(ctx, db, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM council_migration WHERE version = ?`, m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO council_migration (version, name, applied) VALUES (?, ?, ?)`,
				m.version, m.name, time.Now().UnixMicro())
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	migrator, err := rivermigrate.New(riversqlite.New(db), &rivermigrate.Config{Logger: quietLogger()})
	if err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	return nil
}

// migrateLockKey names the advisory lock that lets one process at a time migrate a Postgres
// database ("council" in ASCII).
const migrateLockKey int64 = 0x636f756e63696c

// migratePostgres applies council's migrations and then River's while holding a session
// advisory lock. A session lock rather than a transaction one because River runs each of its
// migrations in a transaction of its own, and a second process starting at the same moment
// must wait for all of them, then find nothing left to do.
func migratePostgres(ctx context.Context, pool *pgxpool.Pool) (err error) {
	ms, err := migrations(KindPostgres)
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("lock for migration: %w", err)
	}
	// Closing the connection, rather than unlocking and returning it to the pool, releases the
	// lock even when ctx is cancelled half way.
	locked := conn.Hijack()
	defer func() {
		if cerr := locked.Close(context.WithoutCancel(ctx)); cerr != nil && err == nil {
			err = fmt.Errorf("unlock after migration: %w", cerr)
		}
	}()
	if _, err := locked.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return fmt.Errorf("lock for migration: %w", err)
	}
	if _, err := locked.Exec(ctx, `CREATE TABLE IF NOT EXISTS council_migration (
		version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL)`); err != nil {
		return fmt.Errorf("create migration table: %w", err)
	}
	for _, m := range ms {
		err := pgx.BeginFunc(ctx, locked, func(tx pgx.Tx) error {
			var pending bool
			if err := tx.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM council_migration WHERE version = $1)`, m.version).Scan(&pending); err != nil {
				return err
			}
			if !pending {
				return nil
			}
			// No arguments: pgx sends it with the simple protocol, which allows several statements.
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO council_migration (version, name, applied) VALUES ($1, $2, now())`, m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: quietLogger()})
	if err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	return nil
}

// sqliteTx runs fn in a transaction, committing when it returns nil.
func sqliteTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // fn's error says what went wrong
		return err
	}
	return tx.Commit()
}

// quietLogger is the process's logger with River's per-migration info lines left out:
// the server logs once that the database is ready, and tests stay readable.
func quietLogger() *slog.Logger {
	return slog.New(minLevel{Handler: slog.Default().Handler(), min: slog.LevelWarn})
}

// minLevel drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}
