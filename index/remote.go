package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/ristretto/v2"
)

// RemoteEmbedder calls an OpenAI-compatible POST {base}/embeddings endpoint
// in batches, retries failed requests, and caches vectors in ristretto keyed
// by scope (tenant and kb), model and text.
type RemoteEmbedder struct {
	cfg    RemoteConfig
	key    string
	client *http.Client
	cache  *ristretto.Cache[string, []float32]
}

// NewRemoteEmbedder returns a remote embedder; cacheMB 0 disables the cache.
func NewRemoteEmbedder(cfg RemoteConfig, cacheMB int) (*RemoteEmbedder, error) {
	r := &RemoteEmbedder{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}
	if cfg.APIKeyEnv != "" {
		r.key = os.Getenv(cfg.APIKeyEnv)
	}
	if cacheMB > 0 {
		c, err := ristretto.NewCache(&ristretto.Config[string, []float32]{
			NumCounters: int64(cacheMB) * 1000,
			MaxCost:     int64(cacheMB) << 20,
			BufferItems: 64,
		})
		if err != nil {
			return nil, fmt.Errorf("embedding cache: %w", err)
		}
		r.cache = c
	}
	return r, nil
}

// Name implements Embedder.
func (r *RemoteEmbedder) Name() string { return "remote:" + r.cfg.Model }

// Close releases the cache.
func (r *RemoteEmbedder) Close() {
	if r.cache != nil {
		r.cache.Close()
	}
}

// Embed implements Embedder (unscoped cache keys; used at build time).
func (r *RemoteEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return r.EmbedScoped(ctx, "", "", texts)
}

func cacheKey(tenant, kb, model, text string) string {
	return tenant + "\x00" + kb + "\x00" + model + "\x00" + text
}

// EmbedScoped embeds texts for one (tenant, kb); cache keys include both.
func (r *RemoteEmbedder) EmbedScoped(ctx context.Context, tenant, kb string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missIdx []int
	for i, t := range texts {
		if r.cache != nil {
			if v, ok := r.cache.Get(cacheKey(tenant, kb, r.cfg.Model, t)); ok {
				out[i] = v
				continue
			}
		}
		missIdx = append(missIdx, i)
	}
	for start := 0; start < len(missIdx); start += r.cfg.BatchSize {
		end := min(start+r.cfg.BatchSize, len(missIdx))
		batch := make([]string, 0, end-start)
		for _, i := range missIdx[start:end] {
			batch = append(batch, texts[i])
		}
		vecs, err := r.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range missIdx[start:end] {
			out[i] = vecs[j]
			if r.cache != nil {
				r.cache.Set(cacheKey(tenant, kb, r.cfg.Model, texts[i]), vecs[j], int64(len(vecs[j])*4+len(texts[i])+64))
			}
		}
	}
	if r.cache != nil {
		r.cache.Wait()
	}
	return out, nil
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

func (r *RemoteEmbedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"model": r.cfg.Model, "input": texts})
	if err != nil {
		return nil, fmt.Errorf("encode embeddings request: %w", err)
	}
	var lastErr error
	backoff := 100 * time.Millisecond
	for attempt := 0; attempt <= r.cfg.Retries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, errors.Join(lastErr, ctx.Err())
			case <-t.C:
			}
			backoff *= 2
		}
		vecs, err, retry := r.post(ctx, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		lastErr = err
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("embeddings %s: %w", r.cfg.BaseURL, lastErr)
}

func (r *RemoteEmbedder) post(ctx context.Context, body []byte, n int) ([][]float32, error, bool) {
	url := strings.TrimSuffix(r.cfg.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err, false
	}
	req.Header.Set("Content-Type", "application/json")
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err, true
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err, true
	}
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == 429 || resp.StatusCode >= 500
		return nil, fmt.Errorf("status %d", resp.StatusCode), retry
	}
	var er embedResponse
	if err := json.Unmarshal(b, &er); err != nil {
		return nil, fmt.Errorf("decode embeddings response: %w", err), false
	}
	if len(er.Data) != n {
		return nil, fmt.Errorf("got %d embeddings for %d inputs", len(er.Data), n), false
	}
	out := make([][]float32, n)
	dims := -1
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("bad embedding index %d", d.Index), false
		}
		if dims >= 0 && len(d.Embedding) != dims || len(d.Embedding) == 0 {
			return nil, errors.New("inconsistent embedding dimensions"), false
		}
		dims = len(d.Embedding)
		v := slices.Clone(d.Embedding)
		normalize(v)
		out[d.Index] = v
	}
	return out, nil, false
}
