package judge

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Metrics are the judge's counters. They are plain atomics written out in
// the Prometheus text format by WriteMetrics, so the proxy can append them
// to its /metrics page whatever registry it uses. One Metrics may be shared
// by the Judges of successive configurations (see UseMetrics), so counters
// survive a reload. The zero value is ready to use.
type Metrics struct {
	verdicts   [len(verdictNames)]atomic.Int64
	latency    [len(latencyBuckets) + 1]atomic.Int64 // per bucket, last is +Inf
	latencySum atomic.Int64                          // nanoseconds
	chainPolls atomic.Int64
	degraded   atomic.Int64
	dropped    atomic.Int64
}

var verdictNames = [...]string{Entailment, Contradiction, Neutral, Opinion, NotChecked}

var latencyBuckets = [...]time.Duration{
	100 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 5 * time.Millisecond,
	20 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond, time.Second, 5 * time.Second,
}

func (m *Metrics) verdict(label string) {
	for i, n := range verdictNames {
		if n == label {
			m.verdicts[i].Add(1)
			return
		}
	}
}

func (m *Metrics) observe(d time.Duration) {
	m.latencySum.Add(int64(d))
	for i, b := range latencyBuckets {
		if d <= b {
			m.latency[i].Add(1)
			return
		}
	}
	m.latency[len(latencyBuckets)].Add(1)
}

// WriteMetrics writes the judge's metrics in the Prometheus text exposition
// format: guard_judge_verdicts_total{verdict}, guard_judge_verify_seconds
// (histogram), guard_judge_chainpoll_total, guard_judge_degraded_total and
// guard_judge_citations_dropped_total.
func (j *Judge) WriteMetrics(w io.Writer) error { return j.m.Write(w) }

// Write writes the counters in the Prometheus text exposition format (see
// Judge.WriteMetrics).
func (m *Metrics) Write(w io.Writer) error {
	var err error
	p := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, a...)
		}
	}
	p("# HELP guard_judge_verdicts_total Claims verified, by verdict.\n# TYPE guard_judge_verdicts_total counter\n")
	for i, n := range verdictNames {
		p("guard_judge_verdicts_total{verdict=%q} %d\n", n, m.verdicts[i].Load())
	}
	p("# HELP guard_judge_verify_seconds Time to verify one claim.\n# TYPE guard_judge_verify_seconds histogram\n")
	var cum int64
	for i, b := range latencyBuckets {
		cum += m.latency[i].Load()
		p("guard_judge_verify_seconds_bucket{le=\"%g\"} %d\n", b.Seconds(), cum)
	}
	cum += m.latency[len(latencyBuckets)].Load()
	p("guard_judge_verify_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	p("guard_judge_verify_seconds_sum %g\n", time.Duration(m.latencySum.Load()).Seconds())
	p("guard_judge_verify_seconds_count %d\n", cum)
	p("# HELP guard_judge_chainpoll_total ChainPoll re-polls of uncertain LLM verdicts.\n# TYPE guard_judge_chainpoll_total counter\n")
	p("guard_judge_chainpoll_total %d\n", m.chainPolls.Load())
	p("# HELP guard_judge_degraded_total Claims whose LLM verification failed and fell back to the local verifier.\n# TYPE guard_judge_degraded_total counter\n")
	p("guard_judge_degraded_total %d\n", m.degraded.Load())
	p("# HELP guard_judge_citations_dropped_total Citations dropped in strict mode.\n# TYPE guard_judge_citations_dropped_total counter\n")
	p("guard_judge_citations_dropped_total %d\n", m.dropped.Load())
	if err != nil {
		return fmt.Errorf("write judge metrics: %w", err)
	}
	return nil
}
