package operator

import (
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// metrics are the operator plane's Prometheus series, on a registry of its
// own, appended to the server's /metrics.
type metrics struct {
	reg          *prometheus.Registry
	stateDropped *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.stateDropped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "guard_state_dropped_total",
		Help: "Turns and gap observations that could not be copied to the shared state store (state.redis_url) and were dropped, by kind."}, []string{"kind"})
	m.reg.MustRegister(m.stateDropped)
	return m
}

// write writes the series in the Prometheus text format.
func (m *metrics) write(w io.Writer) error {
	mfs, err := m.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}
