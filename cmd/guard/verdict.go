package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/retrieve"
)

// queryVerdict is what the proxy's gate decides for one guard index query
// question under a configuration's gate section, with the local planner
// (the remote one is never called here).
type queryVerdict struct {
	raw      string // the question as given
	previous int    // how many --previous messages were given
	rq       retrieve.Query
	turn     gatefeed.Turn
	out      gate.Outcome // turn.Outcome after the local planner
	rerank   bool
	// relevance is each candidate's relevance as the thresholds compare
	// it; kept whether the local planner kept it as a note.
	relevance []float64
	kept      []bool
	source    string // where the gate section came from
	// weakBest: the local planner refused because no survivor's
	// answerability reaches planner.min_best (gate.WeakBest).
	weakBest bool
}

// decideQuery decides the question raw, retrieved as rq with the result
// res, as the proxy's gate does (gatefeed.TurnGate), then runs the local
// planner.
func decideQuery(cfg gate.Config, source, raw string, previous int, rq retrieve.Query, res retrieve.Result) queryVerdict {
	turn := gatefeed.TurnGate(cfg, gate.DefaultAnswerModel(), gate.DefaultRelevanceModel(), rq, res, gatefeed.Candidates(res.Candidates))
	v := queryVerdict{raw: raw, previous: previous, rq: rq, turn: turn, rerank: res.RerankActive, source: source}
	v.out = gate.ApplyOutline(turn.Outcome, gate.LocalOutline(turn.Config, turn.Outcome))
	v.weakBest = turn.Outcome.Decision == gate.Ground && gate.WeakBest(turn.Config, turn.Outcome)
	kept := make(map[string]bool, len(v.out.Survivors))
	for _, c := range v.out.Survivors {
		kept[c.ID] = true
	}
	v.relevance = make([]float64, len(turn.Cands))
	v.kept = make([]bool, len(turn.Cands))
	for i, c := range turn.Cands {
		v.relevance[i] = gate.Compared(turn.Config, c, v.rerank, turn.Outcome.Lowered)
		v.kept[i] = kept[c.ID]
	}
	return v
}

// bestAnswer is the best answerability among the gate's survivors.
func (v queryVerdict) bestAnswer() float64 {
	best := 0.0
	for _, c := range v.turn.Outcome.Survivors {
		best = max(best, c.Answer)
	}
	return best
}

// answers are the candidates' answerability, in retrieve's order.
func (v queryVerdict) answers() []float64 {
	out := make([]float64, len(v.turn.Cands))
	for i, c := range v.turn.Cands {
		out[i] = c.Answer
	}
	return out
}

// semantic is the best encoder cosine of a candidate to the question and
// the partition's coherence, as the gate reads them (gate.BestSim,
// gate.Coherence); ok is false without semantic features (the
// lexical-only mode).
func (v queryVerdict) semantic() (bestSim, coherence float64, ok bool) {
	ok = slices.ContainsFunc(v.turn.Cands, func(c gate.Candidate) bool { return c.Semantic })
	return gate.BestSim(v.turn.Cands), gate.Coherence(v.turn.Cands), ok
}

// trimmed reports whether reading the question dropped greetings or
// courtesies; followup whether retrieval read it with the messages
// before it.
func (v queryVerdict) trimmed() bool  { return v.rq.Text != strings.TrimSpace(v.raw) }
func (v queryVerdict) followup() bool { return v.turn.Question != v.rq.Text }

// reason says in words why the gate decided as it did, from the
// outcome's checks.
func (v queryVerdict) reason() string {
	cfg, o, c := v.turn.Config, v.out, v.out.Checks
	mx := fmt.Sprintf("%.3f", o.Coverage.Max)
	offTopic := "off_topic: fallback, so the fallback model answers from general knowledge behind the disclaimer"
	if cfg.OffTopic == gate.OffTopicRefuse {
		offTopic = "off_topic: refuse, so it gets off_topic_text and no model is called"
	}
	band := fmt.Sprintf("bail_out_below %.2f <= max %s < good_enough_max %.2f", cfg.BailOutBelow, mx, cfg.GoodEnoughMax)
	var r string
	switch {
	case c["contact_hit"]:
		r = "a contact question: grounded on the passages that hold " + v.contactDetail() + ", first and whatever their relevance"
	case c["contact_gap"] && v.turn.Ask.Type != "":
		r = "a contact question, and no passage holds " + v.contactDetail() + ": refused as a gap of the corpus, naming the closest topics"
	case c["contact_gap"]:
		r = fmt.Sprintf("a contact question below bail-out (max %s < bail_out_below %.2f), and no passage holds %s: refused as a gap of the corpus, naming the closest topics, never general knowledge",
			mx, cfg.BailOutBelow, v.contactDetail())
	case c["task"]:
		r = "a request to make something, not a question about the service: handled as off-topic; " + offTopic
	case c["aside"]:
		r = "the message says it is unrelated to the service (\"unrelated, but ...\"): handled as off-topic; " + offTopic
	case c["advice"]:
		r = "asks for general advice (\"what's the best way to ...\", \"any tips for ...\", \"how do I ... myself\"), not about the service: handled as off-topic; " + offTopic
	case c["other_business"]:
		r = fmt.Sprintf("asks about another business (%q, a name the corpus never uses; other_business on): handled as off-topic; %s", v.turn.Ask.Other, offTopic)
	case c["sufficient"]:
		r = fmt.Sprintf("sufficient: coverage max %s >= sufficient_max %.2f and %d primary-kind survivors >= primary_min %d",
			mx, cfg.SufficientMax, o.Coverage.PrimaryKindCount, cfg.PrimaryMin)
	case c["good_enough"]:
		r = fmt.Sprintf("good enough: coverage max %s >= good_enough_max %.2f", mx, cfg.GoodEnoughMax)
	case c["caveat"]:
		r = "between band (" + band + "), between: ground, so grounded with the caveat if a note's answerability reaches min_best_between"
	case c["on_topic_you"]:
		r = fmt.Sprintf("below bail-out (max %s < bail_out_below %.2f), but the question speaks to the service (you, your) on a one-topic corpus (on_topic_you): refused naming the closest topics, since general knowledge cannot say what this service does",
			mx, cfg.BailOutBelow)
	case c["on_topic"]:
		sim, _, _ := v.semantic()
		r = fmt.Sprintf("below bail-out (max %s < bail_out_below %.2f) but on the corpus's topic (best encoder cosine %.3f >= on_topic_sim %.2f): refused naming the closest topics",
			mx, cfg.BailOutBelow, sim, cfg.OnTopicSim)
	case c["bail_out"] && c["general"] && o.Coverage.Max >= cfg.BailOutBelow:
		r = "between band (" + band + ") for a general question: handled as below bail-out; " + offTopic
	case c["bail_out"]:
		why := v.notOnTopic()
		if c["empty"] {
			why = "no candidate survived the prefloor; " + why
		}
		r = fmt.Sprintf("below bail-out (max %s < bail_out_below %.2f): nothing in the corpus is about it (%s); %s",
			mx, cfg.BailOutBelow, why, offTopic)
	default:
		r = "between band (" + band + "), between: refuse, so refused"
	}
	switch {
	case c["empty_outline"] && v.weakBest:
		floor, key := gate.MinBestFor(cfg, v.turn.Outcome), "min_best"
		if floor > cfg.Planner.MinBest {
			key = "min_best_between"
		}
		r += fmt.Sprintf("; but the local planner kept no note (the best survivor's answerability %.2f is below %s %.2f: the corpus does not answer it): refused", v.bestAnswer(), key, floor)
	case c["empty_outline"]:
		r += fmt.Sprintf("; but the local planner kept no note (no survivor's answerability reaches min_support %.2f): refused", cfg.Planner.MinSupport)
	case o.Decision == gate.Ground:
		r += fmt.Sprintf("; the local planner kept %s", plural(o.Coverage.Outline, "note"))
	}
	if c["general"] {
		r = fmt.Sprintf("a general question (score %.3f > general_above %.2f: every relevance lowered by %.2f in logit); ",
			v.turn.Ask.General, cfg.GeneralAbove, o.Lowered) + r
	}
	return r
}

// contactDetail names the contact detail a contact question asks for.
func (v queryVerdict) contactDetail() string {
	switch t := v.turn.Ask.Type; t { // a contact question asks for one of these or for none
	case "":
		return "a way to reach the service (a phone number, an email address or a street address)"
	case "hours":
		return "the opening hours"
	case "email":
		return "an email address"
	case "address":
		return "a street address"
	case "phone":
		return "a phone number"
	default:
		return "the contact detail asked for (" + t + ")"
	}
}

// notOnTopic says why a question below bail-out was not taken to be on
// the corpus's topic.
func (v queryVerdict) notOnTopic() string {
	cfg := v.turn.Config
	sim, coh, ok := v.semantic()
	switch {
	case v.out.Checks["general"]:
		return "a general question is never on-topic"
	case cfg.OnTopicSim <= 0:
		return "on_topic_sim is 0: off"
	case !ok:
		return "no encoder features: on_topic_sim does not apply"
	case !gate.OneTopic(cfg, v.turn.Cands):
		return fmt.Sprintf("coherence %.3f < on_topic_coherence %.2f: not a one-topic corpus", coh, cfg.OnTopicCoherence)
	}
	return fmt.Sprintf("best encoder cosine %.3f < on_topic_sim %.2f", sim, cfg.OnTopicSim)
}

// generalLine says whether the general rule applied and why not.
func (v queryVerdict) generalLine() string {
	cfg, ask := v.turn.Config, v.turn.Ask
	score := fmt.Sprintf("score %.3f", ask.General)
	switch _, _, ok := v.semantic(); {
	case v.out.Checks["general"]:
		return fmt.Sprintf("%s > general_above %.2f: applied, every relevance lowered by general_weight %g x %.3f = %.2f in logit",
			score, cfg.GeneralAbove, cfg.GeneralWeight, ask.General-cfg.GeneralAbove, v.out.Lowered)
	case cfg.GeneralWeight <= 0:
		return score + ", general_weight 0: the rule is off"
	case !ok:
		return "no encoder features: the rule does not apply"
	case ask.General <= cfg.GeneralAbove:
		return fmt.Sprintf("%s <= general_above %.2f: not applied", score, cfg.GeneralAbove)
	case ask.Names != "":
		return fmt.Sprintf("%s > general_above %.2f, but it names %q, a word of the corpus rare in English: not applied", score, cfg.GeneralAbove, ask.Names)
	case ask.Contact:
		return fmt.Sprintf("%s > general_above %.2f, but a contact question: not applied", score, cfg.GeneralAbove)
	}
	return fmt.Sprintf("%s > general_above %.2f, but not a one-topic corpus (on_topic_coherence %.2f): not applied", score, cfg.GeneralAbove, cfg.OnTopicCoherence)
}

// readLine says what text retrieval and the gate read.
func (v queryVerdict) readLine() string {
	s := fmt.Sprintf("%q", v.turn.Question)
	var how []string
	if v.trimmed() {
		how = append(how, "greetings and courtesies trimmed")
	}
	switch {
	case v.followup():
		how = append(how, "a follow-up: read with the user message before it, asking what the last one asks")
	case v.previous > 0:
		how = append(how, "not a follow-up: read without the --previous messages")
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, "; ") + ")"
	}
	return s
}

// plannerName is what the verdict's planner line and JSON call it.
const plannerName = "local"

// printVerdict writes the verdict's lines, before the candidate list.
func printVerdict(w io.Writer, v queryVerdict) {
	cfg, o := v.turn.Config, v.out
	fmt.Fprintf(w, "gate verdict (%s; local planner, no remote planner is called here):\n", v.source)
	fmt.Fprintf(w, "  decision:  %s\n", o.Decision)
	fmt.Fprintf(w, "  reason:    %s\n", v.reason())
	fmt.Fprintf(w, "  read:      %s\n", v.readLine())
	if a := askWords(v.turn.Ask); a != "" {
		fmt.Fprintf(w, "  ask:       %s\n", a)
	}
	kind := "any (primary_kind is \"\", or the partition holds no chunk of it)"
	if cfg.PrimaryKind != "" {
		kind = fmt.Sprintf("%q", cfg.PrimaryKind)
	}
	floor, on := cfg.PrefloorNoRerank, "prefloor_no_rerank"
	if v.rerank {
		floor, on = cfg.Prefloor, "prefloor"
	}
	fmt.Fprintf(w, "  coverage:  max %.3f (bail_out_below %.2f, good_enough_max %.2f; sufficient_max %.2f with primary_min %d: %s, kind %s)\n",
		o.Coverage.Max, cfg.BailOutBelow, cfg.GoodEnoughMax, cfg.SufficientMax, cfg.PrimaryMin, plural(o.Coverage.PrimaryKindCount, "primary-kind survivor"), kind)
	fmt.Fprintf(w, "  prefloor:  %s below %s %.2f dropped (relevance: %s)\n", plural(o.Floored, "candidate"), on, floor, cfg.Relevance)
	fmt.Fprintf(w, "  general:   %s\n", v.generalLine())
	if sim, coh, ok := v.semantic(); ok {
		one := "one topic"
		if !gate.OneTopic(cfg, v.turn.Cands) {
			one = "not one topic"
		}
		fmt.Fprintf(w, "  on-topic:  best encoder cosine %.3f (on_topic_sim %.2f); coherence %.3f (on_topic_coherence %.2f): %s\n",
			sim, cfg.OnTopicSim, coh, cfg.OnTopicCoherence, one)
	} else {
		fmt.Fprintln(w, "  on-topic:  no encoder features (retrieve.semantic off or a lexical-only index): on_topic_sim does not apply")
	}
	remote := ""
	if cfg.Planner.Mode == "remote" {
		remote = " (gate.planner.mode is remote: the proxy asks the remote planner first)"
	}
	kept := "kept " + plural(o.Coverage.Outline, "note")
	if v.turn.Outcome.Decision != gate.Ground {
		kept = "not run (the gate did not ground)"
	}
	fmt.Fprintf(w, "  planner:   %s, min_support %.2f, min_best %.2f (between band %.2f), max_outline %d: %s%s\n", plannerName, cfg.Planner.MinSupport, cfg.Planner.MinBest, cfg.Planner.BetweenFloor(), cfg.Planner.MaxOutline, kept, remote)
	if len(o.Closest) > 0 && o.Decision == gate.Refuse {
		fmt.Fprintf(w, "  closest:   %s\n", strings.Join(o.Closest, "; "))
	}
	fmt.Fprintln(w)
}

// askWords names what the question asks for ("" for nothing special).
func askWords(a gate.Ask) string {
	var s []string
	if a.Type != "" {
		s = append(s, "an answer of type "+a.Type)
	}
	if a.Contact {
		s = append(s, "the service's own contact details")
	}
	if a.Task {
		s = append(s, "something made (a task)")
	}
	if a.Aside {
		s = append(s, "something it says is unrelated to the service (an aside)")
	}
	if a.Advice {
		s = append(s, "general advice")
	}
	if a.Other != "" {
		s = append(s, fmt.Sprintf("another business's (%q)", a.Other))
	}
	return strings.Join(s, "; ")
}

// verdictJSON is the --json "verdict" object: snake_case keys.
func verdictJSON(v queryVerdict) any {
	cfg, o := v.turn.Config, v.out
	type verdict struct {
		Decision         gate.Decision   `json:"decision"`
		Reason           string          `json:"reason"`
		Planner          string          `json:"planner"`
		Read             string          `json:"read"`
		Trimmed          bool            `json:"trimmed"`
		Followup         bool            `json:"followup"`
		Ask              gate.Ask        `json:"ask"`
		CoverageMax      float64         `json:"coverage_max"`
		BailOutBelow     float64         `json:"bail_out_below"`
		GoodEnoughMax    float64         `json:"good_enough_max"`
		SufficientMax    float64         `json:"sufficient_max"`
		PrimaryKind      string          `json:"primary_kind"`
		PrimaryMin       int             `json:"primary_min"`
		PrimaryKindCount int             `json:"primary_kind_count"`
		Relevance        string          `json:"relevance"`
		Floored          int             `json:"floored"`
		General          float64         `json:"general"`
		GeneralAbove     float64         `json:"general_above"`
		GeneralWeight    float64         `json:"general_weight"`
		GeneralApplied   bool            `json:"general_applied"`
		GeneralLowered   float64         `json:"general_lowered"`
		Names            string          `json:"names"`
		BestSim          *float64        `json:"best_sim"`
		OnTopicSim       float64         `json:"on_topic_sim"`
		Coherence        *float64        `json:"coherence"`
		OnTopicCoherence float64         `json:"on_topic_coherence"`
		OneTopic         bool            `json:"one_topic"`
		MinSupport       float64         `json:"min_support"`
		MinBest          float64         `json:"min_best"`
		MinBestBetween   float64         `json:"min_best_between"`
		WeakBest         bool            `json:"weak_best"`
		Outline          int             `json:"outline"`
		Closest          []string        `json:"closest"`
		Checks           map[string]bool `json:"checks"`
	}
	out := verdict{Decision: o.Decision, Reason: v.reason(), Planner: plannerName, Read: v.turn.Question, Trimmed: v.trimmed(),
		Followup: v.followup(), Ask: v.turn.Ask, CoverageMax: o.Coverage.Max, BailOutBelow: cfg.BailOutBelow,
		GoodEnoughMax: cfg.GoodEnoughMax, SufficientMax: cfg.SufficientMax, PrimaryKind: cfg.PrimaryKind, PrimaryMin: cfg.PrimaryMin,
		PrimaryKindCount: o.Coverage.PrimaryKindCount, Relevance: cfg.Relevance, Floored: o.Floored, General: v.turn.Ask.General,
		GeneralAbove: cfg.GeneralAbove, GeneralWeight: cfg.GeneralWeight, GeneralApplied: o.Checks["general"], GeneralLowered: o.Lowered,
		Names: v.turn.Ask.Names, OnTopicSim: cfg.OnTopicSim, OnTopicCoherence: cfg.OnTopicCoherence, OneTopic: gate.OneTopic(cfg, v.turn.Cands),
		MinSupport: cfg.Planner.MinSupport, MinBest: cfg.Planner.MinBest, MinBestBetween: cfg.Planner.MinBestBetween, WeakBest: v.weakBest, Outline: o.Coverage.Outline, Closest: o.Closest, Checks: o.Checks}
	if sim, coh, ok := v.semantic(); ok {
		out.BestSim = &sim
		if coh != 0 {
			out.Coherence = &coh
		}
	}
	if out.Closest == nil {
		out.Closest = []string{}
	}
	return out
}
