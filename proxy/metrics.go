package proxy

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/answer-guard/guard/internal/oaiclient"
)

// metrics are the proxy's Prometheus series, on a registry of its own.
type metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.CounterVec
	streamDuration prometheus.Histogram
	ttft           prometheus.Histogram
	overhead       *prometheus.HistogramVec
	upstreamWait   *prometheus.HistogramVec
	markersDropped *prometheus.CounterVec
	verdicts       *prometheus.CounterVec
	decisions      *prometheus.CounterVec
	degraded       *prometheus.CounterVec
	stageLatency   *prometheus.HistogramVec
	auditFindings  *prometheus.CounterVec
	reloads        *prometheus.CounterVec
	queryCut       prometheus.Counter
	panics         *prometheus.CounterVec
	handler        fasthttp.RequestHandler

	// Children resolved once: every chat request observes these, and
	// WithLabelValues hashes its labels on each call.
	overheadBy, upWaitBy [2]prometheus.Observer // [0] whole, [1] stream
	chatStatus           sync.Map               // HTTP status -> its guard_requests_total{route="chat"} child
	decisionBy           sync.Map               // decision -> its guard_decisions_total child
}

// chatRequests is the chat route's request counter for status.
func (m *metrics) chatRequests(status int) prometheus.Counter {
	if c, ok := m.chatStatus.Load(status); ok {
		return c.(prometheus.Counter)
	}
	c := m.requests.WithLabelValues("chat", strconv.Itoa(status))
	m.chatStatus.Store(status, c)
	return c
}

// fine-grained buckets for sub-millisecond overhead up to seconds.
var overheadBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_requests_total",
		Help: "Requests by route and HTTP status."}, []string{"route", "status"})
	m.streamDuration = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "guard_stream_duration_seconds",
		Help: "Duration of streamed chat completions, first byte in to last byte out.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)})
	m.ttft = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "guard_time_to_first_token_seconds",
		Help: "Time from request to the first content byte written to the client.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)})
	m.overhead = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "guard_overhead_seconds",
		Help: "The proxy's own time per request: total minus time waiting on the upstream.", Buckets: overheadBuckets}, []string{"stream"})
	m.upstreamWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "guard_upstream_wait_seconds",
		Help: "Time spent waiting on the upstream per request.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}, []string{"stream"})
	m.markersDropped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_markers_dropped_total",
		Help: "Citation markers deleted by the gauntlet, by reason."}, []string{"reason"})
	m.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_claim_verdicts_total",
		Help: "Claim verdicts of the citation verifier."}, []string{"verdict"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_decisions_total",
		Help: "Gate decisions."}, []string{"decision"})
	m.degraded = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_degraded_total",
		Help: "Turns where a remote piece failed and its local stand-in answered, by piece."}, []string{"piece"})
	m.stageLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "guard_stage_seconds",
		Help: "Latency of the pipeline stages.", Buckets: overheadBuckets}, []string{"stage"})
	m.auditFindings = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_audit_findings_total",
		Help: "What the online auditor found in released answers (invented or broken markers, leaked ids, unknown citations); should stay 0."}, []string{"kind"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_config_reloads_total",
		Help: "Configuration reloads by result: ok, invalid (the file did not decode or validate), refused (it changed a restart-only setting, or switched auth off); a failed reload keeps the running configuration."}, []string{"result"})
	m.queryCut = prometheus.NewCounter(prometheus.CounterOpts{Name: "guard_query_truncated_total",
		Help: "Questions longer than pipeline.max_query_chars, cut to it before retrieval."})
	m.panics = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_panics_total",
		Help: "Panics caught while serving a request (a bug: the request failed with 500 or its stream was cut, the server went on); should stay 0."}, []string{"where"})
	for i, st := range []string{"false", "true"} {
		m.overheadBy[i] = m.overhead.WithLabelValues(st)
		m.upWaitBy[i] = m.upstreamWait.WithLabelValues(st)
	}
	m.reg.MustRegister(m.reloads, m.queryCut, m.panics, m.auditFindings, m.requests, m.streamDuration, m.ttft, m.overhead, m.upstreamWait, m.markersDropped,
		m.verdicts, m.decisions, m.degraded, m.stageLatency,
		oaiclient.DefaultMetrics, // the remote pieces' calls (embeddings, rerank, rewrite, judge, planner), one set per process
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	m.handler = fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// uncompressed: the verifier's series are appended as text after it
		DisableCompression: true,
	}))
	return m
}

// observeReport counts a turn's report.
func (m *metrics) observeReport(r *Report) {
	if r == nil {
		return
	}
	d, ok := m.decisionBy.Load(r.Decision)
	if !ok {
		d = m.decisions.WithLabelValues(string(r.Decision))
		m.decisionBy.Store(r.Decision, d)
	}
	d.(prometheus.Counter).Inc()
	if mk := r.Markers; mk != nil {
		for reason, n := range mk.ByReason {
			m.markersDropped.WithLabelValues(reason).Add(float64(n))
		}
		a := mk.Audit // what the online auditor found in the released answer
		for _, f := range [...]struct {
			kind string
			n    int
		}{{"invented_marker", a.Invented}, {"broken_marker", a.Broken}, {"leaked_id", a.LeakedIDs},
			{"unknown_citation", a.UnknownCitations}, {"unknown_named", a.UnknownNamed}} {
			m.auditFindings.WithLabelValues(f.kind).Add(float64(f.n))
		}
	}
	for _, c := range r.Claims {
		m.verdicts.WithLabelValues(c.Verdict).Inc()
	}
	for _, p := range r.Degraded {
		m.degraded.WithLabelValues(p).Inc()
	}
	for stage, ms := range r.LatencyMS {
		m.stageLatency.WithLabelValues(stage).Observe(ms / 1000)
	}
}
