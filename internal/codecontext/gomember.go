package codecontext

import (
	"bytes"
	"errors"
	"path"
	"slices"
	"strings"
)

// A Go field or method is linked to a definition only on the type of its selector's operand,
// or, when the code does not say what that type is, on the one type that has a member of that
// name: never on one of several, and never on a guess when the operand is the result of a call
// (x.Client().Get, v, err := f(); err.Error): calls are how code reaches other modules' APIs,
// and client-go's Pods(ns).Get is not this module's only Get. The type is worked out as a
// reader of the code would, without a type checker: a receiver, parameter or variable declared
// with its type, a variable given a composite literal, &T{}, new(T), x.(T), a conversion or
// the (first) result of a package-level function (whose declaration names its result type), a
// package-level variable likewise, and fields and method results followed from there
// (s.buf.put: the type of s's field buf; s.Store().Get: the result type of s's method Store),
// including fields and methods a struct promotes from the types it embeds. A type of another
// module anywhere on the way, or a member missing from a struct that embeds one, means the
// member is not this module's.

// maxEmbedDepth bounds how deep promoted members are looked for.
const maxEmbedDepth = 3

// goPkg is a Go package whose files a member lookup reads: a directory, and which of its
// files belong (the package clause of the use's own package and its test files when the use
// is a test; any non-test package elsewhere).
type goPkg struct {
	dir   string
	name  string // the package clause required; "" for any that is not an external test
	tests bool   // _test.go files belong
}

func (b *builder) usePkg(use *file) goPkg {
	p := goPkg{dir: path.Dir(use.path), tests: strings.HasSuffix(use.path, "_test.go")}
	if use.gof != nil {
		p.name = use.gof.pkg
	}
	return p
}

// pkgOf is the package an import path names, seen from the package from: the same for "",
// false for a package outside the module.
func (b *builder) pkgOf(importPath string, from goPkg) (goPkg, bool) {
	if importPath == "" {
		return from, true
	}
	dir := b.moduleDir(importPath)
	return goPkg{dir: dir}, dir != ""
}

// goFiles calls visit for each file of pkg that holds one of needles, the use's own file
// first, then in the order orderFor gives for hint, until visit returns true. The read limit
// stops it and marks lk cut.
func (b *builder) goFiles(lk *lookup, use *file, pkg goPkg, hint string, needles []string, visit func(*file) bool) error {
	all, err := b.searchList(pkg.dir, needles)
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range all {
		if path.Dir(p) != pkg.dir || p == use.path || languageOf(p) != langGo {
			continue
		}
		if strings.HasSuffix(p, "_test.go") && !pkg.tests {
			continue
		}
		paths = append(paths, p)
	}
	paths = orderFor(paths, hint, nil, pkg.dir)
	if pkg.dir == path.Dir(use.path) {
		paths = append([]string{use.path}, paths...)
	}
	for _, p := range paths {
		f, err := b.load(SideHead, p, true)
		if errors.Is(err, errReadLimit) {
			lk.cut = true
			return nil
		}
		if err != nil {
			return err
		}
		if f.skip != "" || !slices.ContainsFunc(needles, func(n string) bool { return bytes.Contains(f.data, []byte(n)) }) {
			continue
		}
		b.outline(f)
		if g := f.gof; g != nil {
			if pkg.name != "" && g.pkg != pkg.name || pkg.name == "" && strings.HasSuffix(g.pkg, "_test") {
				continue
			}
		}
		if visit(f) {
			return nil
		}
	}
	return nil
}

// goMember looks up a Go field or method: on the operand's type when resolveRecv works it
// out (nothing, when that type is outside the module), else on the one type of the use's
// package, or of the module's packages its file imports, that has a member of that name.
func (b *builder) goMember(lk *lookup) error {
	use := b.files[fileKey{SideHead, lk.key.path}]
	own := b.usePkg(use)
	if r := lk.key.recv; r.kind != recvUnknown {
		t, err := b.resolveRecv(lk, use, r, own, 0)
		if err != nil || lk.cut {
			return err
		}
		switch {
		case t.outside:
			lk.done = true // a type of another module, the standard library or a builtin
			return nil
		case t.name != "":
			mh, err := b.memberOf(lk, use, t.pkg, t.name, lk.key.name, 0)
			if err != nil {
				return err
			}
			if mh.found {
				lk.hits, lk.done = []defHit{mh.h}, true
				return nil
			}
			if mh.typeSeen || lk.cut {
				lk.done = !lk.cut // the type is known and has no such member: nothing to link
				return nil
			}
		}
	}
	if lk.key.recv.fromCall() {
		lk.done = true // the result of a call the code does not resolve: not guessed
		return nil
	}
	owners, err := b.owners(lk, use, own)
	if err != nil {
		return err
	}
	if len(owners) == 0 && use.gof != nil {
		var dirs []string
		for _, ip := range use.gof.imports {
			if d := b.moduleDir(ip); d != "" && d != own.dir && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			o, err := b.owners(lk, use, goPkg{dir: d})
			if err != nil {
				return err
			}
			owners = append(owners, o...)
		}
	}
	switch {
	case len(owners) == 1:
		lk.hits, lk.done = owners[0].hits, true
	case len(owners) > 1:
		lk.ambiguous, lk.done = true, true
	}
	return nil
}

// owner is a type that has a member of some name, and the declarations that define it.
type owner struct {
	dir, typ string
	hits     []defHit
}

// owners lists the types of pkg that have a field, an interface method or a method named as
// lk looks up, reading every file of the package that holds the name.
func (b *builder) owners(lk *lookup, use *file, pkg goPkg) ([]owner, error) {
	name := lk.key.name
	var out []owner
	add := func(typ string, h defHit) {
		for i := range out {
			if out[i].typ == typ {
				out[i].hits = append(out[i].hits, h)
				return
			}
		}
		out = append(out, owner{dir: pkg.dir, typ: typ, hits: []defHit{h}})
	}
	err := b.goFiles(lk, use, pkg, name, []string{name}, func(f *file) bool {
		for _, d := range f.decls {
			switch {
			case d.Method && len(d.Names) > 0 && d.Names[0] == name && d.Recv != "":
				add(d.Recv, b.hit(use, f, d))
			case !d.Method && d.Kind == declType && len(d.Names) > 0:
				if _, ok := d.Members[name]; ok {
					add(d.Names[0], b.hit(use, f, d))
				}
			}
		}
		return false
	})
	return out, err
}

// hit is a definition found in f for a use in use's file.
func (b *builder) hit(use, f *file, d decl) defHit {
	loc := elsewhere
	switch {
	case f.path == use.path:
		loc = sameFile
	case path.Dir(f.path) == path.Dir(use.path):
		loc = sameDir
	}
	return defHit{path: f.path, d: d, locality: loc}
}

// resolved is the type resolveRecv worked out: a type of the module (name and package), or
// one outside it; neither when the code does not say.
type resolved struct {
	name    string
	pkg     goPkg
	outside bool
}

// resolveRecv works out the type a recvRef names, following variables, function results and
// fields through their declarations.
func (b *builder) resolveRecv(lk *lookup, use *file, r recvRef, from goPkg, depth int) (resolved, error) {
	if depth > maxRefDepth {
		return resolved{}, nil
	}
	pkg, ok := b.pkgOf(r.pkg, from)
	if !ok {
		return resolved{outside: true}, nil
	}
	var t typeRef
	switch r.kind {
	case recvType:
		t = typeRef{Name: r.name}
	case recvFunc, recvVar:
		h, found, err := b.topDecl(lk, use, pkg, r.name, func(d decl) bool {
			if r.kind == recvFunc { // a function, or a conversion to a type
				return (d.Kind == declFunc || d.Kind == declType) && !d.Method && slices.Contains(d.Names, r.name)
			}
			_, ok := d.Vars[r.name]
			return d.Kind == declValue && ok
		})
		if err != nil || !found {
			return resolved{}, err
		}
		if h.d.Kind == declType {
			t = typeRef{Name: r.name}
			break
		}
		if r.kind == recvVar {
			v := h.d.Vars[r.name]
			if r.chain != "" {
				v.chain = strings.Trim(v.chain+"."+r.chain, ".")
			}
			return b.resolveRecv(lk, use, v, pkg, depth+1)
		}
		if t = h.d.Result; t.Name == "" {
			return resolved{}, nil
		}
		if pkg, ok = b.pkgOf(t.Pkg, pkg); !ok {
			return resolved{outside: true}, nil
		}
	default:
		return resolved{}, nil
	}
	if r.chain != "" {
		for _, step := range strings.Split(r.chain, ".") {
			name, call := strings.CutSuffix(step, "()")
			mh, err := b.memberOf(lk, use, pkg, t.Name, name, 0)
			switch {
			case err != nil:
				return resolved{}, err
			case !mh.found && mh.external:
				return resolved{outside: true}, nil // promoted, most likely, from a type of another module
			case !mh.found || call != (mh.m.Kind == "method") || mh.m.Type.Name == "":
				return resolved{}, nil
			}
			next, ok := b.pkgOf(mh.m.Type.Pkg, mh.m.pkg)
			if !ok {
				return resolved{outside: true}, nil
			}
			t, pkg = mh.m.Type, next
		}
	}
	return resolved{name: t.Name, pkg: pkg}, nil
}

// topDecl finds the package-level declaration of name in pkg that want accepts.
func (b *builder) topDecl(lk *lookup, use *file, pkg goPkg, name string, want func(decl) bool) (defHit, bool, error) {
	var h defHit
	found := false
	err := b.goFiles(lk, use, pkg, name, []string{name}, func(f *file) bool {
		for _, d := range f.decls {
			if want(d) {
				h, found = b.hit(use, f, d), true
				return true
			}
		}
		return false
	})
	return h, found, err
}

// foundMember is a member found on a type, and the package of the declaration that holds it,
// against which the import path of its type is read.
type foundMember struct {
	member
	pkg goPkg
}

// memberHit is what memberOf found: the declaration that defines the member and the member;
// or, when not found, whether the type's declaration was seen at all and whether it embeds a
// type of another module, which may be where the member comes from.
type memberHit struct {
	h                         defHit
	m                         foundMember
	found, typeSeen, external bool
}

// memberOf finds name on the type typ of pkg: a field or interface method of its declaration,
// a method with that receiver, or either promoted from a type it embeds.
func (b *builder) memberOf(lk *lookup, use *file, pkg goPkg, typ, name string, depth int) (memberHit, error) {
	var mh memberHit
	var td *defHit
	err := b.goFiles(lk, use, pkg, typ, []string{typ}, func(f *file) bool {
		for _, d := range f.decls {
			switch {
			case d.Method && d.Recv == typ && len(d.Names) > 0 && d.Names[0] == name:
				mh.h, mh.m, mh.found = b.hit(use, f, d), foundMember{member{Line: d.Sig, Kind: "method", Type: d.Result}, pkg}, true
				return true
			case !d.Method && d.Kind == declType && slices.Contains(d.Names, typ):
				if td == nil {
					x := b.hit(use, f, d)
					td = &x
				}
				if mm, ok := d.Members[name]; ok {
					mh.h, mh.m, mh.found = b.hit(use, f, d), foundMember{mm, pkg}, true
					return true
				}
			}
		}
		return false
	})
	mh.typeSeen = mh.found || td != nil
	if err != nil || mh.found || td == nil || depth >= maxEmbedDepth {
		return mh, err
	}
	for _, e := range td.d.Embeds {
		epkg, ok := b.pkgOf(e.Pkg, pkg)
		if !ok {
			mh.external = true
			continue
		}
		eh, err := b.memberOf(lk, use, epkg, e.Name, name, depth+1)
		if err != nil || eh.found {
			eh.typeSeen = true
			return eh, err
		}
		mh.external = mh.external || eh.external
	}
	return mh, nil
}
