package proxy

import "testing"

func TestContainsFold(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Host: a\r\nTransfer-Encoding: chunked\r\n", true},
		{"host: a\r\ntransfer-encoding:chunked", true},
		{"TRANSFER-ENCODING: x", true},
		{"Transfer-Encodin: x", false},
		{"Transfer-Encoding : x", false}, // spaceBeforeColon's case
		{"transfer-encoding", false},
		{"", false},
		{"x-tRaNsFeR-eNcOdInG:", true},
	} {
		if got := containsFold([]byte(tc.s), "transfer-encoding:"); got != tc.want {
			t.Errorf("containsFold(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
