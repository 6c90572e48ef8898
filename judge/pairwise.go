package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/answer-guard/guard/internal/oaiclient"
)

// The offline pairwise judge compares two configurations of the guard on
// answer quality (seed 004): for each question, a judge model (any
// OpenAI-compatible chat model, temperature 0) sees the question, the notes
// the answers had, and both answers blind (as "Answer 1" and "Answer 2"),
// and says per criterion which is better and why. The side shown first is
// chosen from a hash of the question id, so position bias cancels over the
// set and the same input always gets the same sides; a share of the
// questions is judged a second time with the sides swapped, and the
// agreement between the two runs is the position-bias audit.

// Criteria the pairwise judge scores, in report order.
var Criteria = []string{"faithfulness", "completeness", "structure", "balance"}

// PairwiseConfig is the `pairwise` section: the judge model and the audit.
type PairwiseConfig struct {
	// BaseURL of the OpenAI-compatible judge, e.g. http://127.0.0.1:8081/v1
	// ({base_url}/chat/completions is called). Required to judge.
	BaseURL string `yaml:"base_url"`
	// Model name sent to the judge. Required to judge.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the bearer key
	// (empty or unset: no Authorization header).
	APIKeyEnv string `yaml:"api_key_env"`
	// Temperature of the judge's sampling. Default 0, in [0,2].
	Temperature float64 `yaml:"temperature"`
	// Timeout bounds one judge call. Default 60s, > 0.
	Timeout time.Duration `yaml:"timeout"`
	// Concurrency bounds judge calls in flight. Default 4, in [1,64].
	Concurrency int `yaml:"concurrency"`
	// SwapShare is the share of questions judged again with the sides
	// swapped (chosen by hash of the id). Default 0.2, in [0,1].
	SwapShare float64 `yaml:"swap_share"`
	// Bootstrap is the number of resamples for the confidence intervals.
	// Default 2000, in [100,100000].
	Bootstrap int `yaml:"bootstrap"`
	// Seed seeds the bootstrap. Default 1.
	Seed uint64 `yaml:"seed"`
}

// DefaultPairwiseConfig returns the defaults.
func DefaultPairwiseConfig() PairwiseConfig {
	return PairwiseConfig{APIKeyEnv: "GUARD_JUDGE_API_KEY", Temperature: 0, Timeout: 60 * time.Second, Concurrency: 4,
		SwapShare: 0.2, Bootstrap: 2000, Seed: 1}
}

// Validate reports every problem at once (base_url and model may be empty
// here; Judge asks for them when it runs).
func (c PairwiseConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.BaseURL != "" && !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		bad("base_url: must start with http:// or https://, got %q", c.BaseURL)
	}
	if c.Temperature < 0 || c.Temperature > 2 {
		bad("temperature: must be in [0,2], got %g", c.Temperature)
	}
	if c.Timeout <= 0 {
		bad("timeout: must be > 0, got %s", c.Timeout)
	}
	if c.Concurrency < 1 || c.Concurrency > 64 {
		bad("concurrency: must be in [1,64], got %d", c.Concurrency)
	}
	if c.SwapShare < 0 || c.SwapShare > 1 {
		bad("swap_share: must be in [0,1], got %g", c.SwapShare)
	}
	if c.Bootstrap < 100 || c.Bootstrap > 100000 {
		bad("bootstrap: must be in [100,100000], got %d", c.Bootstrap)
	}
	return errors.Join(errs...)
}

// Note is one source passage an answer had.
type Note struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
}

// Answer is one line of an answers file (guard bench answers writes them):
// the answer to one question, the notes it had, and its guard report.
type Answer struct {
	ID       string          `json:"id"`
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Notes    []Note          `json:"notes,omitempty"`
	Guard    json.RawMessage `json:"guard,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Preference is the judge's choice on one criterion: "a", "b" or "tie",
// with its reason.
type Preference struct {
	Winner string `json:"winner"`
	Reason string `json:"reason"`
}

// PairResult is the verdict on one question.
type PairResult struct {
	ID string `json:"id"`
	// First is the side shown as Answer 1: "a" or "b" (FirstSide).
	First    string                `json:"first"`
	Criteria map[string]Preference `json:"criteria,omitempty"`
	// Swapped is the same question judged with the sides swapped (only for
	// the audit sample); Agree says per criterion whether both runs agree.
	Swapped map[string]Preference `json:"swapped,omitempty"`
	Agree   map[string]bool       `json:"agree,omitempty"`
	Error   string                `json:"error,omitempty"`
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// FirstSide is the side ("a" or "b") shown first for a question id: a hash
// of the id, so the same id always gets the same side and about half the
// questions show each side first.
func FirstSide(id string) string {
	if hash64("side:"+id)&1 == 0 {
		return "a"
	}
	return "b"
}

// InSwapSample reports whether a question is judged again with the sides
// swapped: a hash of the id, below share.
func InSwapSample(id string, share float64) bool {
	return float64(hash64("swap:"+id)%10000) < share*10000
}

// Pairwise is the judge. It is safe for concurrent use.
type Pairwise struct {
	cfg    PairwiseConfig
	client *oaiclient.Client
}

// NewPairwise validates cfg and returns a judge.
func NewPairwise(cfg PairwiseConfig) (*Pairwise, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("pairwise judge: base_url and model are required")
	}
	client := oaiclient.New(oaiclient.Config{
		Name: "pairwise", BaseURL: cfg.BaseURL, APIKeyEnv: cfg.APIKeyEnv, Timeout: cfg.Timeout,
		Retries: 1, MaxIdleConns: cfg.Concurrency, MaxResponse: 8 << 20,
	})
	return &Pairwise{cfg: cfg, client: client}, nil
}

// Close closes the judge's idle connections.
func (p *Pairwise) Close() { p.client.Close() }

// PairwiseSystem is the judge's instructions. Scripted judges recognise
// the prompt by its first line.
const PairwiseSystem = `You are a blind pairwise judge of answers.
You get a question, the notes (sources) the answers could use, and two answers, Answer 1 and Answer 2, in no particular order.
Compare them on four criteria:
- faithfulness: every claim is supported by the notes; nothing is invented or contradicts them
- completeness: the answer covers what the question asks, as far as the notes allow
- structure: clear, well organised, easy to follow, cites its sources
- balance: fair and measured; states limits and uncertainty; no overclaiming
For each criterion answer "1", "2" or "tie", with a one-sentence reason. Judge the content only: ignore which answer comes first and its length as such.
Reply with JSON only, exactly this shape:
{"faithfulness":{"winner":"1|2|tie","reason":"..."},"completeness":{"winner":"1|2|tie","reason":"..."},"structure":{"winner":"1|2|tie","reason":"..."},"balance":{"winner":"1|2|tie","reason":"..."}}`

// pairwiseUser is the user message: question, notes, both answers in tags.
func pairwiseUser(question string, notes []Note, first, second string) string {
	var b strings.Builder
	b.WriteString("<question>\n" + question + "\n</question>\n<notes>\n")
	if len(notes) == 0 {
		b.WriteString("(none)\n")
	}
	for i, n := range notes {
		fmt.Fprintf(&b, "[%d] %s", i+1, n.Title)
		if n.Text != "" {
			b.WriteString(": " + n.Text)
		}
		b.WriteString("\n")
	}
	b.WriteString("</notes>\n<answer_1>\n" + first + "\n</answer_1>\n<answer_2>\n" + second + "\n</answer_2>\n")
	return b.String()
}

// unionNotes merges the notes of both answers (by id, a's first), so the
// judge sees one set and cannot tell the answers apart by their notes.
func unionNotes(a, b []Note) []Note {
	seen := map[string]bool{}
	var out []Note
	for _, n := range append(append([]Note{}, a...), b...) {
		k := n.ID
		if k == "" {
			k = n.Title + "\x00" + n.Text
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// Judge compares a and b (answers to the same question) and, when the id
// is in the swap sample, judges again with the sides swapped.
func (p *Pairwise) Judge(ctx context.Context, a, b Answer) PairResult {
	r := PairResult{ID: a.ID, First: FirstSide(a.ID)}
	q := a.Question
	if q == "" {
		q = b.Question
	}
	notes := unionNotes(a.Notes, b.Notes)
	var err error
	r.Criteria, err = p.judgeOnce(ctx, q, notes, a.Answer, b.Answer, r.First == "a")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if InSwapSample(a.ID, p.cfg.SwapShare) {
		sw, err := p.judgeOnce(ctx, q, notes, a.Answer, b.Answer, r.First != "a")
		if err != nil {
			r.Error = "swapped run: " + err.Error()
			return r
		}
		r.Swapped = sw
		r.Agree = map[string]bool{}
		for _, c := range Criteria {
			r.Agree[c] = sw[c].Winner == r.Criteria[c].Winner
		}
	}
	return r
}

// judgeOnce asks the judge with a shown first (aFirst) or b, and maps its
// "1"/"2" back to "a"/"b".
func (p *Pairwise) judgeOnce(ctx context.Context, q string, notes []Note, a, b string, aFirst bool) (map[string]Preference, error) {
	first, second := a, b
	if !aFirst {
		first, second = b, a
	}
	content, err := p.ask(ctx, pairwiseUser(q, notes, first, second))
	if err != nil {
		return nil, err
	}
	prefs, err := ParsePairwise(content)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Preference, len(prefs))
	for c, pr := range prefs {
		switch pr.Winner {
		case "1":
			pr.Winner = map[bool]string{true: "a", false: "b"}[aFirst]
		case "2":
			pr.Winner = map[bool]string{true: "b", false: "a"}[aFirst]
		}
		out[c] = pr
	}
	return out, nil
}

// ParsePairwise reads the judge's reply: a JSON object (possibly wrapped in
// prose or a code fence) with a {"winner","reason"} per criterion; winner
// is normalised to "1", "2" or "tie". Every criterion must be present.
func ParsePairwise(s string) (map[string]Preference, error) {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j <= i {
		return nil, fmt.Errorf("judge reply has no JSON object: %q", clipStr(s, 200))
	}
	var raw map[string]struct {
		Winner json.RawMessage `json:"winner"`
		Reason string          `json:"reason"`
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &raw); err != nil {
		return nil, fmt.Errorf("judge reply: %w", err)
	}
	out := map[string]Preference{}
	for _, c := range Criteria {
		v, ok := raw[c]
		if !ok {
			return nil, fmt.Errorf("judge reply lacks %q", c)
		}
		w := strings.ToLower(strings.Trim(strings.TrimSpace(string(v.Winner)), `"`))
		w = strings.TrimPrefix(strings.TrimPrefix(w, "answer"), " ")
		switch w {
		case "1", "2", "tie":
		case "a":
			w = "1"
		case "b":
			w = "2"
		case "both", "equal", "none", "neither", "":
			w = "tie"
		default:
			return nil, fmt.Errorf("judge reply: %s winner %q, want 1, 2 or tie", c, w)
		}
		out[c] = Preference{Winner: w, Reason: v.Reason}
	}
	return out, nil
}

func clipStr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// ask sends one chat completion to the judge and returns its content; a
// failure before a response, a 408, 429 or 5xx is retried once.
func (p *Pairwise) ask(ctx context.Context, user string) (string, error) {
	return p.client.Chat(ctx, oaiclient.ChatRequest{
		Model:       p.cfg.Model,
		Temperature: p.cfg.Temperature,
		Messages:    []oaiclient.Message{{Role: "system", Content: PairwiseSystem}, {Role: "user", Content: user}},
	})
}

// PairwiseRun holds the inputs matched by id.
type PairwiseRun struct {
	Pairs    [][2]Answer // a and b of each question in both files, in a's order
	OnlyA    []string    // ids only in a
	OnlyB    []string    // ids only in b
	Failed   []string    // ids whose answer has an error in a or b
	Judgment []PairResult
}

// Match pairs the answers of a and b by id.
func Match(a, b []Answer) *PairwiseRun {
	r := &PairwiseRun{}
	byID := map[string]Answer{}
	for _, x := range b {
		byID[x.ID] = x
	}
	seen := map[string]bool{}
	for _, x := range a {
		seen[x.ID] = true
		y, ok := byID[x.ID]
		switch {
		case !ok:
			r.OnlyA = append(r.OnlyA, x.ID)
		case x.Error != "" || y.Error != "":
			r.Failed = append(r.Failed, x.ID)
		default:
			r.Pairs = append(r.Pairs, [2]Answer{x, y})
		}
	}
	for _, y := range b {
		if !seen[y.ID] {
			r.OnlyB = append(r.OnlyB, y.ID)
		}
	}
	return r
}

// JudgeAll judges every pair, at most cfg.Concurrency at a time; results
// keep the pairs' order. each (may be nil) is called with each result in
// order as soon as it and all before it are done.
func (p *Pairwise) JudgeAll(ctx context.Context, run *PairwiseRun, each func(PairResult) error) error {
	res := make([]PairResult, len(run.Pairs))
	done := make([]chan struct{}, len(run.Pairs))
	sem := make(chan struct{}, p.cfg.Concurrency)
	var wg sync.WaitGroup
	for i, pr := range run.Pairs {
		done[i] = make(chan struct{})
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			res[i] = PairResult{ID: pr[0].ID, First: FirstSide(pr[0].ID), Error: ctx.Err().Error()}
			close(done[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			defer func() { <-sem }()
			res[i] = p.Judge(ctx, pr[0], pr[1])
		}()
	}
	var err error
	for i := range res {
		<-done[i]
		if each != nil && err == nil {
			err = each(res[i])
		}
	}
	wg.Wait()
	run.Judgment = res
	return err
}

// CriterionReport is win / tie / loss of A against B on one criterion,
// with bootstrap 95% intervals of each share.
type CriterionReport struct {
	Criterion string     `json:"criterion"`
	Win       int        `json:"win"` // A preferred
	Tie       int        `json:"tie"`
	Loss      int        `json:"loss"` // B preferred
	WinRate   float64    `json:"win_rate"`
	TieRate   float64    `json:"tie_rate"`
	LossRate  float64    `json:"loss_rate"`
	WinCI     [2]float64 `json:"win_ci"`
	TieCI     [2]float64 `json:"tie_ci"`
	LossCI    [2]float64 `json:"loss_ci"`
	// Net is win_rate - loss_rate, with its interval: above 0 with the
	// whole interval means A is better on this criterion.
	Net   float64    `json:"net"`
	NetCI [2]float64 `json:"net_ci"`
}

// PositionAudit is the swapped-sides audit.
type PositionAudit struct {
	Sampled int `json:"sampled"` // questions judged twice
	// Agreement is the share of (question, criterion) verdicts that are
	// the same with the sides swapped; PerCriterion splits it.
	Agreement    float64            `json:"agreement"`
	PerCriterion map[string]float64 `json:"per_criterion"`
	// FirstPreferred is the share of decided verdicts (not ties), over all
	// runs, that chose the answer shown first: 0.5 is no position bias.
	FirstPreferred float64 `json:"first_preferred"`
	Decided        int     `json:"decided"`
}

// PairwiseReport summarises a run.
type PairwiseReport struct {
	Questions int               `json:"questions"` // judged without error
	Errors    int               `json:"errors"`    // judge failures
	OnlyA     int               `json:"only_a"`
	OnlyB     int               `json:"only_b"`
	Failed    int               `json:"failed_answers"`
	AFirst    int               `json:"a_shown_first"` // questions where A was Answer 1
	Bootstrap int               `json:"bootstrap"`
	Criteria  []CriterionReport `json:"criteria"`
	Audit     PositionAudit     `json:"position_audit"`
}

// Summarize computes the report of a judged run.
func Summarize(run *PairwiseRun, bootstrap int, seed uint64) PairwiseReport {
	rep := PairwiseReport{OnlyA: len(run.OnlyA), OnlyB: len(run.OnlyB), Failed: len(run.Failed), Bootstrap: bootstrap}
	var ok []PairResult
	for _, r := range run.Judgment {
		if r.Error != "" {
			rep.Errors++
			continue
		}
		ok = append(ok, r)
		if r.First == "a" {
			rep.AFirst++
		}
	}
	rep.Questions = len(ok)
	n := len(ok)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	idx := make([][]int, bootstrap)
	for k := range idx {
		idx[k] = make([]int, n)
		for i := range idx[k] {
			idx[k][i] = rng.IntN(max(n, 1))
		}
	}
	for _, c := range Criteria {
		cr := CriterionReport{Criterion: c}
		outcome := make([]int, n) // 1 win, 0 tie, -1 loss
		for i, r := range ok {
			switch r.Criteria[c].Winner {
			case "a":
				outcome[i] = 1
				cr.Win++
			case "b":
				outcome[i] = -1
				cr.Loss++
			default:
				cr.Tie++
			}
		}
		if n > 0 {
			cr.WinRate, cr.TieRate, cr.LossRate = float64(cr.Win)/float64(n), float64(cr.Tie)/float64(n), float64(cr.Loss)/float64(n)
			cr.Net = cr.WinRate - cr.LossRate
			wins, ties, losses, nets := make([]float64, bootstrap), make([]float64, bootstrap), make([]float64, bootstrap), make([]float64, bootstrap)
			for k := range idx {
				var w, t, l int
				for _, i := range idx[k] {
					switch outcome[i] {
					case 1:
						w++
					case -1:
						l++
					default:
						t++
					}
				}
				wins[k], ties[k], losses[k] = float64(w)/float64(n), float64(t)/float64(n), float64(l)/float64(n)
				nets[k] = wins[k] - losses[k]
			}
			cr.WinCI, cr.TieCI, cr.LossCI, cr.NetCI = interval(wins), interval(ties), interval(losses), interval(nets)
		}
		rep.Criteria = append(rep.Criteria, cr)
	}
	rep.Audit = audit(ok)
	return rep
}

// interval is the percentile 95% interval of xs (sorted in place).
func interval(xs []float64) [2]float64 {
	sort.Float64s(xs)
	lo := xs[int(0.025*float64(len(xs)-1)+0.5)]
	hi := xs[int(0.975*float64(len(xs)-1)+0.5)]
	return [2]float64{round3(lo), round3(hi)}
}

func audit(rs []PairResult) PositionAudit {
	a := PositionAudit{PerCriterion: map[string]float64{}}
	agree, total := 0, 0
	per := map[string][2]int{}
	first := 0
	count := func(prefs map[string]Preference, shownFirst string) {
		for _, c := range Criteria {
			w := prefs[c].Winner
			if w == "a" || w == "b" {
				a.Decided++
				if w == shownFirst {
					first++
				}
			}
		}
	}
	other := map[string]string{"a": "b", "b": "a"}
	for _, r := range rs {
		count(r.Criteria, r.First)
		if r.Swapped == nil {
			continue
		}
		a.Sampled++
		count(r.Swapped, other[r.First])
		for _, c := range Criteria {
			p := per[c]
			p[1]++
			total++
			if r.Agree[c] {
				p[0]++
				agree++
			}
			per[c] = p
		}
	}
	if total > 0 {
		a.Agreement = round3(float64(agree) / float64(total))
	}
	for c, p := range per {
		a.PerCriterion[c] = round3(float64(p[0]) / float64(p[1]))
	}
	if a.Decided > 0 {
		a.FirstPreferred = round3(float64(first) / float64(a.Decided))
	}
	return a
}

// WriteText writes the report for people.
func (r PairwiseReport) WriteText(w io.Writer, nameA, nameB string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pairwise judge: A = %s, B = %s\n", nameA, nameB)
	fmt.Fprintf(&b, "%d questions judged (%d judge errors; %d only in A, %d only in B, %d with a failed answer); A shown first in %d\n",
		r.Questions, r.Errors, r.OnlyA, r.OnlyB, r.Failed, r.AFirst)
	fmt.Fprintf(&b, "%-13s %5s %5s %5s   %-22s %-22s %-22s %s\n", "criterion", "win", "tie", "loss", "win rate [95% CI]", "tie rate [95% CI]", "loss rate [95% CI]", "net A-B [95% CI]")
	for _, c := range r.Criteria {
		fmt.Fprintf(&b, "%-13s %5d %5d %5d   %-22s %-22s %-22s %s\n", c.Criterion, c.Win, c.Tie, c.Loss,
			rateCI(c.WinRate, c.WinCI), rateCI(c.TieRate, c.TieCI), rateCI(c.LossRate, c.LossCI), rateCI(c.Net, c.NetCI))
	}
	fmt.Fprintf(&b, "(bootstrap: %d resamples of the questions)\n", r.Bootstrap)
	a := r.Audit
	if a.Sampled == 0 {
		fmt.Fprintf(&b, "position audit: no question judged with sides swapped (none of the %d fell in the pairwise.swap_share sample; 0 turns the audit off)\n", r.Questions)
	} else {
		fmt.Fprintf(&b, "position audit: %d questions judged again with sides swapped; agreement %.3f (", a.Sampled, a.Agreement)
		for i, c := range Criteria {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %.3f", c, a.PerCriterion[c])
		}
		fmt.Fprintf(&b, "); first-shown answer preferred in %.3f of %d decided verdicts (0.5 = no position bias)\n", a.FirstPreferred, a.Decided)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rateCI(x float64, ci [2]float64) string {
	return fmt.Sprintf("%.3f [%.3f, %.3f]", x, ci[0], ci[1])
}
