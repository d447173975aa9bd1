package codecontext

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBudget(t *testing.T) {
	t.Parallel()
	tests := []struct{ unit, want int }{
		{-1, 8000},
		{0, 8000},
		{10000, 12000},
		{60000, 32000}, // a full unit of the planner's default budget
		{80000, 40000},
		{1 << 30, 40000},
	}
	for _, tt := range tests {
		if got := Budget(tt.unit); got != tt.want {
			t.Errorf("Budget(%d) = %d, want %d", tt.unit, got, tt.want)
		}
	}
}

// The shop package: a large Config used through three fields, and three small definitions used
// once each, all by one changed function.
func shopFiles() (base map[string]string, head string) {
	var cfg strings.Builder
	cfg.WriteString("package shop\n\n// Config configures the shop.\ntype Config struct {\n")
	for i := range 120 {
		fmt.Fprintf(&cfg, "\t// Field%03d is setting number %d of the shop, read at start-up.\n\tField%03d int\n", i, i, i)
	}
	cfg.WriteString("}\n")
	small := `package shop

// clampQty keeps a quantity within limits.
func clampQty(n int) int { return min(n, maxItems) }

// Money is an amount in cents.
type Money struct{ cents int64 }

// maxItems is the most items of one order.
const maxItems = 100
`
	handler := "package shop\n\n// Handle handles an order.\nfunc Handle(c *Config, n int) int {\n\treturn n\n}\n"
	head = strings.Replace(handler, "\treturn n\n",
		"\tn = clampQty(n) + c.Field010 + c.Field050 + c.Field100\n\tvar m Money\n\t_ = m\n\tif n > maxItems {\n\t\treturn 0\n\t}\n\treturn n\n", 1)
	return map[string]string{"go.mod": goMod, "shop/config.go": cfg.String(), "shop/small.go": small, "shop/handler.go": handler}, head
}

// Small definitions get in before a large one, which the budget takes as a window around the
// fields used; before, the large one, used most, took the room and left the small ones out.
func TestPackSmallDefinitionsFirst(t *testing.T) {
	t.Parallel()
	base, head := shopFiles()
	src, files := repo(base, map[string]string{"shop/handler.go": head})
	full := build(t, src, files, Options{BudgetTokens: 1 << 20})
	var enclosing, config int
	for _, s := range full.Snippets {
		switch s.Symbol {
		case "func Handle":
			enclosing += tokens(s.Text)
		case "type Config":
			config += tokens(s.Text)
		}
	}
	if config < 1000 {
		t.Fatalf("type Config is %d tokens, want a large definition", config)
	}
	// Room for the function and the whole Config, and nothing else.
	budget := enclosing + config + 10
	got := build(t, src, files, Options{BudgetTokens: budget})
	var defs []string
	for _, s := range got.Snippets {
		if s.Kind == KindDefinition && !slices.Contains(defs, s.Symbol) {
			defs = append(defs, s.Symbol)
		}
	}
	if d := cmp.Diff([]string{"func clampQty", "type Money", "const maxItems", "type Config"}, defs); d != "" {
		t.Errorf("definitions, in order (-want +got):\n%s\n%s", d, Render(got))
	}
	if len(got.Omitted) > 0 {
		t.Errorf("Omitted = %q, want nothing left out", got.Omitted)
	}
	used := 0
	for _, s := range got.Snippets {
		used += tokens(s.Text)
		if s.Symbol == "type Config" && !strings.Contains(s.Reason, "so only lines") {
			t.Errorf("type Config shown as %d-%d with reason %q; want a window that says so", s.StartLine, s.EndLine, s.Reason)
		}
	}
	if used > budget {
		t.Errorf("snippets take %d tokens, over the %d-token budget", used, budget)
	}
	text := Render(got)
	for _, f := range []string{"Field010 int", "Field050 int", "Field100 int"} {
		if !strings.Contains(text, f) {
			t.Errorf("the Config shown lacks the field used, %s:\n%s", f, text)
		}
	}
}

// tableTest is a test function whose table is 111 lines long, and the same with a row added
// that calls a small helper.
func tableTest() (base, head string) {
	var sb strings.Builder
	sb.WriteString("package shop\n\nimport \"testing\"\n\nfunc TestPrice(t *testing.T) {\n\ttests := []struct {\n\t\tname       string\n\t\tqty, cents int\n\t}{\n")
	for i := range 111 {
		fmt.Fprintf(&sb, "\t\t{name: \"an order of %03d items at the usual price\", qty: %d, cents: %d},\n", i, i, i*100)
	}
	sb.WriteString("\t}\n\tfor _, tt := range tests {\n\t\t_ = tt\n\t}\n}\n")
	base = sb.String()
	head = strings.Replace(base, "\t\t{name: \"an order of 060 items", "\t\t{name: \"clamped\", qty: clampQty(1000), cents: 1},\n\t\t{name: \"an order of 060 items", 1)
	return base, head
}

// One huge enclosing declaration cannot eat the budget: it shows its signature and a window
// around the hunk, and says so; a larger budget shows it whole.
func TestPackCapsEnclosing(t *testing.T) {
	t.Parallel()
	base, head := tableTest()
	files, _ := shopFiles()
	files["shop/price_test.go"] = base
	src, diffs := repo(files, map[string]string{"shop/price_test.go": head})

	got := build(t, src, diffs, Options{})
	enclosing := 0
	var pieces []string
	for _, s := range got.Snippets {
		if s.Kind != KindEnclosing {
			continue
		}
		enclosing += tokens(s.Text)
		pieces = append(pieces, fmt.Sprintf("%d-%d", s.StartLine, s.EndLine))
		if !strings.Contains(s.Reason, "more than one snippet may take (1000 tokens), so only lines") {
			t.Errorf("reason %q does not say the declaration was cut", s.Reason)
		}
	}
	if enclosing == 0 || enclosing > snippetCap(defaultBudgetTokens) {
		t.Errorf("enclosing snippets %v take %d tokens, want some and at most %d", pieces, enclosing, snippetCap(defaultBudgetTokens))
	}
	if len(pieces) != 2 || pieces[0] != "5-5" {
		t.Errorf("enclosing snippets %v, want the signature and one window", pieces)
	}
	if !slices.Contains(definitionSymbols(got), "shop/small.go:3-4 definition func clampQty") {
		t.Errorf("clampQty not shown:\n%s", Render(got))
	}

	whole := build(t, src, diffs, Options{BudgetTokens: Budget(30000)})
	if s := whole.Snippets[0]; s.Kind != KindEnclosing || s.StartLine != 5 || s.EndLine != strings.Count(head, "\n") {
		t.Errorf("with Budget(30000), the first snippet is %s %d-%d, want the whole function", s.Kind, s.StartLine, s.EndLine)
	}
}

// What the budget leaves out is listed with its size, the size of its short form, and the
// budget.
func TestPackOmitted(t *testing.T) {
	t.Parallel()
	base, head := shopFiles()
	src, files := repo(base, map[string]string{"shop/handler.go": head})
	got := build(t, src, files, Options{BudgetTokens: 120})
	var config string
	for _, o := range got.Omitted {
		if strings.HasPrefix(o, "definition type Config (shop/config.go:3-245 at head): ") {
			config = o
		}
	}
	if !strings.Contains(config, "as its signature and a window, over the 120-token budget (") {
		t.Errorf("Omitted = %q, want type Config with its sizes and the budget", got.Omitted)
	}
	for _, s := range got.Snippets {
		if s.Symbol == "type Config" {
			t.Errorf("type Config shown in a 120-token budget")
		}
	}
}

// A definition an added line uses is never left out for one only an unchanged line of the
// hunk uses, even when the first is large and the second small: with room for one of them,
// the added line's gets it.
func TestPackAddedLinesFirst(t *testing.T) {
	t.Parallel()
	var migrate strings.Builder
	migrate.WriteString("package vm\n\n// ackMigrationCompletion records that the migration is over.\nfunc ackMigrationCompletion(n int) int {\n")
	for i := range 20 {
		fmt.Fprintf(&migrate, "\tn += %d // step %d of acknowledging the migration to the source node\n", i, i)
	}
	migrate.WriteString("\treturn n\n}\n")
	small := "package vm\n\n// logStatus logs n.\nfunc logStatus(n int) {}\n"
	base := "package vm\n\nfunc update(n int) int {\n\tlogStatus(n)\n\treturn n\n}\n"
	head := strings.Replace(base, "\treturn n\n", "\tn = ackMigrationCompletion(n)\n\treturn n\n", 1)
	src, files := repo(map[string]string{"go.mod": goMod, "vm/migrate.go": migrate.String(), "vm/log.go": small, "vm/update.go": base},
		map[string]string{"vm/update.go": head})

	full := build(t, src, files, Options{BudgetTokens: 1 << 20})
	size := map[string]int{}
	for _, s := range full.Snippets {
		size[s.Symbol] += tokens(s.Text)
	}
	if size["func ackMigrationCompletion"] <= smallDefTokens || size["func logStatus"] == 0 || size["func logStatus"] > smallDefTokens {
		t.Fatalf("want a large definition used by the added line and a small one used by an unchanged line; got %v\n%s", size, Render(full))
	}
	// Room for the large definition, not for the small one too (the hunks show all of update).
	budget := size["func ackMigrationCompletion"] + size["func logStatus"] - 1
	got := build(t, src, files, Options{BudgetTokens: budget})
	var shown []string
	for _, s := range got.Snippets {
		shown = append(shown, s.Symbol)
	}
	if d := cmp.Diff([]string{"func ackMigrationCompletion"}, shown); d != "" {
		t.Errorf("snippets (-want +got):\n%s\n%s", d, Render(got))
	}
	if len(got.Omitted) != 1 || !strings.Contains(got.Omitted[0], "definition func logStatus") {
		t.Errorf("Omitted = %q, want the definition only an unchanged line uses", got.Omitted)
	}
	if s := got.Snippets[len(got.Snippets)-1]; strings.Contains(s.Reason, "unchanged") {
		t.Errorf("reason %q", s.Reason)
	}
	if r := full.Snippets[len(full.Snippets)-1]; r.Symbol != "func logStatus" || r.Reason != "used at vm/update.go:4 (unchanged), not shown in the diff" {
		t.Errorf("the definition only an unchanged line uses comes last, saying so; got %s: %q", r.Symbol, r.Reason)
	}
}
