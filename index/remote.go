package index

import (
	"context"
	"fmt"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/answer-guard/guard/internal/oaiclient"
)

// RemoteEmbedder calls an OpenAI-compatible POST {base}/embeddings endpoint
// in batches, through the shared client (retries, timeouts, metrics as
// client "embeddings"), and caches vectors in ristretto keyed by scope
// (tenant and kb), model and text.
type RemoteEmbedder struct {
	cfg    RemoteConfig
	client *oaiclient.Client
	cache  *ristretto.Cache[string, []float32]
}

// NewRemoteEmbedder returns a remote embedder; cacheMB 0 disables the cache.
func NewRemoteEmbedder(cfg RemoteConfig, cacheMB int) (*RemoteEmbedder, error) {
	r := &RemoteEmbedder{cfg: cfg, client: oaiclient.New(oaiclient.Config{
		Name: "embeddings", BaseURL: cfg.BaseURL, APIKeyEnv: cfg.APIKeyEnv,
		Timeout: cfg.Timeout, Retries: cfg.Retries, MaxResponse: 256 << 20,
	})}
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

// Close releases the cache and the idle connections.
func (r *RemoteEmbedder) Close() {
	r.client.Close()
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

// embedBatch embeds one batch and normalises the vectors.
func (r *RemoteEmbedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := r.client.Embed(ctx, r.cfg.Model, texts)
	if err != nil {
		return nil, err
	}
	for _, v := range vecs {
		normalize(v)
	}
	return vecs, nil
}
