package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPairwisePositionBiasAudit: a judge that always prefers the answer
// shown first is caught by the swapped-sides audit (agreement 0, first
// preferred 1), and its wins cancel over the set because the sides come
// from the ids' hashes.
func TestPairwisePositionBiasAudit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Temperature float64 `json:"temperature"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Temperature != 0 {
			t.Errorf("temperature %g, want 0", req.Temperature)
		}
		reply := `Sure. {"faithfulness":{"winner":"1","reason":"first"},"completeness":{"winner":"Answer 1","reason":"first"},"structure":{"winner":1,"reason":"first"},"balance":{"winner":"tie","reason":"same"}}`
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply}}}})
		w.Write(b)
	}))
	defer srv.Close()
	cfg := DefaultPairwiseConfig()
	cfg.BaseURL, cfg.Model, cfg.SwapShare, cfg.Bootstrap = srv.URL, "biased", 1, 500
	pj, err := NewPairwise(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a, b []Answer
	for i := range 200 {
		id := fmt.Sprintf("q%d", i)
		a = append(a, Answer{ID: id, Question: "q?", Answer: "answer a"})
		b = append(b, Answer{ID: id, Question: "q?", Answer: "answer b"})
	}
	run := Match(a, b)
	if err := pj.JudgeAll(context.Background(), run, nil); err != nil {
		t.Fatal(err)
	}
	rep := Summarize(run, cfg.Bootstrap, cfg.Seed)
	if rep.Questions != 200 || rep.Audit.Sampled != 200 {
		t.Fatalf("report %+v", rep)
	}
	if got := rep.Audit.PerCriterion["faithfulness"]; got != 0 {
		t.Errorf("faithfulness agreement %g, want 0 (the verdict follows the position)", got)
	}
	if rep.Audit.PerCriterion["balance"] != 1 || rep.Audit.FirstPreferred != 1 {
		t.Errorf("audit %+v", rep.Audit)
	}
	f := rep.Criteria[0]
	if f.Win+f.Loss != 200 || f.NetCI[0] > 0 || f.NetCI[1] < 0 {
		t.Errorf("faithfulness %+v: a biased judge's wins should cancel (net CI around 0)", f)
	}
}

func TestParsePairwise(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want string
	}{
		{`{"faithfulness":{"winner":"2","reason":"r"},"completeness":{"winner":"tie"},"structure":{"winner":"A"},"balance":{"winner":"B"}}`, true, "2 tie 1 2"},
		{"```json\n{\"faithfulness\":{\"winner\":\"1\"},\"completeness\":{\"winner\":\"1\"},\"structure\":{\"winner\":\"1\"},\"balance\":{\"winner\":\"neither\"}}\n```", true, "1 1 1 tie"},
		{`{"faithfulness":{"winner":"1"}}`, false, ""},
		{`{"faithfulness":{"winner":"3"},"completeness":{"winner":"1"},"structure":{"winner":"1"},"balance":{"winner":"1"}}`, false, ""},
		{`no json`, false, ""},
	} {
		got, err := ParsePairwise(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok {
			if s := fmt.Sprintf("%s %s %s %s", got["faithfulness"].Winner, got["completeness"].Winner, got["structure"].Winner, got["balance"].Winner); s != tc.want {
				t.Errorf("%q: %s, want %s", tc.in, s, tc.want)
			}
		}
	}
	// Sides are a pure function of the id.
	if FirstSide("q1") != FirstSide("q1") {
		t.Error("FirstSide not deterministic")
	}
}
