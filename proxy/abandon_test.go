package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
)

// A turn whose answer never finishes (the client left mid-stream) is
// abandoned, and Abandon returns only once every report-mode sentence check
// it started has stopped: with an LLM judge that answers nothing until its
// caller gives up, a check is in flight before the request ends and none is
// left the moment Abandon returns (issue 13, item 9).
func TestAbandonJoinsSentenceChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the demo corpus; runs without -short")
	}
	started := make(chan struct{}, 16)
	judgeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		started <- struct{}{}
		<-r.Context().Done() // answers only when the caller gives up
	}))
	defer judgeSrv.Close()

	cfg := DefaultConfig()
	cfg.Stages.Verify.Mode = "report"
	cfg.Stages.Verify.Verifier = "llm"
	cfg.Stages.Verify.LLM.BaseURL = judgeSrv.URL + "/v1"
	cfg.Stages.Verify.LLM.Model = "judge"
	cfg.Stages.Verify.MinContextChars = 0
	pipe, err := NewPipeline(nil)(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()

	ctx, cancel := context.WithCancel(context.Background())
	turn, err := pipe.Begin(ctx, TurnRequest{Tenant: "default", KB: "default", Model: "m", Stream: true,
		Query: "What does error LF-4002 mean?"})
	if err != nil {
		t.Fatal(err)
	}
	// Two complete sentences: each is dispatched to the judge at once.
	turn.Content(ctx, nil, []byte("Error LF-4002 means the account is locked [^1]. It unlocks by itself later [^1]. And"))
	<-started
	if n := checksRunning(); n == 0 {
		t.Fatal("no sentence check in flight while the judge is answering: the test would prove nothing")
	}

	cancel() // the client is gone; the relay abandons the turn
	turn.Abandon()
	if n := checksRunning(); n != 0 {
		t.Errorf("%d sentence checks still running after Abandon returned", n)
	}
}

// checksRunning counts the goroutines running a report-mode sentence check.
func checksRunning() int {
	buf := make([]byte, 4<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:goruntime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "proxy.(*guardTurn).dispatch.func") {
			n++
		}
	}
	return n
}
