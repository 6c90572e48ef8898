package mockllm

import (
	"testing"
)

// The script frames an event as go-sse's Message does, for one-line data
// (in place) and for data with line breaks (through go-sse).
func TestFrameAsGoSSE(t *testing.T) {
	for _, data := range []string{
		`{"id":"chatcmpl-mock-1","choices":[{"index":0,"delta":{"content":"a\nb"}}]}`, "[DONE]", "x", " lead", "trail ",
		"a\nb", "a\r\nb", "a\rb", "end\n", "\n", "\r", "\n\n", "data: x", ":colon", "",
	} {
		var b scriptBuilder
		b.sc.lit = append(b.sc.lit, "prev"...)
		b.open()
		b.sc.lit = append(b.sc.lit, data...)
		b.close()
		want := string(frameGoSSE([]byte("prev"), []byte(data)))
		if got := string(b.sc.lit); got != want {
			t.Errorf("frame of %q = %q, want %q", data, got, want)
		}
		if st := b.sc.steps[0]; string(b.sc.lit[st.from:st.to]) != want[len("prev"):] {
			t.Errorf("step of %q = %q", data, b.sc.lit[st.from:st.to])
		}
	}
}
