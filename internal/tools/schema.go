package tools

import (
	"encoding/json"
	"fmt"

	"github.com/council-dev/council/internal/provider"
)

// Tools returns the definitions of the five tools, to send with every request of the
// conversation. They are the same for every Box with the same Limits, so that they stay part
// of the cached prompt prefix.
func (b *Box) Tools() []provider.Tool {
	revProp := `"rev": {"type": "string", "enum": ["head", "base"], "description": "head: the code with the change applied (default). base: the code before the change."}`
	return []provider.Tool{
		{
			Name: ReadFile,
			Description: fmt.Sprintf("Read a file of the repository under review, at the change's head (default) or base. "+
				"Lines come numbered as \"  12 | code\". Give start_line and end_line (1-based, inclusive) to read part of a file; "+
				"without them the whole file is returned, cut after %d bytes, and files over %d bytes need a range. "+
				"Paths are relative to the repository root (internal/x/y.go). Directories, binary files, symbolic links and "+
				"submodules are refused. Vendored dependencies (vendor/...) are part of the repository and read here too; "+
				"for a Go dependency that is not vendored, use read_dependency. "+
				"Use it to check code the diff calls, changes or depends on before reporting a finding.",
				b.l.MaxBytes, b.l.MaxFileBytes),
			InputSchema: schema(`{
				"type": "object",
				"properties": {
					"path": {"type": "string", "description": "File path relative to the repository root, e.g. internal/tools/tools.go."},
					"start_line": {"type": "integer", "minimum": 1, "description": "First line to read (1-based). Default 1."},
					"end_line": {"type": "integer", "minimum": 1, "description": "Last line to read, inclusive. Default: the end of the file."},
					` + revProp + `
				},
				"required": ["path"],
				"additionalProperties": false
			}`),
		},
		{
			Name: Grep,
			Description: fmt.Sprintf("Search the repository's text files at head (default) or base with git grep -E. "+
				"The pattern is a POSIX extended regular expression: use [0-9] not \\d, [[:space:]] or \\s, \\w, \\b; "+
				"no (?i), (?:...), lazy quantifiers or backreferences. Answers \"path:line: text\", at most %d matches. "+
				"path_glob limits the files, as a .gitignore line would: a glob without a slash matches a file or directory "+
				"name at any depth (\"helper.go\", \"*.go\", \"testdata\"); a glob with a slash is matched from the repository "+
				"root, where ** crosses directories and * does not (\"internal/**/*_test.go\", \"cmd/*.go\"), and a path "+
				"without wildcards (\"internal/tools\", \"./Makefile\") matches it and everything under it. The answer says "+
				"when no file matches path_glob. Long lines are cut, saying how many characters are left out. Use it to find "+
				"callers, definitions and other uses of what the diff changes.", MaxGrepMatches),
			InputSchema: schema(`{
				"type": "object",
				"properties": {
					"pattern": {"type": "string", "description": "POSIX extended regular expression, e.g. func +Load\\( or ErrNotFound."},
					"path_glob": {"type": "string", "description": "Optional glob of the files to search, e.g. helper.go or *.go (in any directory), internal/tools or internal/** (under that directory), cmd/*.go."},
					` + revProp + `
				},
				"required": ["pattern"],
				"additionalProperties": false
			}`),
		},
		{
			Name: ListFiles,
			Description: fmt.Sprintf("List the files under a directory of the repository, recursively, at head (default) "+
				"or base: one path per line, relative to the repository root, at most %d (list a subdirectory for more). "+
				"Without dir, lists the whole repository.", MaxListed),
			InputSchema: schema(`{
				"type": "object",
				"properties": {
					"dir": {"type": "string", "description": "Directory relative to the repository root, e.g. internal/source. Default: the root."},
					` + revProp + `
				},
				"additionalProperties": false
			}`),
		},
		{
			Name: GitLog,
			Description: fmt.Sprintf("List the most recent commits that touched a file or directory, as of the change's head: "+
				"short SHA, date, author and subject, newest first, at most %d. Use it to see whether code is new, "+
				"recently reworked, or long-standing.", MaxLogEntries),
			InputSchema: schema(fmt.Sprintf(`{
				"type": "object",
				"properties": {
					"path": {"type": "string", "description": "File or directory relative to the repository root; \".\" for the whole repository."},
					"max": {"type": "integer", "minimum": 1, "maximum": %d, "description": "How many commits, default %d."}
				},
				"required": ["path"],
				"additionalProperties": false
			}`, MaxLogEntries, defaultLog)),
		},
		{
			Name: ReadDependency,
			Description: fmt.Sprintf("Read the source of a Go dependency at the version the repository's go.mod pins at head "+
				"(following replace directives to other modules), from this machine's module cache, when its checksum is the "+
				"one go.sum pins. A version the cache lacks is downloaded through the Go module proxy where council may "+
				"download; where it may not, the answer says so. Give the module (or a package path inside it) and a path inside the module: "+
				"a file is returned numbered like read_file (cut after %d bytes; give start_line and end_line for part of it), "+
				"a directory or no path lists its files. With pattern, searches the file or every file under the directory "+
				"for a Go RE2 regular expression instead and answers \"path:line: text\", at most %d matches. Vendored "+
				"dependencies are in the repository: read them with read_file. Use it when a finding hinges on what a "+
				"dependency's function or type does.", b.l.MaxBytes, MaxGrepMatches),
			InputSchema: schema(`{
				"type": "object",
				"properties": {
					"module": {"type": "string", "description": "Module path as go.mod requires it, e.g. github.com/jackc/pgx/v5; a package path inside it (github.com/jackc/pgx/v5/pgconn) works too."},
					"path": {"type": "string", "description": "File or directory inside the module, relative to its root, e.g. pgconn/pgconn.go. Default: the module's root, listed."},
					"start_line": {"type": "integer", "minimum": 1, "description": "First line to read (1-based). Default 1."},
					"end_line": {"type": "integer", "minimum": 1, "description": "Last line to read, inclusive. Default: the end of the file."},
					"pattern": {"type": "string", "description": "Optional: search path for this Go RE2 regular expression instead of reading it, e.g. func \\(\\*Conn\\) Close."}
				},
				"required": ["module"],
				"additionalProperties": false
			}`),
		},
	}
}

// schema compacts a literal JSON Schema; a literal that does not parse is a bug caught by the
// tests.
func schema(s string) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(fmt.Sprintf("tools: bad schema literal: %v", err))
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tools: bad schema literal: %v", err))
	}
	return out
}
