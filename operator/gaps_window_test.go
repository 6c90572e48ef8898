package operator

import (
	"strconv"
	"testing"
	"time"

	"github.com/answer-guard/guard/proxy"
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

// A tenant key may list the turn log's grouping (source=turnlog: what it
// may read of GET /v1/guard/turns), not the queue, nor another tenant's.
func TestGapsTurnLogTenantKey(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{{Name: "t", SHA256: sha("tenant-key"), Tenant: "acme", KBs: []string{"default"}}}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("admin-key")}}
	})
	for _, tc := range []struct {
		query, key string
		want       int
	}{{"source=turnlog", "tenant-key", 200}, {"", "tenant-key", 403}, {"source=turnlog&tenant=other", "tenant-key", 403},
		{"source=turnlog", "", 401}, {"source=turnlog", "admin-key", 200}} {
		if code, _ := getGaps(t, ts.base, tc.query, tc.key); code != tc.want {
			t.Errorf("%q with key %q: status %d, want %d", tc.query, tc.key, code, tc.want)
		}
	}
}
