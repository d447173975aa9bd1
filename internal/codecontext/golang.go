package codecontext

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"strconv"
	"strings"
)

// goFile is a parsed Go file.
type goFile struct {
	fset    *token.FileSet
	file    *ast.File
	pkg     string
	imports map[string]string // the name a file uses for an import -> its import path
}

// maxGroupLines is the size up to which a var or const block is shown whole as the definition
// of each of its names (an iota enumeration reads best whole); the specs of a longer block are
// shown one by one.
const maxGroupLines = 30

// parseGo parses src; the error is go/parser's.
func parseGo(name string, src []byte) (*goFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	g := &goFile{fset: fset, file: f, pkg: f.Name.Name, imports: make(map[string]string)}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := importName(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name != "_" && name != "." {
			g.imports[name] = p
		}
	}
	return g, nil
}

// importName guesses the name a package is used by: the last element of its path, skipping a
// major version suffix ("/v2"). That is right for every package of a module that follows the
// usual layout, which is all the lookup needs.
func importName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return base
}

func (g *goFile) line(p token.Pos) int { return g.fset.Position(p).Line }

// outline lists the file's top-level declarations: functions and methods, each type spec,
// and var and const blocks.
func (g *goFile) outline() []decl {
	var out []decl
	for _, d := range g.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out = append(out, g.funcDecl(d))
		case *ast.GenDecl:
			out = append(out, g.genDecl(d)...)
		}
	}
	return finishOutline(langGo, out)
}

func (g *goFile) startLine(doc *ast.CommentGroup, pos token.Pos) int {
	if doc != nil {
		return g.line(doc.Pos())
	}
	return g.line(pos)
}

func (g *goFile) funcDecl(f *ast.FuncDecl) decl {
	d := decl{
		Kind:    declFunc,
		Keyword: "func",
		Names:   []string{f.Name.Name},
		Start:   g.startLine(f.Doc, f.Pos()),
		Sig:     g.line(f.Pos()),
		End:     g.line(f.End()),
		Symbol:  "func " + f.Name.Name,
	}
	d.SigEnd = d.Sig
	if f.Body != nil {
		d.SigEnd = g.line(f.Body.Lbrace)
	}
	if f.Recv != nil && len(f.Recv.List) > 0 {
		t := f.Recv.List[0].Type
		d.Method = true
		d.Recv = recvTypeName(t)
		d.Symbol = fmt.Sprintf("func (%s) %s", types.ExprString(t), f.Name.Name)
	}
	return d
}

// recvTypeName is the name of a receiver's type: Store for *Store or *List[T].
func recvTypeName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func (g *goFile) genDecl(gd *ast.GenDecl) []decl {
	switch gd.Tok {
	case token.TYPE:
		var out []decl
		for _, s := range gd.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			d := decl{
				Kind:    declType,
				Keyword: "type",
				Names:   []string{ts.Name.Name},
				Symbol:  "type " + ts.Name.Name,
				Members: members(g, ts.Type),
			}
			if gd.Lparen.IsValid() {
				d.Start, d.Sig, d.End = g.startLine(ts.Doc, ts.Pos()), g.line(ts.Pos()), g.line(ts.End())
			} else {
				d.Start, d.Sig, d.End = g.startLine(gd.Doc, gd.Pos()), g.line(gd.Pos()), g.line(gd.End())
			}
			d.SigEnd = d.Sig
			out = append(out, d)
		}
		return out
	case token.VAR, token.CONST:
		kw := gd.Tok.String()
		var names []string
		var specs []decl
		for _, s := range gd.Specs {
			vs, ok := s.(*ast.ValueSpec)
			if !ok {
				continue
			}
			var sn []string
			for _, n := range vs.Names {
				if n.Name != "_" {
					sn = append(sn, n.Name)
				}
			}
			names = append(names, sn...)
			if len(sn) > 0 {
				specs = append(specs, decl{
					Kind: declValue, Keyword: kw, Names: sn, Symbol: kw + " " + strings.Join(sn, ", "),
					Start: g.startLine(vs.Doc, vs.Pos()), Sig: g.line(vs.Pos()), SigEnd: g.line(vs.Pos()),
					End: g.line(vs.End()),
				})
			}
		}
		whole := decl{
			Kind: declValue, Keyword: kw, Names: names, Symbol: groupSymbol(kw, names),
			Start: g.startLine(gd.Doc, gd.Pos()), Sig: g.line(gd.Pos()), End: g.line(gd.End()),
		}
		whole.SigEnd = whole.Sig
		if !gd.Lparen.IsValid() || whole.lines() <= maxGroupLines {
			return []decl{whole}
		}
		// A long block is still the enclosing declaration of a hunk inside it, but each name
		// is defined by its own spec.
		whole.Names = nil
		return append([]decl{whole}, specs...)
	}
	return nil
}

func groupSymbol(kw string, names []string) string {
	switch {
	case len(names) == 1:
		return kw + " " + names[0]
	case len(names) <= 3:
		return kw + " (" + strings.Join(names, ", ") + ")"
	case len(names) == 0:
		return kw + " ()"
	}
	return fmt.Sprintf("%s (%s, ... %d more)", kw, strings.Join(names[:2], ", "), len(names)-2)
}

// members lists the fields of a struct type and the methods of an interface type.
func members(g *goFile, t ast.Expr) map[string]member {
	var list *ast.FieldList
	kind := "field"
	switch t := t.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list, kind = t.Methods, "method"
	}
	if list == nil {
		return nil
	}
	m := make(map[string]member)
	for _, f := range list.List {
		for _, n := range f.Names {
			m[n.Name] = member{Line: g.line(n.Pos()), Kind: kind}
		}
	}
	return m
}

// uses finds the names the added lines of a Go file use and that may be defined elsewhere:
// identifiers that are not declared by those lines, not local to the function around them,
// not builtins, and selectors, which name a field or method (s.mu, of s's type when the code
// spells it out) or something of another package of the module (store.Open). moduleDir maps an import path to its directory in the repository, or
// "" for a package outside it, whose names are not looked up.
func (g *goFile) uses(filePath string, added map[int]bool, moduleDir func(string) string) []use {
	declaring := declaringIdents(g.file)
	locals := make(map[*ast.FuncDecl]map[string]ast.Expr)
	var out []use
	var stack []ast.Node
	ast.Inspect(g.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || !added[g.line(id.Pos())] || declaring[id] || len(id.Name) < 3 {
			return true
		}
		var parent, grand ast.Node
		if len(stack) >= 2 {
			parent = stack[len(stack)-2]
		}
		if len(stack) >= 3 {
			grand = stack[len(stack)-3]
		}
		fn := enclosingFunc(stack)
		local := func(name string) (ast.Expr, bool) {
			if fn == nil {
				return nil, false
			}
			if locals[fn] == nil {
				locals[fn] = localNames(fn)
			}
			t, ok := locals[fn][name]
			return t, ok
		}
		u := use{name: id.Name, path: filePath, line: g.line(id.Pos())}
		switch p := parent.(type) {
		case *ast.SelectorExpr:
			if p.Sel == id {
				x, isIdent := p.X.(*ast.Ident)
				if !isIdent {
					u.member = true
					out = append(out, u)
					return true
				}
				t, isLocal := local(x.Name)
				if ip, isImport := g.imports[x.Name]; isImport && !isLocal {
					// pkg.Name: looked up in pkg, when pkg is part of this module.
					if u.qualDir = moduleDir(ip); u.qualDir != "" {
						u.qualified = true
						out = append(out, u)
					}
					return true
				}
				// x.Name: a field or method, of x's type when the code spells it out.
				u.member = true
				if t != nil {
					name, pkg := typeName(t)
					u.recv = name
					if pkg != "" {
						if u.qualDir = moduleDir(g.imports[pkg]); u.qualDir == "" {
							return true // a type of another module
						}
						u.qualified = true
					}
				}
				out = append(out, u)
				return true
			}
			if _, isImport := g.imports[id.Name]; isImport {
				if _, isLocal := local(id.Name); !isLocal {
					return true
				}
			}
		case *ast.KeyValueExpr:
			if _, lit := grand.(*ast.CompositeLit); lit && p.Key == id {
				u.member = true
				out = append(out, u)
				return true
			}
		}
		if _, isLocal := local(id.Name); isLocal || types.Universe.Lookup(id.Name) != nil {
			return true
		}
		out = append(out, u)
		return true
	})
	return out
}

// typeName is the name of a type as written, and the package it is qualified with: Store
// and "" for *Store, Store and "store" for store.Store.
func typeName(t ast.Expr) (name, pkg string) {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.UnaryExpr: // &T{}
			t = x.X
		case *ast.CompositeLit:
			if x.Type == nil {
				return "", ""
			}
			t = x.Type
		case *ast.Ident:
			return x.Name, ""
		case *ast.SelectorExpr:
			if p, ok := x.X.(*ast.Ident); ok {
				return x.Sel.Name, p.Name
			}
			return "", ""
		default:
			return "", ""
		}
	}
}

// enclosingFunc is the function declaration on the stack, if any.
func enclosingFunc(stack []ast.Node) *ast.FuncDecl {
	if len(stack) > 1 {
		if fn, ok := stack[1].(*ast.FuncDecl); ok {
			return fn
		}
	}
	return nil
}

// declaringIdents are the identifiers that declare something rather than use it.
func declaringIdents(f *ast.File) map[*ast.Ident]bool {
	m := map[*ast.Ident]bool{f.Name: true}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil {
				m[id] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Name)
		case *ast.TypeSpec:
			add(n.Name)
		case *ast.ValueSpec:
			add(n.Names...)
		case *ast.Field:
			add(n.Names...)
		case *ast.ImportSpec:
			add(n.Name)
		case *ast.LabeledStmt:
			add(n.Label)
		case *ast.BranchStmt:
			add(n.Label)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		}
		return true
	})
	return m
}

// localNames are the names a function declares anywhere inside it (receiver, parameters,
// results, variables, constants, types, labels), each with its type where the code spells it
// out: a parameter's or a var's type, or the composite literal a := assigns (x := &T{}).
// Scopes are not told apart: a name declared in one branch hides a package-level name of the
// same spelling in another, which costs at most a definition not shown.
func localNames(fn *ast.FuncDecl) map[string]ast.Expr {
	m := make(map[string]ast.Expr)
	fields := func(l *ast.FieldList) {
		if l == nil {
			return
		}
		for _, f := range l.List {
			for _, n := range f.Names {
				m[n.Name] = f.Type
			}
		}
	}
	fields(fn.Recv)
	fields(fn.Type.TypeParams)
	fields(fn.Type.Params)
	fields(fn.Type.Results)
	if fn.Body == nil {
		return m
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			fields(n.Type.Params)
			fields(n.Type.Results)
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				break
			}
			for i, e := range n.Lhs {
				id, ok := e.(*ast.Ident)
				if !ok {
					continue
				}
				var t ast.Expr
				if len(n.Rhs) == len(n.Lhs) {
					switch r := n.Rhs[i].(type) {
					case *ast.CompositeLit, *ast.UnaryExpr:
						t = r
					}
				}
				if _, seen := m[id.Name]; !seen || t != nil {
					m[id.Name] = t
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						m[id.Name] = nil
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				m[id.Name] = n.Type
			}
		case *ast.TypeSpec:
			m[n.Name.Name] = nil
		case *ast.LabeledStmt:
			m[n.Label.Name] = nil
		}
		return true
	})
	return m
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
