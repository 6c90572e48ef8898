package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/answer-guard/guard/gate"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestReportGolden pins the JSON shape of the guard report (documented on
// Report) for each decision: real turns through the guard pipeline over the
// embedded demo corpus, latencies zeroed and scores rounded (the shape and
// the verdicts are pinned, not the last bits of a float).
func TestReportGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the demo corpus; runs without -short")
	}
	cfg := DefaultConfig()
	pipe, err := NewPipeline(nil)(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	refusing := cfg
	refusing.Stages.Gate.BailOutBelow = 0
	refusing.Stages.Gate.SufficientMax = 1
	refusing.Stages.Gate.GoodEnoughMax = 1
	refusing.Stages.Gate.Between = "refuse"
	refPipe, err := NewPipeline(nil)(refusing)
	if err != nil {
		t.Fatal(err)
	}
	defer refPipe.Close()

	const question = "What does error LF-4002 mean?"
	for _, tc := range []struct {
		name   string
		pipe   Pipeline
		q      string
		answer string
		want   gate.Decision
	}{
		{"ground", pipe, question, "Error LF-4002 means the account is locked [^1]. See also [^7].", gate.Ground},
		{"fallback", pipe, "What is the capital of Mongolia and how many people live there?", "Ulaanbaatar, with about 1.6 million people.", gate.Fallback},
		{"refuse", refPipe, question, "", gate.Refuse},
		{"passthrough", passthrough{}, question, "Anything at all [^1].", gate.Passthrough},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			turn, err := tc.pipe.Begin(ctx, TurnRequest{Tenant: "default", KB: "default", Model: "m", Stream: true, Query: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			if got := turn.Plan().Decision; got != tc.want {
				t.Fatalf("decision %q, want %q", got, tc.want)
			}
			var out []byte
			if tc.want != gate.Refuse {
				out = turn.Content(ctx, out, []byte(tc.answer))
			}
			_, rep := turn.Finish(ctx, out)
			got := normalizeReport(t, rep.json())
			path := filepath.Join("testdata", "report-"+tc.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("report for %s differs from %s (run with -update if the change is meant):\n%s", tc.name, path, got)
			}
		})
	}
}

// normalizeReport zeroes latencies, rounds floats to 4 places and indents.
func normalizeReport(t *testing.T, b []byte) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("report is not a JSON object: %v\n%s", err, b)
	}
	if lat, ok := v["latency_ms"].(map[string]any); ok {
		for k := range lat {
			lat[k] = 0
		}
	}
	var round func(any) any
	round = func(x any) any {
		switch x := x.(type) {
		case float64:
			return math.Round(x*1e4) / 1e4
		case map[string]any:
			for k, e := range x {
				x[k] = round(e)
			}
		case []any:
			for i, e := range x {
				x[i] = round(e)
			}
		}
		return x
	}
	out, err := json.MarshalIndent(round(v), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
