package proxy

import "testing"

// Protected (the operator plane's console rule) holds on a loopback
// listener, or on any listener with auth on.
func TestProtected(t *testing.T) {
	for _, tc := range []struct {
		addr string
		auth bool
		want bool
	}{
		{"127.0.0.1:8080", false, true},
		{"[::1]:8080", false, true},
		{"0.0.0.0:8080", false, false},
		{"0.0.0.0:8080", true, true},
	} {
		s := &Server{}
		addr := tc.addr
		s.bound.Store(&addr)
		cfg := DefaultConfig()
		cfg.Auth.Enabled = tc.auth
		s.rt.Store(&runtime{cfg: cfg})
		if got := s.Protected(); got != tc.want {
			t.Errorf("%s auth %v: protected %v, want %v", tc.addr, tc.auth, got, tc.want)
		}
	}
}
