//go:build cgo

package codecontext

import (
	"strings"
	"sync"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// grammar is one tree-sitter language and the ids of the node kinds the walker acts on, so
// that visiting a node costs no string conversion.
type grammar struct {
	lang  *ts.Language
	kinds map[uint16]string
}

var (
	grammarsOnce sync.Once
	grammars     map[language]*grammar
)

// tsKinds are the node kinds the walker acts on, in every grammar.
var tsKinds = strings.Fields(`
	function_definition struct_specifier union_specifier enum_specifier class_specifier
	type_definition preproc_def preproc_function_def declaration namespace_definition
	alias_declaration class_definition expression_statement function_declaration
	generator_function_declaration class_declaration abstract_class_declaration method_definition
	variable_declarator interface_declaration type_alias_declaration enum_declaration
	internal_module module public_field_definition field_definition function_item struct_item
	enum_item union_item trait_item type_item impl_item const_item static_item macro_definition
	mod_item method_declaration constructor_declaration compact_constructor_declaration
	record_declaration annotation_type_declaration`)

func loadGrammars() {
	ptrs := map[language]unsafe.Pointer{
		langC:      tsc.Language(),
		langCPP:    tscpp.Language(),
		langPython: tspython.Language(),
		langJS:     tsjs.Language(),
		langTS:     tsts.LanguageTypescript(),
		langTSX:    tsts.LanguageTSX(),
		langRust:   tsrust.Language(),
		langJava:   tsjava.Language(),
	}
	grammars = make(map[language]*grammar, len(ptrs))
	for l, p := range ptrs {
		g := &grammar{lang: ts.NewLanguage(p), kinds: make(map[uint16]string)}
		for _, k := range tsKinds {
			if id := g.lang.IdForNodeKind(k, true); id != 0 {
				g.kinds[id] = k
			}
		}
		grammars[l] = g
	}
}

// outline lists the declarations of a file in a language other than Go: with tree-sitter
// when there is a grammar for it, else (or when the grammar finds nothing in a file it
// cannot parse) with heuristicOutline.
func outline(l language, src []byte) []decl {
	grammarsOnce.Do(loadGrammars)
	g := grammars[l]
	if g == nil {
		return heuristicOutline(l, src)
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g.lang); err != nil {
		return heuristicOutline(l, src)
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return heuristicOutline(l, src)
	}
	defer tree.Close()
	root := tree.RootNode()
	w := &tsWalker{lang: l, src: src, g: g}
	c := root.Walk()
	defer c.Close()
	w.visit(c)
	if len(w.out) == 0 && root.HasError() {
		return heuristicOutline(l, src)
	}
	// Comments and attributes directly above a declaration are part of it, found as the
	// heuristic finds them: tree-sitter attaches a comment to whichever node is nearest.
	lines := splitLines(src)
	code := codeLines(l, lines)
	for i := range w.out {
		w.out[i].Start = extendUp(l, lines, code, w.out[i].Start)
	}
	return finishOutline(l, w.out)
}

type tsWalker struct {
	lang language
	src  []byte
	g    *grammar
	out  []decl
}

func (w *tsWalker) visit(c *ts.TreeCursor) {
	n := c.Node()
	if kind, ok := w.g.kinds[n.KindId()]; ok {
		w.node(kind, n)
	}
	if c.GotoFirstChild() {
		for {
			w.visit(c)
			if !c.GotoNextSibling() {
				break
			}
		}
		c.GotoParent()
	}
}

func (w *tsWalker) text(n *ts.Node) string { return n.Utf8Text(w.src) }

func (w *tsWalker) fieldText(n *ts.Node, field string) string {
	if f := n.ChildByFieldName(field); f != nil {
		return w.text(f)
	}
	return ""
}

// add records a declaration spanning node n (or outer, the statement that wraps it: an
// export, a template, a decorated definition, a variable declaration).
func (w *tsWalker) add(n, outer *ts.Node, d decl) {
	if outer == nil {
		outer = n
	}
	for p := outer.Parent(); p != nil; p = p.Parent() {
		k := p.Kind()
		if k != "export_statement" && k != "template_declaration" && k != "decorated_definition" {
			break
		}
		outer = p
	}
	d.Sig = int(n.StartPosition().Row) + 1
	d.Start = int(outer.StartPosition().Row) + 1
	d.End = endLine(outer)
	d.SigEnd = d.Sig
	if body := n.ChildByFieldName("body"); body != nil {
		// The signature ends with what precedes the body: ")" or ":" or a return type.
		prev := body.PrevSibling()
		for prev != nil && prev.IsExtra() { // a comment between the signature and the body
			prev = prev.PrevSibling()
		}
		if prev != nil {
			d.SigEnd = endLine(prev)
		}
	}
	w.out = append(w.out, d)
}

// endLine is the last line a node covers: a node that ends with a newline (a preprocessor
// definition) ends at column 0 of the next line.
func endLine(n *ts.Node) int {
	s, e := n.StartPosition(), n.EndPosition()
	if e.Column == 0 && e.Row > s.Row {
		return int(e.Row)
	}
	return int(e.Row) + 1
}

// declaratorName follows a C or C++ declarator to the name it declares.
func (w *tsWalker) declaratorName(d *ts.Node) string {
	for d != nil {
		switch d.Kind() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "primitive_type":
			return w.text(d)
		}
		next := d.ChildByFieldName("declarator")
		if next == nil {
			next = d.NamedChild(0)
			if next != nil && next.Kind() == "type_qualifier" {
				next = next.NextNamedSibling()
			}
		}
		d = next
	}
	return ""
}

// isFunctionDeclarator reports whether a C declarator declares a function (a prototype).
func isFunctionDeclarator(d *ts.Node) bool {
	for d != nil {
		switch d.Kind() {
		case "function_declarator":
			return true
		case "identifier", "field_identifier", "qualified_identifier":
			return false
		}
		next := d.ChildByFieldName("declarator")
		if next == nil {
			next = d.NamedChild(0)
		}
		d = next
	}
	return false
}

func (w *tsWalker) node(kind string, n *ts.Node) {
	switch kind {
	// C and C++.
	case "function_definition":
		if w.lang == langPython {
			w.add(n, nil, decl{Kind: declFunc, Keyword: "def", Names: nonEmpty(w.fieldText(n, "name"))})
			return
		}
		name := w.declaratorName(n.ChildByFieldName("declarator"))
		if name == "" {
			return
		}
		w.add(n, nil, decl{Kind: declFunc, Keyword: "function", Names: []string{lastPart(name)}, Display: name})
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		name := w.fieldText(n, "name")
		if n.ChildByFieldName("body") == nil || name == "" {
			return
		}
		kw := strings.TrimSuffix(kind, "_specifier")
		w.add(n, nil, decl{Kind: declType, Keyword: kw, Names: []string{lastPart(name)}, Qual: lastPart(name)})
	case "type_definition":
		name := w.declaratorName(n.ChildByFieldName("declarator"))
		if name == "" {
			return
		}
		w.add(n, nil, decl{Kind: declType, Keyword: "typedef", Names: []string{name}, Qual: name})
	case "alias_declaration":
		if name := w.fieldText(n, "name"); name != "" {
			w.add(n, nil, decl{Kind: declType, Keyword: "using", Names: []string{name}})
		}
	case "preproc_def", "preproc_function_def":
		if name := w.fieldText(n, "name"); name != "" {
			w.add(n, nil, decl{Kind: declValue, Keyword: "macro", Names: []string{name}})
		}
	case "declaration":
		// A global variable; a prototype declares, it does not define.
		p := n.Parent()
		if p == nil || (p.Kind() != "translation_unit" && p.Kind() != "declaration_list") {
			return
		}
		var names []string
		cur := n.Walk()
		defer cur.Close()
		for _, d := range n.ChildrenByFieldName("declarator", cur) {
			if isFunctionDeclarator(&d) {
				continue
			}
			if name := w.declaratorName(&d); name != "" {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			w.add(n, nil, decl{Kind: declValue, Keyword: "var", Names: names})
		}
	case "namespace_definition", "internal_module", "module":
		if w.lang == langPython { // Python's root node is a module too
			return
		}
		w.add(n, nil, decl{Kind: declContainer, Keyword: "namespace", Names: nonEmpty(w.fieldText(n, "name"))})

	// Python.
	case "class_definition":
		w.add(n, nil, decl{Kind: declType, Keyword: "class", Names: nonEmpty(w.fieldText(n, "name"))})
	case "expression_statement":
		// A module-level assignment: NAME = value.
		if p := n.Parent(); w.lang != langPython || p == nil || p.Kind() != "module" {
			return
		}
		a := n.NamedChild(0)
		if a == nil || a.Kind() != "assignment" {
			return
		}
		if left := a.ChildByFieldName("left"); left != nil && left.Kind() == "identifier" {
			w.add(n, nil, decl{Kind: declValue, Names: []string{w.text(left)}})
		}

	// JavaScript and TypeScript.
	case "function_declaration", "generator_function_declaration":
		w.add(n, nil, decl{Kind: declFunc, Keyword: "function", Names: nonEmpty(w.fieldText(n, "name"))})
	case "class_declaration", "abstract_class_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "class", Names: nonEmpty(w.fieldText(n, "name"))})
	case "method_definition":
		w.add(n, nil, decl{Kind: declFunc, Keyword: "method", Names: nonEmpty(w.fieldText(n, "name"))})
	case "public_field_definition", "field_definition":
		name := w.fieldText(n, "name")
		if name == "" {
			name = w.fieldText(n, "property")
		}
		if v := n.ChildByFieldName("value"); v != nil && isFunctionValue(v.Kind()) && name != "" {
			w.add(n, nil, decl{Kind: declFunc, Keyword: "method", Names: []string{name}})
		}
	case "variable_declarator":
		w.variable(n)
	case "interface_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "interface", Names: nonEmpty(w.fieldText(n, "name"))})
	case "type_alias_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "type", Names: nonEmpty(w.fieldText(n, "name"))})
	case "enum_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "enum", Names: nonEmpty(w.fieldText(n, "name"))})

	// Rust.
	case "function_item":
		w.add(n, nil, decl{Kind: declFunc, Keyword: "fn", Names: nonEmpty(w.fieldText(n, "name"))})
	case "struct_item", "enum_item", "union_item", "trait_item", "type_item":
		name := w.fieldText(n, "name")
		kw := strings.TrimSuffix(kind, "_item")
		w.add(n, nil, decl{Kind: declType, Keyword: kw, Names: nonEmpty(name), Qual: name})
	case "impl_item":
		typ := w.fieldText(n, "type")
		sym := "impl " + typ
		if tr := w.fieldText(n, "trait"); tr != "" {
			sym = "impl " + tr + " for " + typ
		}
		q := typ
		if k := strings.Index(q, "<"); k >= 0 {
			q = q[:k]
		}
		w.add(n, nil, decl{Kind: declType, Keyword: "impl", Qual: lastPart(q), Symbol: sym})
	case "const_item", "static_item":
		w.add(n, nil, decl{Kind: declValue, Keyword: strings.TrimSuffix(kind, "_item"), Names: nonEmpty(w.fieldText(n, "name"))})
	case "macro_definition":
		w.add(n, nil, decl{Kind: declValue, Keyword: "macro_rules!", Names: nonEmpty(w.fieldText(n, "name"))})
	case "mod_item":
		if n.ChildByFieldName("body") != nil {
			w.add(n, nil, decl{Kind: declContainer, Keyword: "mod", Names: nonEmpty(w.fieldText(n, "name"))})
		}

	// Java.
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		w.add(n, nil, decl{Kind: declFunc, Keyword: "method", Names: nonEmpty(w.fieldText(n, "name"))})
	case "record_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "record", Names: nonEmpty(w.fieldText(n, "name"))})
	case "annotation_type_declaration":
		w.add(n, nil, decl{Kind: declType, Keyword: "@interface", Names: nonEmpty(w.fieldText(n, "name"))})
	}
}

func isFunctionValue(kind string) bool {
	switch kind {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// variable handles a JavaScript or TypeScript variable: a function bound to a name anywhere
// is a function; any other variable is a definition only at the top of a module.
func (w *tsWalker) variable(n *ts.Node) {
	nameNode := n.ChildByFieldName("name")
	if nameNode == nil || nameNode.Kind() != "identifier" {
		return
	}
	name := w.text(nameNode)
	stmt := n.Parent() // lexical_declaration or variable_declaration
	if v := n.ChildByFieldName("value"); v != nil && isFunctionValue(v.Kind()) {
		w.add(n, stmt, decl{Kind: declFunc, Keyword: "function", Names: []string{name}})
		return
	}
	if stmt == nil {
		return
	}
	top := stmt.Parent()
	if top != nil && top.Kind() == "export_statement" {
		top = top.Parent()
	}
	if top == nil || top.Kind() != "program" {
		return
	}
	kw := ""
	if first := stmt.Child(0); first != nil {
		kw = w.text(first)
	}
	w.add(n, stmt, decl{Kind: declValue, Keyword: kw, Names: []string{name}})
}
