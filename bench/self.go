package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// InProcess is a simulated upstream and a proxy in front of it, both on
// loopback ports of this process, the proxy with its operator plane
// attached as guard serve attaches it.
type InProcess struct {
	Mock     *mockllm.Server
	Proxy    *proxy.Server
	Operator *operator.Plane
	// ProxyURL and DirectURL are OpenAI base URLs (…/v1).
	ProxyURL, DirectURL string
}

// StartInProcess starts mockllm with mcfg and a proxy configured by mutate
// (applied to proxy.DefaultConfig with the upstream set to the mock) using
// the guard pipeline factory. log may be nil (no logging: per-request log
// lines would be measured as proxy cost).
func StartInProcess(mcfg mockllm.Config, mutate func(*proxy.Config), log *zap.Logger) (*InProcess, error) {
	return StartInProcessWith(mcfg, mutate, nil, log)
}

// StartInProcessWith is StartInProcess with the operator plane's
// configuration (operator.DefaultConfig) changed by opMutate.
func StartInProcessWith(mcfg mockllm.Config, mutate func(*proxy.Config), opMutate func(*operator.Config), log *zap.Logger) (*InProcess, error) {
	if log == nil {
		log = zap.NewNop()
	}
	// The servers' goroutines inherit a stage label, so a stage split
	// (LoadConfig.Stages) tells upstream from proxy.
	var mock *mockllm.Server
	var err error
	labelled("upstream", func() { mock, err = mockllm.Start(mcfg, "127.0.0.1:0") })
	if err != nil {
		return nil, err
	}
	cfg := proxy.DefaultConfig()
	cfg.Upstream.BaseURL = mock.BaseURL()
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := proxy.New(cfg, log, proxy.NewPipeline(log))
	if err != nil {
		mock.Close()
		return nil, fmt.Errorf("start proxy: %w", err)
	}
	ocfg := operator.DefaultConfig()
	if opMutate != nil {
		opMutate(&ocfg)
	}
	op, err := operator.New(ocfg, srv, log)
	if err != nil {
		srv.Shutdown(context.Background()) //nolint:errcheck // the start error is the one to report
		mock.Close()
		return nil, fmt.Errorf("start operator plane: %w", err)
	}
	srv.Attach(op)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Shutdown(context.Background()) //nolint:errcheck
		mock.Close()
		return nil, err
	}
	labelled("relay", func() { go srv.Serve(ln) }) //nolint:errcheck // ends on Shutdown
	return &InProcess{Mock: mock, Proxy: srv, Operator: op, ProxyURL: "http://" + ln.Addr().String() + "/v1", DirectURL: mock.BaseURL()}, nil
}

// Close shuts the proxy down (bounded) and then the simulated upstream.
func (p *InProcess) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	if err := p.Proxy.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("proxy shutdown: %w", err))
	}
	if err := p.Mock.Close(); err != nil {
		errs = append(errs, fmt.Errorf("simulated upstream close (connections the proxy left open to it): %w", err))
	}
	return errors.Join(errs...)
}

// SelfOptions configure a self-contained load run.
type SelfOptions struct {
	Load LoadConfig // Target is ignored
	// Pipeline true runs the proxy with the guard pipeline
	// (proxy.NewPipeline), false as a pure pass-through.
	Pipeline bool
	// Pace is the simulated upstream's delay between streamed events;
	// 0 = as fast as possible.
	Pace time.Duration
	// Index is the snapshot dir the pipeline retrieves from; "" = the
	// configuration's pipeline.index (the embedded demo corpus when empty).
	Index string
	// Proxy, when set, is the proxy configuration to start from (guard
	// bench load --self --config F); its upstream is replaced by the
	// in-process simulated upstream. nil = proxy.DefaultConfig().
	Proxy *proxy.Config
	// QuestionCache keeps the proxy's question cache
	// (retrieve.question_cache_mb) on; off by default, so that every turn
	// encodes its question as distinct questions would (the prompts
	// repeat).
	QuestionCache bool
}

// SelfLoad starts a simulated upstream and a proxy in this process, runs
// the load directly against the upstream and then through the proxy, and
// reports the proxy's overhead.
func SelfLoad(ctx context.Context, opt SelfOptions, progress io.Writer) (LoadReport, error) {
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = opt.Pace
	// A load run never looks an answer up, and a full record log (100,000
	// records, ~24 MB) in the proxy's own heap would make its collections
	// longer than the proxy alone makes them, later runs more than earlier ones.
	mcfg.LogSize = 0
	ip, err := StartInProcess(mcfg, func(c *proxy.Config) {
		if opt.Proxy != nil {
			up := c.Upstream.BaseURL
			*c = *opt.Proxy
			c.Upstream.BaseURL = up
		}
		c.Pipeline.Enabled = opt.Pipeline
		if !opt.QuestionCache {
			c.Stages.Retrieve.QuestionCacheMB = 0
		}
		if opt.Index != "" {
			c.Pipeline.Index = opt.Index
		}
		if c.Upstream.MaxConns != 0 { // 0: sized from the file descriptor limit
			c.Upstream.MaxConns = max(c.Upstream.MaxConns, opt.Load.Concurrency+16)
		}
	}, nil)
	if err != nil {
		return LoadReport{}, err
	}
	defer ip.Close()
	rep := LoadReport{Started: time.Now(), Machine: ThisMachine(), Config: opt.Load, Pipeline: "passthrough"}
	if opt.Pipeline {
		rep.Pipeline = "full (proxy.NewPipeline)"
		if opt.Index != "" {
			rep.Pipeline += " over " + opt.Index
		}
		if !opt.QuestionCache {
			rep.Pipeline += ", question cache off (every turn encodes its question)"
		}
	}
	dcfg := opt.Load
	dcfg.Target = ip.DirectURL
	direct, err := Run(ctx, "direct", dcfg, progress)
	if err != nil {
		return rep, fmt.Errorf("direct run: %w", err)
	}
	pcfg := opt.Load
	pcfg.Target = ip.ProxyURL
	pcfg.Stages = opt.Pipeline
	proxied, err := Run(ctx, "proxy", pcfg, progress)
	if err != nil {
		return rep, fmt.Errorf("proxied run: %w", err)
	}
	rep.Config.Target = ip.ProxyURL
	rep.Runs = []RunResult{proxied, direct}
	rep.Overhead = Compare(proxied, direct)
	return rep, nil
}
