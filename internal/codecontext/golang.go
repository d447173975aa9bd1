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
	if r := f.Type.Results; r != nil && len(r.List) > 0 {
		d.Result = g.typeRefOf(r.List[0].Type)
	}
	return d
}

// recvTypeName is the name of a receiver's type: Store for *Store or *List[T].
func recvTypeName(t ast.Expr) string {
	if x, ok := namedType(t).(*ast.Ident); ok {
		return x.Name
	}
	return ""
}

// namedType strips what wraps a type's name: *T, (T), T[int] and T[K, V] give T.
func namedType(t ast.Expr) ast.Expr {
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
		default:
			return t
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
			}
			d.Members, d.Embeds = g.members(ts.Type)
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
		var vars map[string]recvRef
		for _, s := range gd.Specs {
			vs, ok := s.(*ast.ValueSpec)
			if !ok {
				continue
			}
			var sn []string
			for i, n := range vs.Names {
				if n.Name == "_" {
					continue
				}
				sn = append(sn, n.Name)
				if gd.Tok != token.VAR {
					continue
				}
				var r recvRef
				switch {
				case vs.Type != nil:
					r = typeRecv(g.typeRefOf(vs.Type))
				case len(vs.Values) == len(vs.Names):
					r = g.valueRef(vs.Values[i], noLocals, 0)
				}
				if r.kind != recvUnknown {
					if vars == nil {
						vars = make(map[string]recvRef)
					}
					vars[n.Name] = r
				}
			}
			names = append(names, sn...)
			if len(sn) > 0 {
				specs = append(specs, decl{
					Kind: declValue, Keyword: kw, Names: sn, Symbol: kw + " " + strings.Join(sn, ", "),
					Start: g.startLine(vs.Doc, vs.Pos()), Sig: g.line(vs.Pos()), SigEnd: g.line(vs.Pos()),
					End: g.line(vs.End()), Vars: vars,
				})
			}
		}
		whole := decl{
			Kind: declValue, Keyword: kw, Names: names, Symbol: groupSymbol(kw, names),
			Start: g.startLine(gd.Doc, gd.Pos()), Sig: g.line(gd.Pos()), End: g.line(gd.End()), Vars: vars,
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

// members lists the fields of a struct type (an embedded field under its type's name) and
// the methods of an interface type, and the types either embeds.
func (g *goFile) members(t ast.Expr) (map[string]member, []typeRef) {
	var list *ast.FieldList
	kind := "field"
	switch t := t.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list, kind = t.Methods, "method"
	}
	if list == nil {
		return nil, nil
	}
	m := make(map[string]member)
	var embeds []typeRef
	for _, f := range list.List {
		ref := g.typeRefOf(f.Type)
		if len(f.Names) == 0 {
			if ref.Name != "" {
				embeds = append(embeds, ref)
				if kind == "field" {
					m[ref.Name] = member{Line: g.line(f.Pos()), Kind: kind, Type: ref}
				}
			}
			continue
		}
		for _, n := range f.Names {
			mm := member{Line: g.line(n.Pos()), Kind: kind, Type: ref}
			if ft, ok := f.Type.(*ast.FuncType); ok && kind == "method" {
				mm.Type = typeRef{}
				if ft.Results != nil && len(ft.Results.List) > 0 {
					mm.Type = g.typeRefOf(ft.Results.List[0].Type)
				}
			}
			m[n.Name] = mm
		}
	}
	return m, embeds
}

// builtinPkg is the import path typeRefOf gives a predeclared type (error, string): a type
// outside the module, whose members are nothing to look up.
const builtinPkg = "builtin"

// typeRefOf names the type a type expression spells: T, *T, T[int] and pkg.T (pkg resolved to
// its import path), error as a type of builtinPkg; the zero typeRef for an unnamed type.
func (g *goFile) typeRefOf(t ast.Expr) typeRef {
	switch x := namedType(t).(type) {
	case *ast.Ident:
		if types.Universe.Lookup(x.Name) != nil {
			return typeRef{Name: x.Name, Pkg: builtinPkg}
		}
		return typeRef{Name: x.Name}
	case *ast.SelectorExpr:
		p, ok := x.X.(*ast.Ident)
		if !ok {
			return typeRef{}
		}
		ip, ok := g.imports[p.Name]
		if !ok {
			return typeRef{}
		}
		return typeRef{Name: x.Sel.Name, Pkg: ip}
	default:
		return typeRef{}
	}
}

// recvKind says what a recvRef names.
type recvKind int

const (
	recvUnknown recvKind = iota // the code does not say
	recvType                    // a type
	recvFunc                    // the first result of a package-level function
	recvVar                     // a package-level variable
)

// recvRef is what the code says of the type of a selector's operand, without a type checker:
// a type it spells out, or a package-level function or variable whose declaration does, and
// the fields and method results followed from there (s.buf.put: the type of field buf of s's
// type; s.Client().Get: the result type of s's method Client). pkg is the import path of the
// package that declares name, "" for the package of the code that says it. call marks an
// operand the code does not say the type of, that is the result of a call (x().Get,
// v, err := f(); err.Error): such a chain is how code reaches another module's API, so its
// members are never linked on a guess.
type recvRef struct {
	kind  recvKind
	name  string
	pkg   string
	chain string // field names and method calls ("Client()"), dot-separated
	call  bool
}

// fromCall reports whether the operand is the result of a call: its type is known only once
// that call is resolved.
func (r recvRef) fromCall() bool {
	return r.call || r.kind == recvFunc || strings.Contains(r.chain, "()")
}

func typeRecv(t typeRef) recvRef {
	if t.Name == "" {
		return recvRef{}
	}
	return recvRef{kind: recvType, name: t.Name, pkg: t.Pkg}
}

// maxRefDepth bounds how far valueRef follows local variables (x := y; y := x.next).
const maxRefDepth = 8

// localVar is a name a function declares: the type it is declared with, or the value it is
// first assigned; neither when the code does not say or says two different things. call marks
// a later result of a call (err in v, err := f()), whose type the code does not say.
type localVar struct {
	typ, val ast.Expr
	call     bool
	key      string
}

// env looks up the names local to the function being read.
type env func(name string) (*localVar, bool)

func noLocals(string) (*localVar, bool) { return nil, false }

// valueRef works out what the code says of the type of a value expression: a variable (local
// or package-level), a composite literal, &T{...}, new(T), x.(T), a call of a package-level
// function, or a field of one of those.
func (g *goFile) valueRef(e ast.Expr, locals env, depth int) recvRef {
	if depth > maxRefDepth {
		return recvRef{}
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return g.valueRef(x.X, locals, depth+1)
	case *ast.StarExpr:
		return g.valueRef(x.X, locals, depth+1)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return g.valueRef(x.X, locals, depth+1)
		}
	case *ast.CompositeLit:
		if x.Type != nil {
			return typeRecv(g.localType(x.Type, locals))
		}
	case *ast.TypeAssertExpr:
		if x.Type != nil {
			return typeRecv(g.localType(x.Type, locals))
		}
	case *ast.CallExpr:
		switch f := x.Fun.(type) {
		case *ast.Ident:
			if _, isLocal := locals(f.Name); isLocal {
				return recvRef{call: true}
			}
			if f.Name == "new" && len(x.Args) == 1 {
				return typeRecv(g.localType(x.Args[0], locals))
			}
			if types.Universe.Lookup(f.Name) != nil {
				return recvRef{call: true}
			}
			return recvRef{kind: recvFunc, name: f.Name}
		case *ast.SelectorExpr:
			if p, ok := f.X.(*ast.Ident); ok {
				if ip, isImport := g.imports[p.Name]; isImport {
					if _, isLocal := locals(p.Name); !isLocal {
						return recvRef{kind: recvFunc, name: f.Sel.Name, pkg: ip}
					}
				}
			}
			// x.M(): the result of a method of x's type.
			r := g.valueRef(f.X, locals, depth+1)
			if r.kind == recvUnknown {
				return recvRef{call: true}
			}
			r.chain = strings.TrimPrefix(r.chain+"."+f.Sel.Name+"()", ".")
			return r
		}
		return recvRef{call: true}
	case *ast.Ident:
		if lv, isLocal := locals(x.Name); isLocal {
			switch {
			case lv.call:
				return recvRef{call: true}
			case lv.typ != nil:
				return typeRecv(g.localType(lv.typ, locals))
			case lv.val != nil:
				return g.valueRef(lv.val, locals, depth+1)
			}
			return recvRef{}
		}
		if _, isImport := g.imports[x.Name]; isImport || types.Universe.Lookup(x.Name) != nil {
			return recvRef{}
		}
		return recvRef{kind: recvVar, name: x.Name}
	case *ast.SelectorExpr:
		if p, ok := x.X.(*ast.Ident); ok {
			if ip, isImport := g.imports[p.Name]; isImport {
				if _, isLocal := locals(p.Name); !isLocal {
					return recvRef{kind: recvVar, name: x.Sel.Name, pkg: ip}
				}
			}
		}
		r := g.valueRef(x.X, locals, depth+1)
		if r.kind == recvUnknown {
			return r
		}
		if r.chain != "" {
			r.chain += "."
		}
		r.chain += x.Sel.Name
		return r
	}
	return recvRef{}
}

// localType is typeRefOf, except that a type declared in the function (or one of its type
// parameters) is not named: it is nothing a package-level search can find.
func (g *goFile) localType(t ast.Expr, locals env) typeRef {
	r := g.typeRefOf(t)
	if r.Pkg == "" && r.Name != "" {
		if _, isLocal := locals(r.Name); isLocal {
			return typeRef{}
		}
	}
	return r
}

// litKind is what the keys of a composite literal are.
type litKind int

const (
	litUnknown litKind = iota // a literal whose type the code does not name here
	litStruct                 // fields of a named type
	litAnon                   // fields of a struct type spelled out in place, nothing to look up
	litKeyed                  // map keys or array indices: expressions like any other
)

// litType is the type of the composite literal at stack[i], and what its keys are: T{...},
// &T{...}, or an element whose type is elided ([]T{{...}}, map[K]T{k: {...}}).
func (g *goFile) litType(stack []ast.Node, i int, locals env) (recvRef, litKind) {
	t := stack[i].(*ast.CompositeLit).Type
	if t == nil {
		var ok bool
		if t, ok = elidedType(stack, i); !ok {
			return recvRef{}, litUnknown
		}
	}
	for {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
		case *ast.StarExpr:
			t = x.X
		case *ast.StructType:
			return recvRef{}, litAnon
		case *ast.MapType, *ast.ArrayType:
			return recvRef{}, litKeyed
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			r := typeRecv(g.localType(t, locals))
			if r.kind == recvUnknown {
				return r, litUnknown
			}
			return r, litStruct
		default:
			return recvRef{}, litUnknown
		}
	}
}

// elidedType is the element type of the literal holding the literal at stack[i], whose own
// type is elided; false when that type is not spelled out there (a named slice type).
func elidedType(stack []ast.Node, i int) (ast.Expr, bool) {
	j := i - 1
	isKey := false
	if j >= 0 {
		if kv, ok := stack[j].(*ast.KeyValueExpr); ok {
			isKey = kv.Key == stack[i]
			j--
		}
	}
	if j < 0 {
		return nil, false
	}
	outer, ok := stack[j].(*ast.CompositeLit)
	if !ok {
		return nil, false
	}
	t := outer.Type
	if t == nil {
		if t, ok = elidedType(stack, j); !ok {
			return nil, false
		}
	}
	for {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
		case *ast.ArrayType:
			return x.Elt, true
		case *ast.MapType:
			if isKey {
				return x.Key, true
			}
			return x.Value, true
		default:
			return nil, false
		}
	}
}

// uses finds the names the given lines of a Go file use and that may be defined elsewhere:
// identifiers that are not declared by those lines, not local to the function around them,
// not builtins; selectors, which name a field or method (s.mu, with what the code says of s's
// type) or something of another package of the module (store.Open); and the keys of struct
// literals, fields of the literal's type. A key of a literal whose type is not named here
// (an anonymous struct, an elided type of a named slice) is no use: it names a field of that
// type and nothing else. lines are the lines to read (the hunk's lines at head, true for the
// added ones: the caller tells the uses apart). moduleDir maps an import path to its directory
// in the repository, or "" for a package outside it, whose names are not looked up.
func (g *goFile) uses(filePath string, lines map[int]bool, moduleDir func(string) string) []use {
	declaring := declaringIdents(g.file)
	locals := make(map[*ast.FuncDecl]map[string]*localVar)
	var out []use
	var stack []ast.Node
	inModule := func(r recvRef) bool { return r.pkg == "" || moduleDir(r.pkg) != "" }
	ast.Inspect(g.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || declaring[id] || len(id.Name) < 3 {
			return true
		}
		if _, in := lines[g.line(id.Pos())]; !in {
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
		local := env(noLocals)
		if fn != nil {
			local = func(name string) (*localVar, bool) {
				if locals[fn] == nil {
					locals[fn] = localNames(fn)
				}
				lv, ok := locals[fn][name]
				return lv, ok
			}
		}
		u := use{name: id.Name, path: filePath, line: g.line(id.Pos())}
		switch p := parent.(type) {
		case *ast.SelectorExpr:
			if p.Sel == id {
				if x, isIdent := p.X.(*ast.Ident); isIdent {
					if ip, isImport := g.imports[x.Name]; isImport {
						if _, isLocal := local(x.Name); !isLocal {
							// pkg.Name: looked up in pkg, when pkg is part of this module.
							if u.qualDir = moduleDir(ip); u.qualDir != "" {
								u.qualified = true
								out = append(out, u)
							}
							return true
						}
					}
				}
				// x.Name: a field or method of x's type.
				u.member = true
				u.recv = g.valueRef(p.X, local, 0)
				if inModule(u.recv) {
					out = append(out, u)
				}
				return true
			}
			if _, isImport := g.imports[id.Name]; isImport {
				if _, isLocal := local(id.Name); !isLocal {
					return true
				}
			}
		case *ast.KeyValueExpr:
			if _, lit := grand.(*ast.CompositeLit); lit && p.Key == id {
				r, kind := g.litType(stack, len(stack)-3, local)
				switch kind {
				case litStruct:
					if inModule(r) {
						u.member, u.recv = true, r
						out = append(out, u)
					}
					return true
				case litAnon, litUnknown:
					return true
				}
				// A map key or an array index: an expression like any other.
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
// results, variables, constants, types, labels), each with the type it is declared with or
// the value it is first given, where the code spells one out. Scopes are not told apart: a
// name declared in one branch hides a package-level name of the same spelling in another,
// which costs at most a definition not shown, and a name declared twice with different types
// or values has neither, so that its selectors are not linked to the wrong type.
func localNames(fn *ast.FuncDecl) map[string]*localVar {
	m := make(map[string]*localVar)
	add := func(name string, lv localVar) {
		old, seen := m[name]
		switch {
		case !seen:
			m[name] = &lv
		case old.key != lv.key:
			m[name] = &localVar{key: "?"}
		}
	}
	set := func(name string, typ, val ast.Expr) {
		add(name, localVar{typ: typ, val: val, key: localKey(typ, val)})
	}
	fields := func(l *ast.FieldList) {
		if l == nil {
			return
		}
		for _, f := range l.List {
			for _, n := range f.Names {
				set(n.Name, f.Type, nil)
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
				if !ok || id.Name == "_" {
					continue
				}
				var val ast.Expr
				switch {
				case len(n.Rhs) == len(n.Lhs):
					val = n.Rhs[i]
				case len(n.Rhs) == 1:
					switch rhs := n.Rhs[0].(type) {
					case *ast.TypeAssertExpr: // v, ok := x.(T)
						if i == 0 {
							val = rhs
						}
					case *ast.CallExpr: // v, err := f(): v is its first result
						if i > 0 {
							add(id.Name, localVar{call: true, key: "call"})
							continue
						}
						val = rhs
					}
				}
				set(id.Name, nil, val)
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						set(id.Name, nil, nil)
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				var val ast.Expr
				if len(n.Values) == len(n.Names) {
					val = n.Values[i]
				}
				set(id.Name, n.Type, val)
			}
		case *ast.TypeSpec:
			set(n.Name.Name, nil, nil)
		case *ast.LabeledStmt:
			set(n.Label.Name, nil, nil)
		}
		return true
	})
	return m
}

// localKey says what a declaration tells of a variable's type, so that two declarations of
// one name can be compared: the type spelled out (var x T, x := &T{}, x := new(T) all say T),
// else the value.
func localKey(typ, val ast.Expr) string {
	if typ == nil && val != nil {
		for {
			switch x := val.(type) {
			case *ast.UnaryExpr:
				if x.Op == token.AND {
					val = x.X
					continue
				}
			case *ast.CompositeLit:
				typ = x.Type
			case *ast.TypeAssertExpr:
				typ = x.Type
			case *ast.CallExpr:
				if f, ok := x.Fun.(*ast.Ident); ok && f.Name == "new" && len(x.Args) == 1 {
					typ = x.Args[0]
				}
			}
			break
		}
	}
	switch {
	case typ != nil:
		return "T" + strings.TrimLeft(types.ExprString(typ), "*")
	case val != nil:
		return "=" + types.ExprString(val)
	}
	return ""
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
