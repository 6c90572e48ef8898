package gate

import "github.com/answer-guard/guard/retrieve"

// CandidatesFrom turns retrieve's ranked candidates into the gate's,
// in the same order (Answer and Features are set later by Assess).
func CandidatesFrom(rs []retrieve.Candidate) []Candidate {
	cands := make([]Candidate, len(rs))
	for i, c := range rs {
		cands[i] = Candidate{ID: c.ID, Title: c.Title, Kind: c.Kind, Address: c.Address, URL: c.URL,
			Text: c.Text, Score: c.Score, Rerank: c.Rerank, Forced: c.Forced, Lanes: c.Lanes}
	}
	return cands
}
