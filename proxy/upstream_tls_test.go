package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/sse"
)

// An https upstream (as the real ones are): the stream is read through the
// TLS connection fasthttp wraps around the tracked one, and cancelling the
// request's context ends a read that is waiting on it.
func TestStreamOverTLS(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"n\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
		select { // then stall until the test ends
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer up.Close()
	defer close(release)
	fast := newFastClient(UpstreamConfig{MaxConns: 4, MaxResponseBytes: 1 << 20, IdleConnTimeout: time.Second, ConnWaitTimeout: time.Second}, nil)
	fast.TLSConfig = &tls.Config{RootCAs: up.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	u := newUpstream(up.URL+"/v1", "", fast)
	defer u.close()
	ctx, cancel, src, done := openTestStream(t, u)
	defer cancel(nil)
	defer done()
	for i := range 3 {
		ev, ok, err := src.Next(nil)
		if !ok || err != nil || string(ev.Data) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("event %d: %q %v %v", i, ev.Data, ok, err)
		}
	}
	stopped := errors.New("test stops the stream")
	cancelled := make(chan struct{})
	go func() { cancel(stopped); close(cancelled) }()
	_, ok, err := src.Next(nil) // waits on the stalled upstream until the cancel closes the connection
	<-cancelled
	if ok || err == nil {
		t.Fatalf("read after cancel: ok=%v err=%v, want an error", ok, err)
	}
	if context.Cause(ctx) != stopped {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
}

// openTestStream posts a streamed request to u under a stream watch, as
// the proxy does, and returns the request's context, what ends it (the
// watch's stop: it also closes the upstream connection) and the event
// reader; done closes the answer and frees the reader.
func openTestStream(t *testing.T, u *upstream) (ctx context.Context, cancel func(error), src *sse.Reader, done func()) {
	t.Helper()
	ctx, w := newStreamWatch(UpstreamConfig{RequestTimeout: time.Hour, FirstByteTimeout: time.Hour, IdleTimeout: time.Hour}, time.Now())
	resp, err := u.postStream(ctx, w, "/chat/completions", []byte(`{}`), time.Now().Add(5*time.Second), time.Now().Add(time.Minute))
	if err != nil {
		w.stop(err)
		t.Fatal(err)
	}
	src = sse.NewReader(resp, 1<<20)
	return ctx, w.stop, src, func() { resp.Close(); src.Release() }
}
