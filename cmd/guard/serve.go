package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

func init() {
	register("serve", "run the proxy (default: embedded demo corpus + built-in simulated upstream)", runServe)
}

// serveFlags are the flags that override the config file.
type serveFlags struct {
	config, addr, upstream, index string
	cpuprofile                    string
	file                          *guardFile // the file as last loaded, before the flags
}

// load reads the config file and applies the flags over it. On a reload a
// flag keeps winning until the file itself changes that key: an operator
// who edits pipeline.index (or upstream.base_url, server.addr) in the file
// and sends SIGHUP gets the file's value, and the flag is dropped from then
// on.
func (f *serveFlags) load() (guardFile, error) {
	cfg, err := loadFile(f.config)
	if err != nil {
		return cfg, err
	}
	file := cfg
	prev := f.file
	apply := func(flag *string, dst *string, prevFile string) {
		if *flag == "" {
			return
		}
		if prev != nil && *dst != prevFile {
			*flag = "" // the file changed this key since the last load: it wins
			return
		}
		*dst = *flag
	}
	var pAddr, pUp, pIdx string
	if prev != nil {
		pAddr, pUp, pIdx = prev.Server.Addr, prev.Upstream.BaseURL, prev.Pipeline.Index
	}
	apply(&f.addr, &cfg.Server.Addr, pAddr)
	apply(&f.upstream, &cfg.Upstream.BaseURL, pUp)
	apply(&f.index, &cfg.Pipeline.Index, pIdx)
	if err := cfg.validate(); err != nil {
		return cfg, err
	}
	f.file = &file
	return cfg, nil
}

// upstreamOf returns cfg with its upstream set: the configured one, or the
// simulated upstream mock started with the server when upstream.base_url is
// empty (nil: none was started, so an empty base URL is an error).
func upstreamOf(cfg proxy.Config, mock *mockllm.Server) (proxy.Config, error) {
	if cfg.Upstream.BaseURL != "" {
		return cfg, nil
	}
	if mock == nil {
		return cfg, errors.New("upstream.base_url: empty, and the simulated upstream was not started with the server (restart to switch)")
	}
	cfg.Upstream.BaseURL = mock.BaseURL()
	return cfg, nil
}

// newLogger builds the JSON logger on stderr. With flush > 0 lines are
// buffered (up to 256 KiB) and written at least every flush: one write
// per buffer instead of one per line (log.flush_interval, README). stop
// flushes the logger and ends the buffer's flush goroutine.
func newLogger(level string, flush time.Duration) (log *zap.Logger, stop func(), err error) {
	zc := zap.NewProductionConfig()
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, err
	}
	zc.Level = zap.NewAtomicLevelAt(lvl)
	zc.Sampling = nil
	if logSink != nil {
		enc := zapcore.NewJSONEncoder(zc.EncoderConfig)
		log = zap.New(zapcore.NewCore(enc, zapcore.AddSync(logSink), zc.Level), zap.AddStacktrace(zapcore.ErrorLevel))
		return log, func() {}, nil
	}
	if flush <= 0 {
		log, err = zc.Build()
		if err != nil {
			return nil, nil, err
		}
		return log, func() { log.Sync() }, nil //nolint:errcheck // stderr
	}
	ws := &zapcore.BufferedWriteSyncer{WS: zapcore.Lock(os.Stderr), Size: 256 << 10, FlushInterval: flush}
	enc := zapcore.NewJSONEncoder(zc.EncoderConfig)
	log, err = zc.Build(zap.WrapCore(func(zapcore.Core) zapcore.Core { return zapcore.NewCore(enc, ws, zc.Level) }))
	if err != nil {
		return nil, nil, err
	}
	return log, func() { ws.Stop() }, nil //nolint:errcheck // stderr; Stop flushes
}

// wire builds the proxy and the operator plane beside it: the proxy hands
// the plane each finished turn and the requests for its routes, and closes
// it at shutdown.
func wire(cfg proxy.Config, ocfg operator.Config, log *zap.Logger) (*proxy.Server, *operator.Plane, error) {
	srv, err := proxy.New(cfg, log, proxy.NewPipeline(log))
	if err != nil {
		return nil, nil, err
	}
	op, err := operator.New(ocfg, srv, log)
	if err != nil {
		srv.Shutdown(context.Background()) //nolint:errcheck // the start error is the one to report
		return nil, nil, err
	}
	srv.Attach(op)
	return srv, op, nil
}

// reloadBoth reloads the proxy and the operator plane as one: the plane's
// restart-only settings are checked first (a change is refused and
// counted), its new settings are in force before the proxy's reload runs
// the plane's reload hook (the gap re-ask reads gaps.reask_limit), and
// they are put back if the proxy refuses its part.
func reloadBoth(srv *proxy.Server, op *operator.Plane, next proxy.Config, onext operator.Config) error {
	if err := op.CheckReload(onext); err != nil {
		return srv.ReloadRefused(err)
	}
	prev := op.Config()
	op.Reload(onext)
	if err := srv.Reload(next); err != nil {
		op.Reload(prev)
		return err
	}
	return nil
}

// Test hooks, nil in production: onListen is called with the bound
// address before the server answers; onReload after each SIGHUP with the
// reload's outcome (nil when the new configuration is running).
var (
	onListen func(net.Addr)
	onReload func(error)
	// logSink, when set, receives serve's JSON log lines instead of
	// stderr (unbuffered, with the production logger's stack traces on
	// errors, so a test sees what an operator would).
	logSink io.Writer
)

func runServe(args []string) error {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	synopsis(fs, "guard serve [--config F] [--addr A] [--upstream URL] [--index DIR] [--cpuprofile F]")
	fs.StringVar(&f.config, "config", "", "config file (default: built-in defaults, the same as configs/guard.yaml)")
	fs.StringVar(&f.addr, "addr", "", "listen address, overrides server.addr")
	fs.StringVar(&f.upstream, "upstream", "", "OpenAI-compatible base URL, e.g. http://127.0.0.1:9090/v1; overrides upstream.base_url")
	fs.StringVar(&f.index, "index", "", "index snapshot dir, overrides pipeline.index")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile from start to shutdown to this file (go tool pprof)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q (see guard serve -h)", fs.Arg(0))
	}
	file, err := f.load()
	if err != nil {
		return err
	}
	if file.Pipeline.Index != "" {
		if err := checkSnapshotDir(file.Pipeline.Index); err != nil {
			return err
		}
	}
	cfg := file.Config
	log, stopLog, err := newLogger(cfg.Log.Level, cfg.Log.FlushInterval)
	if err != nil {
		return err
	}
	defer stopLog()
	stopProfile, err := startCPUProfile(f.cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	// Signals are caught before the server answers anything.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var mock *mockllm.Server
	if cfg.Upstream.BaseURL == "" {
		// No upstream configured: serve against the built-in simulated
		// one (mock section), on a loopback port, for this process's life.
		mockAddr := file.Mock.Addr
		if mockAddr == "" {
			mockAddr = "127.0.0.1:0"
		}
		if mock, err = mockllm.Start(file.Mock, mockAddr); err != nil {
			return fmt.Errorf("start simulated upstream: %w", err)
		}
		defer mock.Close()
		log.Info("no upstream configured: serving against the built-in simulated upstream", zap.String("base_url", mock.BaseURL()))
	}
	if cfg, err = upstreamOf(cfg, mock); err != nil {
		return err
	}
	srv, op, err := wire(cfg, file.Operator, log)
	if err != nil {
		return err
	}
	warnKeyPartitions(log, cfg)
	if w := upstreamPathWarning(cfg.Upstream.BaseURL); w != "" {
		log.Warn(w, zap.String("base_url", cfg.Upstream.BaseURL))
	}
	if w := upstreamKeyWarning(cfg.Upstream.BaseURL, cfg.Upstream.APIKeyEnv); w != "" {
		log.Warn(w, zap.String("base_url", cfg.Upstream.BaseURL), zap.String("api_key_env", cfg.Upstream.APIKeyEnv))
	}
	ln, err := net.Listen("tcp", cfg.Server.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Server.Addr, err)
	}
	fmt.Fprintf(os.Stderr, "answer-guard listening on http://%s/v1\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if onListen != nil {
		onListen(ln.Addr())
	}

	for {
		select {
		case err := <-errc:
			return err
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				// Reload: the file, with the flags over the keys it did not change.
				file, err := f.load()
				var next proxy.Config
				if err == nil && file.Pipeline.Index != "" {
					err = checkSnapshotDir(file.Pipeline.Index)
				}
				if err == nil {
					next, err = upstreamOf(file.Config, mock)
				}
				if err != nil {
					err = srv.ReloadFailed(err)
				} else {
					err = reloadBoth(srv, op, next, file.Operator)
				}
				if err != nil {
					// Every problem in one field, one string each; no stack
					// trace (this is the operator's file, not a bug).
					log.WithOptions(zap.AddStacktrace(zapcore.FatalLevel)).Error("reload rejected; keeping the running configuration",
						zap.Strings("problems", problemLines(err)))
				}
				if err == nil {
					warnKeyPartitions(log, next)
				}
				if onReload != nil {
					onReload(err)
				}
				continue
			}
			log.Info("shutting down", zap.String("signal", sig.String()))
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownGrace+time.Second)
			err := srv.Shutdown(ctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("shutdown: streams still open after %s", cfg.Server.ShutdownGrace)
			}
			return err
		}
	}
}

// upstreamPathWarning returns a warning for an upstream base URL without a
// path (http://127.0.0.1:11434): the proxy asks base_url + /chat/completions,
// and OpenAI, Ollama, vLLM and llama.cpp's server answer under /v1, so each
// chat got a 404 upstream_rejected with the upstream's own words and nothing
// at start said why. "" when the URL has a path (or does not parse: the
// config's validation says so).
func upstreamPathWarning(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || strings.Trim(u.Path, "/") != "" {
		return ""
	}
	return "upstream.base_url has no path: requests go to base_url + /chat/completions, and most OpenAI-compatible servers (OpenAI, Ollama, vLLM, llama.cpp) answer under /v1: use " + strings.TrimRight(base, "/") + "/v1 unless yours serves at the root"
}

// upstreamKeyWarning returns a warning when the upstream is not on this
// host and the variable upstream.api_key_env names is unset or empty: its
// requests go without a key, and a hosted API answers each chat 401. A
// loopback upstream (Ollama, vLLM, the simulated one) needs none.
func upstreamKeyWarning(base, keyEnv string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || keyEnv == "" || os.Getenv(keyEnv) != "" {
		return ""
	}
	host := u.Hostname()
	if host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return "upstream.api_key_env: $" + keyEnv + " is empty: requests to the upstream go without an API key (export " + keyEnv + "=..., or name another variable in upstream.api_key_env)"
}
