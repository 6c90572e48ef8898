package proxy_test

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/cputime"
	"github.com/answer-guard/guard/proxy"
)

// benchTarget starts a proxy (pass-through or full pipeline) over an
// in-process simulated upstream with no pacing.
func benchTarget(b *testing.B, pipeline, lexical bool) (proxied, direct string) {
	b.Helper()
	tc := testConfig()
	tc.Log.Level = "error"
	tc.Pipeline.Enabled = pipeline
	if lexical {
		// Lexical-only mode (issue 28): no sentence encoder.
		tc.Stages.Retrieve.Semantic, tc.Stages.Index.Embedder = false, "hashed"
	}
	var f proxy.PipelineFactory
	if pipeline {
		f = proxy.NewPipeline(nil)
	}
	ts := startProxy(b, tc, f)
	b.Cleanup(func() { shutdown(b, ts.srv) })
	return ts.base + "/chat/completions", ts.mock.BaseURL() + "/chat/completions"
}

func post(b *testing.B, c *fasthttp.Client, url string, body []byte) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(url)
	req.Header.SetMethod("POST")
	req.Header.SetContentType("application/json")
	req.SetBodyRaw(body)
	if err := c.Do(req, resp); err != nil || resp.StatusCode() != 200 {
		b.Fatalf("%s: %v %d %s", url, err, resp.StatusCode(), resp.Body())
	}
}

// BenchmarkProxyOverhead compares the same non-stream and stream requests
// sent to the simulated upstream directly and through the proxy; the
// difference of the two ns/op is the proxy's added latency per request.
func BenchmarkProxyOverhead(b *testing.B) {
	for _, mode := range []struct {
		name              string
		pipeline, lexical bool
		body              string
	}{
		{"passthrough/nonstream", false, false, `{"model":"mock-1","messages":[{"role":"system","content":"` + "Notes:\\n[^1] (kind: lecture; address: HB 1.2) The return window is 30 days from delivery." + `"},{"role":"user","content":"What is the return window?"}]}`},
		{"passthrough/stream", false, false, `{"model":"mock-1","stream":true,"messages":[{"role":"system","content":"` + "Notes:\\n[^1] (kind: lecture; address: HB 1.2) The return window is 30 days from delivery." + `"},{"role":"user","content":"What is the return window?"}]}`},
		{"guard/nonstream", true, false, `{"model":"mock-1","messages":[{"role":"user","content":"What does error LF-4002 mean?"}]}`},
		// A grounded streamed turn, lexical-only, as bench load's demo prompts.
		{"guard/stream-lexical", true, true, `{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"What is the return window?"}]}`},
	} {
		proxied, direct := benchTarget(b, mode.pipeline, mode.lexical)
		c := &fasthttp.Client{MaxConnsPerHost: 64}
		body := []byte(mode.body)
		// cpu-us/op is the whole process's CPU per request (client,
		// simulated upstream and, when proxied, the proxy): proxied minus
		// direct is the proxy's CPU, steadier than ns/op on a shared machine.
		for _, target := range []struct{ name, url string }{{"direct", direct}, {"proxied", proxied}} {
			b.Run(mode.name+"/"+target.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cputime.Process().Seconds()
				for b.Loop() {
					post(b, c, target.url, body)
				}
				b.ReportMetric((cputime.Process().Seconds()-cpu0)*1e6/float64(b.N), "cpu-us/op")
			})
		}
	}
}
