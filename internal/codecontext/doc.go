// Package codecontext is the pipeline's "context" stage for code: it finds what a reviewer
// needs to see beyond the hunks of a change, and cuts it to a token budget.
//
//   - Enclosing declarations: for every hunk, the function, method or type around its added
//     lines at head and around its deleted lines at base, whole, unless the hunks already show
//     all of it; a declaration longer than 200 lines, or than an eighth of the budget, shows
//     its signature and a window around the change, and says so. Two hunks in one declaration
//     give one snippet, and the base version of a declaration whose head version is shown is
//     left out.
//   - Definitions: the names the added lines use, then those only the unchanged lines of the
//     hunks use (not keywords, builtins, locals or names shorter than three characters), whose
//     definitions the prompt does not show yet: looked up in the same file, then, for C and C++, the headers the file includes (and theirs),
//     then the same directory (the package in Go), then, in Go, the packages of the module
//     the file imports, and for other languages a bounded scan of the repository, files the
//     changed file imports first. A Go field or method is linked only on its operand's type,
//     followed through fields and method results (nothing when that type is another
//     module's), or when the code does not say, on the one type that has such a member, but
//     never when the operand is the result of a call the code does not resolve: such chains
//     are how code reaches other modules' APIs (clientset.CoreV1().Pods(ns).Get) (gomember.go);
//     the keys of a struct literal are fields of the literal's type.
//
// The budget (Options.BudgetTokens, see Budget) is spent small definitions before large ones
// (pack.go): the enclosing declarations first but leaving a reserve, then the small
// definitions, most used first, then the large ones, as signature and window before whole;
// the definitions an added line uses before those only unchanged lines use, which are looked
// up last and say so in their reason ("used at a.go:12 (unchanged)").
//
// Go is parsed exactly with go/parser. C, C++, Python, JavaScript, TypeScript, Rust and Java
// are parsed with tree-sitter when the package is built with cgo; without cgo, and for any
// other language, a line heuristic (heuristicOutline) finds the declarations instead.
//
// Nothing is dropped silently: a file not parsed (binary, too large, unreadable), a snippet
// over the budget, a name not looked up because of the read limit, a Go member not linked
// because several types have it and a failed search for names are listed in Result.Omitted
// with the reason; a snippet cut to a window says which lines it shows in its own reason.
//
// The package never writes anything, never runs a command, and never reads the file system,
// the network or the environment: every byte it sees comes through the Source it is given.
// A Source that is also a Finder (*source.Git, with git grep) tells which files hold the names
// looked up, in one search for the directories the lookups will visit, so that only those
// files are read: the definitions of a small change are found in a repository of any size.
// Its work is bounded: each file is read at most once, and the definition search reads at
// most maxSearchReads files beyond the changed ones, or with a Finder maxFoundReads files that
// hold a name looked up.
package codecontext
