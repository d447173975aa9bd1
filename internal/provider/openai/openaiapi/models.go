package openaiapi

import "github.com/council-dev/council/internal/provider"

// Model is what the fake and the offline checks know of a model the service serves.
type Model struct {
	// MaxOutput is the most completion tokens the model produces (max_completion_tokens, or
	// max_tokens, may not ask for more); 0 when no published figure was found, and then the
	// limit is not checked.
	MaxOutput int
}

// Models maps a model name to what is known of it. A dated snapshot ("gpt-4o-2024-08-06")
// takes its family's entry.
type Models map[string]Model

// Lookup finds model's entry (see provider.MatchModel).
func (ms Models) Lookup(model string) (Model, bool) { return provider.MatchModel(ms, model) }

// KnownModels is the table of OpenAI's models council prices, with their maximum output
// tokens from each model's page (https://platform.openai.com/docs/models/<model>), or the
// limit the service states in its own error. A model whose limit no source gave has
// MaxOutput 0: known to exist, limit unchecked.
func KnownModels() Models {
	return Models{
		"gpt-4o":       {MaxOutput: 16384},
		"gpt-4o-mini":  {MaxOutput: 16384},
		"gpt-4.1":      {MaxOutput: 32768},
		"gpt-4.1-mini": {MaxOutput: 32768},
		"gpt-4.1-nano": {MaxOutput: 32768},
		"o1":           {},
		"o3":           {MaxOutput: 100000},
		"o3-mini":      {},
		"o4-mini":      {MaxOutput: 100000},
		"gpt-5":        {MaxOutput: 128000},
		"gpt-5-mini":   {MaxOutput: 128000},
		"gpt-5-nano":   {MaxOutput: 128000},
		"gpt-5.1":      {MaxOutput: 128000},
		"gpt-5.2":      {MaxOutput: 128000},
		"gpt-5.4":      {MaxOutput: 128000},
		"gpt-5.4-mini": {},
	}
}
