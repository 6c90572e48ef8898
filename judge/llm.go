package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/oaiclient"
)

// LLM is the remote verifier: an OpenAI-compatible chat model asked, with a
// strict prompt, for a label, a confidence and the evidence quote. When the
// first answer's confidence lies in the ChainPoll band [low, high], votes
// concurrent samples are taken and a label needs agree of them.
//
// Every call holds a slot of the shared semaphore, so concurrent calls across
// all requests stay bounded. Calls go through the shared client (client
// "judge" in its metrics), one attempt each, bounded by cfg.Timeout.
type LLM struct {
	cfg     LLMConfig
	cp      ChainPollConfig
	client  *oaiclient.Client
	sem     chan struct{}
	log     *zap.Logger
	metrics *Metrics
}

var _ Verifier = (*LLM)(nil)

// NewLLM returns an LLM verifier. sem bounds concurrent calls (shared with
// other users of the judge); nil means concurrency 1. log may be nil.
func NewLLM(cfg LLMConfig, cp ChainPollConfig, sem chan struct{}, log *zap.Logger) *LLM {
	if sem == nil {
		sem = make(chan struct{}, 1)
	}
	if log == nil {
		log = zap.NewNop()
	}
	client := oaiclient.New(oaiclient.Config{
		Name: "judge", BaseURL: cfg.BaseURL, APIKeyEnv: cfg.APIKeyEnv,
		Timeout: cfg.Timeout, MaxIdleConns: cap(sem), MaxResponse: 1 << 20,
	})
	return &LLM{cfg: cfg, cp: cp, client: client, sem: sem, log: log, metrics: &Metrics{}}
}

// ErrBadAnswer is returned (wrapped) when the judge model's answer carries
// no usable label.
var ErrBadAnswer = errors.New("judge answer has no label")

const llmSystemPrompt = `You are a strict fact-checking judge. You are given EVIDENCE passages and one CLAIM.
Decide only from the evidence, never from your own knowledge:
- "supported": every part of the claim is stated or directly implied by the evidence;
- "contradicted": the evidence states something incompatible with the claim (a different number, date, name, or the opposite);
- "neutral": the evidence neither supports nor contradicts the claim (missing information is neutral, not contradicted);
- "opinion": the claim is an opinion, advice or a value judgement, not a checkable fact.
Answer with one JSON object and nothing else:
{"label":"supported|contradicted|neutral|opinion","confidence":<0..1>,"evidence":"<exact quote from the evidence, or empty>"}`

// Verify implements Verifier.
func (l *LLM) Verify(ctx context.Context, claim string, evidence []Passage) (Verdict, error) {
	msgs := llmMessages(StripCitations(claim), evidence)
	first, err := l.ask(ctx, msgs, 0)
	if err != nil {
		return Verdict{}, err
	}
	first.Method = "llm"
	if first.Confidence < l.cp.Low || first.Confidence > l.cp.High {
		return l.finish(first, claim), nil
	}
	v, err := l.chainPoll(ctx, msgs)
	if err != nil {
		// the first answer stands; the poll could not improve on it
		l.log.Debug("chainpoll failed", zap.Error(err))
		first.Reason = "chainpoll_failed"
		return l.finish(first, claim), nil
	}
	return l.finish(v, claim), nil
}

func (l *LLM) finish(v Verdict, claim string) Verdict {
	switch v.Label {
	case Contradiction:
		v.Severity = Major
		for _, t := range analyse(claim) {
			if t.isNum {
				v.Severity = Critical
				break
			}
		}
	case Neutral:
		v.Severity = Minor
	default:
		v.Severity = Info
	}
	return v
}

// chainPoll takes cp.Votes concurrent samples and returns the label at
// least cp.Agree of them chose (confidence = share of votes for it), or
// neutral when no label reaches cp.Agree.
func (l *LLM) chainPoll(ctx context.Context, msgs []oaiclient.Message) (Verdict, error) {
	l.metrics.chainPolls.Add(1)
	votes := make([]Verdict, l.cp.Votes)
	errs := make([]error, l.cp.Votes)
	var wg sync.WaitGroup
	for i := range votes {
		wg.Go(func() { votes[i], errs[i] = l.ask(ctx, msgs, 1) })
	}
	wg.Wait()
	count := map[string]int{}
	best, bestN, valid := "", 0, 0
	var firstErr error
	for i, v := range votes {
		if errs[i] != nil {
			if firstErr == nil {
				firstErr = errs[i]
			}
			continue
		}
		valid++
		count[v.Label]++
		if n := count[v.Label]; n > bestN {
			best, bestN = v.Label, n
		}
	}
	if valid == 0 {
		return Verdict{}, fmt.Errorf("chainpoll: all %d votes failed: %w", l.cp.Votes, firstErr)
	}
	conf := float64(bestN) / float64(l.cp.Votes)
	if bestN < l.cp.Agree {
		return Verdict{Label: Neutral, Confidence: conf, Method: "chainpoll", Reason: "chainpoll_no_majority"}, nil
	}
	out := Verdict{Label: best, Confidence: conf, Method: "chainpoll", Reason: fmt.Sprintf("chainpoll_%d_of_%d", bestN, l.cp.Votes)}
	for _, v := range votes {
		if v.Label == best && v.Evidence != "" {
			out.Evidence = v.Evidence
			break
		}
	}
	return out, nil
}

func llmMessages(claim string, evidence []Passage) []oaiclient.Message {
	var b strings.Builder
	b.WriteString("EVIDENCE:\n")
	for _, p := range evidence {
		fmt.Fprintf(&b, "[%d] %s\n%s\n\n", p.N, p.Title, p.Text)
	}
	b.WriteString("CLAIM: ")
	b.WriteString(claim)
	return []oaiclient.Message{{Role: "system", Content: llmSystemPrompt}, {Role: "user", Content: b.String()}}
}

// ask makes one judge call, holding a semaphore slot.
func (l *LLM) ask(ctx context.Context, msgs []oaiclient.Message, temperature float64) (Verdict, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return Verdict{}, fmt.Errorf("wait for judge slot: %w", ctx.Err())
	}
	defer func() { <-l.sem }()
	start := time.Now()
	content, err := l.client.Chat(ctx, oaiclient.ChatRequest{Model: l.cfg.Model, Messages: msgs, Temperature: temperature, MaxTokens: 300})
	if errors.Is(err, oaiclient.ErrBadResponse) {
		return Verdict{}, fmt.Errorf("decode judge answer: %w: %w", ErrBadAnswer, err)
	}
	if err != nil {
		return Verdict{}, err
	}
	v, err := ParseJudgeAnswer(content)
	if c := l.log.Check(zap.DebugLevel, "judge call"); c != nil {
		c.Write(zap.Duration("took", time.Since(start)), zap.String("label", v.Label), zap.Error(err))
	}
	return v, err
}

// defaultLLMConfidence is assumed when the judge gives a label without a
// usable confidence; it lies inside the default ChainPoll band on purpose.
const defaultLLMConfidence = 0.65

// ParseJudgeAnswer reads a judge model's answer: a JSON object
// {"label","confidence","evidence"} (possibly inside a code fence or
// surrounded by text), or a bare label word. Anything else is ErrBadAnswer.
func ParseJudgeAnswer(s string) (Verdict, error) {
	t := strings.TrimSpace(s)
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		var a struct {
			Label      string   `json:"label"`
			Verdict    string   `json:"verdict"`
			Confidence *float64 `json:"confidence"`
			Evidence   string   `json:"evidence"`
		}
		if err := json.Unmarshal([]byte(t[i:j+1]), &a); err == nil {
			lab := a.Label
			if lab == "" {
				lab = a.Verdict
			}
			label, ok := normLabel(lab)
			if !ok {
				return Verdict{}, fmt.Errorf("label %q: %w", trimSpan(lab), ErrBadAnswer)
			}
			conf := defaultLLMConfidence
			if a.Confidence != nil && *a.Confidence >= 0 && *a.Confidence <= 1 {
				conf = *a.Confidence
			}
			return Verdict{Label: label, Confidence: conf, Evidence: trimSpan(a.Evidence)}, nil
		}
	}
	word := strings.Trim(strings.ToLower(t), " \t\n.\"'`*:")
	if label, ok := normLabel(word); ok {
		return Verdict{Label: label, Confidence: defaultLLMConfidence}, nil
	}
	return Verdict{}, fmt.Errorf("answer %q: %w", trimSpan(t), ErrBadAnswer)
}

func normLabel(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "supported", "support", "supports", "entailment", "entailed", "entails", "true":
		return Entailment, true
	case "contradicted", "contradiction", "contradicts", "refuted", "refutes", "false":
		return Contradiction, true
	case "neutral", "not_enough_info", "not enough info", "nei", "unsupported", "insufficient", "unknown":
		return Neutral, true
	case "opinion":
		return Opinion, true
	}
	return "", false
}
