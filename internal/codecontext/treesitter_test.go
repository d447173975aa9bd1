//go:build cgo

package codecontext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tree-sitter finds the declarations the heuristic cannot: anonymous typedefs, qualified C++
// methods, interfaces and type aliases, trait impls, records.
func TestTreeSitterOutline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lang language
		src  string
		want []string
	}{
		{
			name: "C",
			lang: langC,
			src: `#define MAX_CONNS 16

typedef struct {
	int fd;
} conn_t;

struct pool {
	conn_t conns[MAX_CONNS];
};

static int used;
int pool_size(struct pool *p);

/* pool_size counts the used connections. */
int
pool_size(struct pool *p)
{
	return used;
}
`,
			want: []string{
				"macro MAX_CONNS 1-1 (sig 1-1)",
				"typedef conn_t 3-5 (sig 3-3)",
				"struct pool 7-9 (sig 7-7)",
				"var used 11-11 (sig 11-11)",
				"function pool_size 14-19 (sig 15-16)",
			},
		},
		{
			name: "C++",
			lang: langCPP,
			src: `namespace shop {

class Store {
 public:
  bool reserve(int n) {
    return n > 0;
  }
};

template <typename T>
T Store::get(T x) {
  return x;
}

}  // namespace shop
`,
			want: []string{
				"namespace shop 1-15 (sig 1-1)",
				"class Store 3-8 (sig 3-3)",
				"function Store::reserve 5-7 (sig 5-5)",
				"function Store::get 10-13 (sig 11-11)",
			},
		},
		{
			name: "Python",
			lang: langPython,
			src: `LIMIT = 10


class Store:
    # reserve takes the lock.
    @locked
    def reserve(self, n):
        def inner():
            return n
        return inner()
`,
			want: []string{
				"LIMIT 1-1 (sig 1-1)",
				"class Store 4-10 (sig 4-4)",
				"def Store.reserve 5-10 (sig 7-7)",
				"def inner 8-9 (sig 8-8)",
			},
		},
		{
			name: "TypeScript",
			lang: langTS,
			src: `export interface Item {
  price: number;
}

type Money = number;

export class Cart {
  items: Item[] = [];
  add = (it: Item): void => {
    this.items.push(it);
  };
  total(): Money {
    return 0;
  }
}
`,
			want: []string{
				"interface Item 1-3 (sig 1-1)",
				"type Money 5-5 (sig 5-5)",
				"class Cart 7-15 (sig 7-7)",
				"method Cart.add 9-11 (sig 9-9)",
				"method Cart.total 12-14 (sig 12-12)",
			},
		},
		{
			name: "Rust",
			lang: langRust,
			src: `macro_rules! square {
    ($x:expr) => { $x * $x };
}

pub trait Area {
    fn area(&self) -> u32;
}

#[derive(Debug)]
pub struct Rect(u32, u32);

impl Area for Rect {
    fn area(&self) -> u32 {
        self.0 * self.1
    }
}

mod tests {
    const SIDE: u32 = 2;
}
`,
			want: []string{
				"macro_rules! square 1-3 (sig 1-1)",
				"trait Area 5-7 (sig 5-5)",
				"struct Rect 9-10 (sig 10-10)",
				"impl Area for Rect 12-16 (sig 12-12)",
				"fn Rect::area 13-15 (sig 13-13)",
				"mod tests 18-20 (sig 18-18)",
				"const SIDE 19-19 (sig 19-19)",
			},
		},
		{
			name: "Java",
			lang: langJava,
			src: `public record Point(int x, int y) {
    public Point {
        if (x < 0) throw new IllegalArgumentException();
    }
}

interface Shape {
    double area();
}
`,
			want: []string{
				"record Point 1-5 (sig 1-1)",
				"method Point.Point 2-4 (sig 2-2)",
				"interface Shape 7-9 (sig 7-7)",
				"method Shape.area 8-8 (sig 8-8)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, summary(outline(tt.lang, []byte(tt.src)))); d != "" {
				t.Errorf("outline mismatch (-want +got):\n%s", d)
			}
		})
	}
}
