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

func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                 true,
		"Text/Event-Stream; charset=utf-8":  true,
		" text/event-stream ;charset=utf-8": true,
		"application/json":                  false,
		"text/event-streams":                false,
		"":                                  false,
		"text/plain; x=text/event-stream":   false,
	} {
		if got := isEventStream(ct); got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestJSONContentType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"Application/JSON; charset=utf-8":   true,
		" application/vnd.api+json ; x=y":   true,
		"application/VND.API+JSON":          true,
		"application/+json":                 true,
		"application/jsonx":                 false,
		"text/json":                         false,
		"application/x-www-form-urlencoded": false,
		"text/plain; x=application/json":    false,
		"applicatio":                        false,
		"":                                  false,
	} {
		if got := jsonContentType([]byte(ct)); got != want {
			t.Errorf("jsonContentType(%q) = %v, want %v", ct, got, want)
		}
	}
}
