package anthropicapi

import "github.com/council-dev/council/internal/provider"

// Model is what the fake and the offline checks know of a model the service serves.
type Model struct {
	// MaxTokens is the largest max_tokens the model takes (its maximum output); 0 when no
	// published figure was found, and then the limit is not checked.
	MaxTokens int
	// NoPrefill: the model refuses a conversation that ends with an assistant turn
	// (https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6#prefill-removal).
	NoPrefill bool
}

// Models maps a model name to what is known of it. A dated snapshot or alias
// ("claude-sonnet-4-5-20250929", "claude-3-5-haiku-latest") takes its family's entry.
type Models map[string]Model

// Lookup finds model's entry (see provider.MatchModel).
func (ms Models) Lookup(model string) (Model, bool) { return provider.MatchModel(ms, model) }

// KnownModels is the table of models the Messages API serves. The output limits are each
// model's page (https://platform.claude.com/docs/en/models/<model>/overview, summed up in
// https://platform.claude.com/docs/en/about-claude/models/overview), or, for the older models
// those pages no longer cover, the limit the service states in its own error. The models that
// refuse a prefill are those the 4.6 and later migration guides name. A model whose limit no
// source gave has MaxTokens 0: known to exist, limit unchecked.
func KnownModels() Models {
	const k128, k64 = 128000, 64000
	return Models{
		"claude-opus-5-5":   {MaxTokens: k128, NoPrefill: true},
		"claude-sonnet-5-5": {MaxTokens: k128, NoPrefill: true},
		"claude-haiku-5-5":  {MaxTokens: k128, NoPrefill: true},
		"claude-opus-5":     {MaxTokens: k128, NoPrefill: true},
		"claude-sonnet-5":   {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-8":   {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-7":   {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-6":   {MaxTokens: k128, NoPrefill: true},
		"claude-sonnet-4-6": {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-5":   {MaxTokens: k64},
		"claude-sonnet-4-5": {MaxTokens: k64},
		"claude-haiku-4-5":  {MaxTokens: k64},
		"claude-opus-4-1":   {},
		"claude-opus-4":     {},
		"claude-opus-4-0":   {},
		"claude-sonnet-4":   {},
		"claude-sonnet-4-0": {},
		"claude-3-7-sonnet": {},
		"claude-3-5-sonnet": {MaxTokens: 8192},
		"claude-3-5-haiku":  {},
		"claude-3-haiku":    {},
		"claude-3-opus":     {},
	}
}
