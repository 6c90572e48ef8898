package gate

import (
	"regexp"
	"strings"
)

// A chat widget also gets requests to make something ("write me a poem
// about autumn", "translate good morning into German", "tell me a joke
// while my washing finishes", "give me a recipe for lasagne"). No corpus a
// service keeps answers them, yet a word they share with it ("washing",
// "birthday") could carry one above bail-out and ground the request on a
// passage (operator trial 11: the joke grounded on three laundrette notes).
// taskRequest recognises the request by its English form, never by a
// corpus's words; the gate then handles it as off-topic (gate.off_topic).
// A question about the service that uses such a verb ("can you write happy
// birthday on the cake?", "how do I translate my certificate?") does not
// match: the form needs a made thing ("a poem", "a joke", "a recipe for").
var taskRe = regexp.MustCompile(`(?i)` +
	`(?:^|[.!?,;:]\s*|\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?|\bplease\s+|\bpls\s+|\bhelp\s+me\s+(?:to\s+)?)` +
	`(?:` +
	`(?:write|compose|draft|make(?:\s+up)?|come\s+up\s+with|generate|create|draw\s+up|put\s+together)\s+(?:me\s+|us\s+)?(?:a|an|some|another)\s+(?:[\p{L}'’-]+\s+){0,3}` +
	`(?:poem|haiku|limerick|sonnet|song|story|joke|riddle|essay|speech|toast|rap|slogan|caption|tweet|review|testimonial|post|spreadsheet|template|cover\s+letter|birthday\s+message|message\s+for|card\s+message|name\s+for|invite|invitation|(?:workout|training|meal|diet|revision|fitness|planting|crop|garden|study|business|budget)\s+plan|letter\s+to\s+(?:my|our|the)\b|itinerary|bio|blog\s+post|social\s+media\s+post|poster|shopping\s+list|(?:text|e-?mail|message)\s+to\s+(?:send\s+)?(?:to\s+)?(?:my|our)\b)` +
	`|write\s+my\s+(?:essay|homework|personal\s+statement|cv|resume|dissertation|assignment|coursework)\b` +
	`|translate\s+.{1,60}\s+(?:into|to)\s+\p{L}+` +
	`|tell\s+(?:me|us)\s+(?:a|another|some)\s+(?:(?:short|quick|funny|good|bad|dad)\s+)*(?:joke|story|riddle|poem|fun\s+fact)` +
	`|(?:give|send)\s+(?:me|us)\s+(?:a|an|your)\s+(?:(?:good|easy|quick|simple)\s+)*recipe` +
	`|suggest\s+(?:a|some)\s+names?\s+for` +
	`)` +
	`|\b(?:what'?s|what\s+is)\s+(?:a\s+)?(?:good|an?\s+easy|a\s+quick|a\s+simple|your\s+favou?rite)\s+recipe\s+for\b`)

// taskRequest reports whether q asks the assistant to make something
// (taskRe) rather than asking about the service.
func taskRequest(q string) bool {
	lower := strings.ToLower(q)
	for _, w := range taskWords {
		if strings.Contains(lower, w) {
			return taskRe.MatchString(q)
		}
	}
	return false // most questions hold none of taskRe's verbs: no search
}

// taskWords are taskRe's verbs and nouns: a message with none of them is
// no request to make something.
var taskWords = []string{"writ", "compos", "draft", "make", "come up", "generat", "creat", "translat", "tell", "give", "send", "suggest", "recipe", "draw up", "put together"}
