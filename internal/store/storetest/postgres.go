// Package storetest is what tests of the store, and of code built on it, share: a behaviour
// suite every Store implementation must pass, and fresh databases to run it on. It never
// touches a database it did not create.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables that say where the Postgres tests run.
const (
	// EnvDatabaseURL is the URL of a Postgres server where the tests may CREATE DATABASE.
	EnvDatabaseURL = "COUNCIL_TEST_DATABASE_URL"
	// EnvRequirePostgres set to 1 makes a missing EnvDatabaseURL a failure rather than a skip,
	// so that CI cannot pass without running the Postgres tests.
	EnvRequirePostgres = "COUNCIL_REQUIRE_POSTGRES"
)

const howToSetURL = EnvDatabaseURL + " is not set; set it to a Postgres server where the tests may create databases, " +
	"e.g. postgres://postgres:secret@127.0.0.1:5432/postgres?sslmode=disable"

// PostgresURL returns the URL of a fresh, empty Postgres database that is dropped when the
// test ends. It skips the test when EnvDatabaseURL is not set, or fails it when
// EnvRequirePostgres is 1.
func PostgresURL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvDatabaseURL)
	if admin == "" {
		if os.Getenv(EnvRequirePostgres) == "1" {
			t.Fatal(howToSetURL + " (" + EnvRequirePostgres + "=1 makes the Postgres tests required)")
		}
		t.Skip(howToSetURL)
	}
	u, err := url.Parse(admin)
	if err != nil {
		// Not err itself: it quotes the URL, password and all.
		t.Fatalf("parse %s: not a URL", EnvDatabaseURL)
	}

	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	name := "council_test_" + hex.EncodeToString(b)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to %s (%s): %v", EnvDatabaseURL, u.Redacted(), err)
	}
	defer func() { _ = conn.Close(ctx) }()
	// The name is ours and made of [a-z0-9_], so it needs no quoting.
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("connect to %s (%s) to drop %s: %v", EnvDatabaseURL, u.Redacted(), name, err)
			return
		}
		defer func() { _ = conn.Close(ctx) }()
		// FORCE: a connection the test left open must not keep the database alive.
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})

	u.Path = "/" + name
	return u.String()
}

// SQLiteURL returns the URL of a fresh SQLite database file under t.TempDir().
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite://" + filepath.Join(t.TempDir(), "council.db")
}
