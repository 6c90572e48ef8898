package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/sse"
)

// burstEvent is a content chunk as the simulated upstream writes them.
func burstEvent(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-b1","object":"chat.completion.chunk","created":1700000000,"model":"mock-1","choices":[{"index":0,"delta":` +
		delta + `,"logprobs":null,"finish_reason":` + f + "}]}\n\n"
}

// burstAnswer is a grounded answer in word-sized pieces: markers split
// across events ("[^" then "1]"), an unknown footnote, a leaked id, a code
// span, an escape, a non-ASCII word, sentences that end mid-event, and a
// sentence with "[2]" in code that ends before [^2] is first cited (its
// claim must not resolve to a citation numbered after it ended).
func burstAnswer() string {
	pieces := []string{"Error", " LF", "-4002", " means", " the", " account", " is", " locked", " [^", "1", "].",
		" Code", " `[2]`", " marks", " it", ".", " An", " administrator", " can", " unlock", " it", " [^2]", " (see", " ref-error-", "lf-4002", " and", " [^9])", ".",
		" Run", " `unlock", " --id 7`", " then", " wait", " \"a", " minute\"", ".\n\n", "Caf\u00e9", " hours", " are", " 9", "-5",
		" [^1][^2]", ".", " Done", "."}
	var b strings.Builder
	b.WriteString(burstEvent(`{"role":"assistant","content":""}`, ""))
	for _, p := range pieces {
		b.WriteString(burstEvent(`{"content":`+jsonString(p)+`}`, ""))
	}
	b.WriteString(burstEvent(`{}`, "stop"))
	b.WriteString(`data: {"id":"chatcmpl-b1","object":"chat.completion.chunk","created":1700000000,"model":"mock-1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":40,"total_tokens":49}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// burstStreams are upstream bodies the relay must pass on the same way
// however their bytes arrive.
func burstStreams() []struct {
	name, body string
	usage      bool
} {
	answer := burstAnswer()
	cut := strings.Index(answer, `" minute`) // mid-event: the stream dies there
	errAt := strings.Index(answer, burstEvent(`{"content":" then"}`, ""))
	tools := burstEvent(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"unlock","arguments":""}}]}`, "") +
		burstEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"id\":"}}]}`, "") +
		burstEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"7}"}}]}`, "") +
		burstEvent(`{}`, "tool_calls") + "data: [DONE]\n\n"
	side := burstEvent(`{"role":"assistant","content":"","reasoning_content":"Look up doc_1a2b"}`, "") +
		burstEvent(`{"reasoning_content":" [^1] first."}`, "") +
		burstEvent(`{"content":"Locked [^1]."}`, "") +
		burstEvent(`{"content":" Yes","refusal":"no [^"}`, "") +
		burstEvent(`{}`, "stop") + "data: [DONE]\n\n"
	multi := burstEvent(`{"content":"Error"}`, "") +
		"data: {\"id\":\"chatcmpl-b1\",\"choices\":[{\"index\":0,\n" + `data: "delta":{"content":" LF-4002 [^1]."},"finish_reason":null}]}` + "\n\n" +
		": a comment\n\n" + burstEvent(`{"content":" Next"}`, "") + burstEvent(`{}`, "stop") + "data: [DONE]\n\n"
	// A misbehaving upstream: content after the finish chunk, and a second
	// finish (the turn's stream is used after Finish, and only the relay's
	// end may give it back).
	after := burstEvent(`{"content":"Error LF-4002 [^1]."}`, "") + burstEvent(`{}`, "stop") +
		burstEvent(`{"content":" More doc_1a2b [^2]."}`, "") + burstEvent(`{}`, "stop") + "data: [DONE]\n\n"
	return []struct {
		name, body string
		usage      bool
	}{
		{"answer", answer, false},
		{"answer-usage", answer, true},
		{"cut-mid-event", answer[:cut], false},
		{"error-event", answer[:errAt] + "event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n", false},
		{"done-before-finish", answer[:errAt] + "data: [DONE]\n\n", false},
		{"tool-calls", tools, false},
		{"side-text", side, false},
		{"multi-line", multi, false},
		{"after-finish", after, false},
	}
}

// splitReader returns its bytes in the given pieces, one per Read.
type splitReader struct {
	b    []byte
	cuts []int // lengths of the reads, then the rest at once
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := len(s.b)
	if len(s.cuts) > 0 {
		n, s.cuts = min(s.cuts[0], n), s.cuts[1:]
	}
	n = copy(p, s.b[:n])
	s.b = s.b[n:]
	return n, nil
}

// burstSplits are ways the same upstream bytes may arrive: whole, one
// event per read (a paced stream), one byte at a time, and at random.
func burstSplits(body string) map[string][]int {
	out := map[string][]int{"whole": nil}
	var ev []int
	for rest := body; rest != ""; {
		i := strings.Index(rest, "\n\n")
		if i < 0 {
			ev = append(ev, len(rest))
			break
		}
		ev = append(ev, i+2)
		rest = rest[i+2:]
	}
	out["per-event"] = ev
	bytes1 := make([]int, len(body))
	for i := range bytes1 {
		bytes1[i] = 1
	}
	out["byte"] = bytes1
	rng := rand.New(rand.NewPCG(7, 28))
	for k := range 3 {
		var r []int
		for n := 0; n < len(body); {
			c := 1 + rng.IntN(700)
			r = append(r, c)
			n += c
		}
		out[fmt.Sprintf("random%d", k)] = r
	}
	return out
}

// relaySplit relays body, arriving in the reads cuts gives, through turn
// and returns the client's bytes with the report's latencies zeroed.
func relaySplit(t testing.TB, body string, cuts []int, usage bool, turn Turn) string {
	var out bytes.Buffer
	relayReads(t, &Server{m: newMetrics(), log: nopLogger()}, &out, body, cuts, usage, turn)
	return latencyRE.ReplaceAllString(out.String(), `"latency_ms":{}`)
}

// relayReads relays body, arriving in the reads cuts gives, through turn
// to w.
func relayReads(t testing.TB, s *Server, w io.Writer, body string, cuts []int, usage bool, turn Turn) {
	cfg := DefaultConfig()
	cfg.Server.DisconnectProbe = time.Hour
	rt := &runtime{cfg: cfg}
	src := sse.NewReader(&splitReader{b: []byte(body), cuts: cuts}, cfg.Upstream.MaxEventBytes)
	defer src.Release()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r := newRelay(&exchange{s: s, rt: rt, req: &chatRequest{stream: true, includeUsage: usage}, turn: turn,
		log: &reqLog{start: time.Now()}, stop: func(err error) { cancel(err) }}, src)
	defer r.free()
	first, ok, err := src.Next(nil)
	if err != nil || !ok {
		t.Fatalf("no first event: %v %v", ok, err)
	}
	r.run(ctx, w, first)
	// As relay.Close: the turn's pooled parts go back, for the next
	// turn (the next split) to reuse.
	releaseTurn(turn)
}

var latencyRE = regexp.MustCompile(`"latency_ms":\{[^}]*\}`)

// lexicalPipeline is the guard pipeline over the embedded demo corpus in
// lexical-only mode (issue 28), closed when the test ends.
func lexicalPipeline(tb testing.TB) Pipeline {
	cfg := DefaultConfig()
	cfg.Stages.Retrieve.Semantic, cfg.Stages.Index.Embedder = false, "hashed"
	pipe, err := NewPipeline(nil)(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pipe.Close)
	return pipe
}

// TestRelaySplitInvariant: the client gets the same bytes, event for
// event, however the upstream's bytes arrive (whole, one event per read,
// one byte per read, cut at random), through a real guard turn and in
// pass-through; and the bytes are the ones pinned in testdata/burst-*.txt
// (written by the relay that worked event by event).
func TestRelaySplitInvariant(t *testing.T) {
	pipe := lexicalPipeline(t)
	for _, st := range burstStreams() {
		for _, mode := range []string{"guard", "pass"} {
			name := st.name + "-" + mode
			t.Run(name, func(t *testing.T) {
				turn := func() Turn {
					if mode == "pass" {
						return passTurn{}
					}
					tr, err := pipe.Begin(context.Background(), TurnRequest{Tenant: "default", KB: "default", Model: "mock-1", Stream: true, Query: "What does error LF-4002 mean?"})
					if err != nil {
						t.Fatal(err)
					}
					return tr
				}
				var first, firstName string
				for split, cuts := range burstSplits(st.body) {
					got := relaySplit(t, st.body, cuts, st.usage, turn())
					if first == "" {
						first, firstName = got, split
						continue
					}
					if got != first {
						t.Errorf("split %s differs from split %s:\n%s\n---\n%s", split, firstName, got, first)
					}
				}
				checkFraming(t, first)
				path := filepath.Join("testdata", "burst-"+name+".txt")
				if *update {
					if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to write it)", err)
				}
				if first != string(want) {
					t.Errorf("client bytes differ from %s:\n%s", path, first)
				}
			})
		}
	}
}
