package operator

import (
	"strconv"
	"testing"
	"time"
)

// GET /v1/guard/gaps takes since and until as GET /v1/guard/turns does
// (RFC 3339 or Unix ms): source=turnlog groups only the turns inside the
// window, the queue keeps the entries seen inside it; a bad bound is a
// 400 naming it.
func TestGapsTimeWindow(t *testing.T) {
	off, _ := offTopicGuard(t, func(c *testCfg) { c.Gaps.Enabled = false })
	live, _ := offTopicGuard(t, nil)
	past, future := "2000-01-01T00:00:00Z", strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)
	for _, tc := range []struct {
		root, source string
	}{{off, "&source=turnlog"}, {live, ""}} {
		all := gapKindsOf(t, tc.root, "refused,fallback,off_topic"+tc.source)
		if all.Total < 3 {
			t.Fatalf("%s: %d entries, want one of each kind: it would prove nothing", tc.source, all.Total)
		}
		for _, w := range []struct {
			q    string
			want int
		}{{"&since=" + past + "&until=" + future, all.Total}, {"&since=" + future, 0}, {"&until=" + past, 0}} {
			if got := gapKindsOf(t, tc.root, "refused,fallback,off_topic"+tc.source+w.q); got.Total != w.want {
				t.Errorf("source %q%s: %d entries, want %d", tc.source, w.q, got.Total, w.want)
			}
		}
		if code := opReq(t, "GET", tc.root+"/v1/guard/gaps?since=yesterday"+tc.source, nil, "", nil); code != 400 {
			t.Errorf("source %q since=yesterday: %d, want 400", tc.source, code)
		}
	}
}
