package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
)

// haluVerifier adapts the judge's claim verifier to what HaluGate asks of
// one (index.Verifier): index does not import judge.
type haluVerifier struct {
	v judge.Verifier
}

var _ index.Verifier = haluVerifier{}

// Claims returns the factual sentences of an entry, citations stripped.
func (h haluVerifier) Claims(text string) []string {
	var out []string
	for _, s := range judge.Split(text) {
		s = judge.StripCitations(s)
		if judge.IsFactual(s) {
			out = append(out, s)
		}
	}
	return out
}

func (h haluVerifier) Verify(ctx context.Context, claim string, sources []index.SourcePassage) (index.ClaimVerdict, error) {
	ps := make([]judge.Passage, len(sources))
	for i, s := range sources {
		ps[i] = judge.Passage{N: i + 1, ID: s.ID, Title: s.Title, Text: s.Text}
	}
	v, err := h.v.Verify(ctx, claim, ps)
	if err != nil {
		return index.ClaimVerdict{}, err
	}
	return index.ClaimVerdict{Label: v.Label, Confidence: v.Confidence, Evidence: v.Evidence, Method: v.Method, Reason: v.Reason}, nil
}

// haluGateVerifier is HaluGate's verifier for the configuration: the
// judge's local verifier, or its LLM judge (verify.llm) when
// index.halugate.verifier is llm.
func haluGateVerifier(hc index.HaluGateConfig, vc judge.Config, log *zap.Logger) (index.Verifier, error) {
	if !hc.Enabled {
		return nil, nil
	}
	if hc.Verifier == "llm" {
		if vc.LLM.BaseURL == "" || vc.LLM.Model == "" {
			return nil, errors.New("index.halugate.verifier is llm: verify.llm.base_url and verify.llm.model are required")
		}
		return haluVerifier{judge.NewLLM(vc.LLM, vc.ChainPoll, make(chan struct{}, vc.Concurrency), log)}, nil
	}
	return haluVerifier{judge.NewLocal(vc.Local)}, nil
}

var riskRank = map[string]int{index.RiskLow: 0, index.RiskUnchecked: 0, index.RiskMedium: 1, index.RiskHigh: 2}

// runIndexAudit lists HaluGate's findings on a snapshot's derived entries:
// every flagged claim with the source passage it was checked against.
// With --fail-on it exits 1 when an entry is at or above that risk.
func runIndexAudit(args []string) error {
	fs := flag.NewFlagSet("index audit", flag.ContinueOnError)
	synopsis(fs, "guard index audit --index DIR [--format text|json|github] [--fail-on high|medium] [--all]")
	dir := fs.String("index", "", "snapshot dir")
	format := fs.String("format", "text", "text | json | github (workflow annotations)")
	failOn := fs.String("fail-on", "", "exit 1 when an entry's risk is at or above this: high | medium")
	all := fs.Bool("all", false, "text: list every derived entry, not only flagged ones")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usageErrorf(fs, "--index is required")
	}
	switch *format {
	case "text", "json", "github":
	default:
		return usageErrorf(fs, "--format: want text, json or github, got %q", *format)
	}
	threshold := 3
	switch *failOn {
	case "":
	case "high", "medium":
		threshold = riskRank[*failOn]
	default:
		return usageErrorf(fs, "--fail-on: want high or medium, got %q", *failOn)
	}
	if err := checkSnapshotDir(*dir); err != nil {
		return err
	}
	entries, err := index.ReadAudit(*dir)
	if err != nil {
		return err
	}
	failing := 0
	for _, e := range entries {
		if riskRank[e.Risk] >= threshold {
			failing++
		}
	}
	if err := writeAudit(cliOut, entries, *format, *all); err != nil {
		return err
	}
	if failing > 0 {
		fmt.Fprintf(cliErr, "guard index audit: %s at or above risk %s\n", plural(failing, "derived entry"), *failOn)
		return exitCode(1)
	}
	return nil
}

func writeAudit(w io.Writer, entries []index.GateEntry, format string, all bool) error {
	switch format {
	case "json":
		type claim struct {
			index.GateClaim
			Flagged bool `json:"flagged"`
		}
		type entry struct {
			Kind     string   `json:"kind"`
			ID       string   `json:"id"`
			Tenant   string   `json:"tenant"`
			KB       string   `json:"kb"`
			Origin   string   `json:"origin,omitempty"`
			Sources  []string `json:"sources"`
			Missing  []string `json:"missing_sources,omitempty"`
			Risk     string   `json:"risk"`
			Excluded bool     `json:"excluded"`
			Claims   []claim  `json:"claims"`
		}
		out := struct {
			Entries []entry `json:"entries"`
		}{Entries: []entry{}}
		for _, e := range entries {
			je := entry{e.Kind, e.ID, e.Tenant, e.KB, e.Origin, e.Sources, e.Missing, e.Risk, e.Excluded, []claim{}}
			for _, c := range e.Claims {
				je.Claims = append(je.Claims, claim{c, c.Flagged()})
			}
			out.Entries = append(out.Entries, je)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "github":
		for _, e := range entries {
			level := "notice"
			switch e.Risk {
			case index.RiskHigh:
				level = "error"
			case index.RiskMedium:
				level = "warning"
			}
			file, line := splitOrigin(e.Origin)
			for _, c := range e.Claims {
				if !c.Flagged() {
					continue
				}
				loc := ""
				if file != "" {
					loc = fmt.Sprintf(" file=%s,line=%s,", ghEscapeProp(file), line)
				}
				msg := fmt.Sprintf("%s %q (%s risk): %s claim %q; source %s says: %q", e.Kind, e.ID, e.Risk, c.Verdict, c.Text, c.SourceID, c.Evidence)
				if loc == "" {
					fmt.Fprintf(w, "::%s title=HaluGate::%s\n", level, ghEscape(msg))
				} else {
					fmt.Fprintf(w, "::%s%stitle=HaluGate::%s\n", level, loc, ghEscape(msg))
				}
			}
		}
		return nil
	}
	flagged, high, medium := 0, 0, 0
	for _, e := range entries {
		n := 0
		for _, c := range e.Claims {
			if c.Flagged() {
				n++
			}
		}
		flagged += n
		switch e.Risk {
		case index.RiskHigh:
			high++
		case index.RiskMedium:
			medium++
		}
		if n == 0 && len(e.Missing) == 0 && !all {
			continue
		}
		state := ""
		if e.Excluded {
			state = ", kept out of retrieval"
		}
		fmt.Fprintf(w, "%s %s/%s %s [%s risk%s] sources %s", e.Kind, e.Tenant, e.KB, e.ID, e.Risk, state, strings.Join(e.Sources, ", "))
		if e.Origin != "" {
			fmt.Fprintf(w, " (%s)", e.Origin)
		}
		fmt.Fprintln(w)
		if len(e.Missing) > 0 {
			fmt.Fprintf(w, "  missing sources: %s\n", strings.Join(e.Missing, ", "))
		}
		for _, c := range e.Claims {
			if !c.Flagged() && !all {
				continue
			}
			fmt.Fprintf(w, "  %-13s %q\n", c.Verdict, c.Text)
			if c.Evidence != "" {
				fmt.Fprintf(w, "      source %s: %q\n", c.SourceID, c.Evidence)
			}
		}
	}
	fmt.Fprintf(w, "%s, %s; risk high %d, medium %d\n", plural(len(entries), "derived entry"), plural(flagged, "flagged claim"), high, medium)
	return nil
}

func splitOrigin(o string) (file, line string) {
	i := strings.LastIndexByte(o, ':')
	if i < 0 {
		return o, "1"
	}
	return o[:i], o[i+1:]
}

// ghEscape escapes a workflow-command message.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProp escapes a workflow-command property value.
func ghEscapeProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
