package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// TestFirstTokenNotHeld: with the full pipeline, the first content event
// of a streamed answer ("Based", a word that ends the event) reaches the
// client before the upstream sends the next one: the gauntlet releases it
// up to where an id could still start ("Bas"; a uuid could start at "ed").
// The upstream sends its second event only once the client has seen
// content, so a proxy that held the word until the next event would stall
// it (the upstream then gives up after a bound and the test fails).
func TestFirstTokenNotHeld(t *testing.T) {
	seen := make(chan struct{})
	stalled := make(chan struct{}, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	event := func(w io.Writer, content, finish string) {
		fin := "null"
		if finish != "" {
			fin = `"` + finish + `"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":%s}]}\n\n", content, fin)
		w.(http.Flusher).Flush()
	}
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		event(w, "Based", "")
		select {
		case <-seen:
		case <-r.Context().Done():
			return
		case <-time.After(3 * time.Second): // failure bound, not a measurement
			stalled <- struct{}{}
		}
		event(w, " on the handbook, LF-4002 means the account is locked.", "")
		event(w, "", "stop")
		io.WriteString(w, "data: [DONE]\n\n")
	})}
	go up.Serve(ln)
	t.Cleanup(func() { up.Close() })
	ts := startGuard(t, func(c *testCfg) { c.Upstream.BaseURL = "http://" + ln.Addr().String() + "/v1" })

	p := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(groundQ)}}
	s := ts.completions().NewStreaming(context.Background(), p)
	var first string
	var text strings.Builder
	for s.Next() {
		ch := s.Current()
		if len(ch.Choices) == 0 || ch.Choices[0].Delta.Content == "" {
			continue
		}
		if first == "" {
			first = ch.Choices[0].Delta.Content
			close(seen)
		}
		text.WriteString(ch.Choices[0].Delta.Content)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	select {
	case <-stalled:
		t.Fatalf("the first word was held until the next upstream event (first content %q)", first)
	default:
	}
	if !strings.HasPrefix(first, "Bas") || !strings.HasPrefix(text.String(), "Based on the handbook") {
		t.Errorf("first content %q, answer %q; want the answer to start with %q released at once", first, text.String(), "Bas")
	}
}
