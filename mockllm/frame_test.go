package mockllm

import (
	"testing"
)

// The plan frames an event as go-sse's Message does, for one-line data (in
// place) and for data with line breaks (through go-sse).
func TestFrameAsGoSSE(t *testing.T) {
	for _, data := range []string{
		`{"id":"chatcmpl-mock-1","choices":[{"index":0,"delta":{"content":"a\nb"}}]}`, "[DONE]", "x", " lead", "trail ",
		"a\nb", "a\r\nb", "a\rb", "end\n", "\n", "\r", "\n\n", "data: x", ":colon", "",
	} {
		var p plan
		p.buf = append(p.buf, "prev"...)
		p.open()
		p.buf = append(p.buf, data...)
		p.close()
		want := string(frameGoSSE([]byte("prev"), []byte(data)))
		if got := string(p.buf); got != want {
			t.Errorf("frame of %q = %q, want %q", data, got, want)
		}
		if st := p.steps[0]; string(p.buf[st.from:st.to]) != want[len("prev"):] {
			t.Errorf("step of %q = %q", data, p.buf[st.from:st.to])
		}
	}
}

// BenchmarkPlan lays out a streamed answer of 100 pieces and releases it,
// as a stream that ends does.
func BenchmarkPlan(b *testing.B) {
	s := &Server{}
	a := answer{pieces: make([]string, 100), cutAt: -1, stallAt: -1, badAt: -1, hugeAt: -1}
	for i := range a.pieces {
		a.pieces[i] = " word"
	}
	b.ReportAllocs()
	for b.Loop() {
		releasePlan(s.steps(a, "chatcmpl-mock-1", "mock-1", 1795759019, ""))
	}
}
