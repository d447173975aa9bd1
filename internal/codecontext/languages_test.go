package codecontext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Fixtures of the other languages: each change edits a function and calls a helper defined
// in another file. They are parsed with tree-sitter in a cgo build and with the heuristic
// without cgo; on code this plain, both find the same declarations.
const (
	poolBase = `#include "pool.h"

/* pool_take takes a connection out of the pool. */
static struct conn *pool_take(struct pool *p)
{
	struct conn *c;

	pthread_mutex_lock(&p->lock);
	c = p->free;
	if (c != NULL)
		p->free = c->next;
	pthread_mutex_unlock(&p->lock);
	return c;
}
`
	poolHead = `#include "pool.h"

/* pool_take takes a connection out of the pool. */
static struct conn *pool_take(struct pool *p)
{
	struct conn *c;

	pthread_mutex_lock(&p->lock);
	c = p->free;
	if (c == NULL) {
		pool_unlock(p);
		return NULL;
	}
	p->free = c->next;
	pthread_mutex_unlock(&p->lock);
	return c;
}
`
	lockC = `#include "pool.h"

/* pool_unlock releases p->lock. */
void pool_unlock(struct pool *p)
{
	pthread_mutex_unlock(&p->lock);
}
`
	storePyBase = `import threading


class Store:
    """Reservations, guarded by a lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reserved = {}

    @locked
    def reserve(self, key, n):
        """Reserve n units of key.

Returns whether it did."""
        if not key:
            raise ValueError("no key")
        self._lock.acquire()
        self._reserved[key] = self._reserved.get(key, 0) + n
        self._lock.release()
        return True

    def reserved(self, key):
        return self._reserved.get(key, 0)
`
	storePyHead = `import threading


class Store:
    """Reservations, guarded by a lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reserved = {}

    @locked
    def reserve(self, key, n):
        """Reserve n units of key.

Returns whether it did."""
        if not key:
            raise ValueError("no key")
        self._lock.acquire()
        if n <= 0:
            release_lock(self)
            return False
        self._reserved[key] = self._reserved.get(key, 0) + n
        self._lock.release()
        return True

    def reserved(self, key):
        return self._reserved.get(key, 0)
`
	locksPy = `import threading


def release_lock(store):
    """Release the store's lock."""
    store._lock.release()
`
	cartBase = `import { Item, lineTotal } from "./item";

// total is what the items cost after the discount.
export function total(items: Item[], discount: number): number {
  let sum = 0;
  for (const it of items) {
    sum += it.price * it.qty;
  }
  const cut = sum * discount;
  return sum - cut;
}
`
	cartHead = `import { Item, lineTotal } from "./item";

// total is what the items cost after the discount.
export function total(items: Item[], discount: number): number {
  let sum = 0;
  for (const it of items) {
    sum += lineTotal(it);
  }
  const cut = sum * discount;
  return sum - cut;
}
`
	itemTS = `export interface Item {
  price: number;
  qty: number;
}

// lineTotal is the cost of one line of a cart.
export const lineTotal = (it: Item): number => {
  return it.price * it.qty;
};
`
	storeRsBase = `use std::collections::HashMap;

pub struct Store {
    reserved: HashMap<String, u32>,
}

impl Store {
    /// Reserves n units of key.
    pub fn reserve<'a>(&mut self, key: &'a str, n: u32) -> bool {
        if key.is_empty() {
            return false;
        }
        let e = self.reserved.entry(key.to_string()).or_insert(0);
        *e += n;
        true
    }
}
`
	storeRsHead = `use std::collections::HashMap;

pub struct Store {
    reserved: HashMap<String, u32>,
}

impl Store {
    /// Reserves n units of key.
    pub fn reserve<'a>(&mut self, key: &'a str, n: u32) -> bool {
        if key.is_empty() {
            return false;
        }
        let e = self.reserved.entry(key.to_string()).or_insert(0);
        *e = checked_add(*e, n);
        true
    }
}
`
	mathRs = `/// Adds without overflowing.
#[inline]
pub fn checked_add(a: u32, b: u32) -> u32 {
    a.saturating_add(b)
}
`
	storeJavaBase = `package shop;

import java.util.HashMap;
import java.util.Map;

/** Reservations. */
public class Store {
    private final Map<String, Integer> reserved = new HashMap<>();

    /** Reserves n units of key. */
    @Override
    public synchronized boolean reserve(String key, int n) {
        int have = reserved.getOrDefault(key, 0);
        reserved.put(key, have + n);
        return true;
    }
}
`
	storeJavaHead = `package shop;

import java.util.HashMap;
import java.util.Map;

/** Reservations. */
public class Store {
    private final Map<String, Integer> reserved = new HashMap<>();

    /** Reserves n units of key. */
    @Override
    public synchronized boolean reserve(String key, int n) {
        int have = reserved.getOrDefault(key, 0);
        reserved.put(key, Limits.clamp(have + n));
        return true;
    }
}
`
	limitsJava = `package shop;

final class Limits {
    static int clamp(int n) {
        return Math.min(n, 1000);
    }
}
`
)

func TestBuildLanguages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		base    map[string]string
		changes map[string]string
		want    []Snippet
	}{
		{
			name:    "C function",
			base:    map[string]string{"src/pool.c": poolBase, "src/lock.c": lockC},
			changes: map[string]string{"src/pool.c": poolHead},
			want: []Snippet{
				{
					Path: "src/pool.c", Side: SideHead, StartLine: 3, EndLine: 17, Kind: KindEnclosing,
					Symbol: "function pool_take", Reason: "encloses hunk @@ -7,8 +7,11 @@",
					Text: lines(poolHead, 3, 17),
				},
				{
					Path: "src/lock.c", Side: SideHead, StartLine: 3, EndLine: 7, Kind: KindDefinition,
					Symbol: "function pool_unlock", Reason: "used at src/pool.c:11, not shown in the diff",
					Text: lines(lockC, 3, 7),
				},
			},
		},
		{
			name:    "Python method",
			base:    map[string]string{"app/store.py": storePyBase, "app/locks.py": locksPy},
			changes: map[string]string{"app/store.py": storePyHead},
			want: []Snippet{
				{
					Path: "app/store.py", Side: SideHead, StartLine: 11, EndLine: 24, Kind: KindEnclosing,
					Symbol: "def Store.reserve", Reason: "encloses hunk @@ -16,6 +16,9 @@",
					Text: lines(storePyHead, 11, 24),
				},
				{
					Path: "app/locks.py", Side: SideHead, StartLine: 4, EndLine: 6, Kind: KindDefinition,
					Symbol: "def release_lock", Reason: "used at app/store.py:20, not shown in the diff",
					Text: lines(locksPy, 4, 6),
				},
			},
		},
		{
			name:    "TypeScript function",
			base:    map[string]string{"web/cart.ts": cartBase, "web/item.ts": itemTS},
			changes: map[string]string{"web/cart.ts": cartHead},
			want: []Snippet{
				{
					Path: "web/cart.ts", Side: SideHead, StartLine: 3, EndLine: 11, Kind: KindEnclosing,
					Symbol: "function total", Reason: "encloses hunk @@ -4,7 +4,7 @@",
					Text: lines(cartHead, 3, 11),
				},
				{
					Path: "web/item.ts", Side: SideHead, StartLine: 6, EndLine: 9, Kind: KindDefinition,
					Symbol: "function lineTotal", Reason: "used at web/cart.ts:7, not shown in the diff",
					Text: lines(itemTS, 6, 9),
				},
				{
					Path: "web/item.ts", Side: SideHead, StartLine: 1, EndLine: 4, Kind: KindDefinition,
					Symbol: "interface Item", Reason: "used at web/cart.ts:4 (unchanged), not shown in the diff",
					Text: lines(itemTS, 1, 4),
				},
			},
		},
		{
			name:    "Rust fn",
			base:    map[string]string{"src/store.rs": storeRsBase, "src/math.rs": mathRs},
			changes: map[string]string{"src/store.rs": storeRsHead},
			want: []Snippet{
				{
					Path: "src/store.rs", Side: SideHead, StartLine: 8, EndLine: 16, Kind: KindEnclosing,
					Symbol: "fn Store::reserve", Reason: "encloses hunk @@ -11,7 +11,7 @@",
					Text: lines(storeRsHead, 8, 16),
				},
				{
					Path: "src/math.rs", Side: SideHead, StartLine: 1, EndLine: 5, Kind: KindDefinition,
					Symbol: "fn checked_add", Reason: "used at src/store.rs:14, not shown in the diff",
					Text: lines(mathRs, 1, 5),
				},
			},
		},
		{
			name:    "Java method",
			base:    map[string]string{"src/shop/Store.java": storeJavaBase, "src/shop/Limits.java": limitsJava},
			changes: map[string]string{"src/shop/Store.java": storeJavaHead},
			want: []Snippet{
				{
					Path: "src/shop/Store.java", Side: SideHead, StartLine: 10, EndLine: 16, Kind: KindEnclosing,
					Symbol: "method Store.reserve", Reason: "encloses hunk @@ -11,7 +11,7 @@",
					Text: lines(storeJavaHead, 10, 16),
				},
				{
					Path: "src/shop/Limits.java", Side: SideHead, StartLine: 3, EndLine: 7, Kind: KindDefinition,
					Symbol: "class Limits",
					Reason: "Limits used at src/shop/Store.java:14; clamp used at src/shop/Store.java:14, not shown in the diff",
					Text:   lines(limitsJava, 3, 7),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, files := repo(tt.base, tt.changes)
			got := build(t, src, files, Options{})
			if d := cmp.Diff(Result{Snippets: tt.want}, got); d != "" {
				t.Errorf("Build mismatch (-want +got):\n%s\n%s", d, Render(got))
			}
			if p, n := src.maxReads(); n > 1 {
				t.Errorf("%s read %d times, want once", p, n)
			}
		})
	}
}
