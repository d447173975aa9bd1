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
	// NoForcedTool: the model refuses tool_choice "any" and "tool" with a 400; only "auto" and
	// "none" are allowed
	// (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported,
	// and https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5, which says the
	// same of Claude Fable 5.1; https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows
	// adds Claude Mythos 5.1). Fable 5.2 and Mythos 5.2 are inferred: their page
	// (https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2) lists no change
	// to it since 5.1.
	NoForcedTool bool
	// Thinks: adaptive thinking is on by default, so an answer may begin with thinking blocks
	// (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide, "Thinking runs by
	// default": on for the 5.x models, off for Claude Sonnet 4.6 and the 4.5 models; the
	// models overview lists Fable 5.1 and the 5.5 models as adaptive). Where a forced tool is
	// accepted, thinking is skipped and the answer starts with the tool call
	// (https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows).
	Thinks bool
	// Retired: the model is past its retirement date and requests to it fail
	// (https://platform.claude.com/docs/en/about-claude/model-deprecations: "Requests to retired
	// models will fail"). The service answers as it does for a model it never served.
	Retired bool
}

// Models maps a model name to what is known of it. A dated snapshot or alias
// ("claude-sonnet-4-5-20250929", "claude-3-5-haiku-latest") takes its family's entry.
type Models map[string]Model

// Lookup finds model's entry (see provider.MatchModel).
func (ms Models) Lookup(model string) (Model, bool) { return provider.MatchModel(ms, model) }

// KnownModels is the table of the models the Messages API serves, and of those it served and
// has retired (Retired, refused as unknown). The output limits are each model's page
// (https://platform.claude.com/docs/en/models/<model>/overview, summed up in
// https://platform.claude.com/docs/en/about-claude/models/overview), or, for the older models
// those pages no longer cover, the limit the service states in its own error. The models that
// refuse a prefill are those the 4.6 and later migration guides name; the flags NoForcedTool,
// Thinks and Retired cite their pages on Model. A model whose limit no source gave has
// MaxTokens 0: known to exist, limit unchecked.
func KnownModels() Models {
	const k128, k64 = 128000, 64000
	// The newest generation: thinking always on, no forced tool use.
	newest := Model{MaxTokens: k128, NoPrefill: true, NoForcedTool: true, Thinks: true}
	thinks := Model{MaxTokens: k128, NoPrefill: true, Thinks: true}
	return Models{
		"claude-fable-5-2":  newest,
		"claude-mythos-5-2": newest,
		"claude-fable-5-1":  newest,
		"claude-mythos-5-1": newest,
		"claude-opus-5-5":   newest,
		"claude-sonnet-5-5": newest,
		"claude-haiku-5-5":  thinks, // forced tool use accepted (https://platform.claude.com/docs/en/models/haiku-5-5/whats-new-haiku-5-5)
		"claude-fable-5":    thinks,
		"claude-mythos-5":   thinks,
		"claude-opus-5":     thinks,
		"claude-sonnet-5":   thinks,
		"claude-opus-4-8":   {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-7":   {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-6":   {MaxTokens: k128, NoPrefill: true},
		"claude-sonnet-4-6": {MaxTokens: k128, NoPrefill: true},
		"claude-opus-4-5":   {MaxTokens: k64},
		"claude-haiku-4-5":  {MaxTokens: k64},
		// Claude Opus 4 and 4.1 are retired only by third-party accounts: still served here.
		"claude-opus-4-1": {},
		"claude-opus-4":   {},
		"claude-opus-4-0": {},
		"claude-3-opus":   {},
		// Retired: Sonnet 4.5 on 2026-11-30
		// (https://platform.claude.com/docs/en/models/sonnet-4-5/overview, "retires on November
		// 30, 2026"), the others earlier (the Sonnet 5.5 and Haiku 5.5 migration guides).
		"claude-sonnet-4-5": {MaxTokens: k64, Retired: true},
		"claude-sonnet-4":   {Retired: true},
		"claude-sonnet-4-0": {Retired: true},
		"claude-3-7-sonnet": {Retired: true},
		"claude-3-5-sonnet": {MaxTokens: 8192, Retired: true},
		"claude-3-5-haiku":  {Retired: true},
		"claude-3-haiku":    {Retired: true},
	}
}
