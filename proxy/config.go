package proxy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/answer-guard/guard/internal/confcheck"
	"github.com/answer-guard/guard/internal/proctune"
)

// Config is the data plane's configuration: the proxy's own sections plus
// the sections of the pipeline stages (the operator plane's sections,
// state, gaps, turnlog and console, are package operator's).
type Config struct {
	Server   ServerConfig   `yaml:"server"`
	Upstream UpstreamConfig `yaml:"upstream"`
	Models   ModelsConfig   `yaml:"models"`
	Auth     AuthConfig     `yaml:"auth"`
	Pipeline PipelineConfig `yaml:"pipeline"`
	Log      LogConfig      `yaml:"log"`
	Stages   StageConfigs   `yaml:",inline"`
}

// ServerConfig is the HTTP server facing chat apps.
type ServerConfig struct {
	Addr            string        `yaml:"addr"`             // listen address; default 127.0.0.1:8080
	MaxBodyBytes    int           `yaml:"max_body_bytes"`   // request body limit (413 above); default 1 MiB
	MaxHeaderBytes  int           `yaml:"max_header_bytes"` // request header limit (431 above); default 16 KiB
	MaxJSONDepth    int           `yaml:"max_json_depth"`   // nesting limit of request JSON; default 64
	ReadTimeout     time.Duration `yaml:"read_timeout"`     // time to read one request; default 30s
	IdleTimeout     time.Duration `yaml:"idle_timeout"`     // keep-alive idle limit; default 2m
	DisconnectProbe time.Duration `yaml:"disconnect_probe"` // how often an idle stream is probed for a gone client; default 1s
	ShutdownGrace   time.Duration `yaml:"shutdown_grace"`   // how long shutdown waits for in-flight streams; default 30s
	GC              proctune.GC   `yaml:"gc"`               // the Go garbage collector (internal/proctune); default percent 400, no memory limit
	// EventLoop: on relays pass-through streams to a plain-HTTP upstream on an event loop
	// (internal/evrelay; Linux, elsewhere silently the goroutine path), off on the goroutine
	// path, auto (the default) on the loop past evrelay.AutoStreams connections or streams.
	EventLoop string `yaml:"event_loop"`
}

// UpstreamConfig is the OpenAI-compatible model server the proxy forwards to.
type UpstreamConfig struct {
	BaseURL          string        `yaml:"base_url"`           // e.g. http://127.0.0.1:9090/v1; required by New (guard serve starts its simulated upstream when empty)
	APIKeyEnv        string        `yaml:"api_key_env"`        // env var holding the upstream API key; default OPENAI_API_KEY
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"` // until the first upstream event of a stream; default 30s
	IdleTimeout      time.Duration `yaml:"idle_timeout"`       // longest wait for the next complete upstream event block (bytes that do not complete one do not reset it); default 30s
	RequestTimeout   time.Duration `yaml:"request_timeout"`    // whole request, and the whole body of a non-stream answer; default 5m
	MaxEventBytes    int           `yaml:"max_event_bytes"`    // largest upstream SSE event accepted; default 1 MiB
	MaxResponseBytes int           `yaml:"max_response_bytes"` // largest non-stream upstream body; default 16 MiB
	MaxConns         int           `yaml:"max_conns"`          // connections open to the upstream at once; default 0 = derived from the file descriptor limit (evrelay.MaxFromFileLimit)
	ConnWaitTimeout  time.Duration `yaml:"conn_wait_timeout"`  // how long a request waits for a free upstream connection before 503 upstream_busy; default 10s
	IdleConnTimeout  time.Duration `yaml:"idle_conn_timeout"`  // an idle upstream connection is closed after this; below typical upstream keep-alive (nginx 75s, Node 5s, many LBs 60s); default 4s
	Probe            ProbeConfig   `yaml:"probe"`              // the readiness probe of the upstream (probe.go)
}

// ModelsConfig restricts or renames models.
type ModelsConfig struct {
	Allow    []string          `yaml:"allow" confcheck:"unique"` // allowed model names; empty with no aliases = pass any model through
	Aliases  map[string]string `yaml:"aliases"`                  // client model name -> upstream model name
	Fallback string            `yaml:"fallback"`                 // model used on bail-out; empty = the request's model
}

// AuthConfig maps API keys to tenants.
type AuthConfig struct {
	Enabled bool        `yaml:"enabled"` // false only for a loopback listener (the demo)
	Keys    []KeyConfig `yaml:"keys"`
	// AdminKeys open the operator endpoints (/metrics, /v1/guard/*) across
	// tenants when auth is on; they cannot chat. Default none: with auth on
	// and no admin key, the operator endpoints answer 401/403.
	AdminKeys []AdminKeyConfig `yaml:"admin_keys"`
}

// AdminKeyConfig is one operator key, stored as the hex SHA-256 of the key.
type AdminKeyConfig struct {
	Name   string `yaml:"name"`   // label used in logs (never the key)
	SHA256 string `yaml:"sha256"` // hex SHA-256 of the bearer key
}

// KeyConfig is one API key, stored as the hex SHA-256 of the key.
type KeyConfig struct {
	Name   string   `yaml:"name"`                   // label used in logs (never the key)
	SHA256 string   `yaml:"sha256"`                 // hex SHA-256 of the bearer key: printf %s KEY | sha256sum
	Tenant string   `yaml:"tenant"`                 // tenant this key acts as
	KBs    []string `yaml:"kbs" confcheck:"unique"` // knowledge bases the key may read; the first is the default
}

// PipelineConfig switches the guard stages.
type PipelineConfig struct {
	Enabled bool   `yaml:"enabled"` // false = pure pass-through proxy (decision "passthrough"); default true
	Index   string `yaml:"index"`   // index snapshot dir (guard index build); empty = the embedded demo corpus, indexed at start-up
	// MaxQueryChars caps the question text handed to retrieval, in bytes
	// (cut at a UTF-8 boundary); the upstream still gets the whole
	// conversation. Each cut is counted in guard_query_truncated_total.
	// Range [64, 1048576], default 4096.
	MaxQueryChars int `yaml:"max_query_chars"`
}

// LogConfig configures zap.
type LogConfig struct {
	Level string `yaml:"level"` // debug|info|warn|error; default info
	// FlushInterval buffers log lines (up to 256 KiB) and writes them at
	// least this often: one write per buffer instead of one per line.
	// 0 = every line is written at once. Default 1s. (guard serve)
	FlushInterval time.Duration `yaml:"flush_interval"`
}

// DefaultConfig is the built-in configuration (the same values as
// configs/guard.yaml).
func DefaultConfig() Config {
	return Config{
		Server: ServerConfig{Addr: "127.0.0.1:8080", MaxBodyBytes: 1 << 20, MaxHeaderBytes: 16 << 10,
			MaxJSONDepth: 64, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
			DisconnectProbe: time.Second, ShutdownGrace: 30 * time.Second, GC: proctune.GC{Percent: 400}, EventLoop: "auto"},
		Upstream: UpstreamConfig{APIKeyEnv: "OPENAI_API_KEY", FirstByteTimeout: 30 * time.Second,
			IdleTimeout: 30 * time.Second, RequestTimeout: 5 * time.Minute, MaxEventBytes: 1 << 20,
			MaxResponseBytes: 16 << 20, ConnWaitTimeout: 10 * time.Second, IdleConnTimeout: 4 * time.Second, Probe: defaultProbe()},
		Pipeline: PipelineConfig{Enabled: true, MaxQueryChars: 4096},
		Log:      LogConfig{Level: "info", FlushInterval: time.Second},
		Stages:   defaultStages(),
	}
}

// LoadConfig reads path over the defaults and reports every problem of
// the file at once (confcheck): unknown keys, values of the wrong type and
// what Validate finds, each with its line and key path. An empty path
// returns the defaults.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	if path == "" {
		return cfg, cfg.Validate()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	f, probs := confcheck.Decode(path, b, &cfg)
	probs = append(probs, f.Attach(cfg.Validate())...)
	probs.Sort()
	return cfg, probs.Err()
}

// DecodeConfig decodes YAML onto cfg strictly: every key of the file must
// name a field of cfg (a pointer to a struct: Config, or a struct that
// inlines it beside sections of its own, as guard serve's file does).
// It reports every unknown key and every value of the wrong type at once
// (a confcheck.Problems); Validate is the caller's.
func DecodeConfig(b []byte, cfg any) error {
	_, probs := confcheck.Decode("", b, cfg)
	return probs.Err()
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	add := func(section string, err error) {
		if err == nil {
			return
		}
		for _, e := range unjoin(err) {
			errs = append(errs, fmt.Errorf("%s.%w", section, e))
		}
	}
	add("server", c.Server.validate())
	add("upstream", c.Upstream.validate())
	add("auth", c.Auth.validate(c.Server.Addr))
	if q := c.Pipeline.MaxQueryChars; q < 64 || q > 1<<20 {
		errs = append(errs, fmt.Errorf("pipeline.max_query_chars: must be in [64,1048576], got %d", q))
	}
	if c.Log.Level != "" {
		switch c.Log.Level {
		case "debug", "info", "warn", "error":
		default:
			errs = append(errs, fmt.Errorf("log.level: must be debug|info|warn|error, got %q", c.Log.Level))
		}
	}
	if c.Log.FlushInterval < 0 {
		errs = append(errs, fmt.Errorf("log.flush_interval: must be >= 0, got %s", c.Log.FlushInterval))
	}
	for section, err := range c.Stages.validate() {
		add(section, err)
	}
	return errors.Join(errs...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	return []error{err}
}

func (s ServerConfig) validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(s.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr: want host:port, got %q", s.Addr))
	}
	positive := func(name string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be > 0, got %d", name, v))
		}
	}
	positive("max_body_bytes", s.MaxBodyBytes)
	positive("max_json_depth", s.MaxJSONDepth)
	if s.MaxHeaderBytes < 1024 {
		errs = append(errs, fmt.Errorf("max_header_bytes: must be >= 1024, got %d", s.MaxHeaderBytes))
	}
	posDur := func(name string, d time.Duration) {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be > 0, got %s", name, d))
		}
	}
	posDur("read_timeout", s.ReadTimeout)
	posDur("idle_timeout", s.IdleTimeout)
	posDur("disconnect_probe", s.DisconnectProbe)
	posDur("shutdown_grace", s.ShutdownGrace)
	if s.EventLoop != "off" && s.EventLoop != "on" && s.EventLoop != "auto" {
		errs = append(errs, fmt.Errorf("event_loop: must be auto, on or off, got %q", s.EventLoop))
	}
	for _, e := range unjoin(s.GC.Validate()) {
		if e != nil {
			errs = append(errs, fmt.Errorf("gc.%w", e))
		}
	}
	return errors.Join(errs...)
}

func (u UpstreamConfig) validate() error {
	var errs []error
	if u.BaseURL != "" && !strings.HasPrefix(u.BaseURL, "http://") && !strings.HasPrefix(u.BaseURL, "https://") {
		errs = append(errs, fmt.Errorf("base_url: must start with http:// or https://, got %q", u.BaseURL))
	}
	for name, d := range map[string]time.Duration{"first_byte_timeout": u.FirstByteTimeout,
		"idle_timeout": u.IdleTimeout, "request_timeout": u.RequestTimeout} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be > 0, got %s", name, d))
		}
	}
	if u.MaxEventBytes < 1024 {
		errs = append(errs, fmt.Errorf("max_event_bytes: must be >= 1024, got %d", u.MaxEventBytes))
	}
	if u.MaxResponseBytes < 1024 {
		errs = append(errs, fmt.Errorf("max_response_bytes: must be >= 1024, got %d", u.MaxResponseBytes))
	}
	if u.IdleConnTimeout <= 0 {
		errs = append(errs, fmt.Errorf("idle_conn_timeout: must be > 0, got %s", u.IdleConnTimeout))
	}
	if u.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("max_conns: must be >= 0 (0 = from the file descriptor limit), got %d", u.MaxConns))
	}
	if u.ConnWaitTimeout <= 0 {
		errs = append(errs, fmt.Errorf("conn_wait_timeout: must be > 0, got %s", u.ConnWaitTimeout))
	}
	errs = append(errs, unjoin(u.Probe.validate())...)
	return errors.Join(errs...)
}

func (a AuthConfig) validate(addr string) error {
	var errs []error
	if !a.Enabled {
		host, _, err := net.SplitHostPort(addr)
		if err == nil && !isLoopbackHost(host) {
			errs = append(errs, fmt.Errorf("enabled: auth may be off only on a loopback listener, server.addr is %q", addr))
		}
	}
	if a.Enabled && len(a.Keys) == 0 {
		errs = append(errs, errors.New("keys: auth is enabled but no keys are configured"))
	}
	seen := map[string]bool{}
	for i, k := range a.AdminKeys {
		h := strings.ToLower(k.SHA256)
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			errs = append(errs, fmt.Errorf("admin_keys[%d].sha256: want 64 hex digits (sha256 of the key)", i))
		}
		if seen[h] {
			errs = append(errs, fmt.Errorf("admin_keys[%d].sha256: duplicate key", i))
		}
		seen[h] = true
	}
	for i, k := range a.Keys {
		h := strings.ToLower(k.SHA256)
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			errs = append(errs, fmt.Errorf("keys[%d].sha256: want 64 hex digits (sha256 of the key)", i))
		}
		if seen[h] {
			errs = append(errs, fmt.Errorf("keys[%d].sha256: duplicate key", i))
		}
		seen[h] = true
		if k.Tenant == "" {
			errs = append(errs, fmt.Errorf("keys[%d].tenant: required", i))
		}
		if len(k.KBs) == 0 {
			errs = append(errs, fmt.Errorf("keys[%d].kbs: at least one kb required", i))
		}
	}
	return errors.Join(errs...)
}

// isLoopbackAddr reports whether a host:port listens only on loopback.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopbackHost(host)
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
