package config

import (
	"errors"
	"testing"
)

// FuzzParse feeds random bytes to Parse: it must never panic, and every error must be an
// *Error naming the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(fullConfig))
	f.Add([]byte("budget:\n  max_usd: -1\n"))
	f.Add([]byte("reviewers:\n  security: { model: *m }\n"))
	f.Add([]byte("- a\n---\n- b\n"))
	f.Add([]byte("paths: {include: ['**/[a-']}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(".council.yaml", data)
		if err == nil {
			return
		}
		var ce *Error
		if !errors.As(err, &ce) || ce.File != ".council.yaml" {
			t.Fatalf("error %T %v is not an *Error naming the file", err, err)
		}
	})
}
