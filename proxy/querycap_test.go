package proxy

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/answer-guard/guard/mockllm"
)

// servePipe serves pipe on a loopback port (the default configuration,
// changed by mutate, over a simulated upstream) for the test's life and
// returns the proxy's host:port.
func servePipe(t *testing.T, pipe Pipeline, mutate func(*Config)) string {
	t.Helper()
	mock, err := mockllm.Start(mockllm.DefaultConfig(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	cfg := DefaultConfig()
	cfg.Upstream.BaseURL = mock.BaseURL()
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg, nil, func(Config) (Pipeline, error) { return pipe, nil })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return ln.Addr().String()
}

// queryRecorder is a pass-through pipeline that records the question each
// turn is begun with.
type queryRecorder struct {
	passthrough
	mu      sync.Mutex
	queries []string
}

func (q *queryRecorder) Begin(ctx context.Context, req TurnRequest) (Turn, error) {
	q.mu.Lock()
	q.queries = append(q.queries, req.Query)
	q.mu.Unlock()
	return passTurn{}, nil
}

// A question longer than pipeline.max_query_chars reaches retrieval cut to
// that many bytes at a UTF-8 boundary, and the cut is counted; a shorter one
// is handed over whole.
func TestQueryCappedForRetrieval(t *testing.T) {
	rec := &queryRecorder{}
	addr := servePipe(t, rec, func(cfg *Config) { cfg.Pipeline.MaxQueryChars = 100 })
	long := strings.Repeat("é", 5000) // 10,000 bytes, two per rune
	for _, q := range []string{"short question?", long} {
		body := `{"model":"mock-1","messages":[{"role":"user","content":"` + q + `"}]}`
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	rec.mu.Lock()
	got := append([]string(nil), rec.queries...)
	rec.mu.Unlock()
	if len(got) != 2 || got[0] != "short question?" {
		t.Fatalf("queries %q, want the short one whole first", got)
	}
	if len(got[1]) != 100 || !utf8.ValidString(got[1]) {
		t.Errorf("long question reached retrieval as %d bytes (valid UTF-8 %v), want 100", len(got[1]), utf8.ValidString(got[1]))
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if !strings.Contains(b.String(), "guard_query_truncated_total 1\n") {
		t.Errorf("metrics lack guard_query_truncated_total 1")
	}
}
