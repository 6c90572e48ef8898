package oaiclient

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the remote calls' Prometheus series, by client name:
//
//   - guard_remote_requests_total{client,result}: attempts (HTTP requests
//     sent), by result: ok, http_4xx, http_429, http_5xx, bad_response (a
//     2xx body the call could not use), timeout, canceled, transport;
//   - guard_remote_request_seconds{client}: time of one attempt, body
//     included (histogram);
//   - guard_remote_retries_total{client}: retries made.
//
// A call's count is requests minus retries. Metrics is a
// prometheus.Collector: register it once where the series are served.
// Clients of successive configurations share it, so counters survive a
// reload.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	retries  *prometheus.CounterVec
}

var _ prometheus.Collector = (*Metrics)(nil)

// DefaultMetrics is where clients count unless their Config names other
// Metrics; the proxy registers it on /metrics.
var DefaultMetrics = NewMetrics()

// NewMetrics returns an empty set of series.
func NewMetrics() *Metrics {
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_remote_requests_total",
			Help: "HTTP requests to remote pieces (embeddings, rerank, rewrite, planner, judge), by client and result."}, []string{"client", "result"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "guard_remote_request_seconds",
			Help: "Time of one HTTP request to a remote piece, body included.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}, []string{"client"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_remote_retries_total",
			Help: "Retries of failed requests to remote pieces, by client."}, []string{"client"}),
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.latency.Describe(ch)
	m.retries.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.latency.Collect(ch)
	m.retries.Collect(ch)
}

// clientMetrics are one client's series, its label bound.
type clientMetrics struct {
	requests *prometheus.CounterVec
	latency  prometheus.Observer
	retries  prometheus.Counter
}

func (m *Metrics) client(name string) clientMetrics {
	return clientMetrics{
		requests: m.requests.MustCurryWith(prometheus.Labels{"client": name}),
		latency:  m.latency.WithLabelValues(name),
		retries:  m.retries.WithLabelValues(name),
	}
}

func (m clientMetrics) result(r string) { m.requests.WithLabelValues(r).Inc() }
