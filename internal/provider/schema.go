package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CheckToolSchema reports why a tool's input schema would be refused, or nil: it must be a JSON
// object of type "object" that compiles as JSON Schema draft 2020-12 (what Anthropic checks
// every tool against; OpenAI refuses invalid function parameters the same way). Nothing is
// loaded from the network: a $ref outside the schema fails.
func CheckToolSchema(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return errors.New("not a JSON object")
	}
	if obj["type"] != "object" {
		return fmt.Errorf(`type is %v, want "object"`, obj["type"])
	}
	const loc = "urn:council:tool-schema"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return err
	}
	if _, err := c.Compile(loc); err != nil {
		// The library's error names our made-up location; the schema's own path is what helps.
		return errors.New(strings.ReplaceAll(err.Error(), loc, "schema"))
	}
	return nil
}

// noLoader refuses every external reference: a tool schema must stand alone.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not allowed", url)
}

// MatchModel finds model's entry in a table keyed by model name: the exact name, else the
// longest name that model extends at a '-', '@' or ':' boundary, so that a dated or tagged
// name ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06", "qwen2.5-coder:32b") takes its
// family's entry and "gpt-5.4" never takes "gpt-5"'s.
func MatchModel[T any](table map[string]T, model string) (T, bool) {
	if v, ok := table[model]; ok {
		return v, true
	}
	best := ""
	for name := range table {
		if len(name) <= len(best) || len(name) >= len(model) || !strings.HasPrefix(model, name) {
			continue
		}
		switch model[len(name)] {
		case '-', '@', ':':
			best = name
		}
	}
	if best == "" {
		var zero T
		return zero, false
	}
	return table[best], true
}
