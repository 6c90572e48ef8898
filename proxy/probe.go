package proxy

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/netmsg"
)

// The upstream probe: /readyz reflects whether the model server answers.
// While Serve runs, one goroutine asks the configured upstream a cheap
// question every upstream.probe.interval (the first one interval after
// Serve starts) (GET {base_url}/{path}, or a TCP
// connect when path is empty) through the same client as chat requests,
// and keeps the last answer. /readyz answers 503 with the reason while the
// upstream is down: every chat answer needs it, so a load balancer should
// send chats elsewhere.

// ProbeConfig is upstream.probe.
type ProbeConfig struct {
	// Interval between two probes; 0 = no probe (/readyz does not look at
	// the upstream). Default 10s.
	Interval time.Duration `yaml:"interval"`
	// Timeout of one probe; default 2s, at most the interval.
	Timeout time.Duration `yaml:"timeout"`
	// Path asked with GET under base_url (any answer below 500 but 401/403
	// counts as up); "" = only open a TCP connection. Default "models".
	Path string `yaml:"path"`
}

func defaultProbe() ProbeConfig {
	return ProbeConfig{Interval: 10 * time.Second, Timeout: 2 * time.Second, Path: "models"}
}

func (p ProbeConfig) validate() error {
	var errs []error
	if p.Interval < 0 {
		errs = append(errs, fmt.Errorf("probe.interval: must be >= 0 (0 = off), got %s", p.Interval))
	}
	if p.Interval > 0 && (p.Timeout <= 0 || p.Timeout > p.Interval) {
		errs = append(errs, fmt.Errorf("probe.timeout: must be > 0 and at most probe.interval (%s), got %s", p.Interval, p.Timeout))
	}
	if strings.ContainsAny(p.Path, "?# ") || strings.HasPrefix(p.Path, "/") {
		errs = append(errs, fmt.Errorf("probe.path: a path under base_url without a leading slash, query or spaces, got %q", p.Path))
	}
	return errors.Join(errs...)
}

// probeResult is the last probe's outcome; the zero value (no probe yet,
// or probing off) counts as up.
type probeResult struct {
	down   bool
	reason string // what a client of /readyz may read: no address, no key
}

// prober runs the probe loop of one Serve.
type prober struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startProbe starts the probe loop (once per server; Shutdown ends it).
func (s *Server) startProbe() {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.probe != nil || s.shut {
		return
	}
	p := &prober{stop: make(chan struct{}), done: make(chan struct{})}
	s.probe = p
	go s.probeLoop(p)
}

func (s *Server) stopProbe() {
	s.lnMu.Lock()
	p := s.probe
	s.lnMu.Unlock()
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

func (s *Server) probeLoop(p *prober) {
	defer close(p.done)
	// The first probe comes one interval after Serve starts: until then
	// /readyz says ready, as it did before the upstream was probed.
	t := time.NewTimer(s.probeWait())
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		if s.rt.Load().cfg.Upstream.Probe.Interval > 0 {
			s.probeOnce()
		} else {
			s.upState.Store(nil) // probing switched off by a reload
		}
		t.Reset(s.probeWait())
	}
}

// probeWait is the running configuration's probe interval; with probing
// off, how soon to look at the configuration again.
func (s *Server) probeWait() time.Duration {
	if d := s.rt.Load().cfg.Upstream.Probe.Interval; d > 0 {
		return d
	}
	return 10 * time.Second
}

// probeOnce asks the running configuration's upstream once and records
// the answer, logging each change between up and down.
func (s *Server) probeOnce() {
	rt := s.rt.Load()
	cfg := rt.cfg.Upstream.Probe
	res, detail := probeUpstream(rt.up, cfg)
	prev := s.upState.Swap(&res)
	if (prev == nil || !prev.down) && res.down {
		s.log.Warn("upstream probe failed: /readyz answers 503", zap.String("reason", res.reason), zap.String("error", detail))
	} else if prev != nil && prev.down && !res.down {
		s.log.Info("upstream probe answered again: /readyz ready")
	}
}

// probeUpstream asks up once; detail is the full error, for the log only.
func probeUpstream(up *upstream, cfg ProbeConfig) (res probeResult, detail string) {
	if cfg.Path == "" {
		var uri fasthttp.URI
		if err := uri.Parse(nil, []byte(up.base)); err != nil {
			return probeResult{down: true, reason: "upstream.base_url cannot be parsed"}, err.Error()
		}
		host := string(uri.Host())
		if _, _, err := net.SplitHostPort(host); err != nil {
			host += map[bool]string{true: ":443", false: ":80"}[strings.HasPrefix(up.base, "https:")]
		}
		c, err := fasthttp.DialTimeout(host, cfg.Timeout)
		if err != nil {
			return probeResult{down: true, reason: "the upstream does not accept connections (" + netmsg.Plain(err, cfg.Timeout) + ")"}, err.Error()
		}
		c.Close()
		return probeResult{}, ""
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(up.base + "/" + cfg.Path)
	req.Header.SetMethod(fasthttp.MethodGet)
	if up.key != "" {
		req.Header.Set("Authorization", "Bearer "+up.key)
	}
	resp.SkipBody = true
	what := "GET /" + cfg.Path
	if err := up.fast.DoTimeout(req, resp, cfg.Timeout); err != nil {
		return probeResult{down: true, reason: fmt.Sprintf("the upstream did not answer %s (%s)", what, netmsg.Plain(err, cfg.Timeout))}, err.Error()
	}
	switch code := resp.StatusCode(); {
	case code == 401 || code == 403:
		return probeResult{down: true, reason: fmt.Sprintf("the upstream refuses the proxy's API key (%s: status %d; see upstream.api_key_env)", what, code)}, ""
	case code >= 500:
		return probeResult{down: true, reason: fmt.Sprintf("the upstream fails (%s: status %d)", what, code)}, ""
	}
	return probeResult{}, ""
}
