package gauntlet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// transcriptOptions is the optional first line of a transcript, an SSE
// comment: ": gauntlet {json}".
type transcriptOptions struct {
	Bailout bool     `json:"bailout"`
	Cards   []string `json:"cards"`
	Actions []string `json:"actions"`
}

type sseEvent struct {
	data string
}

func parseSSE(t *testing.T, b []byte) (transcriptOptions, []sseEvent) {
	t.Helper()
	var o transcriptOptions
	var evs []sseEvent
	var data []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ": gauntlet "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, ": gauntlet ")), &o); err != nil {
				t.Fatalf("options line: %v", err)
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "":
			if len(data) > 0 {
				evs = append(evs, sseEvent{data: strings.Join(data, "\n")})
				data = nil
			}
		}
	}
	if len(data) > 0 {
		evs = append(evs, sseEvent{data: strings.Join(data, "\n")})
	}
	return o, evs
}

type chunk struct {
	ID      string   `json:"id,omitempty"`
	Object  string   `json:"object,omitempty"`
	Choices []choice `json:"choices"`
	// On the final chunk only (the one with finish_reason).
	Usage     json.RawMessage `json:"usage,omitempty"`
	Citations []string        `json:"citations,omitempty"`
	Guard     map[string]any  `json:"guard,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// transcode runs an input SSE transcript through the gauntlet the way the
// proxy does: each content delta is replaced by what the gauntlet releases
// (events that release nothing are left out), the stream is closed before
// the chunk with finish_reason, which carries citations and guard.
func transcode(t *testing.T, s *Spec, in []byte) []byte {
	t.Helper()
	to, evs := parseSSE(t, in)
	st := s.New(to.options())
	var out bytes.Buffer
	emit := func(c chunk) {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "data: %s\n\n", b)
	}
	for _, ev := range evs {
		if ev.data == "[DONE]" {
			out.WriteString("data: [DONE]\n\n")
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
			t.Fatalf("event %q: %v", ev.data, err)
		}
		if len(c.Choices) == 0 {
			emit(c)
			continue
		}
		ch := &c.Choices[0]
		if ch.FinishReason != nil {
			rest := string(st.Close(nil))
			if rest != "" {
				flush := chunk{ID: c.ID, Object: c.Object, Choices: []choice{{Delta: delta{Content: &rest}}}}
				emit(flush)
			}
			cites := st.Citations()
			c.Citations = make([]string, len(cites))
			for i, ct := range cites {
				c.Citations[i] = ct.URL
				if ct.URL == "" {
					c.Citations[i] = ct.ID
				}
			}
			c.Guard = map[string]any{"citations": cites, "markers": st.Counts()}
			emit(c)
			continue
		}
		if ch.Delta.Content == nil {
			emit(c)
			continue
		}
		got := string(st.Write(nil, []byte(*ch.Delta.Content)))
		if got == "" && ch.Delta.Role == "" {
			continue
		}
		ch.Delta.Content = &got
		emit(c)
	}
	return out.Bytes()
}

// splitTranscript builds a transcript that repeats sentence once per byte
// position, the k-th copy cut into two events at byte k, so every split of
// every marker in it is exercised in one stream.
func splitTranscript(opts, sentence string) []byte {
	var b bytes.Buffer
	if opts != "" {
		fmt.Fprintf(&b, ": gauntlet %s\n\n", opts)
	}
	ev := func(s string) {
		j, _ := json.Marshal(s)
		fmt.Fprintf(&b, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", j)
	}
	for k := 0; k <= len(sentence); k++ {
		ev(sentence[:k])
		ev(sentence[k:])
	}
	b.WriteString("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// generated are the transcripts written from code (with -update): a marker
// of each kind split at every byte position.
var generated = map[string][]byte{
	"split_footnote.sse":  splitTranscript("", "Water boils at 100 C [^2]. "),
	"split_list.sse":      splitTranscript("", "Both agree [^1, ^2]. "),
	"split_invented.sse":  splitTranscript("", "Made up [^17]. "),
	"split_malformed.sse": splitTranscript("", "Broken [^x2] and [^ 2]. "),
	"split_card.sse":      splitTranscript(`{"cards":["Lecture 1"]}`, "See [card:Lecture 1] and [card:Lecture 7]. "),
	"split_action.sse":    splitTranscript(`{"actions":["open_map"]}`, "Then [action:open_map] not [action:rm_rf]. "),
	"split_leak.sse":      splitTranscript("", "Stored as doc_0123456789ab (uuid 123e4567-e89b-12d3-a456-426614174000). "),
	"split_utf8.sse":      splitTranscript("", "Évian → 日本 [^1] 🙂. "),
	"split_code.sse":      splitTranscript("", "Use `a[^9]b` then [^1]. "),
	"split_bailout.sse":   splitTranscript(`{"bailout":true}`, "General [^1] knowledge [card:Lecture 1]. "),
}

func TestGoldenTranscripts(t *testing.T) {
	s := testSpec(t)
	dir := filepath.Join("testdata", "transcripts")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range generated {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in %s (run with -update): %v", dir, err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".sse"), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := generated[name]; ok && !bytes.Equal(g, in) {
				t.Fatalf("%s differs from its generator; run go test -run TestGoldenTranscripts -update", f)
			}
			got := transcode(t, s, in)
			golden := strings.TrimSuffix(f, ".sse") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s:\n%s", golden, diffLines(string(want), string(got)))
			}
			// The released text must not depend on where the events were cut.
			_, evs := parseSSE(t, in)
			var all strings.Builder
			for _, ev := range evs {
				var c chunk
				if json.Unmarshal([]byte(ev.data), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
					all.WriteString(*c.Choices[0].Delta.Content)
				}
			}
			to, _ := parseSSE(t, in)
			one, _ := run(s, to.options(), all.String())
			if streamed := contentOf(t, got); streamed != one {
				t.Errorf("streamed content %q != one-shot %q", streamed, one)
			}
		})
	}
}

func (to transcriptOptions) options() Options {
	o := testOptions()
	o.Bailout = to.Bailout
	if to.Cards != nil {
		o.Cards = map[string]bool{}
		for _, c := range to.Cards {
			o.Cards[c] = true
		}
	}
	if to.Actions != nil {
		o.Actions = map[string]bool{}
		for _, a := range to.Actions {
			o.Actions[a] = true
		}
	}
	return o
}

func contentOf(t *testing.T, sse []byte) string {
	t.Helper()
	_, evs := parseSSE(t, sse)
	var b strings.Builder
	for _, ev := range evs {
		var c chunk
		if json.Unmarshal([]byte(ev.data), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			b.WriteString(*c.Choices[0].Delta.Content)
		}
	}
	return b.String()
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("first difference at line %d:\nwant %s\ngot  %s", i+1, a, b)
		}
	}
	return "(no line difference)"
}
