package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestReadyzReflectsUpstream: /readyz follows the upstream probe, timed in
// a synctest bubble on an in-memory network. Ready before the first probe
// (one interval after Serve starts) and while the upstream answers
// GET /models; 503 with the reason, naming no address, once a probe sees
// it fail (status 500, a refused key, a hang past probe.timeout, a
// refused connection); ready again when it answers.
func TestReadyzReflectsUpstream(t *testing.T) {
	startDateUpdater()
	synctest.Test(t, func(t *testing.T) {
		n := &pipeNet{}
		var status atomic.Int32 // what the upstream answers; 0 = hang
		status.Store(200)
		var probes atomic.Int32
		hang := make(chan struct{})
		upLn := n.listen("upstream.pipe:80")
		up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" || r.Method != "GET" {
				t.Errorf("probe asked %s %s, want GET /v1/models", r.Method, r.URL.Path)
			}
			probes.Add(1)
			code := int(status.Load())
			if code == 0 {
				select {
				case <-hang:
				case <-r.Context().Done():
				}
				return
			}
			w.WriteHeader(code)
		})}
		upDone := make(chan error, 1)
		go func() { upDone <- up.Serve(upLn) }()

		cfg := DefaultConfig()
		cfg.Pipeline.Enabled = false
		cfg.Upstream.BaseURL = "http://upstream.pipe/v1"
		cfg.Upstream.Probe = ProbeConfig{Interval: 5 * time.Second, Timeout: time.Second, Path: "models"}
		srv, err := New(cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv.fast.Dial = srv.fast.track(func(addr string) (net.Conn, error) { return n.dial(context.Background(), addr) })
		ln := n.listen("guard.pipe:80")
		srvDone := make(chan error, 1)
		go func() { srvDone <- srv.Serve(ln) }()
		tr := &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return n.dial(ctx, addr) }}
		client := &http.Client{Transport: tr}
		readyz := func() (int, map[string]any) {
			t.Helper()
			resp, err := client.Get("http://guard.pipe/readyz")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("readyz body %s: %v", b, err)
			}
			return resp.StatusCode, m
		}
		// after waits out one probe interval and lets the probe finish.
		after := func() {
			time.Sleep(5 * time.Second)
			synctest.Wait()
		}
		steps := []struct {
			name   string
			status int32
			wait   time.Duration // extra bubble time for a hang to time out
			code   int
			reason string
		}{
			{"answers", 200, 0, 200, ""},
			{"fails", 500, 0, 503, "the upstream fails (GET /models: status 500)"},
			{"answers again", 200, 0, 200, ""},
			{"refuses the key", 401, 0, 503, "refuses the proxy's API key"},
			{"hangs", 0, time.Second, 503, "no answer within 1s"},
			{"answers once more", 200, 0, 200, ""},
		}
		if code, m := readyz(); code != 200 || m["status"] != "ready" || probes.Load() != 0 {
			t.Fatalf("before the first probe: %d %v after %d probes, want 200 ready and none", code, m, probes.Load())
		}
		for _, st := range steps {
			status.Store(st.status)
			after()
			if st.wait > 0 {
				time.Sleep(st.wait)
				synctest.Wait()
			}
			code, m := readyz()
			msg, _ := m["message"].(string)
			if code != st.code || !strings.Contains(msg, st.reason) {
				t.Errorf("%s: readyz %d %v, want %d with %q", st.name, code, m, st.code, st.reason)
			}
			if strings.Contains(msg, "upstream.pipe") {
				t.Errorf("%s: readyz message %q names the upstream's address", st.name, msg)
			}
		}
		// The upstream goes away: connection refused.
		upLn.Close()
		after()
		if code, m := readyz(); code != 503 || !strings.Contains(m["message"].(string), "connection refused") {
			t.Errorf("upstream gone: readyz %d %v, want 503 connection refused", code, m)
		}

		tr.CloseIdleConnections()
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-srvDone; err != nil {
			t.Errorf("serve: %v", err)
		}
		close(hang)
		up.Close()
		<-upDone
		time.Sleep(10 * time.Second) // fasthttp's worker-pool janitors (see startPipedOn)
	})
}

func TestProbeConfigValidate(t *testing.T) {
	tests := []struct {
		p    ProbeConfig
		want string
	}{
		{defaultProbe(), ""},
		{ProbeConfig{}, ""}, // off
		{ProbeConfig{Interval: -1}, "probe.interval"},
		{ProbeConfig{Interval: time.Second, Timeout: 2 * time.Second}, "probe.timeout"},
		{ProbeConfig{Interval: time.Second, Timeout: time.Second, Path: "/models"}, "probe.path"},
	}
	for _, tt := range tests {
		err := tt.p.validate()
		if got := ""; err != nil {
			got = err.Error()
			if tt.want == "" || !strings.Contains(got, tt.want) {
				t.Errorf("%+v: %v, want %q", tt.p, err, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%+v: accepted, want %q", tt.p, tt.want)
		}
	}
}
