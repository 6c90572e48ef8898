package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// rewriter asks an OpenAI-compatible chat model for a few typed
// rephrasings of a question ("keywords: ...", "question: ...").
type rewriter struct {
	cfg    RewriteConfig
	key    string
	client *http.Client
}

func newRewriter(c RewriteConfig) *rewriter {
	r := &rewriter{cfg: c, client: &http.Client{Timeout: c.Timeout}}
	if c.APIKeyEnv != "" {
		r.key = os.Getenv(c.APIKeyEnv)
	}
	return r
}

const rewritePrompt = `Rewrite the user's question for a search engine. Reply with at most %d lines, each "type: text", where type is one of keywords, question, hypothetical (a one-sentence answer-like statement). No other text.`

func (r *rewriter) rewrite(ctx context.Context, q string) ([]string, error) {
	body, err := json.Marshal(map[string]any{
		"model":       r.cfg.Model,
		"temperature": 0,
		"messages": []map[string]string{
			{"role": "system", "content": fmt.Sprintf(rewritePrompt, r.cfg.Max)},
			{"role": "user", "content": q},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("encode rewrite request: %w", err)
	}
	url := strings.TrimSuffix(r.cfg.BaseURL, "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rewrite request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("rewrite %s: read: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("rewrite %s: status %d", url, resp.StatusCode)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, fmt.Errorf("rewrite %s: bad response", url)
	}
	return parseRewrites(cr.Choices[0].Message.Content, q, r.cfg.Max), nil
}

// parseRewrites keeps up to max distinct non-empty lines, dropping a
// "type:" prefix and the original question.
func parseRewrites(content, orig string, max int) []string {
	var out []string
	seen := map[string]bool{strings.ToLower(strings.TrimSpace(orig)): true}
	for _, l := range strings.Split(content, "\n") {
		l = trimLine(l)
		if typ, rest, ok := strings.Cut(l, ":"); ok && len(typ) < 16 && !strings.Contains(typ, " ") {
			l = strings.TrimSpace(rest)
		}
		if l == "" || len(l) > 500 || seen[strings.ToLower(l)] {
			continue
		}
		seen[strings.ToLower(l)] = true
		out = append(out, l)
		if len(out) >= max {
			break
		}
	}
	return out
}
