package provider

// Price is what a model charges, in USD per million tokens.
type Price struct {
	Input      float64 `json:"input" yaml:"input"`             // uncached input
	Output     float64 `json:"output" yaml:"output"`           // output, reasoning included
	CacheRead  float64 `json:"cache_read" yaml:"cache_read"`   // input read from the prompt cache
	CacheWrite float64 `json:"cache_write" yaml:"cache_write"` // input written to the prompt cache
}

// Prices maps a model name, or the prefix of a family of names, to its price.
type Prices map[string]Price

// anthropicPrice applies Anthropic's prompt-caching multipliers: a 5-minute cache write costs
// 1.25x the input price, a cache read 0.1x.
func anthropicPrice(in, out float64) Price {
	return Price{Input: in, Output: out, CacheRead: in / 10, CacheWrite: in * 1.25}
}

// openAIPrice takes the cached-input price as published: OpenAI's discount differs by family
// (0.5x for gpt-4o and o1, 0.25x for gpt-4.1, o3 and o4-mini, 0.1x for gpt-5 and GPT-6). Up to
// GPT-5 OpenAI did not charge extra to write its cache, so a write costs the input price; the
// GPT-6 models whose pages list "Cache writes" are priced with that figure instead.
func openAIPrice(in, cached, out float64) Price {
	return Price{Input: in, Output: out, CacheRead: cached, CacheWrite: in}
}

// DefaultPrices is the built-in price list, taken from the Anthropic and OpenAI pricing pages
// on 2026-11-30 (standard tier, 5-minute cache, no batch discount). Prices change: the config's
// prices are merged over these (Merge), and a model missing from both has no cost
// (Cost reports false) rather than a guessed one.
func DefaultPrices() Prices {
	return Prices{
		// Anthropic. Retired models (Sonnet 4.5, Sonnet 4, the 3.x models) keep their prices:
		// old recordings replay with them.
		"claude-opus-4":     anthropicPrice(15, 75),
		"claude-opus-4-0":   anthropicPrice(15, 75),
		"claude-opus-4-1":   anthropicPrice(15, 75),
		"claude-opus-4-5":   anthropicPrice(5, 25),
		"claude-opus-4-6":   anthropicPrice(5, 25),
		"claude-opus-4-7":   anthropicPrice(5, 25),
		"claude-opus-4-8":   anthropicPrice(5, 25),
		"claude-opus-5":     anthropicPrice(5, 25),
		"claude-sonnet-4":   anthropicPrice(3, 15),
		"claude-sonnet-4-0": anthropicPrice(3, 15),
		"claude-sonnet-4-5": anthropicPrice(3, 15),
		"claude-sonnet-4-6": anthropicPrice(3, 15),
		"claude-sonnet-5":   anthropicPrice(2, 10), // cache read $0.20
		"claude-haiku-4-5":  anthropicPrice(1, 5),
		"claude-3-7-sonnet": anthropicPrice(3, 15),
		"claude-3-5-sonnet": anthropicPrice(3, 15),
		"claude-3-5-haiku":  anthropicPrice(0.80, 4),
		"claude-3-haiku":    anthropicPrice(0.25, 1.25),
		"claude-3-opus":     anthropicPrice(15, 75),
		// The 5.5 generation reads its cache at 0.05x the input price
		// (https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5: writes $5,
		// reads $0.20). Sonnet 5.5's reads cost "$0.10 USD per million tokens, half the Claude
		// Sonnet 5 rate" (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5
		// and its migration guide); one snapshot of its overview page says $0.20.
		"claude-opus-5-5":   {Input: 4, Output: 20, CacheRead: 0.20, CacheWrite: 5},
		"claude-sonnet-5-5": {Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2.50},
		// Haiku 5.5 costs $0.10/$0.50 on a prompt of up to 100K tokens and $0.50/$2.50 on a
		// longer one (https://platform.claude.com/docs/en/models/haiku-5-5/overview); council
		// prices the lower tier. Its 5-minute write, $0.125, is the usual 1.25x.
		"claude-haiku-5-5": anthropicPrice(0.10, 0.50),
		// Fable 5.1 (https://platform.claude.com/docs/en/about-claude/models/overview): $10/$50.
		// Its cache price was not found; the usual multipliers are assumed.
		"claude-fable-5-1": anthropicPrice(10, 50),

		// OpenAI.
		"gpt-4o":       openAIPrice(2.50, 1.25, 10),
		"gpt-4o-mini":  openAIPrice(0.15, 0.075, 0.60),
		"gpt-4.1":      openAIPrice(2, 0.50, 8),
		"gpt-4.1-mini": openAIPrice(0.40, 0.10, 1.60),
		"gpt-4.1-nano": openAIPrice(0.10, 0.025, 0.40),
		"o1":           openAIPrice(15, 7.50, 60),
		"o3":           openAIPrice(2, 0.50, 8),
		"o3-mini":      openAIPrice(1.10, 0.55, 4.40),
		"o4-mini":      openAIPrice(1.10, 0.275, 4.40),
		"gpt-5":        openAIPrice(1.25, 0.125, 10),
		"gpt-5-mini":   openAIPrice(0.25, 0.025, 2),
		"gpt-5-nano":   openAIPrice(0.05, 0.005, 0.40),
		"gpt-5.1":      openAIPrice(1.25, 0.125, 10),
		"gpt-5.2":      openAIPrice(1.75, 0.175, 14),
		"gpt-5.4":      openAIPrice(2.50, 0.25, 15),
		"gpt-5.4-mini": openAIPrice(0.75, 0.075, 4.50),
		// GPT-6, from each model's page (https://developers.openai.com/api/docs/models/<model>)
		// and the models page (https://developers.openai.com/api/docs/models and its ko-KR
		// copy). Cache writes cost 1.25x the input price where a page says so: gpt-6-sol
		// ("Cache writes $2.5") and gpt-6.2-sol ("Cache writes $2.50"); the others' pages, as
		// found, give no write price, and a write is priced as input. Above 272K input tokens
		// these models charge twice the input and 1.5x the output: council prices the lower tier.
		"gpt-6-sol":   {Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50},
		"gpt-6.2-sol": {Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2.50},
		// Cached input: $0.40 from a third party
		// (https://github.com/akiiwa-games/AgentCompass-Router/releases/tag/v0.6.8).
		"gpt-6.2-astra": openAIPrice(8, 0.40, 40),
		// Cached input: $0.10 from a third party
		// (https://github.com/amine123max/Codex-Manager/releases/tag/0.4.7).
		"gpt-6.1-sol": openAIPrice(2, 0.10, 10),
		// Cached input: $0.05 from a third party (https://dev.to/aihubmix, GPT-6.1 Terra migration).
		"gpt-6.1-terra": openAIPrice(1, 0.05, 5),
		// Cached input: $0.01 from a third party
		// (https://github.com/merefield/codexometer/releases/tag/v0.18.4).
		"gpt-6-luna": openAIPrice(0.10, 0.01, 0.50),
		// Cached input: $1, the 10% GPT-6 pages state for gpt-6-sol, assumed; no source gave it.
		"gpt-6-astra": openAIPrice(10, 1, 50),
	}
}

// Lookup finds the price of model: the exact name first, else the longest listed name that
// model extends at a '-', '@' or ':' boundary, so that a dated snapshot
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06") takes its family's price while
// "gpt-5.4" never takes "gpt-5"'s.
func (p Prices) Lookup(model string) (Price, bool) {
	return MatchModel(p, model)
}

// Cost is what u cost on model, in USD; false when the model has no price.
func (p Prices) Cost(model string, u Usage) (float64, bool) {
	pr, ok := p.Lookup(model)
	if !ok {
		return 0, false
	}
	const perToken = 1e-6
	return (float64(u.InputTokens)*pr.Input +
		float64(u.OutputTokens)*pr.Output +
		float64(u.CacheReadTokens)*pr.CacheRead +
		float64(u.CacheWriteTokens)*pr.CacheWrite) * perToken, true
}

// Merge returns p with o's entries added over it; neither map is modified.
func (p Prices) Merge(o Prices) Prices {
	out := make(Prices, len(p)+len(o))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range o {
		out[k] = v
	}
	return out
}
