// Command upstream is the fixed-answer OpenAI-compatible upstream of
// bench/anchor: every chat completion gets the same prebuilt answer, so a
// run measures the proxies in front of it, not the answer's generation.
// A non-stream request gets one chat.completion; a stream request
// ("stream":true in the body) gets -events content chunks, a finish chunk,
// a usage chunk and [DONE], written at once.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/valyala/fasthttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18501", "listen address (loopback)")
	events := flag.Int("events", 50, "content events per streamed answer")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") {
		log.Fatal("-addr: loopback only")
	}
	whole := []byte(`{"id":"chatcmpl-anchor","object":"chat.completion","created":1700000000,"model":"mock-1","choices":[{"index":0,"message":{"role":"assistant","content":"The return window is 30 days from delivery, and refunds go to the original payment method."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":18,"total_tokens":38}}`)
	var sse bytes.Buffer
	head := `{"id":"chatcmpl-anchor","object":"chat.completion.chunk","created":1700000000,"model":"mock-1"`
	fmt.Fprintf(&sse, "data: %s,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head)
	words := strings.Fields("The return window is 30 days from delivery and refunds go to the original payment method within five business days of approval")
	for i := range *events {
		fmt.Fprintf(&sse, "data: %s,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head, words[i%len(words)])
	}
	fmt.Fprintf(&sse, "data: %s,\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n", head)
	fmt.Fprintf(&sse, "data: %s,\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", head, *events, *events+20)
	sse.WriteString("data: [DONE]\n\n")
	stream := sse.Bytes()
	streamKey := []byte(`"stream":true`)
	h := func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/v1/chat/completions":
			if bytes.Contains(ctx.PostBody(), streamKey) {
				ctx.SetContentType("text/event-stream")
				ctx.SetBody(stream)
				return
			}
			ctx.SetContentType("application/json")
			ctx.SetBody(whole)
		case "/v1/models":
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"object":"list","data":[{"id":"mock-1","object":"model","owned_by":"anchor"}]}`)
		default:
			ctx.SetStatusCode(404)
		}
	}
	log.Fatal((&fasthttp.Server{Handler: h, Name: "anchor-upstream"}).ListenAndServe(*addr))
}
