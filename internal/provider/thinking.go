package provider

// thinksByDefault are the model families that think before they answer unless told not to:
// Anthropic's 5.x models, whose adaptive thinking is on by default
// (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide, "Thinking runs by
// default"; the Anthropic fake's table, anthropicapi.Model.Thinks, says the same and a test
// holds the two together), and OpenAI's GPT-6 models, which reason at medium effort unless
// told otherwise (https://developers.openai.com/api/docs/models/gpt-6-sol; the 6.1 Sol and 6.2
// models refuse "none": https://developers.openai.com/api/docs/models/gpt-6.2-sol) and count
// their reasoning in max_output_tokens
// (https://platform.openai.com/docs/api-reference/responses/create).
var thinksByDefault = map[string]bool{
	"claude-opus-5": true, "claude-sonnet-5": true, "claude-haiku-5": true,
	"claude-fable-5": true, "claude-mythos-5": true,
	"gpt-6-sol": true, "gpt-6-luna": true, "gpt-6-astra": true, "gpt-6.1-sol": true,
	"gpt-6.1-terra": true, "gpt-6.2-sol": true, "gpt-6.2-astra": true,
}

// ThinksByDefault reports whether model thinks before it answers unless told not to.
func ThinksByDefault(model string) bool {
	v, _ := MatchModel(thinksByDefault, model)
	return v
}

// MaxThinkingRoom bounds the room WithThinkingRoom adds.
const MaxThinkingRoom = 32000

// WithThinkingRoom is the max_tokens to send for an answer of up to answer tokens: answer
// itself, or, for a model that thinks by default, answer plus twice as much again (at most
// MaxThinkingRoom) for the thinking, which counts toward max_tokens and is billed as output
// (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide; OpenAI's
// max_output_tokens likewise). Without the room,
// a small answer budget (the validator's 1,024) can be spent on thinking before the answer
// begins. limit, when positive, is the model's output limit, which the sum never exceeds; the
// budget guard passes 0 and so counts the whole room.
func WithThinkingRoom(model string, answer, limit int) int {
	n := answer
	if ThinksByDefault(model) {
		n += min(2*answer, MaxThinkingRoom)
	}
	if limit > 0 && n > limit {
		n = max(limit, answer)
	}
	return n
}
