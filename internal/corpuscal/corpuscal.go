// Package corpuscal measures each partition's answerability calibration at
// index time: it asks a snapshot pseudo-questions made from its own
// passages through the retrieval engine and fits gate's per-corpus map
// (gate.FitCorpusCalibration). guard index build/add/calibrate and the
// answerability bench share it.
package corpuscal

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/retrieve"
)

// DefaultQuestions is how many pseudo-questions each partition is asked.
const DefaultQuestions = 200

// Asked is a partition's pseudo-questions, already retrieved: Ask answers
// them from memory, so one retrieval pass serves any number of fits (the
// bench fits one calibration per model it compares).
type Asked struct {
	Questions []gate.PseudoQuestion
	answers   map[string]asked
}

type asked struct {
	q     gate.Question
	cands []gate.Candidate
	own   []bool
}

// Ask is a gate.CorpusAsk over the retrieved pseudo-questions.
func (a *Asked) Ask(pq gate.PseudoQuestion) (gate.Question, []gate.Candidate, []bool, error) {
	r, ok := a.answers[pq.Key+"\x00"+pq.Text]
	if !ok {
		return gate.Question{}, nil, nil, fmt.Errorf("pseudo-question %q was not asked", pq.Text)
	}
	return r.q, r.cands, r.own, nil
}

// Fit fits the calibration of m's probabilities on the asked questions.
func (a *Asked) Fit(tenant, kb string, m gate.AnswerModel, gcfg gate.Config) (index.AnswerCalibration, error) {
	cal, err := gate.FitCorpusCalibration(m, a.Questions, a.Ask, gate.CalibrationThresholds(gcfg))
	cal.Tenant, cal.KB = tenant, kb
	return gatefeed.StoredCalibration(cal), err
}

// Ask makes at most n pseudo-questions from one partition of snap and
// retrieves each with e.
func Ask(ctx context.Context, e *retrieve.Engine, snap *index.Snapshot, tenant, kb string, n int) (*Asked, error) {
	p := snap.Partition(tenant, kb)
	if p == nil {
		return nil, fmt.Errorf("no partition %s/%s", tenant, kb)
	}
	var srcs []gate.PseudoSource
	for _, c := range p.Chunks() {
		srcs = append(srcs, gate.PseudoSource{Key: c.DocID, Title: c.Title, Text: c.Text})
	}
	a := &Asked{Questions: gate.PseudoQuestions(gatefeed.Tokenize, srcs, n), answers: map[string]asked{}}
	for _, pq := range a.Questions {
		res, err := e.RetrieveFrom(ctx, snap, retrieve.Query{Tenant: tenant, KB: kb, Text: pq.Text})
		if err != nil {
			return nil, fmt.Errorf("pseudo-question %q: %w", pq.Text, err)
		}
		r := asked{q: gatefeed.Question(pq.Text, res), cands: gatefeed.Candidates(res.Candidates), own: make([]bool, len(res.Candidates))}
		for i, c := range res.Candidates {
			r.own[i] = c.DocID == pq.Key
		}
		a.answers[pq.Key+"\x00"+pq.Text] = r
	}
	return a, nil
}

// Snapshot calibrates every partition of the snapshot at dir and, when
// write is set, stores the result in it.
func Snapshot(ctx context.Context, dir string, icfg index.Config, rcfg retrieve.Config, gcfg gate.Config, n int, write bool, log *zap.Logger) ([]index.AnswerCalibration, error) {
	snap, err := index.Load(dir)
	if err != nil {
		return nil, err
	}
	e, err := retrieve.New(rcfg, icfg, snap, log)
	if err != nil {
		snap.Close()
		return nil, err
	}
	defer e.Close()
	m := gate.DefaultAnswerModel()
	var cals []index.AnswerCalibration
	for _, pi := range snap.Manifest.Partitions {
		a, err := Ask(ctx, e, snap, pi.Tenant, pi.KB, n)
		if err != nil {
			return nil, fmt.Errorf("calibrate %s/%s: %w", pi.Tenant, pi.KB, err)
		}
		cal, err := a.Fit(pi.Tenant, pi.KB, m, gcfg)
		if err != nil {
			return nil, fmt.Errorf("calibrate %s/%s: %w", pi.Tenant, pi.KB, err)
		}
		cals = append(cals, cal)
	}
	if write {
		if err := index.WriteAnswerCalibration(dir, cals); err != nil {
			return nil, err
		}
	}
	return cals, nil
}
