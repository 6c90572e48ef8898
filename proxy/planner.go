package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/gate"
)

// remotePlanner is the synthesis planner backed by an OpenAI-compatible
// chat model: it reads the question and the numbered notes and names the
// notes that support an answer, best first. Any failure (transport, status,
// timeout, a reply naming no valid note) is an error: the caller falls back
// to the local planner and reports degraded "planner".
type remotePlanner struct {
	cfg    gate.PlannerConfig
	key    string
	client *http.Client
}

var _ gate.Planner = (*remotePlanner)(nil)

func newRemotePlanner(c gate.PlannerConfig) *remotePlanner {
	p := &remotePlanner{cfg: c, client: &http.Client{Timeout: c.Timeout}}
	if c.APIKeyEnv != "" {
		p.key = os.Getenv(c.APIKeyEnv)
	}
	return p
}

const plannerPrompt = `You plan an answer. Below are a question and numbered notes. Reply with the numbers of the notes that contain information needed to answer the question, most important first, as a JSON array of integers, for example [2, 5]. Reply [] if no note answers the question. No other text.`

var plannerNumbers = regexp.MustCompile(`\d+`)

// Outline implements gate.Planner.
func (p *remotePlanner) Outline(ctx context.Context, question string, notes []gate.Note) ([]int, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	var user strings.Builder
	fmt.Fprintf(&user, "Question: %s\n\nNotes:\n", question)
	for i, n := range notes {
		fmt.Fprintf(&user, "%d. %s\n", i+1, strings.Join(strings.Fields(n.Title+". "+n.Text), " "))
	}
	body, err := json.Marshal(map[string]any{
		"model": p.cfg.Model, "temperature": 0,
		"messages": []map[string]string{{"role": "system", "content": plannerPrompt}, {"role": "user", "content": user.String()}},
	})
	if err != nil {
		return nil, fmt.Errorf("encode planner request: %w", err)
	}
	url := strings.TrimSuffix(p.cfg.BaseURL, "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("planner request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("planner %s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("planner %s: read: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("planner %s: status %d", url, resp.StatusCode)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, fmt.Errorf("planner %s: bad response", url)
	}
	content := strings.TrimSpace(cr.Choices[0].Message.Content)
	if content == "[]" {
		return []int{}, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, m := range plannerNumbers.FindAllString(content, -1) {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > len(notes) || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n-1)
	}
	if len(out) == 0 {
		return nil, errors.New("planner: the reply names no valid note")
	}
	return out, nil
}
