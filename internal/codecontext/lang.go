package codecontext

import (
	"go/token"
	"go/types"
	"path"
	"strings"
)

// language is what a file is parsed as, chosen by its extension.
type language int

const (
	langUnknown language = iota
	langGo
	langC
	langCPP
	langPython
	langJS
	langTS
	langTSX
	langRust
	langJava
)

var languageNames = [...]string{"unknown", "Go", "C", "C++", "Python", "JavaScript", "TypeScript", "TSX", "Rust", "Java"}

func (l language) String() string { return languageNames[l] }

// languageOf picks the language from a path's extension. A .h header is read as C++: the C++
// grammar parses C headers too, and the C grammar does not parse C++ ones.
func languageOf(p string) language {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return langGo
	case ".c":
		return langC
	case ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp":
		return langCPP
	case ".py", ".pyi":
		return langPython
	case ".js", ".jsx", ".mjs", ".cjs":
		return langJS
	case ".ts", ".mts", ".cts":
		return langTS
	case ".tsx":
		return langTSX
	case ".rs":
		return langRust
	case ".java":
		return langJava
	}
	return langUnknown
}

// family groups the languages whose files can define each other's names: a C file uses what
// a header declares, a TypeScript file imports JavaScript. Definitions are searched only in
// files of the same family, and not at all for unknown languages.
func (l language) family() language {
	switch l {
	case langC, langCPP:
		return langC
	case langJS, langTS, langTSX:
		return langJS
	}
	return l
}

// braces reports whether blocks are delimited by braces (everything but Python).
func (l language) braces() bool { return l != langPython }

// memberSep joins a type and a member in a symbol: Store::reserve or Store.reserve.
func (l language) memberSep() string {
	switch l {
	case langCPP, langRust:
		return "::"
	}
	return "."
}

// ignored reports whether a name is too short, a keyword or a builtin of the language, and so
// never worth a definition.
func ignored(l language, name string) bool {
	if len(name) < 3 {
		return true
	}
	if commonWords[name] {
		return true
	}
	switch l.family() {
	case langGo:
		return token.IsKeyword(name) || types.Universe.Lookup(name) != nil
	case langC:
		return cWords[name]
	case langPython:
		return pythonWords[name]
	case langJS:
		return jsWords[name]
	case langRust:
		return rustWords[name]
	case langJava:
		return javaWords[name]
	}
	return false
}

func wordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// commonWords are keywords or builtins in most of the languages.
var commonWords = wordSet(`
	for while break continue return else switch case default true false null nil this self
	class struct enum interface import package public private protected static const final
	new delete try catch throw throws finally async await yield void bool int char
`)

var cWords = wordSet(`
	auto double extern float goto inline long register restrict short signed sizeof typedef
	union unsigned volatile size_t ssize_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t
	int32_t int64_t uintptr_t intptr_t NULL printf fprintf sprintf snprintf malloc calloc realloc
	free memcpy memset memmove strlen strcmp strncmp strcpy strncpy assert stderr stdout stdin
	errno bool_t define ifdef ifndef endif include pragma elif undef
	namespace template typename using virtual override operator friend explicit mutable noexcept
	nullptr constexpr decltype std string vector unique_ptr shared_ptr make_unique make_shared
	move begin end size push_back emplace_back cout cerr endl
`)

var pythonWords = wordSet(`
	and as assert def del elif except from global if in is lambda nonlocal not or pass raise
	with None True False print len range str bytes dict list set tuple float isinstance
	issubclass super object type open enumerate zip map filter sorted reversed min max sum abs
	any all iter next getattr setattr hasattr repr hash format Exception ValueError TypeError
	KeyError IndexError RuntimeError StopIteration cls kwargs args __init__ __name__ __main__
`)

var jsWords = wordSet(`
	var let function typeof instanceof in of do with debugger export extends implements super
	undefined NaN Infinity arguments constructor get set from as type declare readonly abstract
	keyof infer never unknown any number string boolean symbol bigint object console log Object
	Array String Number Boolean Promise Map Set Error JSON Math Date RegExp Symbol require module
	exports window document then length push`)

var rustWords = wordSet(`
	as crate dyn extern impl in let loop match mod move mut pub ref Self super trait type
	unsafe use where fn Some None Ok Err Option Result Vec String Box Rc Arc str usize isize u8
	u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 println eprintln format vec panic unwrap expect
	clone into iter collect Default Debug Clone Copy derive`)

var javaWords = wordSet(`
	abstract boolean byte double extends float implements instanceof long native short
	strictfp super synchronized transient volatile var record String Object Integer Long List Map
	Set HashMap ArrayList Override Exception RuntimeException System out println equals hashCode
	toString`)
