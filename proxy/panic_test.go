package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// panicPipe is a pipeline with a bug: Begin panics on a question with
// "begin-bug", and the turn it begins panics on the answer's first content
// for a question with "stream-bug".
type panicPipe struct{ passthrough }

type panicTurn struct{ passTurn }

func (panicTurn) Content(context.Context, []byte, []byte) []byte { panic("a stage's bug") }

func (panicPipe) Begin(_ context.Context, req TurnRequest) (Turn, error) {
	switch {
	case strings.Contains(req.Query, "begin-bug"):
		panic("a gate's bug")
	case strings.Contains(req.Query, "stream-bug"):
		return panicTurn{}, nil
	}
	return passTurn{}, nil
}

// A panic in a stage (say a verifier rule meeting text nobody foresaw)
// fails that request alone: before the answer, a 500 with an OpenAI-shaped
// server_error; mid-stream, the stream ends without its last chunk and the
// client reads an error; either way the panic is counted and the server
// goes on serving, the next request whole.
func TestPanicFailsOneRequest(t *testing.T) {
	addr := servePipe(t, panicPipe{}, nil)
	base := "http://" + addr + "/v1/"
	c := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("test"), option.WithMaxRetries(0))
	ask := func(q string) openai.ChatCompletionNewParams {
		return openai.ChatCompletionNewParams{Model: "mock-1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}}
	}
	ctx := context.Background()

	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			s := c.Chat.Completions.NewStreaming(ctx, ask("begin-bug, streamed"))
			for s.Next() {
			}
			err = s.Err()
		} else {
			_, err = c.Chat.Completions.New(ctx, ask("begin-bug"))
		}
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 500 || ae.Code != "internal_error" || ae.Type != "server_error" {
			t.Fatalf("stream %v: a panic in Begin gave %v, want a 500 internal_error", stream, err)
		}
	}

	s := c.Chat.Completions.NewStreaming(ctx, ask("stream-bug"))
	for s.Next() {
	}
	if s.Err() == nil {
		t.Fatal("a stream whose stage panicked ended as a whole answer")
	}
	s.Close()

	got, err := c.Chat.Completions.New(ctx, ask("What is the return window?"))
	if err != nil || len(got.Choices) != 1 || got.Choices[0].Message.Content == "" {
		t.Fatalf("after the panics: %v, %+v", err, got)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`guard_panics_total{where="request"} 2`, `guard_panics_total{where="stream"} 1`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
