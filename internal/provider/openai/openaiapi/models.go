package openaiapi

import "github.com/council-dev/council/internal/provider"

// Model is what the fake and the offline checks know of a model the service serves.
type Model struct {
	// MaxOutput is the most completion tokens the model produces (max_completion_tokens, or
	// max_tokens, may not ask for more); 0 when no published figure was found, and then the
	// limit is not checked.
	MaxOutput int
	// ToolsNeedNoReasoning: Chat Completions takes function tools only with reasoning_effort
	// "none" ("Chat Completions supports function calling only when reasoning_effort is set to
	// none", https://developers.openai.com/api/docs/models/gpt-6-sol; "GPT-6 Sol and GPT-6 Luna
	// support function calling in Chat Completions only with reasoning_effort: \"none\"",
	// https://developers.openai.com/api/docs/guides/deployment-checklist). The effort defaults
	// to medium, so a request that leaves it out is refused too.
	ToolsNeedNoReasoning bool
	// ToolsNeedResponses: function tools only through the Responses API, whatever the effort
	// ("GPT-6 Astra and GPT-6.1 Sol require Responses for tool calling",
	// https://developers.openai.com/api/docs/guides/deployment-checklist; gpt-6.2-sol: "Use it
	// with the Responses API to call tools", https://developers.openai.com/api/docs/models/gpt-6.2-sol).
	ToolsNeedResponses bool
	// NoneEffortRefused: reasoning_effort "none" is refused ("The API rejects requests that set
	// reasoning effort to `none`", https://developers.openai.com/api/docs/models/gpt-6.2-sol).
	NoneEffortRefused bool
	// Shutdown is the day OpenAI stops serving a deprecated model (YYYY-MM-DD, as
	// https://developers.openai.com/api/docs/deprecations lists it); "" when none is announced.
	// The models endpoint reports it as shutdown_date (the same page), and after it the service
	// answers as for a model it never served.
	Shutdown string
}

// Models maps a model name to what is known of it. A dated snapshot ("gpt-4o-2024-08-06")
// takes its family's entry.
type Models map[string]Model

// Lookup finds model's entry (see provider.MatchModel).
func (ms Models) Lookup(model string) (Model, bool) { return provider.MatchModel(ms, model) }

// KnownModels is the table of OpenAI's models council prices, with their maximum output
// tokens from each model's page (https://platform.openai.com/docs/models/<model>, now
// https://developers.openai.com/api/docs/models/<model>), or the limit the service states in
// its own error. A model whose limit no source gave has MaxOutput 0: known to exist, limit
// unchecked.
func KnownModels() Models {
	return Models{
		// Deprecated: gpt-4o, gpt-4o-mini, gpt-4.1 and gpt-4.1-mini shut down on 2027-01-14,
		// gpt-5, gpt-5-mini and gpt-5-nano on 2026-12-11 (Shutdown's page).
		"gpt-4o":       {MaxOutput: 16384, Shutdown: "2027-01-14"},
		"gpt-4o-mini":  {MaxOutput: 16384, Shutdown: "2027-01-14"},
		"gpt-4.1":      {MaxOutput: 32768, Shutdown: "2027-01-14"},
		"gpt-4.1-mini": {MaxOutput: 32768, Shutdown: "2027-01-14"},
		"gpt-4.1-nano": {MaxOutput: 32768},
		"o1":           {},
		"o3":           {MaxOutput: 100000},
		"o3-mini":      {},
		"o4-mini":      {MaxOutput: 100000},
		"gpt-5":        {MaxOutput: 128000, Shutdown: "2026-12-11"},
		"gpt-5-mini":   {MaxOutput: 128000, Shutdown: "2026-12-11"},
		"gpt-5-nano":   {MaxOutput: 128000, Shutdown: "2026-12-11"},
		"gpt-5.1":      {MaxOutput: 128000},
		"gpt-5.2":      {MaxOutput: 128000},
		"gpt-5.4":      {MaxOutput: 128000},
		"gpt-5.4-mini": {},
		// GPT-6: "128,000 max output tokens" (https://developers.openai.com/api/docs/models/gpt-6.2-sol
		// and .../gpt-6-sol), 128K for each of the others (https://developers.openai.com/api/docs/models
		// and its ko-KR copy). Tools on Chat Completions: see the flags' comments.
		// gpt-6.1-terra's tool rule has no official source found (only a third party says it
		// calls tools through Responses only), so it is left unflagged: what the service does
		// with it is unknown.
		"gpt-6-luna":    {MaxOutput: 128000, ToolsNeedNoReasoning: true},
		"gpt-6-sol":     {MaxOutput: 128000, ToolsNeedNoReasoning: true},
		"gpt-6.1-terra": {MaxOutput: 128000},
		"gpt-6-astra":   {MaxOutput: 128000, ToolsNeedResponses: true},
		"gpt-6.1-sol":   {MaxOutput: 128000, ToolsNeedResponses: true},
		"gpt-6.2-sol":   {MaxOutput: 128000, ToolsNeedResponses: true, NoneEffortRefused: true},
		// gpt-6.2-astra: Responses for tools as its sibling gpt-6.2-sol; "Don't set effort to
		// none: the API rejects it", quoting its page
		// (https://developers.openai.com/api/docs/models/gpt-6.2-astra), from a third party:
		// https://dev.to/hassann/how-to-use-gpt-62-astra-api-3j9l.
		"gpt-6.2-astra": {MaxOutput: 128000, ToolsNeedResponses: true, NoneEffortRefused: true},
	}
}
