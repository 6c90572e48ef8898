package oaiclient

import (
	"context"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of POST {base}/chat/completions. Temperature is
// always sent (0 is a setting, not a default).
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	// MaxTokens caps the answer; 0 leaves it to the server.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Chat posts req to {base}/chat/completions and returns the first choice's
// message content. A response without choices wraps ErrBadResponse.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (string, error) {
	const path = "/chat/completions"
	var resp struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := c.call(ctx, path, req, &resp); err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", c.badResponse(path, "no choices")
	}
	c.m.result("ok")
	return resp.Choices[0].Message.Content, nil
}

// Embed posts {"model","input"} to {base}/embeddings and returns one vector
// per input, in input order (the response's index fields place them). A
// response with another count, a bad or repeated index, an empty vector or
// vectors of different lengths wraps ErrBadResponse. Vectors are returned
// as the server sent them (not normalised).
func (c *Client) Embed(ctx context.Context, model string, input []string) ([][]float32, error) {
	const path = "/embeddings"
	req := struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{model, input}
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := c.call(ctx, path, req, &resp); err != nil {
		return nil, err
	}
	n := len(input)
	if len(resp.Data) != n {
		return nil, c.badResponse(path, "got %d embeddings for %d inputs", len(resp.Data), n)
	}
	out := make([][]float32, n)
	dims := -1
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, c.badResponse(path, "bad embedding index %d", d.Index)
		}
		if len(d.Embedding) == 0 || dims >= 0 && len(d.Embedding) != dims {
			return nil, c.badResponse(path, "inconsistent embedding dimensions")
		}
		dims = len(d.Embedding)
		out[d.Index] = d.Embedding
	}
	c.m.result("ok")
	return out, nil
}
