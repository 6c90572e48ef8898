package judge

import "context"

// Passage is one cited (or pooled) passage. N is the citation number the
// answer shows ("[N]"); 0 for pool passages that were not cited.
type Passage struct {
	N     int
	ID    string
	Title string
	Text  string
}

// Claim is the verdict on one sentence of the answer, as reported in
// guard.claims.
type Claim struct {
	Text        string  `json:"text"`
	Citations   []int   `json:"citations"`
	Verdict     string  `json:"verdict"`    // entailment | contradiction | neutral | opinion | not_checked
	Confidence  float64 `json:"confidence"` // in [0,1], confidence in Verdict
	Severity    string  `json:"severity"`   // critical | major | minor | info
	Method      string  `json:"method"`     // local | llm | chainpoll | none
	Reliability float64 `json:"reliability"`
	Risk        string  `json:"risk"` // high | medium | low
	Suggestion  string  `json:"suggestion"`
	Evidence    string  `json:"evidence,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	// Uncited classifies a factual sentence without citation:
	// likely_missed | other_kb | gap | not_checked (the turn's combined
	// context is under verify.min_context_chars: not judged against it).
	Uncited string `json:"uncited,omitempty"`
	// ClaimReview is a Schema.org ClaimReview JSON-LD object, for contradictions.
	ClaimReview map[string]any `json:"claim_review,omitempty"`
}

// UncitedNotChecked is the Uncited class of a sentence the flagger did not
// judge (combined context under verify.min_context_chars).
const UncitedNotChecked = "not_checked"

// Summary counts claims for guard.summary.
type Summary struct {
	Claims   int `json:"claims"`
	Verified int `json:"verified"`
	Miscited int `json:"miscited"`
	Uncited  int `json:"uncited"`
	Gaps     int `json:"gaps"`
}

// OtherKBs looks a sentence up in the tenant's other knowledge bases. It is
// declared here, by its consumer; the proxy adapts the retriever to it.
type OtherKBs interface {
	Find(ctx context.Context, sentence string) (kb string, p Passage, ok bool)
}

// Report is the trust report on one answer.
type Report struct {
	Claims   []Claim  `json:"claims"`
	Summary  Summary  `json:"summary"`
	Degraded []string `json:"degraded,omitempty"`
	Footer   string   `json:"footer,omitempty"`
}
