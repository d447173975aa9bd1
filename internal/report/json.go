package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"

	"github.com/council-dev/council/internal/finding"
)

// Schema is the JSON Schema (draft 2020-12) of the document WriteJSON writes. Every field is
// described and every object is closed, so a field added to a type here without documenting
// it fails the package's tests.
//
//go:embed schema.json
var Schema []byte

// WriteJSON writes r as an indented JSON document. The output depends on r alone: the
// schema version is always SchemaVersion, lists that are nil are written as [] rather than
// null so that consumers need not tell the two apart, and a finding with no side is written
// with the default, RIGHT.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Bodies and suggestions are Markdown and code; \u003c in place of < helps nobody.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.normalized()); err != nil {
		return fmt.Errorf("write report json: %w", err)
	}
	return nil
}

// normalized returns a copy of r in the document's canonical form. It never writes through
// to r's slices.
func (r Report) normalized() Report {
	r.SchemaVersion = SchemaVersion
	r.Change.Files = orEmpty(r.Change.Files)

	findings := make([]finding.Finding, len(r.Findings))
	for i, f := range r.Findings {
		f.Lenses = orEmpty(f.Lenses)
		if f.Side == "" {
			f.Side = finding.Right
		}
		findings[i] = f
	}
	r.Findings = findings

	reviewers := make([]Reviewer, len(r.Reviewers))
	for i, rv := range r.Reviewers {
		rv.Focus = orEmpty(rv.Focus)
		given := make([]GivenFile, len(rv.Given))
		for j, g := range rv.Given {
			g.Hunks = orEmpty(g.Hunks)
			given[j] = g
		}
		rv.Given = given
		rv.Examined = orEmpty(rv.Examined)
		reviewers[i] = rv
	}
	r.Reviewers = reviewers

	instructions := make([]Instruction, len(r.Instructions))
	for i, in := range r.Instructions {
		in.AppliesTo = orEmpty(in.AppliesTo)
		instructions[i] = in
	}
	r.Instructions = instructions
	r.Context.Snippets = orEmpty(r.Context.Snippets)

	r.Coverage.Reviewed = orEmpty(r.Coverage.Reviewed)
	r.Coverage.Skipped = orEmpty(r.Coverage.Skipped)
	units := make([]Unit, len(r.Coverage.Units))
	for i, u := range r.Coverage.Units {
		u.Files = orEmpty(u.Files)
		units[i] = u
	}
	r.Coverage.Units = units

	if r.Usage.Stages == nil {
		r.Usage.Stages = map[string]float64{}
	}
	return r
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
