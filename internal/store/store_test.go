package store_test

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/council-dev/council/internal/store"
	"github.com/council-dev/council/internal/store/storetest"
)

// open opens url for one test and closes it when the test ends.
func open(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) *store.DB { return open(t, storetest.SQLiteURL(t)) })
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) *store.DB { return open(t, storetest.PostgresURL(t)) })
}

func TestOpenSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "new", "dir", "council.db")
	db := open(t, url)
	if db.Kind != store.KindSQLite || db.SQL == nil || db.Pool != nil {
		t.Errorf("Open(%s) = Kind %q, SQL %v, Pool %v; want sqlite with SQL only", url, db.Kind, db.SQL != nil, db.Pool != nil)
	}
	// River's tables are there for the queue that shares the database.
	var n int
	if err := db.SQL.QueryRowContext(t.Context(), `SELECT count(*) FROM river_job`).Scan(&n); err != nil {
		t.Errorf("count river_job: %v", err)
	}
	if _, err := db.RecordDelivery(t.Context(), store.Delivery{ID: "kept"}); err != nil {
		t.Fatal(err)
	}

	// Opening it again, also while it is open, applies nothing twice and keeps the data.
	again := open(t, url)
	if fresh, err := again.RecordDelivery(t.Context(), store.Delivery{ID: "kept"}); err != nil || fresh {
		t.Errorf("RecordDelivery of a delivery recorded before reopening = %v, %v; want false, nil", fresh, err)
	}
}

// TestOpenSQLiteRelative is not parallel: it changes the working directory.
func TestOpenSQLiteRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, url := range []string{"sqlite://./council.db", "sqlite://council.db", "sqlite://data/council.db"} {
		db := open(t, url)
		if err := db.Ping(t.Context()); err != nil {
			t.Errorf("Open(%s).Ping: %v", url, err)
		}
	}
}

func TestOpenPostgres(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)

	// Two servers starting at once on a fresh database both migrate it, one after the other.
	var wg sync.WaitGroup
	dbs := make([]*store.DB, 2)
	errs := make([]error, 2)
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = store.Open(t.Context(), url) })
	}
	wg.Wait()
	for i, db := range dbs {
		if errs[i] != nil {
			t.Errorf("concurrent Open %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() { _ = db.Close() })
		if db.Kind != store.KindPostgres || db.Pool == nil || db.SQL != nil {
			t.Errorf("Open = Kind %q, SQL %v, Pool %v; want postgres with Pool only", db.Kind, db.SQL != nil, db.Pool != nil)
		}
		var n int
		if err := db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM river_job`).Scan(&n); err != nil {
			t.Errorf("count river_job: %v", err)
		}
		if err := db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM council_migration`).Scan(&n); err != nil || n == 0 {
			t.Errorf("council migrations = %d, %v; want some", n, err)
		}
	}

	// postgresql:// is the same thing.
	open(t, "postgresql"+strings.TrimPrefix(url, "postgres"))
}

func TestOpenBadURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"",
		"council.db",
		"mysql://root:hunter2@localhost/council",
		"file:council.db",
		"sqlite://",
		"sqlite://what?mode=memory",
	} {
		_, err := store.Open(t.Context(), url)
		if !errors.Is(err, store.ErrUnknownURL) {
			t.Errorf("Open(%q) = %v, want ErrUnknownURL", url, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) error shows the password: %v", url, err)
		}
		if !strings.Contains(err.Error(), "sqlite://") || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("Open(%q) error does not say what it accepts: %v", url, err)
		}
	}
}

func TestOpenPostgresUnreachable(t *testing.T) {
	t.Parallel()
	// Port 1 on loopback refuses at once; the error must still not show the password.
	url := "postgres://council:hunter2@127.0.0.1:1/council?sslmode=disable&connect_timeout=5"
	_, err := store.Open(t.Context(), url)
	if err == nil {
		t.Fatal("Open of an unreachable server: no error")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open error shows the password: %v", err)
	}
}
