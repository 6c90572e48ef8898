package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// startRefusingProxy is a proxy on the demo corpus that refuses an
// off-topic question (gate.off_topic: refuse), with its gap queue on or
// off (gaps.enabled); it returns the /v1 base URL.
func startRefusingProxy(t *testing.T, gaps bool) string {
	t.Helper()
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	cfg := proxy.DefaultConfig()
	cfg.Upstream.BaseURL = mock.BaseURL()
	cfg.Log.Level = "error"
	cfg.Stages.Gate.OffTopic = gate.OffTopicRefuse
	ocfg := operator.DefaultConfig()
	ocfg.Gaps.Enabled = gaps
	srv, _, err := wire(cfg, ocfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String() + "/v1"
}

// TestGapsCommandFromTurnLog: with the gap queue off, guard gaps lists
// the turn log's refusals in the queue's kinds, and says where they come
// from: an off-topic question refused twice is one off_topic entry seen
// twice, as the live queue files it, not an on-topic refusal.
func TestGapsCommandFromTurnLog(t *testing.T) {
	const q = "What is the capital of Mongolia?"
	type entry struct {
		Kind, Text string
		Count      int
	}
	lists := map[bool][]entry{}
	for _, on := range []bool{true, false} {
		base := startRefusingProxy(t, on)
		for range 2 {
			resp, err := http.Post(base+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"`+q+`"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		code, out, errOut := runCLI(t, "gaps", "--addr", base, "--json")
		var list struct {
			Enabled bool    `json:"enabled"`
			Data    []entry `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || list.Enabled != on {
			t.Fatalf("gaps on %v: exit %d, %v, enabled %v\n%s%s", on, code, err, list.Enabled, out, errOut)
		}
		if said := strings.Contains(errOut, "the gap queue is off on this server"); said == on {
			t.Errorf("gaps on %v: stderr %q: want the turn log named only when the queue is off", on, errOut)
		}
		lists[on] = list.Data
		code, out, _ = runCLI(t, "gaps", "--addr", base, "--kind", "refused")
		if code != 0 || !strings.Contains(out, "0 of 0 entries") {
			t.Errorf("gaps on %v --kind refused: exit %d, want no entry (the refusal is off-topic)\n%s", on, code, out)
		}
		code, out, _ = runCLI(t, "gaps", "--addr", base, "--kind", "off_topic")
		if code != 0 || !strings.Contains(out, "2      off_topic") || !strings.Contains(out, "1 of 1 entries") {
			t.Errorf("gaps on %v --kind off_topic: exit %d\n%s", on, code, out)
		}
	}
	want := []entry{{"off_topic", q, 2}}
	for on, got := range lists {
		if len(got) != 1 || got[0] != want[0] {
			t.Errorf("gaps on %v: entries %+v, want %+v", on, got, want)
		}
	}
}

// TestGapsFileTheQueryRead: a follow-up is filed as the guard read it, the
// message before it and the follow-up ("... Mongolia?\nand of Peru?"),
// not "and of Peru?" alone; a greeting the guard trimmed is not filed.
func TestGapsFileTheQueryRead(t *testing.T) {
	base := startRefusingProxy(t, true)
	for _, body := range []string{
		`{"model":"mock-1","messages":[{"role":"user","content":"What is the capital of Mongolia?"},{"role":"assistant","content":"I can't answer that here."},{"role":"user","content":"and of Peru?"}]}`,
		`{"model":"mock-1","messages":[{"role":"user","content":"hi there, who painted the Mona Lisa? thanks!"}]}`,
	} {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	code, out, errOut := runCLI(t, "gaps", "--addr", base, "--json")
	var list struct {
		Data []struct{ Kind, Text string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("gaps: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	got := map[string]bool{}
	for _, e := range list.Data {
		got[e.Text] = true
	}
	for _, want := range []string{"What is the capital of Mongolia?\nand of Peru?", "who painted the Mona Lisa?"} {
		if !got[want] {
			t.Errorf("gaps: %+v, want an entry %q", list.Data, want)
		}
	}
}
