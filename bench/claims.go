package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// DefaultClaimFaults are the faults of the claims suite: numbers changed
// against the cited note, and uncited sentences.
const DefaultClaimFaults = "contradict=0.3,uncited=0.3"

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
	writeClaimsMarkdown(w, faults, out)
	return out, nil
}

func claimsRun(ctx context.Context, n int, f mockllm.Faults, seed uint64, mode string) (ClaimsReport, error) {
	rep := ClaimsReport{Mode: mode, UncitedByClass: map[string]int{}}
	srv, url, stop, err := startFaultyGuard(f, seed, func(c *proxy.Config) { c.Stages.Verify.Mode = mode })
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
		rec, ok := srv.Mock().Log().Get(id)
		if !ok {
			continue // refused by the gate: nothing was generated
		}
		rep.InjectedUncited += rec.Uncited
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
