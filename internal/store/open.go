package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open database: the Store on it and the handle the job queue shares.
type DB struct {
	Store               // the implementation for this database
	Kind  string        // "sqlite" or "postgres"
	SQL   *sql.DB       // set for SQLite
	Pool  *pgxpool.Pool // set for Postgres
}

// Database kinds.
const (
	KindSQLite   = "sqlite"
	KindPostgres = "postgres"
)

const acceptedURLs = "sqlite://./council.db, sqlite:///abs/path/council.db, postgres://user:password@host:5432/db"

// Open opens the database at url and brings its schema up to date: council's own tables
// first, then the job queue's (River's). It is safe for several processes to open one
// Postgres database at once.
func Open(ctx context.Context, url string) (*DB, error) {
	switch {
	case strings.HasPrefix(url, "sqlite://"):
		return openSQLite(ctx, strings.TrimPrefix(url, "sqlite://"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url)
	}
	return nil, fmt.Errorf("open database %s: %w (use one of %s)", redact(url), ErrUnknownURL, acceptedURLs)
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	// The path goes into a file: URI, where '?' and '#' would start the query.
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database sqlite://%s: %w: want a file path without '?' or '#' (use one of %s)",
			path, ErrUnknownURL, acceptedURLs)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("open database sqlite://%s: %w", path, err)
	}
	// busy_timeout: wait for another connection's write instead of failing at once.
	// WAL: readers do not block the writer. _txlock=immediate: a transaction takes the write
	// lock when it begins, so two processes cannot both read and then fail to upgrade.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database sqlite://%s: %w", path, err)
	}
	// One connection, as River's SQLite driver recommends: SQLite allows one writer anyway,
	// and more connections only turn waiting into SQLITE_BUSY errors.
	db.SetMaxOpenConns(1)
	if err := migrateSQLite(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open database sqlite://%s: %w", path, err)
	}
	return &DB{Store: &sqliteStore{db: db}, Kind: KindSQLite, SQL: db}, nil
}

func openPostgres(ctx context.Context, url string) (*DB, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		// pgx redacts the password in its own errors.
		return nil, fmt.Errorf("open database %s: %w", redact(url), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s: %w", redact(url), err)
	}
	if err := migratePostgres(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s: %w", redact(url), err)
	}
	return &DB{Store: &postgresStore{pool: pool}, Kind: KindPostgres, Pool: pool}, nil
}

// redact returns a database URL fit for an error message: without its password, or a
// placeholder when it cannot be parsed (and so cannot be trusted to hide one).
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
