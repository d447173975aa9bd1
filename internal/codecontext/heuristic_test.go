package codecontext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The heuristic is what a build without cgo has for every language but Go, and what any
// build has for other languages; it is a plain function, tested here in both builds.
func TestHeuristicOutline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lang language
		src  string
		want []string
		// at maps a line to the symbol of its enclosing declaration ("" for none).
		at map[int]string
	}{
		{
			name: "C: braces in strings and comments, prototypes, GNU style",
			lang: langC,
			src: `#define LOCK(p) \
	pthread_mutex_lock(&(p)->lock)

typedef struct {
	int fd;
} conn_t;

int pool_size(struct pool *p);

/* pool_size counts { connections. */
static int
pool_size(struct pool *p)
{
	const char *s = "}";
	if (p == NULL) {
		return '}';
	}
	return p->n; // }
}
`,
			want: []string{
				"macro LOCK 1-2 (sig 1-1)",
				"struct conn_t 4-6 (sig 4-4)",
				"function pool_size 10-19 (sig 11-13)",
			},
			at: map[int]string{5: "struct conn_t", 8: "", 16: "function pool_size", 19: "function pool_size"},
		},
		{
			name: "JavaScript: arrow functions, classes, callbacks that are not declarations",
			lang: langJS,
			src: `const limit = 10;

export const total = (items) => {
  return items.reduce((s, it) => {
    return s + it.price;
  }, 0);
};

class Cart {
  add(item) {
    if (item) {
      this.items.push(item);
    }
  }
}

describe('cart', () => {
  it('adds', () => {
    new Cart().add({});
  });
});
`,
			want: []string{
				"const limit 1-1 (sig 1-1)",
				"function total 3-7 (sig 3-3)",
				"class Cart 9-15 (sig 9-9)",
				"function Cart.add 10-14 (sig 10-10)",
			},
			at: map[int]string{5: "function total", 12: "function Cart.add", 19: ""},
		},
		{
			name: "Java: annotations and control flow",
			lang: langJava,
			src: `public class Store {
    /** Reserves. */
    @Override
    public synchronized boolean reserve(String key,
                                        int n) throws IOException {
        synchronized (lock) {
            for (int i = 0; i < n; i++) {
                take(key);
            }
        }
        return true;
    }

    Store() {
        this.n = 0;
    }
}
`,
			want: []string{
				"class Store 1-17 (sig 1-1)",
				"method Store.reserve 2-12 (sig 4-5)",
				"method Store.Store 14-16 (sig 14-14)",
			},
			at: map[int]string{8: "method Store.reserve", 13: "class Store", 15: "method Store.Store"},
		},
		{
			name: "Rust: lifetimes, raw strings, attributes, impl blocks",
			lang: langRust,
			src: `const MAX: u32 = 10;

#[derive(Debug)]
pub struct Store<'a> {
    name: &'a str,
}

impl<'a> fmt::Display for Store<'a> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = r#"{ not a block"#;
        write!(f, "{}", self.name)
    }
}
`,
			want: []string{
				"const MAX 1-1 (sig 1-1)",
				"struct Store 3-6 (sig 4-4)",
				"impl fmt::Display for Store<'a> 8-13 (sig 8-8)",
				"fn Store::fmt 9-12 (sig 9-9)",
			},
			at: map[int]string{5: "struct Store", 11: "fn Store::fmt"},
		},
		{
			name: "Go that go/parser rejects",
			lang: langGo,
			src: `package store

type Store struct {
	mu sync.Mutex
}

func (s *Store) Reserve(n int) {
	s.mu.Lock(
}
`,
			want: []string{
				"type Store 3-5 (sig 3-3)",
				"func (*Store) Reserve 7-9 (sig 7-7)",
			},
			at: map[int]string{8: "func (*Store) Reserve"},
		},
		{
			name: "unknown language with C-like functions",
			lang: langUnknown,
			src: `# deploy the service
deploy() {
  if [ -n "$1" ]; then
    echo "{"
  fi
}

fun greet(name: String) {
  println(name)
}
`,
			want: []string{
				"function deploy 1-6 (sig 2-2)",
				"fun greet 8-10 (sig 8-8)",
			},
			at: map[int]string{4: "function deploy", 9: "fun greet", 7: ""},
		},
		{
			name: "Python: the nearest less-indented def or class",
			lang: langPython,
			src: `import os

LIMIT = 10


class Store:
    """Reservations."""

    @locked
    def reserve(self, key,
                n):
        """Reserve n.

Not a block end."""
        total = compute(
    key, n)
# a comment at column 0 does not end the method
        def inner():
            return n
        return inner()

    def reserved(self):
        return 0


def free():
    pass
`,
			want: []string{
				"LIMIT 3-3 (sig 3-3)",
				"class Store 6-23 (sig 6-6)",
				"def Store.reserve 9-20 (sig 10-11)",
				"def inner 17-19 (sig 18-18)",
				"def Store.reserved 22-23 (sig 22-22)",
				"def free 26-27 (sig 26-26)",
			},
			at: map[int]string{14: "def Store.reserve", 16: "def Store.reserve", 19: "def Store.reserve", 21: "class Store", 24: "", 27: "def free"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			decls := heuristicOutline(tt.lang, []byte(tt.src))
			if d := cmp.Diff(tt.want, summary(decls)); d != "" {
				t.Errorf("heuristicOutline mismatch (-want +got):\n%s", d)
			}
			got := make(map[int]string)
			for line := range tt.at {
				d, _ := enclosingDecl(decls, line)
				got[line] = d.Symbol
			}
			if d := cmp.Diff(tt.at, got); d != "" {
				t.Errorf("enclosing declarations mismatch (-want +got):\n%s", d)
			}
		})
	}
}
