// Command fastproxy is the floor of bench/anchor: a reverse proxy built from
// the same HTTP layer as the guard (a fasthttp server and a fasthttp client
// with keep-alive to the upstream) that does nothing else. It checks no
// request, parses no answer, writes no report, keeps no metrics: a POST is
// forwarded as it came, a JSON answer goes back whole and an event stream
// goes back read by read, each read flushed at once (what nginx does with
// proxy_buffering off). What the guard costs above this column is its own
// work; what this column costs above nginx is the HTTP layer and the Go
// runtime.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"log"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18505", "listen address (loopback)")
	upstream := flag.String("upstream", "127.0.0.1:18501", "upstream host:port (loopback)")
	maxConns := flag.Int("max-conns", 16384, "most upstream connections open at once")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") || !strings.HasPrefix(*upstream, "127.0.0.1:") {
		log.Fatal("-addr and -upstream: loopback only")
	}
	// Idle connections are dropped before the anchor upstream's own 3 s
	// idle timeout closes them: a POST is not retried on a stale one.
	client := &fasthttp.HostClient{Addr: *upstream, MaxConns: *maxConns, StreamResponseBody: true, MaxIdleConnDuration: 2 * time.Second,
		ReadBufferSize: 16 << 10, NoDefaultUserAgentHeader: true}
	eventStream := []byte("text/event-stream")
	handler := func(ctx *fasthttp.RequestCtx) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		ctx.Request.CopyTo(req)
		req.SetHost(*upstream)
		if err := client.Do(req, resp); err != nil {
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
			ctx.Error(`{"error":{"message":"upstream failed"}}`, fasthttp.StatusBadGateway)
			return
		}
		fasthttp.ReleaseRequest(req)
		ctx.SetStatusCode(resp.StatusCode())
		ctx.Response.Header.SetContentTypeBytes(resp.Header.ContentType())
		if !bytes.HasPrefix(resp.Header.ContentType(), eventStream) {
			ctx.SetBody(resp.Body())
			fasthttp.ReleaseResponse(resp)
			return
		}
		ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
			defer fasthttp.ReleaseResponse(resp)
			body := resp.BodyStream()
			buf := make([]byte, 16<<10)
			for {
				n, err := body.Read(buf)
				if n > 0 {
					if _, werr := w.Write(buf[:n]); werr != nil || w.Flush() != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		})
	}
	srv := &fasthttp.Server{Handler: handler, Name: "fastproxy", NoDefaultServerHeader: true,
		ReadBufferSize: 16 << 10, WriteBufferSize: 8 << 10}
	log.Fatal(srv.ListenAndServe(*addr))
}
