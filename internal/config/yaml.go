package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Error is a bad configuration value: a key that is unknown, of the wrong type, missing or out
// of range, in a config or reviewer file. Callers branch on it with errors.As (it maps to the
// "bad config" exit code).
type Error struct {
	File   string // the source the document was read from, e.g. ".council.yaml"
	Line   int    // 1-based; 0 when the key is not in the file (a missing required key)
	Column int    // 1-based; 0 when Line is 0
	Key    string // the key path, e.g. "budget.max_usd", "paths.exclude[1]"; empty for syntax errors
	Msg    string // what is wrong, with the allowed values where there is a list of them
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Document is one YAML document, parsed so that it can be decoded strictly and so that a value
// found wrong after decoding can be reported at the line of its key. Reviewer files (lenses and
// personas) use it too, so that every configuration mistake reads the same way.
type Document struct {
	source string
	body   ast.Node // nil for an empty document
}

// ParseYAML parses data, read from source, as a single YAML document. A syntax error, a
// duplicate key or a second document is an *Error.
func ParseYAML(source string, data []byte) (d *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, &Error{File: source, Msg: fmt.Sprintf("cannot parse this YAML (parser panic: %v)", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, fromYAMLError(source, err)
	}
	d = &Document{source: source}
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if _, ok := doc.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		if d.body != nil {
			tk := doc.Start // the "---" that began it
			if tk == nil {
				tk = doc.Body.GetToken()
			}
			e := &Error{File: source, Msg: "more than one YAML document (a second \"---\"); expected one"}
			if tk != nil {
				e.Line, e.Column = tk.Position.Line, tk.Position.Column
			}
			return nil, e
		}
		d.body = doc.Body
	}
	return d, nil
}

// Empty reports whether the document has no content (an empty file or only comments).
func (d *Document) Empty() bool { return d.body == nil }

// Decode decodes the document into v, a pointer to a struct whose fields carry yaml tags.
// Fields the document does not mention, or sets to null, keep the value v already has, so
// defaults can be filled in before. Unlike a plain yaml.Unmarshal it rejects every key the
// struct does not have (listing the allowed ones), every value of the wrong type (1.5 for an
// integer, a list for a string), aliases and merge keys, each as an *Error at its line.
func (d *Document) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode %s: need a non-nil pointer, got %T", d.source, v)
	}
	if d.body == nil {
		return nil
	}
	if err := d.check(d.body, rv.Type().Elem(), nil); err != nil {
		return err
	}
	return d.decode(v)
}

// decode runs goccy's decoder on a document check has accepted. check rejects what goccy
// would; this still names the file if goccy disagrees, and turns a panic inside goccy (it has
// had several on odd input) into an error rather than a crash of the run.
func (d *Document) decode(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{File: d.source, Msg: fmt.Sprintf("cannot decode this YAML (decoder panic: %v)", r)}
		}
	}()
	if err := yaml.NodeToValue(d.body, v, yaml.Strict()); err != nil {
		return fromYAMLError(d.source, err)
	}
	return nil
}

// ErrorAt returns an *Error with msg for the value at key, a path of mapping keys (string) and
// list indexes (int). It is placed where the document has that value: at the value itself when
// it is a scalar or a list (the thing that is wrong), at its key when it is a mapping; with no
// line when the document lacks the key.
func (d *Document) ErrorAt(msg string, key ...any) *Error {
	e := &Error{File: d.source, Key: keyString(key), Msg: msg}
	if tk := d.find(key); tk != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
	return e
}

// find returns the token to report a problem with the value at path at, or nil: the value
// itself when it is a scalar or a list, else its key (for a list index, the item).
func (d *Document) find(path []any) *token.Token {
	n := d.body
	var at *token.Token
	for _, seg := range path {
		n = unwrap(n)
		switch s := seg.(type) {
		case string:
			m, ok := n.(*ast.MappingNode)
			if !ok {
				return nil
			}
			var next ast.Node
			for _, mv := range m.Values {
				if k, ok := keyName(mv.Key); ok && k == s {
					next, at = mv.Value, mv.Key.GetToken()
					break
				}
			}
			if next == nil {
				return nil
			}
			n = next
		case int:
			sq, ok := n.(*ast.SequenceNode)
			if !ok || s < 0 || s >= len(sq.Values) {
				return nil
			}
			n = sq.Values[s]
			at = n.GetToken()
		default:
			return nil
		}
	}
	switch v := unwrap(n).(type) {
	case nil, *ast.MappingNode, *ast.NullNode:
	default:
		if tk := v.GetToken(); tk != nil && at != nil {
			at = tk
		}
	}
	return at
}

// check walks the node against the Go type it will be decoded into.
func (d *Document) check(n ast.Node, t reflect.Type, path []any) error {
	if a, ok := n.(*ast.AnchorNode); ok {
		n = a.Value
	}
	if _, ok := n.(*ast.AliasNode); ok {
		return d.errAt(n, path, "aliases (*name) are not supported; write the value out")
	}
	strTag := false
	if tg, ok := n.(*ast.TagNode); ok {
		// Only !!str is useful in a config ("model: !!str 4"); other tags would let the document
		// pick how a value is decoded, and goccy panics on some of them.
		if tg.Start == nil || tg.Start.Value != "!!str" || tg.Value == nil {
			return d.errAt(n, path, "YAML tags other than !!str are not supported")
		}
		strTag = true
		n = tg.Value
		if a, ok := n.(*ast.AnchorNode); ok {
			n = a.Value
		}
	}
	if n == nil {
		return nil
	}
	if _, ok := n.(*ast.NullNode); ok {
		return nil // null keeps the current (default) value
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := n.(*ast.MappingNode)
		if !ok {
			return d.errAt(n, path, "must be a mapping ("+describe(n)+")")
		}
		fields := structFields(t)
		for _, mv := range m.Values {
			name, err := d.checkKey(mv, path)
			if err != nil {
				return err
			}
			f, ok := fields.byName[name]
			if !ok {
				return d.errAt(mv.Key, appendKey(path, name),
					"unknown key (allowed: "+strings.Join(fields.names, ", ")+")")
			}
			if err := d.check(mv.Value, f.Type, appendKey(path, name)); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := n.(*ast.MappingNode)
		if !ok {
			return d.errAt(n, path, "must be a mapping ("+describe(n)+")")
		}
		for _, mv := range m.Values {
			name, err := d.checkKey(mv, path)
			if err != nil {
				return err
			}
			if err := d.check(mv.Value, t.Elem(), appendKey(path, name)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		sq, ok := n.(*ast.SequenceNode)
		if !ok {
			return d.errAt(n, path, "must be a list ("+describe(n)+")")
		}
		for i, item := range sq.Values {
			if err := d.check(item, t.Elem(), appendKey(path, i)); err != nil {
				return err
			}
		}
	case reflect.String:
		switch n.(type) {
		case *ast.StringNode, *ast.LiteralNode:
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
			if !strTag {
				return d.errAt(n, path, "must be a string ("+describe(n)+"; quote it)")
			}
		default:
			return d.errAt(n, path, "must be a string ("+describe(n)+")")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		in, ok := n.(*ast.IntegerNode)
		if !ok {
			return d.errAt(n, path, "must be an integer ("+describe(n)+")")
		}
		var v int64
		switch x := in.Value.(type) {
		case int64:
			v = x
		case uint64:
			if x > math.MaxInt64 {
				return d.errAt(n, path, "integer out of range (got "+in.Token.Value+")")
			}
			v = int64(x)
		}
		if reflect.Zero(t).OverflowInt(v) {
			return d.errAt(n, path, "integer out of range (got "+in.Token.Value+")")
		}
	case reflect.Float32, reflect.Float64:
		switch n.(type) {
		case *ast.IntegerNode, *ast.FloatNode:
		case *ast.InfinityNode, *ast.NanNode:
			return d.errAt(n, path, "must be a finite number ("+describe(n)+")")
		default:
			return d.errAt(n, path, "must be a number ("+describe(n)+")")
		}
	case reflect.Bool:
		if _, ok := n.(*ast.BoolNode); !ok {
			return d.errAt(n, path, "must be true or false ("+describe(n)+")")
		}
	default:
		return fmt.Errorf("check %s: unsupported Go type %s at %s", d.source, t, keyString(path))
	}
	return nil
}

// checkKey returns the name of a mapping entry's key, rejecting what is not a plain string.
func (d *Document) checkKey(mv *ast.MappingValueNode, path []any) (string, error) {
	if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
		return "", d.errAt(mv.Key, path, "merge keys (<<) are not supported; write the keys out")
	}
	name, ok := keyName(mv.Key)
	if !ok {
		return "", d.errAt(mv.Key, path, "keys must be plain strings (got "+mv.Key.String()+")")
	}
	if strings.TrimSpace(name) == "" {
		return "", d.errAt(mv.Key, path, "keys must not be empty")
	}
	return name, nil
}

func (d *Document) errAt(n ast.Node, path []any, msg string) *Error {
	e := &Error{File: d.source, Key: keyString(path), Msg: msg}
	if tk := n.GetToken(); tk != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
	return e
}

func unwrap(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.TagNode:
			n = x.Value
		default:
			return n
		}
	}
}

// keyName is the text of a scalar mapping key; numbers and booleans count, as YAML allows them
// as keys and goccy decodes them as strings into a map[string]T.
func keyName(k ast.MapKeyNode) (string, bool) {
	switch x := unwrap(k).(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return x.GetToken().Value, true
	}
	return "", false
}

// describe says what a node is, for "must be a number (got string "abc")".
func describe(n ast.Node) string {
	switch x := n.(type) {
	case *ast.StringNode:
		return "got string " + strconv.Quote(clip(x.Value))
	case *ast.LiteralNode:
		return "got a block of text"
	case *ast.IntegerNode:
		return "got integer " + x.Token.Value
	case *ast.FloatNode:
		return "got " + x.Token.Value
	case *ast.InfinityNode, *ast.NanNode:
		return "got " + x.GetToken().Value
	case *ast.BoolNode:
		return "got " + x.Token.Value
	case *ast.MappingNode:
		return "got a mapping"
	case *ast.SequenceNode:
		return "got a list"
	}
	return "got " + strings.ToLower(n.Type().String())
}

func clip(s string) string {
	const limit = 60
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

type fieldSet struct {
	byName map[string]reflect.StructField
	names  []string // in declaration order, for "allowed: ..."
}

func structFields(t reflect.Type) fieldSet {
	fs := fieldSet{byName: map[string]reflect.StructField{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name) // goccy's default
		}
		fs.byName[name] = f
		fs.names = append(fs.names, name)
	}
	return fs
}

func appendKey(path []any, seg any) []any {
	return append(path[:len(path):len(path)], seg)
}

// keyString renders a key path as budget.max_usd, paths.exclude[1] or prices."gpt-4.1".input.
func keyString(path []any) string {
	var b strings.Builder
	for i, seg := range path {
		switch s := seg.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		default:
			name := fmt.Sprint(s)
			if i > 0 {
				b.WriteByte('.')
			}
			if name == "" || strings.ContainsAny(name, ".[] \t\"") {
				name = strconv.Quote(name)
			}
			b.WriteString(name)
		}
	}
	return b.String()
}

// fromYAMLError turns a goccy error (syntax, duplicate key) into an *Error.
func fromYAMLError(source string, err error) error {
	e := &Error{File: source, Msg: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		e.Msg = ye.GetMessage()
		if tk := ye.GetToken(); tk != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
	}
	return e
}
