package proxy

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/mockllm"
)

// An upstream that sends one event, then trickles the next one a byte every
// 30 ms: idle_timeout (100 ms) runs from the wait after the last complete
// event, so the stream ends with upstream_timeout exactly 100 ms in; bytes
// that do not complete an event do not restart it. Complete comment blocks
// (": keep-alive") do restart it, so a stream that sends one every 60 ms
// and then finishes is served whole.
func TestIdleTimeoutResetsOnEventsNotBytes(t *testing.T) {
	startDateUpdater()
	const first = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello\"}}]}\n\n"
	const second = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"stop\"}]}\n\n"
	for _, tc := range []struct {
		name      string
		write     func(w *bufio.Writer) error
		wantIdle  bool
		wantAfter time.Duration
	}{
		{"trickled bytes", func(w *bufio.Writer) error {
			for i := range len(second) {
				time.Sleep(30 * time.Millisecond)
				w.WriteByte(second[i])
				if err := w.Flush(); err != nil {
					return err
				}
			}
			return nil
		}, true, 100 * time.Millisecond},
		{"keep-alive comments", func(w *bufio.Writer) error {
			for range 5 {
				time.Sleep(60 * time.Millisecond)
				w.WriteString(": keep-alive\n\n")
				if err := w.Flush(); err != nil {
					return err
				}
			}
			w.WriteString(second + "data: [DONE]\n\n")
			return w.Flush()
		}, false, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := &pipeNet{}
				up := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
					ctx.SetContentType("text/event-stream")
					ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
						w.WriteString(first)
						if w.Flush() != nil {
							return
						}
						tc.write(w) //nolint:errcheck // a write error is the proxy hanging up
					})
				}}
				upLn := n.listen("trickle.pipe:80")
				upDone := make(chan error, 1)
				go func() { upDone <- up.Serve(upLn) }()
				p := startPipedOn(t, n, nil, func(c *Config, _ *mockllm.Config) {
					c.Upstream.BaseURL = "http://trickle.pipe/v1"
					c.Upstream.IdleTimeout = 100 * time.Millisecond
					c.Server.DisconnectProbe = time.Hour
				})
				t.Cleanup(func() {
					up.ShutdownWithContext(context.Background()) //nolint:errcheck
					<-upDone
				})
				start := time.Now()
				status, got := p.post(t, timeoutBody)
				if d := time.Since(start); d != tc.wantAfter {
					t.Errorf("stream ended after %s, want %s", d, tc.wantAfter)
				}
				idle := strings.Contains(got, "upstream_timeout")
				if status != 200 || idle != tc.wantIdle || !strings.HasSuffix(strings.TrimSpace(got), "data: [DONE]") {
					t.Errorf("got %d %q, want an idle timeout %v and [DONE]", status, got, tc.wantIdle)
				}
			})
		})
	}
}
