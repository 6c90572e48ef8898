package operator

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/answer-guard/guard/gate"
)

// The what-if recomputes the gate decisions of logged turns under other
// thresholds without calling any model: the same gate.Decide, the same
// local planner (gate.LocalOutline) and gate.ApplyOutline the pipeline ran,
// over the inputs the turn log kept (every candidate's calibrated scores,
// kind, forced flag, lanes and whether it holds the asked answer type,
// whether a reranker ran, what the question asks for: gate.Ask). A turn
// logged before the ask was kept replays with the zero gate.Ask, as it was
// decided. At the
// configuration a turn was decided with, the recomputed decision is the
// logged one (the response's "exact" block checks it for every turn).
//
// A remote planner's outline cannot be recomputed without calling it: it
// is replayed as logged (the notes it kept that still survive, in its
// order). A turn that the remote planner never saw (the gate did not
// ground it when it was logged) but that the new thresholds ground is
// planned by the local planner and counted as approximate.
//
// primary_kind is applied per partition as the proxy applies it: a
// partition whose chunks (in the index in force) hold none of that kind
// counts every survivor towards sufficiency, and the response lists it
// under primary_kind_absent. A partition the index no longer holds keeps
// the kind as set (the proxy cannot see its kinds either).

// gateThresholds is the part of gate.Config the what-if can move, in the
// YAML key names; every field is optional in a request.
type gateThresholds struct {
	Prefloor         *float64 `json:"prefloor,omitempty"`
	PrefloorNoRerank *float64 `json:"prefloor_no_rerank,omitempty"`
	PrimaryKind      *string  `json:"primary_kind,omitempty"`
	PrimaryMin       *int     `json:"primary_min,omitempty"`
	SufficientMax    *float64 `json:"sufficient_max,omitempty"`
	GoodEnoughMax    *float64 `json:"good_enough_max,omitempty"`
	BailOutBelow     *float64 `json:"bail_out_below,omitempty"`
	OnTopicSim       *float64 `json:"on_topic_sim,omitempty"`
	OnTopicYou       *bool    `json:"on_topic_you,omitempty"`
	OnTopicCoherence *float64 `json:"on_topic_coherence,omitempty"`
	GeneralAbove     *float64 `json:"general_above,omitempty"`
	GeneralWeight    *float64 `json:"general_weight,omitempty"`
	OtherBusiness    *bool    `json:"other_business,omitempty"`
	Between          *string  `json:"between,omitempty"`
	// OffTopic is gate.off_topic; kept with a logged turn's thresholds so
	// that a turn read back from the log file replays as decided.
	OffTopic  *string            `json:"off_topic,omitempty"`
	MaxNotes  *int               `json:"max_notes,omitempty"`
	Relevance *string            `json:"relevance,omitempty"`
	Planner   *plannerThresholds `json:"planner,omitempty"`
}

// plannerThresholds are gate.planner's movable settings.
type plannerThresholds struct {
	Mode       *string  `json:"mode,omitempty"` // reported only; the what-if never calls a remote planner
	MinSupport *float64 `json:"min_support,omitempty"`
	MinBest    *float64 `json:"min_best,omitempty"`
	// MinBestBetween: the floor of a turn grounded from the between band.
	MinBestBetween *float64 `json:"min_best_between,omitempty"`
	MaxOutline     *int     `json:"max_outline,omitempty"`
}

// apply returns cfg with the set thresholds replaced.
func (t gateThresholds) apply(cfg gate.Config) gate.Config {
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cfg.Prefloor, t.Prefloor)
	set(&cfg.PrefloorNoRerank, t.PrefloorNoRerank)
	set(&cfg.SufficientMax, t.SufficientMax)
	set(&cfg.GoodEnoughMax, t.GoodEnoughMax)
	set(&cfg.BailOutBelow, t.BailOutBelow)
	set(&cfg.OnTopicSim, t.OnTopicSim)
	set(&cfg.OnTopicCoherence, t.OnTopicCoherence)
	set(&cfg.GeneralAbove, t.GeneralAbove)
	set(&cfg.GeneralWeight, t.GeneralWeight)
	if t.OtherBusiness != nil {
		cfg.OtherBusiness = *t.OtherBusiness
	}
	if t.OnTopicYou != nil {
		cfg.OnTopicYou = *t.OnTopicYou
	}
	if t.PrimaryKind != nil {
		cfg.PrimaryKind = *t.PrimaryKind
	}
	if t.PrimaryMin != nil {
		cfg.PrimaryMin = *t.PrimaryMin
	}
	if t.Between != nil {
		cfg.Between = *t.Between
	}
	if t.OffTopic != nil {
		cfg.OffTopic = *t.OffTopic
	}
	if t.MaxNotes != nil {
		cfg.MaxNotes = *t.MaxNotes
	}
	if t.Relevance != nil {
		cfg.Relevance = *t.Relevance
	}
	if p := t.Planner; p != nil {
		set(&cfg.Planner.MinSupport, p.MinSupport)
		set(&cfg.Planner.MinBest, p.MinBest)
		set(&cfg.Planner.MinBestBetween, p.MinBestBetween)
		if p.MaxOutline != nil {
			cfg.Planner.MaxOutline = *p.MaxOutline
		}
	}
	return cfg
}

// thresholdsOf is cfg's movable thresholds, all set (for reports).
func thresholdsOf(cfg gate.Config) gateThresholds {
	t := gateThresholds{Prefloor: &cfg.Prefloor, PrefloorNoRerank: &cfg.PrefloorNoRerank, PrimaryKind: &cfg.PrimaryKind,
		PrimaryMin: &cfg.PrimaryMin, SufficientMax: &cfg.SufficientMax, GoodEnoughMax: &cfg.GoodEnoughMax,
		BailOutBelow: &cfg.BailOutBelow, OnTopicSim: &cfg.OnTopicSim, OnTopicYou: &cfg.OnTopicYou, OnTopicCoherence: &cfg.OnTopicCoherence,
		GeneralAbove: &cfg.GeneralAbove, GeneralWeight: &cfg.GeneralWeight, OtherBusiness: &cfg.OtherBusiness, Between: &cfg.Between, OffTopic: &cfg.OffTopic, MaxNotes: &cfg.MaxNotes, Relevance: &cfg.Relevance}
	t.Planner = &plannerThresholds{Mode: &cfg.Planner.Mode, MinSupport: &cfg.Planner.MinSupport, MinBest: &cfg.Planner.MinBest, MinBestBetween: &cfg.Planner.MinBestBetween, MaxOutline: &cfg.Planner.MaxOutline}
	return t
}

// redecide recomputes e's gate outcome under cfg. approx reports a remote
// planner outline that could not be replayed (the local planner stood in).
func redecide(cfg gate.Config, e *turnEntry) (o gate.Outcome, approx bool) {
	cands := e.candidates()
	o = gate.Decide(cfg, cands, e.rerankActive, e.ask)
	if o.Decision != gate.Ground {
		return o, false
	}
	if !e.remote {
		return gate.ApplyOutline(o, gate.LocalOutline(cfg, o)), false
	}
	// The remote planner ran on the logged turn only if the gate grounded it then.
	if e.cfg == nil || gate.Decide(*e.cfg, cands, e.rerankActive, e.ask).Decision != gate.Ground {
		return gate.ApplyOutline(o, gate.LocalOutline(cfg, o)), true
	}
	outline := make([]int, 0, len(e.outline))
	for _, j := range e.outline {
		for i, s := range o.Survivors {
			if s.ID == e.cands[j].id {
				outline = append(outline, i)
				break
			}
		}
	}
	return gate.ApplyOutline(o, outline), false
}

// whatIfResult is the body of POST /v1/guard/whatif.
type whatIfResult struct {
	// Turns is how many logged turns were recomputed; Skipped those
	// without gate inputs (pass-through turns).
	Turns   int `json:"turns"`
	Skipped int `json:"skipped"`
	Changed int `json:"changed"`
	// Transitions counts the turns whose decision would change, by
	// (logged -> new), most frequent first, with examples.
	Transitions []transition `json:"transitions"`
	// Before and After count the decisions, logged and recomputed.
	Before map[string]int `json:"before"`
	After  map[string]int `json:"after"`
	// Exact is the self-check: every turn recomputed at the configuration
	// it was decided with; Mismatched must be 0.
	Exact struct {
		Checked    int `json:"checked"`
		Mismatched int `json:"mismatched"`
	} `json:"exact"`
	// Approximate counts remote-planner turns planned locally (see above).
	Approximate int `json:"approximate"`
	// OtherConfig counts turns decided under a gate configuration other
	// than the one in force (a reload changed it since).
	OtherConfig int            `json:"decided_under_other_config"`
	Gate        gateThresholds `json:"gate"`
	// Checks counts the turns for which each of the gate's checks holds
	// (sufficient, good_enough, bail_out, on_topic, off_topic, between,
	// empty_outline, contact_hit, contact_gap), as
	// logged (recomputed at the configuration each turn was decided with)
	// and recomputed: a check can change without the decision changing.
	Checks map[string]*checkCount `json:"checks"`
	// PrimaryKindAbsent lists the replayed partitions ("tenant/kb") that
	// hold no chunk of Gate.PrimaryKind, where every survivor counted.
	PrimaryKindAbsent []string `json:"primary_kind_absent"`
}

// whatIfChecks are the gate checks the what-if counts.
var whatIfChecks = []string{"sufficient", "good_enough", "bail_out", "on_topic", "off_topic", "between", "empty_outline", "contact_hit", "contact_gap"}

type checkCount struct {
	Before int `json:"before"`
	After  int `json:"after"`
}

type transition struct {
	From     string          `json:"from"`
	To       string          `json:"to"`
	Count    int             `json:"count"`
	Examples []whatIfExample `json:"examples"`
}

type whatIfExample struct {
	ID          uint64  `json:"id"`
	Time        string  `json:"time"`
	Tenant      string  `json:"tenant"`
	KB          string  `json:"kb"`
	Question    string  `json:"question,omitempty"`
	CoverageMax float64 `json:"coverage_max"`
	NewMax      float64 `json:"new_coverage_max"`
	Outline     int     `json:"outline"`
	NewOutline  int     `json:"new_outline"`
	Primary     int     `json:"primary_kind_count"`
	NewPrimary  int     `json:"new_primary_kind_count"`
}

// forPartition is cfg as the proxy applies it to a turn of a partition
// whose chunks have kinds: a primary kind the partition lacks is cleared
// (every survivor counts). kinds nil (a partition the index does not
// hold) leaves cfg as it is.
func forPartition(cfg gate.Config, kinds []string) (gate.Config, bool) {
	if cfg.PrimaryKind == "" || kinds == nil || slices.Contains(kinds, cfg.PrimaryKind) {
		return cfg, false
	}
	cfg.PrimaryKind = ""
	return cfg, true
}

// whatIf recomputes entries under cfg; current is the configuration in
// force (to count turns decided under another one); kinds lists a
// partition's kinds (Host.PartitionKinds). At most examples examples are
// kept per transition.
func whatIf(entries []turnEntry, cfg gate.Config, current *gate.Config, kinds func(tenant, kb string) []string, examples int) whatIfResult {
	res := whatIfResult{Before: map[string]int{}, After: map[string]int{}, Gate: thresholdsOf(cfg), Transitions: []transition{}, PrimaryKindAbsent: []string{},
		Checks: make(map[string]*checkCount, len(whatIfChecks))}
	for _, c := range whatIfChecks {
		res.Checks[c] = &checkCount{}
	}
	byKey := map[[2]string]*transition{}
	type partCfg struct{ cfg, current gate.Config }
	parts := map[[2]string]*partCfg{}
	for i := range entries {
		e := &entries[i]
		if !e.traced {
			res.Skipped++
			continue
		}
		res.Turns++
		pk := [2]string{e.tenant, e.kb}
		pc := parts[pk]
		if pc == nil {
			var ks []string
			if kinds != nil {
				ks = kinds(e.tenant, e.kb)
			}
			pc = &partCfg{}
			var absent bool
			pc.cfg, absent = forPartition(cfg, ks)
			if absent {
				res.PrimaryKindAbsent = append(res.PrimaryKindAbsent, e.tenant+"/"+e.kb)
			}
			if current != nil {
				pc.current, _ = forPartition(*current, ks)
			}
			parts[pk] = pc
		}
		if e.cfg != nil {
			res.Exact.Checked++
			logged, _ := redecide(*e.cfg, e)
			if logged.Decision != e.decision {
				res.Exact.Mismatched++
			}
			for _, c := range whatIfChecks {
				if logged.Checks[c] {
					res.Checks[c].Before++
				}
			}
			if current != nil && !sameThresholds(*e.cfg, pc.current) {
				res.OtherConfig++
			}
		}
		o, approx := redecide(pc.cfg, e)
		for _, c := range whatIfChecks {
			if o.Checks[c] {
				res.Checks[c].After++
			}
		}
		if approx {
			res.Approximate++
		}
		to, from := string(o.Decision), string(e.decision)
		res.Before[from]++
		res.After[to]++
		if to == from {
			continue
		}
		res.Changed++
		k := [2]string{from, to}
		tr := byKey[k]
		if tr == nil {
			tr = &transition{From: from, To: to, Examples: []whatIfExample{}}
			byKey[k] = tr
		}
		tr.Count++
		if len(tr.Examples) < examples {
			tr.Examples = append(tr.Examples, whatIfExample{ID: e.seq, Time: rfc3339(e.at), Tenant: e.tenant, KB: e.kb,
				Question: e.question(), CoverageMax: e.cov.Max, NewMax: o.Coverage.Max, Outline: e.cov.Outline, NewOutline: o.Coverage.Outline,
				Primary: e.cov.PrimaryKindCount, NewPrimary: o.Coverage.PrimaryKindCount})
		}
	}
	for _, tr := range byKey {
		res.Transitions = append(res.Transitions, *tr)
	}
	slices.Sort(res.PrimaryKindAbsent)
	slices.SortFunc(res.Transitions, func(a, b transition) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(a.From, b.From); c != 0 {
			return c
		}
		return cmp.Compare(a.To, b.To)
	})
	return res
}

// sameThresholds reports whether a and b decide alike: every movable
// threshold is equal (the planner's mode aside: a logged remote outline is
// replayed as logged). It compares thresholdsOf, so a threshold the
// what-if can move is never left out of the comparison.
func sameThresholds(a, b gate.Config) bool {
	ta, tb := thresholdsOf(a), thresholdsOf(b)
	ta.Planner.Mode, tb.Planner.Mode = nil, nil
	return reflect.DeepEqual(ta, tb) // compares what the pointers point to
}
