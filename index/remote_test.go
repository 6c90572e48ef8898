package index

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestRemoteEmbedderBatchesRetriesAndCaches(t *testing.T) {
	var calls, fails atomic.Int32
	fails.Store(1) // the first request fails with 503 and is retried
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		if fails.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.Input) > 2 {
			http.Error(w, "batch too large", 400)
			return
		}
		var data []map[string]any
		for i, s := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{float32(len(s)), 1, 0}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	cfg := DefaultConfig().Remote
	cfg.BaseURL, cfg.Model, cfg.BatchSize, cfg.Timeout = srv.URL+"/v1", "m", 2, 5*time.Second
	r, err := NewRemoteEmbedder(cfg, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := r.EmbedScoped(ctx, "t1", "kb", texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 4 { // 3 batches + 1 retry
		t.Errorf("requests = %d, want 4 (3 batches of <= 2, one retried)", got)
	}
	for i, v := range vs {
		if len(v) != 3 || Dot(v, v) < 0.999 || Dot(v, v) > 1.001 {
			t.Errorf("vector %d = %v, want unit length 3", i, v)
		}
	}
	calls.Store(0)
	if _, err := r.EmbedScoped(ctx, "t1", "kb", texts[:2]); err != nil || calls.Load() != 0 {
		t.Errorf("warm cache: %d requests, err %v; want 0", calls.Load(), err)
	}
	if _, err := r.EmbedScoped(ctx, "t2", "kb", texts[:2]); err != nil || calls.Load() != 1 {
		t.Errorf("other tenant: %d requests, err %v; want 1 (cache keys are scoped)", calls.Load(), err)
	}
	fails.Store(100)
	if _, err := r.EmbedScoped(ctx, "t1", "kb", []string{"new text"}); err == nil {
		t.Error("embedder down: want an error")
	}
}
