// Package remoteplan implements the remote synthesis planner: an
// OpenAI-compatible chat model that reads the question and the numbered
// notes that survived the coverage gate and names the notes that support an
// answer, best first. The proxy runs it on every grounded turn when
// gate.planner.mode is remote; the grounding suite (guard bench quality
// --gate --planner remote) runs the same code over its labelled questions.
package remoteplan

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/oaiclient"
)

// Planner is the remote planner. Any failure (transport, status, timeout,
// a reply naming no valid note) is an error: the caller falls back to the
// local planner. Calls go through the shared client (client "planner" in
// its metrics), one attempt bounded by the config's timeout. A Planner is
// safe for concurrent use.
type Planner struct {
	cfg    gate.PlannerConfig
	client *oaiclient.Client
}

var _ gate.Planner = (*Planner)(nil)

// New returns a planner for c, whose BaseURL must be a URL (see Resolve for
// gate.PlannerUpstream).
func New(c gate.PlannerConfig) *Planner {
	return &Planner{cfg: c, client: oaiclient.New(oaiclient.Config{
		Name: "planner", BaseURL: c.BaseURL, APIKeyEnv: c.APIKeyEnv, Timeout: c.Timeout, MaxResponse: 1 << 20,
	})}
}

// Resolve returns c with base_url "upstream" (gate.PlannerUpstream)
// replaced by the answering upstream's URL, and its key env when c names
// none: the answering upstream plans too (the seed's way), with the
// planner's own model name and timeout.
func Resolve(c gate.PlannerConfig, upstreamURL, upstreamKeyEnv string) (gate.PlannerConfig, error) {
	if c.BaseURL != gate.PlannerUpstream {
		return c, nil
	}
	if upstreamURL == "" {
		return c, errors.New("gate.planner.base_url is upstream but upstream.base_url is empty")
	}
	c.BaseURL = upstreamURL
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = upstreamKeyEnv
	}
	return c, nil
}

// Close closes the planner's idle connections.
func (p *Planner) Close() { p.client.Close() }

// Prompt is the planner's system prompt. The simulated upstream (mockllm)
// recognises it by its opening words ("You plan an answer.").
const Prompt = `You plan an answer. Below are a question and numbered notes. Reply with the numbers of the notes that contain information needed to answer the question, most important first, as a JSON array of integers, for example [2, 5]. Reply [] if no note answers the question. No other text.`

var numbers = regexp.MustCompile(`\d+`)

// Outline implements gate.Planner.
func (p *Planner) Outline(ctx context.Context, question string, notes []gate.Note) ([]int, error) {
	var user strings.Builder
	fmt.Fprintf(&user, "Question: %s\n\nNotes:\n", question)
	for i, n := range notes {
		fmt.Fprintf(&user, "%d. %s\n", i+1, strings.Join(strings.Fields(n.Title+". "+n.Text), " "))
	}
	reply, err := p.client.Chat(ctx, oaiclient.ChatRequest{
		Model:    p.cfg.Model,
		Messages: []oaiclient.Message{{Role: "system", Content: Prompt}, {Role: "user", Content: user.String()}},
	})
	if err != nil {
		return nil, err
	}
	content := strings.TrimSpace(reply)
	if content == "[]" {
		return []int{}, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, m := range numbers.FindAllString(content, -1) {
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
