package gate

import (
	"regexp"
	"strings"
)

// A customer in a chat widget sometimes says, before asking, that the
// question has nothing to do with the service: "thanks! unrelated but
// whats the weather going to be like next tuesday", "cheers. random q but
// whats a good family car under 10k", "off topic, how do I get rid of
// hiccups". The question then usually shares a word or a trade with the
// corpus ("car", "running shoe" at a physio), so its relevance can reach
// good-enough and the turn would ground on passages that cannot answer it
// (operator trials 16-19: five such switches grounded). asideMark
// recognises the announcement by its English form, never by a corpus's
// words; the gate handles the message as off-topic (gate.off_topic), as
// it does a request to make something. "by the way" and "btw" are not
// read: "btw do you do gift vouchers?" is a customer's question. A
// contact question is never an aside ("unrelated, but what's your
// number?").
var asideRe = regexp.MustCompile(`(?i)(?:^|[.!?,;:]\s*|\b(?:ok|okay|thanks|thank\s+you|cheers|ta|great|cool|right|also|and|but|so|oh|hi|hey|hello)\s+)` +
	`(?:(?:totally|completely|slightly|somewhat|kinda|kind\s+of|a\s+bit|bit|quick|random|silly)\s+)?` +
	`(?:unrelated|off[\s-]topic|not\s+(?:really\s+)?related|random\s+(?:q|qn|qu|question|one)|changing\s+the\s+subject|(?:on\s+a\s+)?(?:completely\s+|totally\s+)?different\s+(?:note|subject|topic))` +
	`(?:\s+(?:q|question|one|thing))?` +
	`(?:\s*[,:;!–—-]|\s+but\b|\s+(?:how|what|whats|what's|where|when|who|which|why|can|could|do|does|is|are|any|should|would|will))`)

// asideMark reports whether q announces itself as unrelated to the
// service (asideRe).
func asideMark(q string) bool {
	lower := strings.ToLower(q)
	for _, w := range asideWords {
		if strings.Contains(lower, w) {
			return asideRe.MatchString(q)
		}
	}
	return false // most messages hold none of the marks: no search
}

// asideWords are asideRe's marks: a message with none of them makes no
// announcement.
var asideWords = []string{"unrelated", "topic", "related", "random", "subject", "different"}
