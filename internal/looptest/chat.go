package looptest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
)

// ChatServer starts a scripted OpenAI-compatible chat server on loopback,
// closed when the test ends: every POST to /chat/completions gets reply as
// the assistant's content (non-streamed). It returns the base URL
// (http://addr/v1) and a function that returns the user messages received
// so far, in arrival order (one per call).
func ChatServer(t testing.TB, reply string) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req) //nolint:errcheck // a bad body records nothing
		mu.Lock()
		for _, m := range req.Messages {
			if m.Role == "user" {
				seen = append(seen, m.Content)
			}
		}
		mu.Unlock()
		content, _ := json.Marshal(reply)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"p","object":"chat.completion","created":1,"model":"scripted","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, content)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln) //nolint:errcheck // ends when Close shuts the listener
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/v1", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}
