package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// scriptedJudge is an OpenAI-compatible chat server on loopback that answers
// the first call (temperature 0) with first and the ChainPoll votes
// (temperature > 0) with votes, in order.
type scriptedJudge struct {
	mu     sync.Mutex
	first  string
	votes  []string
	calls  int
	vcalls int
	status int           // non-zero: reply with this status
	block  chan struct{} // non-nil: hang until the client gives up
}

func (s *scriptedJudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req struct {
		Model       string  `json:"model"`
		Temperature float64 `json:"temperature"`
		Messages    []struct {
			Role, Content string
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "judge-model" || len(req.Messages) != 2 ||
		!strings.Contains(req.Messages[1].Content, "CLAIM: ") {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.calls++
	content := s.first
	if req.Temperature > 0 {
		content = s.votes[s.vcalls%len(s.votes)]
		s.vcalls++
	}
	status, block := s.status, s.block
	s.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-r.Context().Done():
		}
		return
	}
	if status != 0 {
		http.Error(w, "boom", status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}}},
	})
}

func answer(label string, conf float64) string {
	return fmt.Sprintf(`{"label":%q,"confidence":%g,"evidence":"quoted span"}`, label, conf)
}

func newScripted(t *testing.T, s *scriptedJudge) (*LLM, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cfg := DefaultConfig()
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "judge-model", 2*time.Second
	return NewLLM(cfg.LLM, cfg.ChainPoll, make(chan struct{}, 4), nil), srv
}

var ev1 = []Passage{{N: 1, ID: "a", Title: "Aspirin", Text: aspirinNote}}

func TestLLMChainPoll(t *testing.T) {
	sup, con, neu := "supported", "contradicted", "neutral"
	tests := []struct {
		name      string
		first     string
		votes     []string
		want      string
		wantConf  float64
		wantCalls int
		wantMeth  string
	}{
		{"confident: no poll", answer(sup, 0.95), nil, Entailment, 0.95, 1, "llm"},
		{"just above band: no poll", answer(con, 0.81), nil, Contradiction, 0.81, 1, "llm"},
		{"just below band: no poll", answer(sup, 0.49), nil, Entailment, 0.49, 1, "llm"},
		{"low edge 0.5 polls", answer(sup, 0.5), []string{answer(con, 0.9), answer(con, 0.7), answer(sup, 0.6)}, Contradiction, 0.667, 4, "chainpoll"},
		{"high edge 0.8 polls", answer(sup, 0.8), []string{answer(sup, 0.9), answer(sup, 0.9), answer(sup, 0.9)}, Entailment, 1, 4, "chainpoll"},
		{"no majority is neutral", answer(sup, 0.6), []string{answer(sup, 0.9), answer(con, 0.9), answer(neu, 0.9)}, Neutral, 0.333, 4, "chainpoll"},
		{"garbage vote ignored", answer(con, 0.7), []string{"I cannot decide, sorry", answer(sup, 0.9), answer(sup, 0.8)}, Entailment, 0.667, 4, "chainpoll"},
		{"bare label polls (no confidence)", "Contradicted.", []string{answer(con, 0.9), answer(con, 0.9), answer(neu, 0.9)}, Contradiction, 0.667, 4, "chainpoll"},
		{"fenced json", "```json\n" + answer(neu, 0.95) + "\n```", nil, Neutral, 0.95, 1, "llm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scriptedJudge{first: tt.first, votes: tt.votes}
			l, _ := newScripted(t, s)
			got, err := l.Verify(context.Background(), "Aspirin was synthesised in 1897 [1].", ev1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Label != tt.want || round3(got.Confidence) != tt.wantConf || got.Method != tt.wantMeth {
				t.Errorf("got %s %.3f %s, want %s %.3f %s", got.Label, got.Confidence, got.Method, tt.want, tt.wantConf, tt.wantMeth)
			}
			if s.calls != tt.wantCalls {
				t.Errorf("judge calls = %d, want %d", s.calls, tt.wantCalls)
			}
			if wantPolls := int64(tt.wantCalls / 4); l.metrics.chainPolls.Load() != wantPolls {
				t.Errorf("chainpoll count = %d, want %d", l.metrics.chainPolls.Load(), wantPolls)
			}
		})
	}
}

func TestLLMFailures(t *testing.T) {
	tests := []struct {
		name  string
		s     *scriptedJudge
		check func(error) bool
	}{
		{"garbage answer", &scriptedJudge{first: "The weather is nice today."}, func(err error) bool { return errors.Is(err, ErrBadAnswer) }},
		{"unknown label", &scriptedJudge{first: `{"label":"maybe","confidence":0.9}`}, func(err error) bool { return errors.Is(err, ErrBadAnswer) }},
		{"server error", &scriptedJudge{status: 500}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "500") }},
		{"timeout", &scriptedJudge{block: make(chan struct{})}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := newScripted(t, tt.s)
			cfg := DefaultConfig()
			cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "judge-model", 100*time.Millisecond
			l := NewLLM(cfg.LLM, cfg.ChainPoll, make(chan struct{}, 4), nil)
			_, err := l.Verify(context.Background(), "Aspirin was synthesised in 1897.", ev1)
			if !tt.check(err) {
				t.Errorf("err = %v, not the expected failure", err)
			}
		})
	}
}

func TestParseJudgeAnswer(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		wantConf float64
		wantErr  bool
	}{
		{`{"label":"supported","confidence":0.9}`, Entailment, 0.9, false},
		{`Sure: {"verdict":"refuted","confidence":1} done`, Contradiction, 1, false},
		{`{"label":"neutral","confidence":7}`, Neutral, defaultLLMConfidence, false},
		{"OPINION", Opinion, defaultLLMConfidence, false},
		{"not_enough_info", Neutral, defaultLLMConfidence, false},
		{"", "", 0, true},
		{"{not json", "", 0, true},
		{`{"label":""}`, "", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseJudgeAnswer(tt.in)
		if (err != nil) != tt.wantErr || got.Label != tt.want || got.Confidence != tt.wantConf {
			t.Errorf("ParseJudgeAnswer(%q) = %s %.2f %v, want %s %.2f err=%v", tt.in, got.Label, got.Confidence, err, tt.want, tt.wantConf, tt.wantErr)
		}
	}
}

func FuzzParseJudgeAnswer(f *testing.F) {
	for _, s := range []string{`{"label":"supported","confidence":0.9}`, "neutral", "```{}```", `{"confidence":-1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseJudgeAnswer(s)
		if err != nil {
			if !errors.Is(err, ErrBadAnswer) {
				t.Fatalf("error %v does not wrap ErrBadAnswer", err)
			}
			return
		}
		switch v.Label {
		case Entailment, Contradiction, Neutral, Opinion:
		default:
			t.Fatalf("label %q", v.Label)
		}
		if v.Confidence < 0 || v.Confidence > 1 {
			t.Fatalf("confidence %v", v.Confidence)
		}
	})
}
