package provider

// thinksByDefault are the model families that think before they answer unless told not to:
// Anthropic's 5.x models, whose adaptive thinking is on by default
// (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide, "Thinking runs by
// default"). The Anthropic fake's table (anthropicapi.Model.Thinks) says the same; a test
// holds the two together.
var thinksByDefault = map[string]bool{
	"claude-opus-5": true, "claude-sonnet-5": true, "claude-haiku-5": true,
	"claude-fable-5": true, "claude-mythos-5": true,
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
// (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide). Without the room,
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
