package retrieve

import (
	"context"
	"fmt"
	"strings"

	"github.com/answer-guard/guard/internal/oaiclient"
)

// rewriter asks an OpenAI-compatible chat model for a few typed
// rephrasings of a question ("keywords: ...", "question: ..."), through the
// shared client (client "rewrite" in its metrics), one attempt bounded by
// the config's timeout.
type rewriter struct {
	cfg    RewriteConfig
	client *oaiclient.Client
}

func newRewriter(c RewriteConfig) *rewriter {
	return &rewriter{cfg: c, client: oaiclient.New(oaiclient.Config{
		Name: "rewrite", BaseURL: c.BaseURL, APIKeyEnv: c.APIKeyEnv, Timeout: c.Timeout, MaxResponse: 1 << 20,
	})}
}

const rewritePrompt = `Rewrite the user's question for a search engine. Reply with at most %d lines, each "type: text", where type is one of keywords, question, hypothetical (a one-sentence answer-like statement). No other text.`

// rewriteContext is added to the prompt when the question comes with the
// user's previous message.
const rewriteContext = ` The question may follow up on the user's previous message, given first: make every line stand alone, naming what the question refers to.`

// rewrite asks for rephrasings of q; prev, the user's previous message
// ("" when none), is given as context.
func (r *rewriter) rewrite(ctx context.Context, q, prev string) ([]string, error) {
	msgs := []oaiclient.Message{{Role: "system", Content: fmt.Sprintf(rewritePrompt, r.cfg.Max)}}
	if prev != "" {
		msgs[0].Content += rewriteContext
		msgs = append(msgs, oaiclient.Message{Role: "user", Content: "Previous message: " + prev})
	}
	msgs = append(msgs, oaiclient.Message{Role: "user", Content: q})
	content, err := r.client.Chat(ctx, oaiclient.ChatRequest{Model: r.cfg.Model, Messages: msgs})
	if err != nil {
		return nil, err
	}
	return parseRewrites(content, q, r.cfg.Max), nil
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
