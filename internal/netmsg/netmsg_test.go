package netmsg

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fasthttp.ErrTimeout, "no answer within 2s"},
		{fmt.Errorf("dial 10.0.0.1:80: %w", syscall.ECONNREFUSED), "connection refused"},
		{fasthttp.ErrConnectionClosed, "connection closed"},
		{errors.New("lookup model.internal: no such host"), "host name not found"},
		{errors.New("anything else at 10.0.0.1"), "unreachable"},
	} {
		if got := Plain(tc.err, 2*time.Second); got != tc.want {
			t.Errorf("Plain(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
