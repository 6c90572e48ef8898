// Package leaktest is the repository's one goroutine-leak check: goleak
// (go.uber.org/goleak) with the few library goroutines that are not leaks
// ignored by name, so every package checks the same way.
//
// A test package opts in with
//
//	func TestMain(m *testing.M) { leaktest.Main(m) }
//
// and a test that must prove its own goroutines end (a turn abandoned
// mid-stream, a server shut down) calls Check with IgnoreCurrent taken
// before it started them.
package leaktest

import (
	"fmt"
	"net/http"
	"os"

	"go.uber.org/goleak"
)

// ignored are library goroutines that outlive their owner by design.
// fasthttp's janitors sleep out an idle period after their owner is done
// and then end by themselves: the server worker pool's (up to 10 s after
// the server stops; func2 is the go statement in workerPool.Start), a host
// client's connection cleaner and a client's host-map cleaner (after the
// last connection closed). Process-wide: fasthttp's Date-header updater,
// a TCPDialer's DNS-cache cleaner (one per dialer: fasthttp's default one,
// and the one each proxy.Server's upstream client makes), and bleve's
// analysis workers (a queue started when bleve is loaded).
var ignored = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
	goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
	goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*Client).mCleaner"),
	goleak.IgnoreAnyFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
	goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
	goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"),
}

// Options returns the repository's ignore list followed by extra.
func Options(extra ...goleak.Option) []goleak.Option {
	return append(append([]goleak.Option(nil), ignored...), extra...)
}

// Find reports the goroutines, other than the ignored ones and those that
// extra excludes, still running after goleak's short retry window (under a
// second); nil when there are none.
//
// It first closes http.DefaultTransport's idle connections: their
// read and write loops are goroutines that stay until the pool drops the
// connection (90 s), and tests reach servers through clients that use the
// default transport (the openai-go client, http.Get).
func Find(extra ...goleak.Option) error {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return goleak.Find(Options(extra...)...)
}

// M is *testing.M (this package does not import testing: package bench,
// which the guard binary links, checks its chaos scenarios with Find).
type M interface{ Run() int }

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Error(args ...any)
}

// Main runs the package's tests and then, if they passed, fails the run
// when a goroutine is left (other than the ignored ones and those extra
// excludes). It does not return.
func Main(m M, extra ...goleak.Option) {
	code := m.Run()
	if code == 0 {
		if err := Find(extra...); err != nil {
			fmt.Fprintf(os.Stderr, "leaktest: goroutines left after the tests passed: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// Check fails t when goroutines other than the ignored ones and those
// extra excludes are still running (typically extra is
// goleak.IgnoreCurrent() taken before the code under test started).
func Check(t TB, extra ...goleak.Option) {
	t.Helper()
	if err := Find(extra...); err != nil {
		t.Error(err)
	}
}
