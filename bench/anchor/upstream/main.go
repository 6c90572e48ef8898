// Command upstream is the fixed-answer OpenAI-compatible upstream of
// bench/anchor: every chat completion gets the same prebuilt answer, so a
// run measures the proxies in front of it, not the answer's generation.
// A non-stream request gets one chat.completion; a stream request
// ("stream":true in the body) gets -events content chunks, a finish chunk,
// a usage chunk and [DONE], written at once.
//
// Two stream shapes model LLM pace (anchor.sh's paced and idle phases),
// chosen by the request's standard "user" field so that every proxy passes
// the choice on untouched:
//   - "user":"paced": the role chunk at once, then -paced-events content
//     chunks, each -pace after the one before (20 x 50 ms: a 1 s answer),
//     the finish, usage and [DONE] with the last;
//   - "user":"idle": the role chunk, then nothing for -hold, then the rest:
//     an open stream that waits on its model.
//
// The events are framed by go-sse (sse.Message), once at start.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/tmaxmax/go-sse"
	"github.com/valyala/fasthttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18501", "listen address (loopback)")
	events := flag.Int("events", 50, "content events per streamed answer")
	pacedEvents := flag.Int("paced-events", 20, `content events per "user":"paced" stream`)
	pace := flag.Duration("pace", 50*time.Millisecond, `delay between the events of a "user":"paced" stream`)
	hold := flag.Duration("hold", 30*time.Second, `how long a "user":"idle" stream waits after its first event`)
	idleTimeout := flag.Duration("idle-timeout", 3*time.Second, "a keep-alive connection idle this long is closed: the proxies' pools of thousands of idle connections would otherwise hold this process's file descriptors from one run to the next")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") {
		log.Fatal("-addr: loopback only")
	}
	whole := []byte(`{"id":"chatcmpl-anchor","object":"chat.completion","created":1700000000,"model":"mock-1","choices":[{"index":0,"message":{"role":"assistant","content":"The return window is 30 days from delivery, and refunds go to the original payment method."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":18,"total_tokens":38}}`)
	burst := bytes.Join(answer(*events), nil)
	paced, idle := answer(*pacedEvents), answer(*events)
	streamKey := []byte(`"stream":true`)
	pacedKey, idleKey := []byte(`"user":"paced"`), []byte(`"user":"idle"`)
	h := func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/v1/chat/completions":
			body := ctx.PostBody()
			if !bytes.Contains(body, streamKey) {
				ctx.SetContentType("application/json")
				ctx.SetBody(whole)
				return
			}
			ctx.SetContentType("text/event-stream")
			switch {
			case bytes.Contains(body, pacedKey):
				ctx.SetBodyStream(&pacedBody{frames: paced, waits: waits(len(paced), *pacedEvents, *pace)}, -1)
			case bytes.Contains(body, idleKey):
				ctx.SetBodyStream(&pacedBody{frames: idle, waits: waits(len(idle), 1, *hold)}, -1)
			default:
				ctx.SetBody(burst)
			}
		case "/v1/models":
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"object":"list","data":[{"id":"mock-1","object":"model","owned_by":"anchor"}]}`)
		default:
			ctx.SetStatusCode(404)
		}
	}
	log.Fatal((&fasthttp.Server{Handler: h, Name: "anchor-upstream", IdleTimeout: *idleTimeout}).ListenAndServe(*addr))
}

// answer frames a streamed answer of n content events: the role chunk, n
// content chunks, the finish chunk, the usage chunk and [DONE], one
// "data: ...\n\n" frame each.
func answer(n int) [][]byte {
	head := `{"id":"chatcmpl-anchor","object":"chat.completion.chunk","created":1700000000,"model":"mock-1"`
	words := strings.Fields("The return window is 30 days from delivery and refunds go to the original payment method within five business days of approval")
	data := []string{head + `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`}
	for i := range n {
		data = append(data, fmt.Sprintf(`%s,"choices":[{"index":0,"delta":{"content":"%s "},"logprobs":null,"finish_reason":null}]}`, head, words[i%len(words)]))
	}
	data = append(data, head+`,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
		fmt.Sprintf(`%s,"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":%d,"total_tokens":%d}}`, head, n, n+20),
		"[DONE]")
	frames := make([][]byte, len(data))
	for i, d := range data {
		var m sse.Message
		m.AppendData(d)
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			log.Fatal(err)
		}
		frames[i] = b.Bytes()
	}
	return frames
}

// waits says how long to wait before each of n frames: d before frames 1
// to k (the frames after the role chunk), none before the others.
func waits(n, k int, d time.Duration) []time.Duration {
	w := make([]time.Duration, n)
	for i := 1; i <= k && i < n; i++ {
		w[i] = d
	}
	return w
}

// pacedBody is a streamed answer as fasthttp reads it (SetBodyStream): a
// Read returns the frames due now, waiting first when the next one is
// not; fasthttp sends and flushes what each Read returns as one chunk.
type pacedBody struct {
	frames [][]byte
	waits  []time.Duration
	next   int
	rest   []byte
}

func (b *pacedBody) Read(p []byte) (int, error) {
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	for len(b.rest) == 0 && b.next < len(b.frames) {
		if w := b.waits[b.next]; w > 0 {
			if n > 0 {
				break // send what is due before waiting
			}
			time.Sleep(w)
		}
		f := b.frames[b.next]
		b.next++
		m := copy(p[n:], f)
		n += m
		b.rest = f[m:]
	}
	if n == 0 && b.next == len(b.frames) {
		return 0, io.EOF
	}
	return n, nil
}
