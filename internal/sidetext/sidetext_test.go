package sidetext

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/answer-guard/guard/internal/jsonscan"
)

// holdLast is a Filter that upper-cases side text and holds each field's
// last byte until the field ends, the way a marker filter holds a partial
// marker across deltas.
type holdLast struct {
	held map[string][]byte
	seen []string // keys in call order
}

func (h *holdLast) Side(key string, dst, delta []byte, end bool) []byte {
	if h.held == nil {
		h.held = map[string][]byte{}
	}
	h.seen = append(h.seen, key)
	s := append(h.held[key], delta...)
	if end {
		delete(h.held, key)
		return append(dst, bytes.ToUpper(s)...)
	}
	if len(s) == 0 {
		h.held[key] = s
		return dst
	}
	h.held[key] = []byte{s[len(s)-1]}
	return append(dst, bytes.ToUpper(s[:len(s)-1])...)
}

func (h *holdLast) OpenSides() []string {
	keys := make([]string, 0, len(h.held))
	for k := range h.held {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestHas(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}`, true},
		{`{"choices":[{"index":0,"message":{"content":"a","refusal":null}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"\"index\" twice: \"index\""}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":"re","refusal":"x"}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"\"re\"refus","role":"x"}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":"x"},"reasoning_content":"r"}]}`, true},
		{`"re`, false},
		{`"refusal"`, true},
	} {
		if got := Has([]byte(tc.data), gjson.Get(tc.data, "choices").Raw); got != tc.want {
			t.Errorf("Has(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

// In a whole completion every side field is filtered and closed at once;
// the first choice's content is left alone.
func TestRewriteCompletion(t *testing.T) {
	in := `{"choices":[{"index":0,"message":{"content":"answer","reasoning_content":"think","refusal":"no"}},` +
		`{"index":1,"message":{"content":"other"}}]}`
	f := &holdLast{}
	out, err := Rewrite(f, []byte(in), "message", true)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"choices.0.message.content":           "answer",
		"choices.0.message.reasoning_content": "THINK",
		"choices.0.message.refusal":           "NO",
		"choices.1.message.content":           "OTHER",
	} {
		if got := gjson.GetBytes(out, path).String(); got != want {
			t.Errorf("%s = %q, want %q (%s)", path, got, want, out)
		}
	}
	if open := f.OpenSides(); len(open) != 0 {
		t.Errorf("filters left open: %v", open)
	}
}

// In a stream a field's held text goes out with the last chunk, under the
// field's own key, even when that chunk carries no side field itself.
func TestRewriteStreamTail(t *testing.T) {
	f := &holdLast{}
	out, err := Rewrite(f, []byte(`{"choices":[{"index":0,"delta":{"reasoning_content":"abc"}}]}`), "delta", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "choices.0.delta.reasoning_content").String(); got != "AB" {
		t.Errorf("first chunk: reasoning_content %q, want %q", got, "AB")
	}
	out, err = Rewrite(f, []byte(`{"choices":[{"index":0,"delta":{"reasoning_content":"de"},"finish_reason":"stop"}]}`), "delta", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "choices.0.delta.reasoning_content").String(); got != "CDE" {
		t.Errorf("last chunk: reasoning_content %q, want %q (%s)", got, "CDE", out)
	}
	f = &holdLast{}
	if _, err := Rewrite(f, []byte(`{"choices":[{"index":0,"delta":{"refusal":"xy"}}]}`), "delta", false); err != nil {
		t.Fatal(err)
	}
	out, err = Rewrite(f, []byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`), "delta", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "choices.0.delta.refusal").String(); got != "Y" {
		t.Errorf("end chunk without the field: refusal %q, want the held %q (%s)", got, "Y", out)
	}
	if want := []string{"0.refusal", "0.refusal"}; !slices.Equal(f.seen, want) {
		t.Errorf("keys %v, want %v", f.seen, want)
	}
}

// BenchmarkHas is the relay's per-event look for side text in an ordinary
// content chunk (none there).
func BenchmarkHas(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1795759019,"model":"mock-1",` +
		`"system_fingerprint":"mock-fp","choices":[{"index":0,"delta":{"content":" restore the database"},"logprobs":null,"finish_reason":null}]}`)
	choices := gjson.GetBytes(data, "choices").Raw
	b.ReportAllocs()
	for b.Loop() {
		if Has(data, choices) {
			b.Fatal("side text in a content chunk")
		}
	}
}

// FuzzMemo: through a stream's chunks, Memo.Has (told when the chunk memo
// took its shortcut) says what Has says of each chunk.
func FuzzMemo(f *testing.F) {
	ev := func(c, more string) string {
		return `{"id":"x","choices":[{"index":0,"delta":{"content":` + c + more + `},"finish_reason":null}]}`
	}
	f.Add(ev(`"a"`, ""), ev(`"refusal"`, ""), ev(`"b"`, ""))
	f.Add(ev(`"a"`, `,"refusal":"no"`), ev(`"b"`, `,"refusal":"no"`), ev(`"index"`, ""))
	f.Add(ev(`"\"refusal"`, ""), ev(`"x\"reasoning_content"`, ""), ev(`"a"`, ""))
	f.Add(ev(`"a"`, ""), ev(`"b"`, ""), `{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"\"index\""}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"index"}},{"index":1,"delta":{"content":"\"index\""}}]}`, ev(`null`, ""))
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var cm jsonscan.ChunkMemo
		var m Memo
		for _, data := range []string{a, b, c, b, a, c} {
			v, ok := cm.Scan(data)
			if !ok {
				continue
			}
			want := Has([]byte(data), v.Choices)
			if got := m.Has([]byte(data), v.Choices, v.Content, cm.Hit()); got != want {
				t.Fatalf("Memo.Has(%q) = %v, Has = %v (hit %v)", data, got, want, cm.Hit())
			}
		}
	})
}

// BenchmarkMemoHas is BenchmarkHas for a chunk the chunk memo found the
// same as the one before but for its content (most of a stream's).
func BenchmarkMemoHas(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1795759019,"model":"mock-1",` +
		`"system_fingerprint":"mock-fp","choices":[{"index":0,"delta":{"content":" restore the database"},"logprobs":null,"finish_reason":null}]}`)
	var cm jsonscan.ChunkMemo
	v, _ := cm.Scan(string(data))
	var m Memo
	m.Has(data, v.Choices, v.Content, cm.Hit())
	v, _ = cm.Scan(string(data))
	b.ReportAllocs()
	for b.Loop() {
		if m.Has(data, v.Choices, v.Content, cm.Hit()) {
			b.Fatal("side text in a content chunk")
		}
	}
}
