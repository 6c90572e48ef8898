package proxy

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

// remotePlanner is the synthesis planner backed by an OpenAI-compatible
// chat model: it reads the question and the numbered notes and names the
// notes that support an answer, best first. Any failure (transport, status,
// timeout, a reply naming no valid note) is an error: the caller falls back
// to the local planner and reports degraded "planner". Calls go through
// the shared client (client "planner" in its metrics), one attempt bounded
// by the config's timeout.
type remotePlanner struct {
	cfg    gate.PlannerConfig
	client *oaiclient.Client
}

// close closes the planner's idle connections.
func (p *remotePlanner) close() { p.client.Close() }

var _ gate.Planner = (*remotePlanner)(nil)

func newRemotePlanner(c gate.PlannerConfig) *remotePlanner {
	return &remotePlanner{cfg: c, client: oaiclient.New(oaiclient.Config{
		Name: "planner", BaseURL: c.BaseURL, APIKeyEnv: c.APIKeyEnv, Timeout: c.Timeout, MaxResponse: 1 << 20,
	})}
}

const plannerPrompt = `You plan an answer. Below are a question and numbered notes. Reply with the numbers of the notes that contain information needed to answer the question, most important first, as a JSON array of integers, for example [2, 5]. Reply [] if no note answers the question. No other text.`

var plannerNumbers = regexp.MustCompile(`\d+`)

// Outline implements gate.Planner.
func (p *remotePlanner) Outline(ctx context.Context, question string, notes []gate.Note) ([]int, error) {
	var user strings.Builder
	fmt.Fprintf(&user, "Question: %s\n\nNotes:\n", question)
	for i, n := range notes {
		fmt.Fprintf(&user, "%d. %s\n", i+1, strings.Join(strings.Fields(n.Title+". "+n.Text), " "))
	}
	reply, err := p.client.Chat(ctx, oaiclient.ChatRequest{
		Model:    p.cfg.Model,
		Messages: []oaiclient.Message{{Role: "system", Content: plannerPrompt}, {Role: "user", Content: user.String()}},
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
