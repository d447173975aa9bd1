#!/usr/bin/env bash
# Builds the demo repository in DIR (default: "inventory" in a new temporary directory) and
# prints its path. Commits use fixed names and dates, so the SHAs, and with them the recorded
# requests, are the same on every machine (the prompt names the repository by its directory's
# name, so keep it "inventory" to replay the recording). Tags: v1 (base) and v2 (head).
set -euo pipefail
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/council-demo.XXXXXX")/inventory}
mkdir -p "$dir"
cd "$dir"
export GIT_AUTHOR_NAME="Demo Author" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo Author" GIT_COMMITTER_EMAIL="demo@example.com"
export GIT_AUTHOR_DATE="2026-01-01T12:00:00Z" GIT_COMMITTER_DATE="2026-01-01T12:00:00Z"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q -b main .

cat > go.mod <<'GO'
module example.com/inventory

go 1.22
GO
cat > store.go <<'GO'
// Package inventory keeps stock counts for a small shop.
package inventory

import (
	"errors"
	"sync"
)

// ErrUnknownItem is returned for an item the store has never seen.
var ErrUnknownItem = errors.New("unknown item")

// Store holds stock counts. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	stock map[string]int
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{stock: map[string]int{}}
}

// Put sets the stock count of an item.
func (s *Store) Put(id string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stock[id] = n
}

// Get returns the stock count of an item.
func (s *Store) Get(id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.stock[id]
	if !ok {
		return 0, ErrUnknownItem
	}
	return n, nil
}
GO
cat > handler.go <<'GO'
package inventory

import (
	"fmt"
	"net/http"
)

// Handler serves stock counts over HTTP.
type Handler struct {
	Store *Store
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	n, err := h.Store.Get(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	fmt.Fprintf(w, "%d\n", n)
}
GO
cat > store_test.go <<'GO'
package inventory

import "testing"

func TestPutGet(t *testing.T) {
	s := NewStore()
	s.Put("apple", 3)
	if n, err := s.Get("apple"); err != nil || n != 3 {
		t.Fatalf("Get(apple) = %d, %v; want 3, nil", n, err)
	}
}
GO
git add -A
git commit -q -m "Inventory store with an HTTP handler"
git tag v1

cat > store.go <<'GO'
// Package inventory keeps stock counts for a small shop.
package inventory

import (
	"errors"
	"sync"
)

// ErrUnknownItem is returned for an item the store has never seen.
var ErrUnknownItem = errors.New("unknown item")

// ErrOutOfStock is returned when a reservation asks for more than is in stock.
var ErrOutOfStock = errors.New("out of stock")

// Store holds stock counts. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	stock map[string]int
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{stock: map[string]int{}}
}

// Put sets the stock count of an item.
func (s *Store) Put(id string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stock[id] = n
}

// Get returns the stock count of an item.
func (s *Store) Get(id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.stock[id]
	if !ok {
		return 0, ErrUnknownItem
	}
	return n, nil
}

// Reserve takes n items out of stock.
func (s *Store) Reserve(id string, n int) error {
	have, err := s.Get(id)
	if err != nil {
		return err
	}
	if have < n {
		return ErrOutOfStock
	}
	s.mu.Lock()
	s.stock[id] = have - n
	s.mu.Unlock()
	return nil
}
GO
cat > handler.go <<'GO'
package inventory

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// Handler serves stock counts over HTTP.
type Handler struct {
	Store     *Store
	ExportDir string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/reserve":
		h.reserve(w, r)
	case "/export":
		h.export(w, r)
	default:
		h.get(w, r)
	}
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	n, err := h.Store.Get(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	fmt.Fprintf(w, "%d\n", n)
}

func (h *Handler) reserve(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	if err := h.Store.Reserve(r.URL.Query().Get("id"), n); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// export serves a previously written stock report.
func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	data, err := os.ReadFile(filepath.Join(h.ExportDir, r.URL.Query().Get("name")))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Write(data)
}
GO
printf 'example.com/nothing v0.0.0 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n' > go.sum
git add -A
git commit -q -m "Reserve stock and export reports over HTTP" -m "Adds Store.Reserve and two endpoints: /reserve and /export."
git tag v2
echo "$dir"
