package bench

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{name: "stop words and one-letter words go", text: "This is a bug in the loop", want: []string{"bug", "loop"}},
		{name: "camelCase splits", text: "parseConfig returns early", want: []string{"parse", "config", "returns", "early"}},
		{name: "acronyms split at the last capital", text: "HTTPServer and userID", want: []string{"http", "server", "user", "id"}},
		{name: "digits stay with their word", text: "int64Value sha256", want: []string{"int64", "value", "sha256"}},
		{name: "snake_case splits", text: "max_retry_count", want: []string{"max", "retry", "count"}},
		{
			name: "a code span is a token too",
			text: "Call `s.mu.Lock()` here",
			want: []string{"s.mu.lock()", "call", "mu", "lock"},
		},
		{name: "a code span's spaces are normalised", text: "``if  err != nil``", want: []string{"if err != nil", "err", "nil"}},
		{name: "an unmatched backtick is punctuation", text: "don`t panic", want: []string{"panic"}},
		{name: "URLs go", text: "See https://example.com/a/b?c=d and www.example.org/x for why", want: []string{"see"}},
		{name: "link targets go, link text stays", text: "per [the docs](../docs/config.md#bench)", want: []string{"per", "docs"}},
		{name: "HTML tags, comments and entities go", text: "<details><summary>Nit</summary>trailing&nbsp;space<!-- bot: x --></details>", want: []string{"nit", "trailing", "space"}},
		{
			name: "fence markers go, the code stays",
			text: "Use this:\n```suggestion\nreturn fmt.Errorf(\"read: %w\", err)\n```",
			want: []string{"use", "return", "fmt", "errorf", "read", "err"},
		},
		{name: "non-ASCII letters are letters", text: "Größe überprüfen", want: []string{"größe", "überprüfen"}},
		{name: "empty", text: "", want: nil},
		// "URLs" is one word, not "UR" and "Ls"; a capital after the plural still splits.
		{name: "an acronym's plural stays whole", text: "IDs of the PRs, URLsMap CPUsPerNode", want: []string{"ids", "prs", "urls", "map", "cpus", "per", "node"}},
		{name: "negative contractions are stop words", text: "hadn't mightn't mustn't needn't shan't", want: nil},
		{
			// A code span or a fenced block is code, not Markdown: <u8> there is no HTML tag.
			name: "code is not markup",
			text: "Copies the `Vec<u8>` buffer\n```rust\nfn n = a<bc && cd>d;\n```\nsee <b>bold</b> text",
			want: []string{"vec<u8>", "copies", "vec", "u8", "buffer", "fn", "bc", "cd", "see", "bold", "text"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, Tokens(tt.text)); d != "" {
				t.Errorf("Tokens(%q) (-want +got):\n%s", tt.text, d)
			}
		})
	}
}

func TestTextSimilarity(t *testing.T) {
	t.Parallel()
	docs := []string{
		"`cfg` can be nil here when the config file is missing",
		"cfg is nil when no config exists",
		"the mutex is released before the map write",
		"",
		"the the the",
	}
	tokens := make([][]string, len(docs))
	for i, d := range docs {
		tokens[i] = Tokens(d)
	}
	v := vectorize(tokens)
	tests := []struct {
		name   string
		a, b   int
		lo, hi float64
	}{
		{name: "a text is itself", a: 0, b: 0, lo: 1, hi: 1},
		{name: "a paraphrase is close", a: 0, b: 1, lo: 0.4, hi: 0.9},
		{name: "another topic is not", a: 0, b: 2, lo: 0, hi: 0},
		{name: "an empty text is like nothing", a: 3, b: 3, lo: 0, hi: 0},
		{name: "stop words alone are empty", a: 4, b: 2, lo: 0, hi: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := textSimilarity(v[tt.a], v[tt.b])
			if got < tt.lo-1e-9 || got > tt.hi+1e-9 {
				t.Errorf("similarity = %v, want it in [%v, %v]", got, tt.lo, tt.hi)
			}
			if back := textSimilarity(v[tt.b], v[tt.a]); math.Abs(back-got) > 1e-12 {
				t.Errorf("similarity is not symmetric: %v and %v", got, back)
			}
		})
	}
}

// TestPredictionTokens: a finding's quote is code from the diff, not Markdown: its <String>
// is a type argument, its backticks a raw string, and both are words to compare.
func TestPredictionTokens(t *testing.T) {
	t.Parallel()
	p := Prediction{Title: "Unchecked cast", Body: "The `List<String>` cast can fail.", Quote: "names := (List<String>) raw; re := `^x+$`"}
	want := []string{"list<string>", "unchecked", "cast", "list", "string", "cast", "fail", "names", "list", "string", "raw"}
	if d := cmp.Diff(want, predictionTokens(p)); d != "" {
		t.Errorf("predictionTokens (-want +got):\n%s", d)
	}
}

// TestVectorizeOrder: the IDF is over the set of texts, so a text's vector does not depend on
// where it is among them.
func TestVectorizeOrder(t *testing.T) {
	t.Parallel()
	docs := [][]string{Tokens("nil config panics"), Tokens("config file missing"), Tokens("lock the mutex config")}
	fwd := vectorize(docs)
	rev := vectorize([][]string{docs[2], docs[1], docs[0]})
	opt := cmp.AllowUnexported(textVec{})
	for i := range docs {
		if d := cmp.Diff(fwd[i], rev[len(docs)-1-i], opt); d != "" {
			t.Errorf("text %d (-forward +reversed):\n%s", i, d)
		}
	}
	// "config" is in every text, "panics" in one: the rare token weighs more.
	names := []string{"config", "nil", "panics"} // text 0's tokens, sorted as their ids are
	w := map[string]float64{}
	for k := range fwd[0].ids {
		w[names[k]] = fwd[0].w[k]
	}
	if !(w["panics"] > w["config"]) {
		t.Errorf("weights %v: want the rare token above the common one", w)
	}
}
