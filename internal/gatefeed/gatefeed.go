// Package gatefeed adapts retrieval results to the gate's own input types:
// package gate imports no project package (it declares what it needs of a
// candidate, a tokenizer and a calibration), and this is the one place that
// converts retrieve's and index's values into them.
package gatefeed

import (
	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/retrieve"
)

// Tokenize is the index's tokenizer as the gate takes it.
var Tokenize gate.Tokenizer = index.Tokenize

// Candidates turns retrieve's ranked candidates into the gate's, in the
// same order (Answer and Features are set later by AnswerModel.Assess).
func Candidates(rs []retrieve.Candidate) []gate.Candidate {
	cands := make([]gate.Candidate, len(rs))
	for i, c := range rs {
		cands[i] = gate.Candidate{ID: c.ID, Title: c.Title, Kind: c.Kind, Address: c.Address, URL: c.URL,
			Text: c.Text, Score: c.Score, Rerank: c.Rerank, Forced: c.Forced, Lanes: c.Lanes,
			Sim: c.Sim, Soft: c.Soft, SoftMin: c.SoftMin,
			Focus: c.Focus, FocusMiss: c.FocusMiss, FocusWorst: c.FocusWorst, SentSoft: c.SentSoft, Semantic: c.Semantic,
			Coherence: c.Coherence}
	}
	return cands
}

// Question prepares q for the gate's models with the queried partition's
// IDF.
func Question(q string, res retrieve.Result) gate.Question {
	return gate.PrepareQuestion(Tokenize, q, res.IDF)
}

// Calibration is the partition's stored calibration as the gate reads it
// (nil when the snapshot has none).
func Calibration(c *index.AnswerCalibration) *gate.Calibration {
	return (*gate.Calibration)(c)
}

// StoredCalibration is a fitted calibration as the index stores it.
func StoredCalibration(c gate.Calibration) index.AnswerCalibration {
	return index.AnswerCalibration(c)
}
