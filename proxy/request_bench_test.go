package proxy

import (
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/jsonscan"
)

// requestBodies are the chat bodies BenchmarkRequestWork parses: the
// anchor's one-line question, and a ten-turn conversation with a system
// prompt (~4 KiB), closer to what chat apps send.
func requestBodies() map[string][]byte {
	var conv strings.Builder
	conv.WriteString(`{"model":"mock-1","temperature":0.2,"stream":false,"messages":[{"role":"system","content":"You are a helpful assistant for the Northwind help desk. Answer briefly and cite the notes."}`)
	for i := range 10 {
		conv.WriteString(`,{"role":"user","content":"Turn ` + strings.Repeat("x", i) + `: how long is the return window for opened items, and do I need the receipt? I bought a kettle in March."}`)
		conv.WriteString(`,{"role":"assistant","content":"Opened items can be returned within 30 days of delivery with proof of purchase [^1]. Kettles count as small appliances, so the same window applies."}`)
	}
	conv.WriteString(`,{"role":"user","content":"And what about a DVD I borrowed?"}]}`)
	return map[string][]byte{
		"anchor":       []byte(`{"model":"mock-1","messages":[{"role":"user","content":"What is the return window?"}]}`),
		"conversation": []byte(conv.String()),
	}
}

// BenchmarkRequestWork is the proxy's own work on a pass-through whole
// answer, without the network: validate the request, build the upstream
// body, check the answer and attach the report.
func BenchmarkRequestWork(b *testing.B) {
	answer := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"mock-1","choices":[{"index":0,"message":{"role":"assistant","content":"The return window is 30 days from delivery."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":9,"total_tokens":18}}`)
	for name, body := range requestBodies() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				r, ae := parseChatRequest(body, 64)
				if ae != nil {
					b.Fatal(ae)
				}
				if _, err := r.upstreamBody(r.model, ""); err != nil {
					b.Fatal(err)
				}
				f, ok := jsonscan.ScanChunk(b2s(answer))
				if !ok || !strings.HasPrefix(f.Choices, "[") {
					b.Fatal("answer")
				}
				_ = attachReportTo(answer, passReport, f.Report)
			}
		})
	}
}

// BenchmarkParseChatRequest compares request validation with the reference
// it replaced (refParseChatRequest: one Get per member, a separate depth
// pass).
func BenchmarkParseChatRequest(b *testing.B) {
	for name, body := range requestBodies() {
		for _, impl := range []struct {
			name  string
			parse func([]byte, int) (*chatRequest, *APIError)
		}{{"walk", parseChatRequest}, {"reference", refParseChatRequest}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, ae := impl.parse(body, 64); ae != nil {
						b.Fatal(ae)
					}
				}
			})
		}
	}
}
