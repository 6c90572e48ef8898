package gate

// Candidate is one retrieved passage as the proxy hands it to the gate.
type Candidate struct {
	ID, Title, Kind, Address, URL, Text string
	// Score is the calibrated retrieval relevance in [0,1]; Rerank is the
	// calibrated rerank relevance in [0,1], meaningful when a reranker ran.
	Score, Rerank float64
	// Forced marks lexical and address lane hits: they skip the prefloor.
	Forced bool
}

// Decision is what the gate decided for a turn.
type Decision string

// The three decisions.
const (
	Ground   Decision = "ground"   // answer from the notes
	Refuse   Decision = "refuse"   // no upstream call; reply with the refusal text
	Fallback Decision = "fallback" // bail out to the fallback model, general knowledge + disclaimer
)

// Coverage summarises the surviving pool.
type Coverage struct {
	Max              float64 `json:"max"`
	PrimaryKindCount int     `json:"primary_kind_count"`
}

// Note is one surviving passage minted as the footnote [^N] for this turn.
// N runs 1..k; the other fields are the server-side alias entry.
type Note struct {
	N                                   int
	ID, Title, Address, URL, Kind, Text string
}

// Outcome is the gate's result for one turn.
type Outcome struct {
	Decision Decision
	Coverage Coverage
	// Notes are the survivors minted as [^1]..[^k]; empty unless Ground.
	Notes []Note
	// Checks are the booleans the decision was made from, for the log:
	// rerank_active, empty, sufficient, good_enough, bail_out, between, caveat.
	Checks map[string]bool
	// Floored counts the candidates dropped by the prefloor.
	Floored int
}

// Caveat reports whether the turn was grounded from the in-between band
// (between: ground), so the prompt should carry the caveat.
func (o Outcome) Caveat() bool { return o.Checks["caveat"] }

// relevance is the score the thresholds are compared against.
func relevance(c Candidate, rerankActive bool) float64 {
	if rerankActive {
		return c.Rerank
	}
	return c.Score
}

// Decide applies the prefloor and the coverage gate to cands (in retrieve's
// order) and mints the notes of a grounded turn. It never modifies cands.
func Decide(cfg Config, cands []Candidate, rerankActive bool) Outcome {
	floor := cfg.PrefloorNoRerank
	if rerankActive {
		floor = cfg.Prefloor
	}
	o := Outcome{Checks: make(map[string]bool, 8)}
	survivors := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		r := relevance(c, rerankActive)
		if !c.Forced && !(r >= floor) { // NaN is below every floor
			o.Floored++
			continue
		}
		survivors = append(survivors, c)
		if r > o.Coverage.Max {
			o.Coverage.Max = r
		}
		if c.Kind == cfg.PrimaryKind {
			o.Coverage.PrimaryKindCount++
		}
	}
	max := o.Coverage.Max
	sufficient := max >= cfg.SufficientMax && o.Coverage.PrimaryKindCount >= cfg.PrimaryMin
	goodEnough := sufficient || max >= cfg.GoodEnoughMax
	bailOut := max < cfg.BailOutBelow
	between := !goodEnough && !bailOut
	caveat := between && cfg.Between == BetweenGround

	o.Checks["rerank_active"] = rerankActive
	o.Checks["empty"] = len(survivors) == 0
	o.Checks["sufficient"] = sufficient
	o.Checks["good_enough"] = goodEnough
	o.Checks["bail_out"] = bailOut
	o.Checks["between"] = between
	o.Checks["caveat"] = caveat

	switch { // good_enough wins over bail_out should the thresholds overlap
	case goodEnough || caveat:
		o.Decision = Ground
	case bailOut:
		o.Decision = Fallback
	default:
		o.Decision = Refuse
	}
	if o.Decision != Ground {
		return o
	}
	k := min(len(survivors), cfg.MaxNotes)
	if cfg.MaxNotes <= 0 {
		k = len(survivors)
	}
	o.Notes = make([]Note, k)
	for i, c := range survivors[:k] {
		o.Notes[i] = Note{N: i + 1, ID: c.ID, Title: c.Title, Address: c.Address, URL: c.URL, Kind: c.Kind, Text: c.Text}
	}
	return o
}
