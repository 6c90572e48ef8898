package judge

import (
	"errors"
	"fmt"
	"time"
)

// Config is the `verify` section of the top-level configuration.
type Config struct {
	// Mode is "report" (stream at once, verdicts on the final chunk) or
	// "strict" (hold each sentence until verified, drop bad citations).
	Mode string `yaml:"mode"`
	// Verifier is "local" (heuristic NLI, no network), "llm" (OpenAI-compatible
	// chat judge with ChainPoll) or "both" (run concurrently, LLM wins when it
	// answers, local is the fallback).
	Verifier string `yaml:"verifier"`
	// LLM configures the remote judge; used when Verifier is llm or both.
	LLM LLMConfig `yaml:"llm"`
	// ChainPoll configures the re-poll of uncertain LLM verdicts.
	ChainPoll ChainPollConfig `yaml:"chainpoll"`
	// MinContextChars: seed 000's rule, applied where the seed applies it:
	// when the combined context of a turn (the text of all the notes handed
	// to the model) is shorter, a sentence that cites nothing is not judged
	// against it (the uncited-claim flagger): it is reported not_checked
	// with that reason. A cited claim is always verified against its cited
	// passages, whatever their length. Default 500, range >= 0.
	MinContextChars int `yaml:"min_context_chars"`
	// Concurrency bounds concurrent remote judge calls across all requests
	// (a semaphore). Default 8, range >= 1.
	Concurrency int `yaml:"concurrency"`
	// Footer adds a human-readable one-line trust footer to the report.
	Footer bool `yaml:"footer"`
	// SentenceTimeout bounds the verification of one claim (all votes); on
	// expiry the claim degrades to the local verifier. Default 10s, > 0.
	SentenceTimeout time.Duration `yaml:"sentence_timeout"`
	// Local tunes the local heuristic verifier.
	Local LocalConfig `yaml:"local"`
	// Reliability weighs a claim's reliability score and its risk bands.
	Reliability ReliabilityConfig `yaml:"reliability"`
}

// ReliabilityConfig is the per-claim reliability formula of DESIGN.md:
// has_source*[a cited source] + resolves*[it resolves and supports] +
// confidence*verdict confidence + a multi-source bonus, capped at 1; risk
// is high below HighBelow, low from LowFrom, medium between.
type ReliabilityConfig struct {
	// HasSource weighs "the claim cites a source". Default 0.30, in [0,1].
	HasSource float64 `yaml:"has_source"`
	// Resolves weighs "the cited source resolves and entails it". Default
	// 0.30, in [0,1].
	Resolves float64 `yaml:"resolves"`
	// Confidence weighs the verdict's confidence. Default 0.40, in [0,1].
	Confidence float64 `yaml:"confidence"`
	// BonusPerSource is added per supporting source beyond the first, up
	// to BonusMax. Defaults 0.05 and 0.10, in [0,1].
	BonusPerSource float64 `yaml:"bonus_per_source"`
	BonusMax       float64 `yaml:"bonus_max"`
	// HighBelow and LowFrom are the risk band edges. Defaults 0.40 and
	// 0.70, 0 <= high_below <= low_from <= 1.
	HighBelow float64 `yaml:"high_below"`
	LowFrom   float64 `yaml:"low_from"`
}

// LLMConfig configures the OpenAI-compatible chat judge.
type LLMConfig struct {
	// BaseURL of the OpenAI-compatible API, e.g. http://127.0.0.1:8081/v1;
	// the verifier POSTs {base_url}/chat/completions.
	BaseURL string `yaml:"base_url"`
	// Model name sent to the judge.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the bearer key
	// (empty: no Authorization header).
	APIKeyEnv string `yaml:"api_key_env"`
	// Timeout bounds one judge call. Default 5s, > 0.
	Timeout time.Duration `yaml:"timeout"`
}

// ChainPollConfig configures ChainPoll: when the first LLM verdict's
// confidence lies in [Low, High] (inclusive), Votes concurrent votes are
// taken and a label needs Agree of them to win.
type ChainPollConfig struct {
	Votes int     `yaml:"votes"` // default 3, >= 1
	Agree int     `yaml:"agree"` // default 2, in [1, votes]
	Low   float64 `yaml:"low"`   // default 0.5, in [0,1]
	High  float64 `yaml:"high"`  // default 0.8, in [low,1]
}

// LocalConfig holds the decision thresholds of the local verifier.
type LocalConfig struct {
	// Entail: minimum weighted coverage of the claim's content terms by the
	// best evidence window for "entailment" (see Strict). Default 0.40, in (0,1].
	Entail float64 `yaml:"entail"`
	// Conflict: minimum coverage of the claim's non-conflicting terms for a
	// number/negation/antonym mismatch to count as "contradiction".
	// Default 0.50, in (0,1].
	Conflict float64 `yaml:"conflict"`
	// Strict: claim weight (content words count 1, entities 1.5, numbers 2)
	// that must always be covered; only the weight beyond it may go
	// uncovered. Default 1, >= 0.
	Strict float64 `yaml:"strict"`
	// Anchors: a claim whose named entity or number appears nowhere in the
	// evidence is never entailed. Default true.
	Anchors bool `yaml:"anchors"`
	// Gather: a claim no single window entails is still entailed when the
	// entailing windows of one passage together cover need+Gather of it and
	// the best of them falls short of need by at most Gather (need is the
	// coverage Entail and Strict ask of the claim). 0 disables it.
	// Default 0.10, in [0,1).
	Gather float64 `yaml:"gather"`
	// Model is "learned" (the logistic layer of localmodel.json, fitted on
	// training data by `guard bench quality --verify --fit`, decides
	// entailment) or "rule" (coverage >= need with every anchor found, the
	// verifier before issue 11). Default learned.
	Model string `yaml:"model" json:"-"`
	// Scope is "on" (the default; empty means on) or "off": read the
	// conditions and scope of a claim against its evidence (quantifiers,
	// bounds, ranges, periods, exceptions; see scope.go). A claim that drops
	// or widens a condition of its evidence is then not entailed.
	Scope string `yaml:"scope" json:"-"`
	// Encoder is "embedded" (the sentence encoder of index/encoder gives the
	// similarity feature of the fitted model) or "off" (the model's
	// no-encoder variant decides). Default off: see docs/quality.md for
	// what it adds and what it costs per sentence.
	Encoder string `yaml:"encoder" json:"-"`
}

// DefaultConfig returns the defaults of DESIGN.md.
func DefaultConfig() Config {
	return Config{
		Mode:     "report",
		Verifier: "local",
		LLM: LLMConfig{
			BaseURL:   "",
			Model:     "",
			APIKeyEnv: "GUARD_JUDGE_API_KEY",
			Timeout:   5 * time.Second,
		},
		ChainPoll:       ChainPollConfig{Votes: 3, Agree: 2, Low: 0.5, High: 0.8},
		MinContextChars: 500,
		Concurrency:     8,
		Footer:          false,
		SentenceTimeout: 10 * time.Second,
		Local:           defaultLocal(),
		Reliability: ReliabilityConfig{HasSource: 0.30, Resolves: 0.30, Confidence: 0.40,
			BonusPerSource: 0.05, BonusMax: 0.10, HighBelow: 0.40, LowFrom: 0.70},
	}
}

// Validate reports every problem at once, each prefixed with its key path
// inside the verify section.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Mode {
	case "report", "strict":
	default:
		bad("mode: must be report or strict, got %q", c.Mode)
	}
	switch c.Verifier {
	case "local":
	case "llm", "both":
		if c.LLM.BaseURL == "" {
			bad("llm.base_url: required when verifier is %s", c.Verifier)
		}
		if c.LLM.Model == "" {
			bad("llm.model: required when verifier is %s", c.Verifier)
		}
	default:
		bad("verifier: must be local, llm or both, got %q", c.Verifier)
	}
	if c.LLM.Timeout <= 0 {
		bad("llm.timeout: must be > 0, got %s", c.LLM.Timeout)
	}
	cp := c.ChainPoll
	if cp.Votes < 1 {
		bad("chainpoll.votes: must be >= 1, got %d", cp.Votes)
	}
	if cp.Agree < 1 || cp.Agree > cp.Votes {
		bad("chainpoll.agree: must be in [1, votes=%d], got %d", cp.Votes, cp.Agree)
	}
	if cp.Low < 0 || cp.Low > 1 {
		bad("chainpoll.low: must be in [0,1], got %g", cp.Low)
	}
	if cp.High < cp.Low || cp.High > 1 {
		bad("chainpoll.high: must be in [low,1], got %g", cp.High)
	}
	rl := c.Reliability
	for name, v := range map[string]float64{"has_source": rl.HasSource, "resolves": rl.Resolves, "confidence": rl.Confidence,
		"bonus_per_source": rl.BonusPerSource, "bonus_max": rl.BonusMax, "high_below": rl.HighBelow, "low_from": rl.LowFrom} {
		if v < 0 || v > 1 {
			bad("reliability.%s: must be in [0,1], got %g", name, v)
		}
	}
	if rl.HighBelow > rl.LowFrom {
		bad("reliability.high_below: must be <= low_from (%g), got %g", rl.LowFrom, rl.HighBelow)
	}
	if c.MinContextChars < 0 {
		bad("min_context_chars: must be >= 0, got %d", c.MinContextChars)
	}
	if c.Concurrency < 1 {
		bad("concurrency: must be >= 1, got %d", c.Concurrency)
	}
	if c.SentenceTimeout <= 0 {
		bad("sentence_timeout: must be > 0, got %s", c.SentenceTimeout)
	}
	if c.Local.Entail <= 0 || c.Local.Entail > 1 {
		bad("local.entail: must be in (0,1], got %g", c.Local.Entail)
	}
	if c.Local.Conflict <= 0 || c.Local.Conflict > 1 {
		bad("local.conflict: must be in (0,1], got %g", c.Local.Conflict)
	}
	if c.Local.Strict < 0 {
		bad("local.strict: must be >= 0, got %g", c.Local.Strict)
	}
	if c.Local.Model != "learned" && c.Local.Model != "rule" {
		bad("local.model: must be learned or rule, got %q", c.Local.Model)
	}
	if c.Local.Scope != "" && c.Local.Scope != "on" && c.Local.Scope != "off" {
		bad("local.scope: must be on or off, got %q", c.Local.Scope)
	}
	if c.Local.Encoder != "" && c.Local.Encoder != "off" && c.Local.Encoder != "embedded" {
		bad("local.encoder: must be embedded or off, got %q", c.Local.Encoder)
	}
	if c.Local.Gather < 0 || c.Local.Gather >= 1 {
		bad("local.gather: must be in [0,1), got %g", c.Local.Gather)
	}
	return errors.Join(errs...)
}

// defaultLocal is the rule parameters fitted with the shipped model.
func defaultLocal() LocalConfig {
	c := DefaultLocalModel.Rule
	c.Model = "learned"
	c.Scope = "on"
	c.Encoder = "off"
	return c
}
