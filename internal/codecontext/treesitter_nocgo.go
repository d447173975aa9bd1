//go:build !cgo

package codecontext

// outline lists the declarations of a file in a language other than Go. Without cgo there is
// no tree-sitter, so it is always heuristicOutline.
func outline(l language, src []byte) []decl { return heuristicOutline(l, src) }
