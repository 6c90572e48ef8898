package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// DefaultClaimFaults are the faults of the claims suite: numbers changed
// against the cited note, and uncited sentences.
const DefaultClaimFaults = "contradict=0.3,uncited=0.3"

// ParaphraseClaimFaults make the simulated model rewrite every cited
// sentence and change one fact in 30% of them.
const ParaphraseClaimFaults = "paraphrase=1,alter=0.3"

// ClaimsReport is the end-to-end outcome of the per-claim verifier against
// the simulated upstream's injected contradictions, in one verify mode.
type ClaimsReport struct {
	Mode    string `json:"mode"`
	Answers int    `json:"answers"`
	// Changed counts the sentences whose number the upstream changed
	// against the cited note; Caught those reported as contradiction, with
	// an evidence span in CaughtWithSpan.
	Changed        int `json:"changed"`
	Caught         int `json:"caught"`
	CaughtWithSpan int `json:"caught_with_span"`
	// CitedClaims are the other cited claims: Entailed of them verified,
	// FalseContradictions judged contradicted although nothing was changed.
	CitedClaims         int `json:"cited_claims"`
	Entailed            int `json:"entailed"`
	FalseContradictions int `json:"false_contradictions"`
	// InjectedUncited counts uncited sentences the upstream added;
	// UncitedByClass how the report classified the uncited claims.
	InjectedUncited int            `json:"injected_uncited"`
	UncitedByClass  map[string]int `json:"uncited_by_class"`
	// MissedFromNotes counts uncited sentences copied from a note (a missed
	// citation); MissedFound those classified likely_missed.
	MissedFromNotes int `json:"missed_from_notes"`
	MissedFound     int `json:"missed_found"`
	// StrictCitedChanged (strict mode) counts changed sentences released
	// with a citation still on them: a contradicted citation emitted.
	StrictCitedChanged int     `json:"strict_cited_changed"`
	ElapsedSeconds     float64 `json:"elapsed_seconds"`
	// Paraphrase mode: Faithful rewritten sentences (FaithfulEntailed of
	// them judged entailment), Altered ones (AlteredContradicted judged
	// contradiction, AlteredWithSpan with an evidence span,
	// AlteredEntailed wrongly judged entailment); by kind of rewrite or
	// alteration, "kind": [n, ok].
	Faithful            int               `json:"faithful"`
	FaithfulEntailed    int               `json:"faithful_entailed"`
	Altered             int               `json:"altered"`
	AlteredContradicted int               `json:"altered_contradicted"`
	AlteredWithSpan     int               `json:"altered_with_span"`
	AlteredEntailed     int               `json:"altered_entailed"`
	ByKind              map[string][2]int `json:"by_kind,omitempty"`
	Misjudged           []string          `json:"misjudged,omitempty"` // a few examples
}

// ClaimsQuality runs n answers (alternating stream and non-stream) through
// an in-process proxy over the demo corpus whose simulated upstream changes
// numbers in cited sentences and adds uncited ones, once in report mode and
// once in strict mode, and scores the verdicts against what was injected.
func ClaimsQuality(ctx context.Context, n int, faults string, seed uint64, w io.Writer) ([]ClaimsReport, error) {
	f, err := mockllm.ParseFaults(faults)
	if err != nil {
		return nil, err
	}
	var out []ClaimsReport
	for _, mode := range []string{"report", "strict"} {
		rep, err := claimsRun(ctx, n, f, seed, mode)
		if err != nil {
			return out, fmt.Errorf("%s mode: %w", mode, err)
		}
		out = append(out, rep)
	}
	if f.Paraphrase > 0 {
		writeParaphraseMarkdown(w, faults, out)
	} else {
		writeClaimsMarkdown(w, faults, out)
	}
	return out, nil
}

// claimsMutate, when set, adjusts the proxy's config of claimsRun (a test
// pins its sample).
var claimsMutate func(*proxy.Config)

func claimsRun(ctx context.Context, n int, f mockllm.Faults, seed uint64, mode string) (ClaimsReport, error) {
	rep := ClaimsReport{Mode: mode, UncitedByClass: map[string]int{}, ByKind: map[string][2]int{}}
	mock, url, stop, err := startFaultyGuard(f, seed, func(c *proxy.Config) {
		c.Stages.Verify.Mode = mode
		if claimsMutate != nil {
			claimsMutate(c)
		}
	})
	if err != nil {
		return rep, err
	}
	defer stop()
	client := &http.Client{Timeout: 30 * time.Second}
	start := time.Now()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		id, content, g, err := askDemo(ctx, client, url, "claims", i)
		if err != nil {
			return rep, fmt.Errorf("answer %d: %w", i, err)
		}
		rep.Answers++
		rec, ok := mock.Log().Get(id)
		if !ok {
			continue // refused by the gate: nothing was generated
		}
		rep.InjectedUncited += rec.Uncited
		scoreParaphrase(&rep, rec.Sentences, g)
		rep.MissedFromNotes += rec.UncitedFromNotes
		var changedTo []string // the new numbers
		for _, c := range rec.Changed {
			if _, nv, ok := strings.Cut(c, " -> "); ok {
				changedTo = append(changedTo, nv)
			}
		}
		rep.Changed += len(changedTo)
		isChanged := func(text string) bool {
			for _, nv := range changedTo {
				if containsNumber(text, nv) {
					return true
				}
			}
			return false
		}
		for _, nv := range changedTo {
			for _, c := range g.Claims {
				if containsNumber(c.Text, nv) && c.Verdict == "contradiction" {
					rep.Caught++
					if c.Evidence != "" {
						rep.CaughtWithSpan++
					}
					break
				}
			}
			if mode == "strict" {
				for _, s := range strings.SplitAfter(content, ". ") {
					if containsNumber(s, nv) && outMarker.MatchString(s) {
						rep.StrictCitedChanged++
					}
				}
			}
		}
		for _, c := range g.Claims {
			switch {
			case c.Uncited != "":
				rep.UncitedByClass[c.Uncited]++
				if c.Uncited == "likely_missed" {
					rep.MissedFound++
				}
			case len(c.Citations) > 0 && !isChanged(c.Text):
				rep.CitedClaims++
				switch c.Verdict {
				case "entailment":
					rep.Entailed++
				case "contradiction":
					rep.FalseContradictions++
				}
			}
		}
	}
	rep.ElapsedSeconds = time.Since(start).Seconds()
	return rep, nil
}

// containsNumber reports whether text holds num as a whole number (not as
// part of a longer one).
func containsNumber(text, num string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], num)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(num)
		digit := func(k int) bool { return k >= 0 && k < len(text) && text[k] >= '0' && text[k] <= '9' }
		if !digit(a-1) && !digit(b) && !(b+1 < len(text) && text[b] == '.' && digit(b+1)) {
			return true
		}
		i = a + 1
	}
}

func writeClaimsMarkdown(w io.Writer, faults string, reps []ClaimsReport) {
	fmt.Fprintf(w, "## Per-claim verifier, end to end (demo corpus, local verifier; faults %s)\n\n", faults)
	fmt.Fprintf(w, "| mode | answers | changed numbers | reported contradiction | with evidence span | other cited claims | entailed | false contradictions | injected uncited (from a note) | uncited classified | strict: changed sentence still cited |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		strict := "n/a"
		if r.Mode == "strict" {
			strict = fmt.Sprint(r.StrictCitedChanged)
		}
		classes := fmt.Sprintf("gap %d, likely_missed %d, other_kb %d", r.UncitedByClass["gap"], r.UncitedByClass["likely_missed"], r.UncitedByClass["other_kb"])
		fmt.Fprintf(w, "| %s | %d | %d | %d (%.1f%%) | %d | %d | %d (%.1f%%) | %d | %d (%d) | %s | %s |\n", r.Mode, r.Answers, r.Changed,
			r.Caught, pct(r.Caught, r.Changed), r.CaughtWithSpan, r.CitedClaims, r.Entailed, pct(r.Entailed, r.CitedClaims),
			r.FalseContradictions, r.InjectedUncited, r.MissedFromNotes, classes, strict)
	}
	fmt.Fprintln(w, "\nThe simulated upstream copies each note's first sentence, so this measures the pipeline end to end")
	fmt.Fprintln(w, "(splitting, citation resolution, verdicts, uncited classes, strict drops), not the verifier's")
	fmt.Fprintln(w, "accuracy on paraphrase: that is the verify suite.")
	fmt.Fprintln(w)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// scoreParaphrase scores the verdicts on the sentences the paraphrase mode
// rewrote: faithful ones should be entailed, altered ones contradicted.
func scoreParaphrase(rep *ClaimsReport, sents []mockllm.Sentence, g guardWire) {
	for _, ps := range sents {
		text := strings.TrimRight(ps.Text, ". ")
		verdict, evidence, reason, found := "", "", "", false
		for _, c := range g.Claims {
			if len(c.Citations) > 0 && strings.Contains(c.Text, text) {
				verdict, evidence, reason, found = c.Verdict, c.Evidence, c.Reason, true
				break
			}
		}
		if !found {
			continue // dropped or not a claim (a heading); not scored
		}
		bump := func(kind string, ok bool) {
			k := rep.ByKind[kind]
			k[0]++
			if ok {
				k[1]++
			}
			rep.ByKind[kind] = k
		}
		var ok bool
		if ps.Faithful {
			rep.Faithful++
			ok = verdict == "entailment"
			if ok {
				rep.FaithfulEntailed++
			}
			for _, h := range ps.How {
				bump("faithful "+h, ok)
			}
			if len(ps.How) == 0 {
				bump("faithful (copied)", ok)
			}
		} else {
			rep.Altered++
			ok = verdict == "contradiction"
			if ok {
				rep.AlteredContradicted++
				if evidence != "" {
					rep.AlteredWithSpan++
				}
			}
			if verdict == "entailment" {
				rep.AlteredEntailed++
			}
			bump("altered "+ps.Altered, ok)
		}
		if !ok && len(rep.Misjudged) < 12 {
			rep.Misjudged = append(rep.Misjudged, fmt.Sprintf("%s %v: %q (source %q): %s, %s", map[bool]string{true: "faithful", false: "altered"}[ps.Faithful], ps.How, ps.Text, ps.Source, verdict, reason))
		}
	}
}

func writeParaphraseMarkdown(w io.Writer, faults string, reps []ClaimsReport) {
	fmt.Fprintf(w, "## Per-claim verifier on paraphrase, end to end (demo corpus, local verifier; faults %s)\n\n", faults)
	fmt.Fprintln(w, "The simulated model rewrites every cited sentence (mockllm paraphrase mode: number words, units, date formats, \"twice\"/\"2 times\", its own synonym table, hedges, a leading phrase moved to the end) and changes one fact in 30% of them (a number, a month or weekday, a negation, an opposite, two names swapped, a name replaced); it records which. Goals: faithful judged entailment >= 90%, altered judged contradiction >= 90% with the evidence span.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| mode | answers | faithful | judged entailment | altered | judged contradiction | with span | altered judged entailment |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range reps {
		fmt.Fprintf(w, "| %s | %d | %d | %d (%.1f%%) | %d | %d (%.1f%%) | %d | %d |\n", r.Mode, r.Answers, r.Faithful, r.FaithfulEntailed, pct(r.FaithfulEntailed, r.Faithful),
			r.Altered, r.AlteredContradicted, pct(r.AlteredContradicted, r.Altered), r.AlteredWithSpan, r.AlteredEntailed)
	}
	if len(reps) > 0 {
		r := reps[0]
		kinds := make([]string, 0, len(r.ByKind))
		for k := range r.ByKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "\nBy rewrite (%s mode; a faithful sentence counts under each rewrite it had; ok = entailment for faithful, contradiction for altered):\n\n| rewrite | n | ok |\n|---|---|---|\n", r.Mode)
		for _, k := range kinds {
			v := r.ByKind[k]
			fmt.Fprintf(w, "| %s | %d | %d (%.1f%%) |\n", k, v[0], v[1], pct(v[1], v[0]))
		}
		if len(r.Misjudged) > 0 {
			fmt.Fprintln(w, "\nExamples misjudged:")
			fmt.Fprintln(w)
			for _, m := range r.Misjudged {
				fmt.Fprintf(w, "- %s\n", m)
			}
		}
	}
	fmt.Fprintln(w)
}
