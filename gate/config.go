package gate

import (
	"errors"
	"fmt"
	"text/template"
	"time"
)

// Between names what to do when the pool is neither good enough nor so weak
// that the answer bails out to the fallback model.
const (
	BetweenRefuse = "refuse" // refuse (default)
	BetweenGround = "ground" // ground the answer, with a caveat in the prompt
)

// OffTopic names what a question gets when nothing in the corpus is about
// it (max relevance below bail_out_below).
const (
	OffTopicFallback = "fallback" // general knowledge on the fallback model, with the disclaimer (default)
	OffTopicRefuse   = "refuse"   // refuse with off_topic_text, no model call
)

// Config holds the gate's thresholds and prompt texts. The zero value is not
// useful; start from [DefaultConfig].
type Config struct {
	// Prefloor drops non-forced candidates whose rerank score is below it when
	// a reranker is active. Range [0,1], default 0.18.
	Prefloor float64 `yaml:"prefloor"`
	// PrefloorNoRerank is the prefloor on the retrieval score when no reranker
	// ran. Range [0,1], default 0.45.
	PrefloorNoRerank float64 `yaml:"prefloor_no_rerank"`
	// PrimaryKind is the kind whose survivors count towards sufficiency.
	// Default "lecture" (the demo's); "" counts every kind. A partition
	// that holds no chunk of this kind counts all its survivors (the proxy
	// clears PrimaryKind for that turn), so a corpus that never sets kind
	// is not penalised.
	PrimaryKind string `yaml:"primary_kind"`
	// PrimaryMin is how many primary-kind survivors sufficiency needs. >= 0,
	// default 2.
	PrimaryMin int `yaml:"primary_min"`
	// SufficientMax is the max relevance sufficiency needs. Range [0,1],
	// default 0.55.
	SufficientMax float64 `yaml:"sufficient_max"`
	// GoodEnoughMax grounds the answer on its own. Range [0,1], default 0.65.
	GoodEnoughMax float64 `yaml:"good_enough_max"`
	// BailOutBelow routes to the fallback model when max is below it. Range
	// [0,1], default 0.40; must not exceed good_enough_max.
	BailOutBelow float64 `yaml:"bail_out_below"`
	// Between is "refuse" (default) or "ground" (ground with a caveat, when
	// the local planner finds a note at planner.min_best_between).
	Between string `yaml:"between"`
	// RefusalText is the assistant message of a refused turn. Non-empty.
	RefusalText string `yaml:"refusal_text"`
	// TopicsText follows RefusalText when some passages came near the
	// question; "{topics}" is replaced by their titles (or the lead of
	// their text), quoted and separated by "; ". Empty: no topics named.
	TopicsText string `yaml:"topics_text"`
	// ClosestTopics is how many topics a refusal names. Range [0,10],
	// default 3.
	ClosestTopics int `yaml:"closest_topics"`
	// OffTopic is what a question below bail_out_below (nothing in the
	// corpus is about it) gets: "fallback" (default, as in the seed: the
	// fallback model answers from general knowledge behind the
	// disclaimer) or "refuse" (a topical rail: OffTopicText, no model
	// call).
	OffTopic string `yaml:"off_topic"`
	// OnTopicSim keeps an on-topic question from general knowledge: when
	// the max relevance is below bail_out_below but the sentence encoder's
	// best cosine between the question and a candidate reaches it, the
	// corpus's domain is taken to be the question's (it asks about the
	// service, just not about anything the corpus says), so the turn is
	// refused naming the closest topics, whatever off_topic says. Only
	// candidates with semantic features count: the lexical-only mode never
	// applies it. 0 switches it off. Range [0,1], default 0.30 (tuned on
	// the dev corpora by guard bench quality --gate).
	OnTopicSim float64 `yaml:"on_topic_sim"`
	// OnTopicYou: below bail_out_below, a question that speaks to the
	// service ("do you give a student discount?", "when do your skips
	// come?": Ask.You) is on-topic on a corpus that keeps to one topic
	// (on_topic_coherence), as on_topic_sim makes one: refused naming the
	// closest topics, since general knowledge cannot say what this service
	// does. Not for a general question, a request to make something, an
	// aside, advice or another business. Only on a partition whose
	// coherence the index keeps (the encoder's dense lane): where none is
	// kept a one-topic corpus cannot be told from a mixed archive. Default
	// true.
	OnTopicYou bool `yaml:"on_topic_you"`
	// OnTopicCoherence limits on_topic_sim to a corpus that keeps to one
	// topic: the rule applies only when the partition's coherence (the
	// mean cosine between two of its passages' encoder vectors, taken
	// relative to the encoder's background mean; measured at index build)
	// reaches it. Below (a mixed archive such as encyclopedia entries), a
	// question below bail_out_below goes per off_topic even when it
	// resembles some passages. An index built before the coherence was
	// measured keeps none, nor does one whose dense lane is hashed or
	// remote (no encoder vectors): on_topic_sim alone decides there. 0 switches the check off. Range [0,1], default 0.40 (tuned
	// by guard bench quality --gate on the dev corpora and HaluEval train).
	OnTopicCoherence float64 `yaml:"on_topic_coherence"`
	// GeneralAbove and GeneralWeight keep general-knowledge questions
	// ("what's the capital of australia", "how do I get a stain out of a
	// shirt") off a corpus they share no topic with. A question's general
	// score (Ask.General: the sentence encoder's mean cosine to its 3
	// nearest of a set of general-knowledge questions less that to its 3
	// nearest of a set of customers' questions to a service, both sets
	// embedded in the binary) above general_above lowers every passage's
	// relevance by general_weight x (score - general_above) in logit; such
	// a question is never refused as on-topic by on_topic_sim, and in the
	// between band it goes per off_topic as below bail_out_below. Only
	// on a partition that keeps to one topic (on_topic_coherence; an
	// encyclopedia's questions all read as general knowledge) and never
	// for a contact question. general_weight 0 switches it off (the
	// lexical-only mode has no score). Ranges [-1,1] and [0,1000];
	// defaults 0.15 and 32, chosen on the dev corpora (docs/quality.md).
	GeneralAbove  float64 `yaml:"general_above"`
	GeneralWeight float64 `yaml:"general_weight"`
	// OtherBusiness handles a question about another business (Ask.Other:
	// "how much does Specsavers charge?", "how do I cancel my Sky TV
	// subscription?", "is Monkey Business cheaper than you?", the name a
	// word the corpus never uses) as off-topic, per off_topic, whatever
	// its passages' relevance: the corpus cannot answer for another
	// business. Only on a partition that keeps to one topic
	// (on_topic_coherence) and never for a contact question. Default true.
	OtherBusiness bool `yaml:"other_business"`
	// OffTopicText is the reply to an off-topic question with off_topic:
	// refuse. Non-empty.
	OffTopicText string `yaml:"off_topic_text"`
	// FallbackInstruction is the system instruction of a bail-out turn.
	// Non-empty.
	FallbackInstruction string `yaml:"fallback_instruction"`
	// Disclaimer is the sentence a fallback answer must contain. Non-empty.
	Disclaimer string `yaml:"disclaimer"`
	// Caveat is added to a grounded prompt when between: ground grounded it.
	Caveat string `yaml:"caveat"`
	// SystemTemplate is the text/template of the system message; see
	// [PromptData] for the fields it can use. Non-empty, must parse.
	SystemTemplate string `yaml:"system_template"`
	// MaxNotes caps the notes minted per turn. Range [1,999], default 16.
	MaxNotes int `yaml:"max_notes"`
	// Relevance is the score the thresholds compare: "relevance"
	// (default: the relevance model's calibrated probability that the
	// passage is about the question, from rerank, encoder similarity,
	// word-vector soft coverage and lexical features, the same scale on
	// every corpus and reranker), "answerability" (the answerability
	// model's probability that the passage answers it: relevance and
	// answerability merged, as before) or "rerank" (the reranker's own
	// score); the last two are kept for comparison.
	Relevance string `yaml:"relevance"`
	// CorpusCalibration applies the snapshot's per-corpus calibration
	// (measured at index time with pseudo-questions; guard index calibrate
	// prints it) to the answerability probabilities before the thresholds
	// compare them. Default false: on the dev corpora it changed no
	// decision's balance (docs/quality.md), so it is opt-in.
	CorpusCalibration bool `yaml:"corpus_calibration"`
	// Planner is the synthesis planner that runs after the coverage gate.
	Planner PlannerConfig `yaml:"planner"`

	// Scrub, when set, rewrites a note or memory text before it is rendered;
	// the proxy sets it to the gauntlet's id scrubber so no id-shaped token
	// reaches the model. Not configurable from YAML.
	Scrub func(string) string `yaml:"-"`
}

// PlannerConfig configures the synthesis planner: it ranks the notes that
// survived the gate into an outline of those that support an answer; only
// outlined notes are shown to the model, in outline order, and an empty
// outline refuses before the answer model runs.
type PlannerConfig struct {
	// Mode is "local" (default: the answerability model per note) or
	// "remote" (an OpenAI-compatible chat model; on failure the local
	// planner decides and guard.degraded says "planner").
	Mode string `yaml:"mode"`
	// MinSupport is the least answerability a note needs to enter the
	// outline. Range [0,1], default 0.20 (tuned on the dev corpora by guard
	// bench quality --gate).
	MinSupport float64 `yaml:"min_support"`
	// MinBest is the least answerability the best note needs before the
	// local planner outlines any note: below it the outline is empty and
	// the turn is refused as not covered (a contact question's contact
	// hit aside). MinSupport chooses the notes, MinBest decides whether
	// the corpus answers at all: a passage that answers often scores below
	// a near miss of the same question, so raising MinSupport drops right
	// notes where raising MinBest drops questions (docs/quality.md,
	// 2026-11-29). Range [0,1], default 0.31; 0 turns it off.
	MinBest float64 `yaml:"min_best"`
	// MinBestBetween replaces MinBest, when higher, on a turn the gate
	// grounds from the between band (between: ground): middling relevance
	// grounds only on a note that answers well. Range [0,1], default 0.40
	// (docs/quality.md, 2026-11-29).
	MinBestBetween float64 `yaml:"min_best_between"`
	// MaxOutline caps the outline. Range [1,999], default 8.
	MaxOutline int `yaml:"max_outline"`
	// BaseURL, Model, APIKeyEnv and Timeout configure the remote planner
	// (an OpenAI-compatible /chat/completions endpoint, temperature 0).
	// BaseURL and Model are required with mode remote; BaseURL "upstream"
	// (PlannerUpstream) plans on the answering upstream, with its key
	// unless APIKeyEnv is set. Timeout > 0, default 2s.
	BaseURL   string        `yaml:"base_url"`
	Model     string        `yaml:"model"`
	APIKeyEnv string        `yaml:"api_key_env"`
	Timeout   time.Duration `yaml:"timeout"`
}

// BetweenFloor is the best note's least answerability for a turn grounded
// from the between band: the higher of MinBest and MinBestBetween.
func (p PlannerConfig) BetweenFloor() float64 { return max(p.MinBest, p.MinBestBetween) }

// PlannerUpstream as planner.base_url makes the answering upstream the
// remote planner.
const PlannerUpstream = "upstream"

// DefaultSystemTemplate is the default system_template.
const DefaultSystemTemplate = `{{if eq .Decision "ground" -}}
Answer the user's question using only the numbered notes below.
Cite every sentence that uses a note with its footnote marker, for example [^1] or [^1][^2], placed before the sentence's final punctuation.
Cite only the numbers listed below; never invent a number, a source, an id or a link. Do not cite the same note twice in one sentence.
If the notes do not answer part of the question, say so instead of guessing.
{{- if .Caveat}}
{{.Caveat}}
{{- end}}

Notes:
{{.Notes}}
{{- else if eq .Decision "fallback" -}}
{{.FallbackInstruction}}
This notice is already shown to the user ahead of your answer; do not repeat it: "{{.Disclaimer}}"
Do not use footnote markers or citations.
{{- end}}
{{- if .Memory}}

Background (do not cite):
{{.Memory}}
{{- end}}
`

// DefaultConfig returns the defaults of DESIGN.md.
func DefaultConfig() Config {
	return Config{
		Prefloor:            0.18,
		PrefloorNoRerank:    0.45,
		PrimaryKind:         "lecture",
		PrimaryMin:          2,
		SufficientMax:       0.55,
		GoodEnoughMax:       0.65,
		BailOutBelow:        0.40,
		Between:             BetweenRefuse,
		RefusalText:         "The sources I can search do not cover this question, so I can't answer it from them.",
		TopicsText:          "The closest topics they cover are: {topics}.",
		ClosestTopics:       3,
		OffTopic:            OffTopicFallback,
		OnTopicSim:          0.30,
		OnTopicYou:          true,
		OnTopicCoherence:    0.40,
		GeneralAbove:        0.15,
		GeneralWeight:       32,
		OtherBusiness:       true,
		OffTopicText:        "That question is outside what the sources I can search cover, so I can't answer it here.",
		FallbackInstruction: "None of the available sources covers this question. Answer briefly from general knowledge, and say plainly where you are unsure.",
		Disclaimer:          "This answer is from general knowledge, not from the available sources.",
		Caveat:              "The notes cover the question only in part: say which parts they do not cover.",
		SystemTemplate:      DefaultSystemTemplate,
		MaxNotes:            16,
		Relevance:           RelevanceModel,
		Planner:             PlannerConfig{Mode: "local", MinSupport: 0.20, MinBest: 0.31, MinBestBetween: 0.40, MaxOutline: 8, Timeout: 2 * time.Second},
	}
}

// The relevance scales.
const (
	RelevanceModel         = "relevance"
	RelevanceAnswerability = "answerability"
	RelevanceRerank        = "rerank"
)

// Validate reports every problem of c at once, each starting with its key.
func (c Config) Validate() error {
	var errs []error
	unit := func(key string, v float64) {
		if !(v >= 0 && v <= 1) { // also rejects NaN
			errs = append(errs, fmt.Errorf("%s: must be in [0,1], got %v", key, v))
		}
	}
	unit("prefloor", c.Prefloor)
	unit("prefloor_no_rerank", c.PrefloorNoRerank)
	unit("sufficient_max", c.SufficientMax)
	unit("good_enough_max", c.GoodEnoughMax)
	unit("bail_out_below", c.BailOutBelow)
	unit("on_topic_sim", c.OnTopicSim)
	unit("on_topic_coherence", c.OnTopicCoherence)
	if !(c.GeneralAbove >= -1 && c.GeneralAbove <= 1) {
		errs = append(errs, fmt.Errorf("general_above: must be in [-1,1], got %v", c.GeneralAbove))
	}
	if !(c.GeneralWeight >= 0 && c.GeneralWeight <= 1000) {
		errs = append(errs, fmt.Errorf("general_weight: must be in [0,1000], got %v", c.GeneralWeight))
	}
	if c.BailOutBelow > c.GoodEnoughMax {
		errs = append(errs, fmt.Errorf("bail_out_below: must not exceed good_enough_max (%v), got %v", c.GoodEnoughMax, c.BailOutBelow))
	}
	if c.OffTopic != OffTopicFallback && c.OffTopic != OffTopicRefuse {
		errs = append(errs, fmt.Errorf("off_topic: must be %q or %q, got %q", OffTopicFallback, OffTopicRefuse, c.OffTopic))
	}
	if c.OffTopicText == "" {
		errs = append(errs, errors.New("off_topic_text: must not be empty"))
	}
	if c.ClosestTopics < 0 || c.ClosestTopics > 10 {
		errs = append(errs, fmt.Errorf("closest_topics: must be in [0,10], got %d", c.ClosestTopics))
	}
	if c.PrimaryMin < 0 {
		errs = append(errs, fmt.Errorf("primary_min: must be >= 0, got %d", c.PrimaryMin))
	}
	if c.Between != BetweenRefuse && c.Between != BetweenGround {
		errs = append(errs, fmt.Errorf("between: must be %q or %q, got %q", BetweenRefuse, BetweenGround, c.Between))
	}
	if c.RefusalText == "" {
		errs = append(errs, errors.New("refusal_text: must not be empty"))
	}
	if c.FallbackInstruction == "" {
		errs = append(errs, errors.New("fallback_instruction: must not be empty"))
	}
	if c.Disclaimer == "" {
		errs = append(errs, errors.New("disclaimer: must not be empty"))
	}
	if c.MaxNotes < 1 || c.MaxNotes > 999 {
		errs = append(errs, fmt.Errorf("max_notes: must be in [1,999], got %d", c.MaxNotes))
	}
	if c.Relevance != RelevanceModel && c.Relevance != RelevanceAnswerability && c.Relevance != RelevanceRerank {
		errs = append(errs, fmt.Errorf("relevance: must be %q, %q or %q, got %q", RelevanceModel, RelevanceAnswerability, RelevanceRerank, c.Relevance))
	}
	if c.Planner.Mode != "local" && c.Planner.Mode != "remote" {
		errs = append(errs, fmt.Errorf("planner.mode: must be local or remote, got %q", c.Planner.Mode))
	}
	unit("planner.min_support", c.Planner.MinSupport)
	unit("planner.min_best", c.Planner.MinBest)
	unit("planner.min_best_between", c.Planner.MinBestBetween)
	if c.Planner.Mode == "remote" && (c.Planner.BaseURL == "" || c.Planner.Model == "") {
		errs = append(errs, errors.New("planner: mode remote needs base_url and model"))
	}
	if c.Planner.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("planner.timeout: must be > 0, got %s", c.Planner.Timeout))
	}
	if c.Planner.MaxOutline < 1 || c.Planner.MaxOutline > 999 {
		errs = append(errs, fmt.Errorf("planner.max_outline: must be in [1,999], got %d", c.Planner.MaxOutline))
	}
	if c.SystemTemplate == "" {
		errs = append(errs, errors.New("system_template: must not be empty"))
	} else if _, err := parseTemplate(c.SystemTemplate); err != nil {
		errs = append(errs, fmt.Errorf("system_template: %w", err))
	}
	return errors.Join(errs...)
}

func parseTemplate(s string) (*template.Template, error) {
	return template.New("system").Option("missingkey=error").Parse(s)
}
