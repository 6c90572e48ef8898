// Package gatefeed adapts retrieval results to the gate's own input types:
// package gate imports no project package (it declares what it needs of a
// candidate, a tokenizer and a calibration), and this is the one place that
// converts retrieve's and index's values into them.
package gatefeed

import (
	"cmp"

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
// IDF and the question's general-question score.
func Question(q string, res retrieve.Result) gate.Question {
	gq := gate.PrepareQuestion(Tokenize, q, res.IDF)
	gq.SetGeneral(res.General, res.Names)
	gq.SetOther(res.Other)
	return gq
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

// TurnQuery is the retrieval query of a chat turn whose last user message
// is last, with prev and before the two user messages before it ("" when
// none): every message read without its greetings and courtesies
// (gate.Focus); the last one's context is prev, joined with before when
// prev itself followed up or told the situation behind before's question
// (retrieve.Context); retrieve decides
// whether last follows up on it (retrieve.followup). The proxy and the
// grounding suite both read a turn through it.
func TurnQuery(tenant, kb, last, prev, before string) retrieve.Query {
	text := gate.Focus(last)
	previous := retrieve.Context(gate.Focus(prev), gate.Focus(before))
	return retrieve.Query{Tenant: tenant, KB: kb, Text: text, Also: gate.AlsoOf(text), Previous: previous}
}

// TurnQuestion is the gate's question of a turn retrieved with
// TurnQuery(...) as q: the text retrieve read (a follow-up's is the
// previous user message and the last) asking what the last message asks.
func TurnQuestion(q retrieve.Query, res retrieve.Result) (string, gate.Question) {
	question := cmp.Or(res.Query, q.Text)
	gq := Question(question, res)
	if question != q.Text {
		gq.AskFrom(q.Text) // a follow-up asks what its last message asks
	}
	return question, gq
}

// Turn is the coverage gate's reading of one retrieved turn, before the
// synthesis planner.
type Turn struct {
	// Question is the text the gate read (TurnQuestion); Ask what it asks.
	Question string
	Ask      gate.Ask
	// Cands are the rated candidates (Answer, Relevance, TypeHit set), in
	// retrieve's order.
	Cands []gate.Candidate
	// Config is the gate configuration the turn was decided with: cfg, with
	// primary_kind cleared when the partition holds no chunk of that kind.
	Config gate.Config
	// Outcome is Decide's; the planner (gate.LocalOutline or a remote one,
	// then gate.ApplyOutline) has not run.
	Outcome gate.Outcome
}

// TurnGate decides a turn retrieved with TurnQuery(...) as q, in the
// proxy's order: the question as TurnQuestion reads it, the answerability
// model am (Assess) and the relevance model rm (Rate) over cands, the
// partition's calibration when cfg.CorpusCalibration, the primary-kind
// rule, then gate.Decide. cands are gatefeed.Candidates(res.Candidates)
// (a caller may fill their Terms first); TurnGate rates them in place.
func TurnGate(cfg gate.Config, am, rm gate.AnswerModel, q retrieve.Query, res retrieve.Result, cands []gate.Candidate) Turn {
	question, gq := TurnQuestion(q, res)
	am.Assess(gq, cands)
	rm.Rate(cands, gate.OneTopic(cfg, cands))
	if cfg.CorpusCalibration {
		gate.Recalibrate(Calibration(res.Calibration), cands)
	}
	// A partition without the primary kind counts every survivor towards
	// sufficiency, so a corpus that never sets kind is not penalised.
	if cfg.PrimaryKind != "" && res.HasKind != nil && !res.HasKind(cfg.PrimaryKind) {
		cfg.PrimaryKind = ""
	}
	ask := gq.Ask()
	return Turn{Question: question, Ask: ask, Cands: cands, Config: cfg, Outcome: gate.Decide(cfg, cands, res.RerankActive, ask)}
}
