package codecontext

import (
	"regexp"
	"strings"
)

// heuristicOutline finds a file's declarations without a parser. It is what a build without
// cgo uses for every language but Go, and what any build uses for a language tree-sitter has
// no grammar for here, or for a file a parser rejects.
//
// It first blanks out comments and string and character literals (keeping columns), so that
// braces and keywords inside them are not seen. Then:
//
//   - In a brace language, a declaration starts at a line whose code matches a signature
//     pattern: a type keyword and a name (class, struct, enum, interface, trait, impl,
//     namespace, ...), a function keyword and a name (function, func, fn, def, fun), an arrow
//     function bound to a name (const f = (...) =>), or a name followed by "(" whose line does
//     not start with a control-flow keyword (if, for, while, switch, catch, return, ...). The
//     signature must open a block: the first "{" outside parentheses, on that line or within
//     the next few, before any ";" or "=" (a prototype, a call, an assignment). The
//     declaration ends at the "}" that matches it. Finding the enclosing declaration of a line
//     is then the same as walking back from it to the nearest line that opens a block around
//     it and matches a signature pattern.
//   - In Python, a declaration starts at a def or class line and ends before the next line,
//     outside brackets and strings, that is indented no deeper than the def itself: the
//     enclosing declaration of a line is the nearest less-indented def or class above it.
//
// Comments, decorators (@...) and attributes (#[...]) directly above a declaration are part
// of it. Top-level constants and variables (Python and JavaScript assignments at column 0,
// Rust const and static, C #define) are declarations too, so that definitions can find them.
// The heuristic is wrong on code it was not written for (a macro that opens a block, a brace
// inside a C++ initialiser list), which costs a badly cut snippet, never an error.
func heuristicOutline(l language, src []byte) []decl {
	lines := splitLines(src)
	code := codeLines(l, lines)
	var out []decl
	if l.braces() {
		out = braceOutline(l, code)
	} else {
		out = indentOutline(code)
	}
	for i := range out {
		out[i].Start = extendUp(l, lines, code, out[i].Start)
	}
	return finishOutline(l, out)
}

// splitLines splits text into lines without their "\n"; a final newline does not start
// another line.
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// extendUp moves a declaration's first line up over the comments, decorators and attributes
// directly above it.
func extendUp(l language, lines, code []string, start int) int {
	for i := start - 1; i >= 1; i-- {
		raw := strings.TrimSpace(lines[i-1])
		c := strings.TrimSpace(code[i-1])
		switch {
		case raw == "":
			return start
		case c == "": // only a comment on this line
		case strings.HasPrefix(c, "@") && l != langCPP && l != langC:
		case strings.HasPrefix(c, "#[") && l == langRust:
		default:
			return start
		}
		start = i
	}
	return start
}

// codeLines returns each line with comments blanked and the contents of string and character
// literals blanked, keeping every other byte where it was.
func codeLines(l language, lines []string) []string {
	lx := lexer{lang: l}
	out := make([]string, len(lines))
	for i, s := range lines {
		out[i] = lx.line(s)
	}
	return out
}

// lexer blanks comments and literals line by line, carrying what spans lines (a block
// comment, a triple-quoted Python string, a JavaScript template or Go raw string, a Rust raw
// string) from one line to the next.
type lexer struct {
	lang    language
	inBlock bool   // inside /* */
	inStr   string // the closing delimiter of a multi-line literal we are inside
}

func (lx *lexer) line(s string) string {
	b := []byte(s)
	i := 0
	blank := func(from, to int) {
		for k := from; k < to && k < len(b); k++ {
			if b[k] != '\t' {
				b[k] = ' '
			}
		}
	}
	hashComments := lx.lang == langPython
	if lx.lang == langUnknown && strings.HasPrefix(strings.TrimSpace(s), "#") {
		blank(0, len(b))
		return string(b)
	}
	for i < len(b) {
		switch {
		case lx.inBlock:
			end := strings.Index(s[i:], "*/")
			if end < 0 {
				blank(i, len(b))
				return string(b)
			}
			blank(i, i+end+2)
			i += end + 2
			lx.inBlock = false
		case lx.inStr != "":
			end := strings.Index(s[i:], lx.inStr)
			if lx.inStr == "`" {
				end = indexUnescaped(s, i, '`') - i
			}
			if end < 0 {
				blank(i, len(b))
				return string(b)
			}
			blank(i, i+end)
			i += end + len(lx.inStr)
			lx.inStr = ""
		case hashComments && b[i] == '#':
			blank(i, len(b))
			return string(b)
		case !hashComments && strings.HasPrefix(s[i:], "//"):
			blank(i, len(b))
			return string(b)
		case !hashComments && strings.HasPrefix(s[i:], "/*"):
			blank(i, i+2)
			i += 2
			lx.inBlock = true
		case lx.lang == langPython && (strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`)):
			lx.inStr = s[i : i+3]
			i += 3
		case lx.lang == langRust && (strings.HasPrefix(s[i:], `r#`) || strings.HasPrefix(s[i:], `r"`)) && (i == 0 || !isWordByte(b[i-1])):
			j := i + 1
			for j < len(b) && b[j] == '#' {
				j++
			}
			if j < len(b) && b[j] == '"' {
				lx.inStr = `"` + strings.Repeat("#", j-i-1)
				i = j + 1
				continue
			}
			i++
		case b[i] == '`' && (lx.lang == langJS || lx.lang == langTS || lx.lang == langTSX || lx.lang == langGo || lx.lang == langUnknown):
			lx.inStr = "`"
			i++
		case b[i] == '"':
			end := indexUnescaped(s, i+1, '"')
			if end < 0 {
				blank(i+1, len(b))
				return string(b)
			}
			blank(i+1, end)
			i = end + 1
		case b[i] == '\'':
			if end := lx.charEnd(s, i); end > i {
				blank(i+1, end)
				i = end + 1
				continue
			}
			i++
		default:
			i++
		}
	}
	return string(b)
}

// charEnd is the index of the quote closing the literal that opens at s[i], or -1. In C,
// C++, Java, Rust and Go a single quote opens a character literal only when one (escaped)
// character and a quote follow, so a Rust lifetime ('a) is not one; elsewhere it opens a
// string.
func (lx *lexer) charEnd(s string, i int) int {
	switch lx.lang {
	case langC, langCPP, langJava, langRust, langGo:
		if i+1 < len(s) && s[i+1] == '\\' {
			return indexUnescaped(s, i+1, '\'')
		}
		for k := i + 2; k < len(s) && k <= i+5; k++ { // one UTF-8 character
			if s[k] == '\'' {
				return k
			}
		}
		return -1
	}
	return indexUnescaped(s, i+1, '\'')
}

// indexUnescaped is the index of the first q at or after from that no backslash escapes.
func indexUnescaped(s string, from int, q byte) int {
	for k := from; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k
		}
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

var (
	// typeSig: a type keyword and its name, after modifiers.
	typeSig = regexp.MustCompile(`^(?:(?:export|default|public|private|protected|internal|static|final|abstract|sealed|partial|data|open|declare|unsafe|pub(?:\([^)]*\))?|template\s*<[^>]*>|typedef)\s+)*(class|struct|union|enum(?:\s+class)?|interface|trait|record|object|namespace|mod|impl)\b\s*(?:<[^>]*>\s*)?([A-Za-z_$][\w$]*(?:::[A-Za-z_$][\w$]*)*)?`)
	// goTypeSig: a Go type.
	goTypeSig = regexp.MustCompile(`^type\s+([A-Za-z_]\w*)`)
	// goFuncSig: a Go func, with or without a receiver.
	goFuncSig = regexp.MustCompile(`^func\s*(\([^)]*\)\s*)?([A-Za-z_]\w*)`)
	// keywordFuncSig: a function keyword and a name.
	keywordFuncSig = regexp.MustCompile(`(?:^|[^\w$.])(function\s*\*?|func|fn|fun|def|sub|proc)\s+([A-Za-z_$][\w$]*)`)
	// arrowSig: const f = (...) => or const f = function.
	arrowSig = regexp.MustCompile(`^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+?)?=>)`)
	// callSig: a name followed by "(", the last word before the first parenthesis.
	callSig = regexp.MustCompile(`^[^()=;{}]*?([~A-Za-z_$][\w$]*(?:::~?[A-Za-z_$][\w$]*)*)\s*(?:<[^()]*>)?\s*\(`)
	// valueSig: a top-level constant or variable.
	valueSig = regexp.MustCompile(`^(?:export\s+)?(?:pub(?:\([^)]*\))?\s+)?(const|let|var|static)\s+(?:mut\s+)?([A-Za-z_$][\w$]*)`)
	// defineSig: a C preprocessor macro.
	defineSig = regexp.MustCompile(`^#\s*define\s+([A-Za-z_]\w*)`)
	// rustMacroSig: macro_rules! name.
	rustMacroSig = regexp.MustCompile(`^(?:#\[[^\]]*\]\s*)?macro_rules!\s*([A-Za-z_]\w*)`)
	// returnTypeLine: a line of type words only ("static int", "struct conn *").
	returnTypeLine = regexp.MustCompile(`^\s*[A-Za-z_][\w\s*&:<>,]*[\w*&>]\s*$`)
	// typedefName: the name after the closing brace of "typedef struct { ... } name;".
	typedefName = regexp.MustCompile(`}\s*([A-Za-z_]\w*)\s*;`)
	// pyDefSig, pyClassSig, pyValueSig: Python declarations.
	pyDefSig   = regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)`)
	pyClassSig = regexp.MustCompile(`^(\s*)class\s+([A-Za-z_]\w*)`)
	pyValueSig = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]`)
)

// controlWords start lines that look like calls opening a block but are statements.
var controlWords = wordSet(`if for while switch catch return else do sizeof new throw case
	when synchronized using lock foreach await yield typeof delete defined assert elif except
	with try finally match loop unless until select go defer`)

// braceOutline finds declarations in a brace language (see heuristicOutline).
func braceOutline(l language, code []string) []decl {
	closeOf := matchBraces(code)
	var out []decl
	for i := 0; i < len(code); i++ {
		c := strings.TrimSpace(code[i])
		if c == "" {
			continue
		}
		indent := len(code[i]) - len(strings.TrimLeft(code[i], " \t"))
		if strings.HasPrefix(c, "#") && l != langRust {
			// A preprocessor line, with its continuation lines; a macro is a definition.
			end := i
			for end+1 < len(code) && strings.HasSuffix(strings.TrimRight(code[end], " \t"), "\\") {
				end++
			}
			if m := defineSig.FindStringSubmatch(c); m != nil {
				out = append(out, decl{Kind: declValue, Keyword: "macro", Names: []string{m[1]}, Start: i + 1, Sig: i + 1, SigEnd: i + 1, End: end + 1})
			}
			i = end
			continue
		}
		if strings.HasPrefix(c, "#") || strings.HasPrefix(c, "@") {
			continue // attributes, annotations, decorators
		}
		c = strings.TrimLeft(c, "} \t")
		d, from, ok := signature(l, c, indent)
		if !ok {
			continue
		}
		col := len(code[i]) - len(strings.TrimLeft(code[i], "} \t")) + from
		if d.Kind == declValue {
			if indent > 0 {
				continue
			}
			end := statementEnd(code, i, col)
			d.Start, d.Sig, d.SigEnd, d.End = i+1, i+1, i+1, end+1
			out = append(out, d.decl)
			continue
		}
		open, ok := blockOpen(code, i, col, !d.arrow)
		if !ok {
			continue
		}
		d.Start, d.Sig = i+1, i+1
		if d.returnTypeAbove && i > 0 && returnTypeLine.MatchString(code[i-1]) && !controlWords[firstWord(strings.TrimSpace(code[i-1]))] {
			d.Start, d.Sig = i, i // GNU style: the return type on a line of its own
		}
		d.SigEnd = open.line + 1
		d.End = closeOf[open] + 1
		if d.Kind == declType && len(d.Names) == 0 && d.Qual == "" {
			m := typedefName.FindStringSubmatch(code[d.End-1])
			if m == nil {
				continue
			}
			d.Names, d.Qual = []string{m[1]}, m[1]
		}
		out = append(out, d.decl)
	}
	return out
}

// sig is a signature the patterns recognised.
type sig struct {
	decl
	arrow           bool // a bound function expression: its "=" is expected
	returnTypeAbove bool // a C-like function whose return type may be on the line above
}

// signature matches the code of one line (trimmed) against the signature patterns; from is
// where in c the search for the opening brace starts.
func signature(l language, c string, indent int) (sig, int, bool) {
	if l == langRust {
		if m := rustMacroSig.FindStringSubmatchIndex(c); m != nil {
			return sig{decl: decl{Kind: declValue, Keyword: "macro_rules!", Names: []string{c[m[2]:m[3]]}}}, m[1], true
		}
	}
	if m := typeSig.FindStringSubmatchIndex(c); m != nil {
		kw := strings.Join(strings.Fields(c[m[2]:m[3]]), " ")
		name := ""
		if m[4] >= 0 {
			name = c[m[4]:m[5]]
		}
		rest := c[m[1]:]
		cLike := kw == "struct" || kw == "union" || strings.HasPrefix(kw, "enum")
		paren, brace := strings.Index(rest, "("), strings.Index(rest, "{")
		switch {
		case kw == "impl":
			return sig{decl: implDecl(name, rest)}, m[1], true
		case kw == "namespace" || kw == "mod":
			return sig{decl: decl{Kind: declContainer, Keyword: kw, Names: nonEmpty(name)}}, m[1], true
		case cLike && paren >= 0 && (brace < 0 || paren < brace):
			// "struct s *f(void) {" is a function returning a struct: the function patterns
			// below see it.
		default:
			// An anonymous C struct gets its name from the typedef after its closing brace.
			n := lastPart(name)
			return sig{decl: decl{Kind: declType, Keyword: kw, Names: nonEmpty(n), Qual: n}}, m[1], true
		}
	}
	if l == langGo || l == langUnknown {
		if m := goTypeSig.FindStringSubmatchIndex(c); m != nil {
			return sig{decl: decl{Kind: declType, Keyword: "type", Names: []string{c[m[2]:m[3]]}}}, m[1], true
		}
	}
	if l == langGo || l == langUnknown {
		if m := goFuncSig.FindStringSubmatchIndex(c); m != nil {
			d := decl{Kind: declFunc, Keyword: "func", Names: []string{c[m[4]:m[5]]}}
			if m[2] >= 0 { // a method: func (s *Store) Reserve
				recv := strings.Fields(strings.Trim(c[m[2]:m[3]], "() \t"))
				if len(recv) > 0 {
					t := recv[len(recv)-1]
					d.Method, d.Recv = true, strings.TrimLeft(t, "*")
					if k := strings.IndexByte(d.Recv, '['); k >= 0 {
						d.Recv = d.Recv[:k]
					}
					d.Symbol = "func (" + t + ") " + d.Names[0]
				}
			}
			return sig{decl: d}, m[1], true
		}
	}
	if m := arrowSig.FindStringSubmatchIndex(c); m != nil && (l == langJS || l == langTS || l == langTSX || l == langUnknown) {
		return sig{decl: decl{Kind: declFunc, Keyword: "function", Names: []string{c[m[2]:m[3]]}}, arrow: true}, m[1], true
	}
	if m := keywordFuncSig.FindStringSubmatchIndex(c); m != nil {
		kw := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c[m[2]:m[3]]), "*"))
		return sig{decl: decl{Kind: declFunc, Keyword: kw, Names: []string{c[m[4]:m[5]]}}}, m[1], true
	}
	if m := valueSig.FindStringSubmatchIndex(c); m != nil && indent == 0 && l != langJava && l != langC && l != langCPP {
		kw := c[m[2]:m[3]]
		if l == langRust && kw != "const" && kw != "static" {
			return sig{}, 0, false
		}
		return sig{decl: decl{Kind: declValue, Keyword: kw, Names: []string{c[m[4]:m[5]]}}}, m[1], true
	}
	if m := callSig.FindStringSubmatchIndex(c); m != nil {
		name := c[m[2]:m[3]]
		if controlWords[firstWord(c)] || controlWords[name] || strings.HasPrefix(c, ".") {
			return sig{}, 0, false
		}
		// The search for the block starts at "(", so that a block passed as an argument (a
		// callback) is not taken for the function's body.
		return sig{
			decl:            decl{Kind: declFunc, Keyword: funcKeyword(l), Names: []string{lastPart(name)}, Display: name},
			returnTypeAbove: l == langC || l == langCPP,
		}, m[1] - 1, true
	}
	return sig{}, 0, false
}

// implDecl is a Rust impl block: "impl<T> Trait for Type" qualifies its members with Type.
func implDecl(name, rest string) decl {
	target := name + " " + rest
	if k := strings.Index(target, "{"); k >= 0 {
		target = target[:k]
	}
	if k := strings.Index(target, " where "); k >= 0 {
		target = target[:k]
	}
	f := strings.Fields(target)
	q := ""
	for k, w := range f {
		if w == "for" && k+1 < len(f) {
			q = f[k+1]
		}
	}
	if q == "" && len(f) > 0 {
		q = f[0]
	}
	if k := strings.Index(q, "<"); k >= 0 {
		q = q[:k]
	}
	return decl{Kind: declType, Keyword: "impl", Qual: lastPart(q), Symbol: "impl " + strings.Join(f, " ")}
}

// firstWord is the leading identifier of c, or "".
func firstWord(c string) string {
	for k := 0; k < len(c); k++ {
		if !isWordByte(c[k]) || c[k] >= 0x80 {
			return c[:k]
		}
	}
	return c
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// lastPart is the last component of a qualified C++ or Rust name: reserve for Store::reserve.
func lastPart(name string) string {
	if k := strings.LastIndex(name, "::"); k >= 0 {
		return strings.TrimPrefix(name[k+2:], "~")
	}
	return name
}

// funcKeyword is the word a function's symbol starts with when its declaration has none.
func funcKeyword(l language) string {
	switch l {
	case langJava:
		return "method"
	case langRust:
		return "fn"
	case langGo:
		return "func"
	}
	return "function"
}

// pos is a position in code: a 0-based line and a byte column.
type pos struct{ line, col int }

// matchBraces maps each "{" to the line of the "}" that closes it, or to the last line when
// none does.
func matchBraces(code []string) map[pos]int {
	m := make(map[pos]int)
	var stack []pos
	for i, c := range code {
		for j := 0; j < len(c); j++ {
			switch c[j] {
			case '{':
				stack = append(stack, pos{i, j})
			case '}':
				if n := len(stack); n > 0 {
					m[stack[n-1]] = i
					stack = stack[:n-1]
				}
			}
		}
	}
	for _, p := range stack {
		m[p] = len(code) - 1
	}
	return m
}

// maxSigSpan is how many lines a signature may take before its block opens.
const maxSigSpan = 10

// blockOpen finds the "{" that opens the block of a signature whose text goes on at line i,
// column col: the first one outside parentheses and brackets, within maxSigSpan lines. A ";"
// or "}" before it means a prototype or a statement, and so does an "=" when strictEq is set
// (an assignment; the pattern for a bound arrow function has already read its own "=").
func blockOpen(code []string, i, col int, strictEq bool) (pos, bool) {
	depth := 0
	for ln := i; ln < len(code) && ln < i+maxSigSpan; ln++ {
		c := code[ln]
		start := 0
		if ln == i {
			start = col
		}
		for j := start; j < len(c); j++ {
			switch c[j] {
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			case ';':
				if depth <= 0 {
					return pos{}, false
				}
			case '=':
				if depth <= 0 && strictEq && !isOperatorEq(c, j) {
					return pos{}, false
				}
			case '{':
				if depth <= 0 {
					return pos{ln, j}, true
				}
			case '}':
				if depth <= 0 {
					return pos{}, false
				}
			}
		}
	}
	return pos{}, false
}

// isOperatorEq reports whether the "=" at c[j] belongs to ==, !=, <=, >=, => or ->-like
// operators rather than being an assignment.
func isOperatorEq(c string, j int) bool {
	if j+1 < len(c) && (c[j+1] == '=' || c[j+1] == '>') {
		return true
	}
	if j > 0 && strings.IndexByte("=!<>+-*/%&|^:", c[j-1]) >= 0 {
		return true
	}
	return false
}

// statementEnd is the last line of a statement starting at line i: the first line, from i
// on, at whose end every bracket opened since col is closed again.
func statementEnd(code []string, i, col int) int {
	depth := 0
	for ln := i; ln < len(code) && ln < i+maxSnippetLines; ln++ {
		c := code[ln]
		start := 0
		if ln == i {
			start = col
		}
		for j := start; j < len(c); j++ {
			switch c[j] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		if depth <= 0 {
			return ln
		}
	}
	return i
}

// indentOutline finds Python declarations (see heuristicOutline).
func indentOutline(code []string) []decl {
	// logical[i]: line i starts a logical line (not inside brackets or after a backslash);
	// blank[i]: it holds no code.
	logical := make([]bool, len(code))
	blank := make([]bool, len(code))
	depth := 0
	cont := false
	for i, c := range code {
		t := strings.TrimSpace(c)
		blank[i] = t == ""
		logical[i] = depth <= 0 && !cont
		for j := 0; j < len(c); j++ {
			switch c[j] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		cont = strings.HasSuffix(t, "\\")
	}
	var out []decl
	for i, c := range code {
		if blank[i] || !logical[i] {
			continue
		}
		var d decl
		var ind string
		if m := pyDefSig.FindStringSubmatch(c); m != nil {
			ind, d = m[1], decl{Kind: declFunc, Keyword: "def", Names: []string{m[2]}}
		} else if m := pyClassSig.FindStringSubmatch(c); m != nil {
			ind, d = m[1], decl{Kind: declType, Keyword: "class", Names: []string{m[2]}}
		} else if m := pyValueSig.FindStringSubmatch(c); m != nil {
			end := statementEnd(code, i, 0)
			out = append(out, decl{Kind: declValue, Names: []string{m[1]}, Start: i + 1, Sig: i + 1, SigEnd: i + 1, End: end + 1})
			continue
		} else {
			continue
		}
		level := indentWidth(ind)
		sigEnd := statementEnd(code, i, len(ind))
		end := sigEnd
		for j := sigEnd + 1; j < len(code); j++ {
			if blank[j] || !logical[j] {
				continue
			}
			if indentWidth(code[j]) <= level {
				break
			}
			end = j
		}
		// Continuation lines of the last statement belong to it.
		for end+1 < len(code) && !logical[end+1] {
			end++
		}
		d.Start, d.Sig, d.SigEnd, d.End = i+1, i+1, sigEnd+1, end+1
		out = append(out, d)
	}
	return out
}

// indentWidth is the width of a line's leading whitespace, a tab reaching the next multiple
// of 8 as Python counts it.
func indentWidth(s string) int {
	w := 0
	for _, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w = w/8*8 + 8
		default:
			return w
		}
	}
	return w
}
