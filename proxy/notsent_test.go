package proxy

import (
	"context"
	"fmt"
	"net"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// stallPipe is a pass-through pipeline whose planning lasts until the
// request ends (its context): a long plan the client does not wait for.
// begun gets one value per turn begun; fail makes Begin return the
// context's error instead of a turn.
type stallPipe struct {
	passthrough
	begun chan struct{}
	fail  bool
}

func (p *stallPipe) Begin(ctx context.Context, _ TurnRequest) (Turn, error) {
	p.begun <- struct{}{}
	<-ctx.Done()
	if p.fail {
		return nil, context.Cause(ctx)
	}
	return passTurn{}, nil
}

// countingUpstream listens like an upstream and accepts connections; n
// reports how many were accepted before one from marker's address (the
// test's own dial, made once the request is over: a connection the proxy
// made before it is ahead of it in the accept queue).
func countingUpstream(t *testing.T) (base string, n func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String() + "/v1", func() int {
		marker, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer marker.Close()
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if c.RemoteAddr().String() == marker.LocalAddr().String() {
				return n
			}
		}
	}
}

// A client that leaves while its turn is planned ends the request (499):
// planning is told (its context ends), and no upstream connection is taken
// or dialed for the request, streamed or not (on the event loop too),
// whether planning then returned a turn or an error.
func TestClientGoneBeforeSendDialsNothing(t *testing.T) {
	for _, tc := range []struct {
		name               string
		stream, fail, loop bool
	}{
		{"stream", true, false, false},
		{"stream/plan failed", true, true, false},
		{"stream/event loop", true, false, true},
		{"whole", false, false, false},
		{"whole/plan failed", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, accepted := countingUpstream(t)
			cfg := DefaultConfig()
			cfg.Upstream.BaseURL = base
			cfg.Server.EventLoop = "off"
			if tc.loop {
				cfg.Server.EventLoop = "on"
			}
			cfg.Server.DisconnectProbe = 5 * time.Millisecond
			pipe := &stallPipe{begun: make(chan struct{}, 1), fail: tc.fail}
			srv, err := New(cfg, nil, func(Config) (Pipeline, error) { return pipe, nil })
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln) //nolint:errcheck // ends at Shutdown
			t.Cleanup(func() { srv.Shutdown(context.Background()) })

			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"model":"mock-1","stream":%t,"messages":[{"role":"user","content":"hi"}]}`, tc.stream)
			fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			<-pipe.begun
			c.Close()
			gone := srv.m.requests.WithLabelValues("chat", "499")
			for bound := time.Now().Add(30 * time.Second); testutil.ToFloat64(gone) != 1; goruntime.Gosched() {
				if time.Now().After(bound) { // a bound on a hang, not a timing assertion
					t.Fatal("the request was not counted as the client's (499)")
				}
			}
			if n := accepted(); n != 0 {
				t.Errorf("the upstream accepted %d connections for a request whose client had left, want 0", n)
			}
		})
	}
}
