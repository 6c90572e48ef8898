package mockllm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults("invent=0.5, leak=1")
	if err != nil || f.Invent != 0.5 || f.Leak != 1 {
		t.Fatalf("got %+v %v", f, err)
	}
	if got := f.String(); got != "invent=0.5,leak=1" {
		t.Errorf("got %q", got)
	}
	_, err = ParseFaults("invent=2,bogus=0.1,leak")
	if err == nil {
		t.Fatal("bad faults accepted")
	}
	for _, want := range []string{"fault invent", `"bogus=0.1"`, `"leak"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

// The same request body gives the same answer and the same injected
// faults; the record matches what the text contains.
func TestDeterministicAndRecorded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.Faults = Faults{Invent: 1, Leak: 1, Malformed: 1}
	srv, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := `{"model":"m","messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file.\n[^2] (kind: lecture; address: A 2) Backups run nightly at 02:00."},{"role":"user","content":"limits?"}]}`
	ask := func() (string, Record) {
		resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out struct {
			ID      string
			Choices []struct{ Message struct{ Content string } }
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		rec, ok := srv.Log().Get(out.ID)
		if !ok {
			t.Fatalf("no record for %s", out.ID)
		}
		return out.Choices[0].Message.Content, rec
	}
	a1, r1 := ask()
	a2, r2 := ask()
	if a1 != a2 {
		t.Errorf("same body, different answers:\n%s\n%s", a1, a2)
	}
	if r1.Notes != 2 || len(r1.ValidCites) != 2 || r1.Invented != 2 || r1.Malformed != 2 || len(r1.Leaked) != 2 {
		t.Errorf("record %+v does not match the fault rates", r1)
	}
	for _, l := range r1.Leaked {
		if !strings.Contains(a1, l) {
			t.Errorf("recorded leak %s not in the answer %q", l, a1)
		}
	}
	if r1.ID == r2.ID {
		t.Errorf("records share an id")
	}
}

// The record log keeps the last n records, oldest first, finds them by id,
// and forgets evicted ones.
func TestLogRing(t *testing.T) {
	l := newLog(3)
	for i := range 5 {
		l.add(Record{ID: fmt.Sprintf("c%d", i), Notes: i})
	}
	var got []string
	for _, r := range l.Records() {
		got = append(got, r.ID)
	}
	if want := []string{"c2", "c3", "c4"}; !slices.Equal(got, want) {
		t.Errorf("Records = %v, want %v", got, want)
	}
	if _, ok := l.Get("c1"); ok {
		t.Error("evicted c1 still found")
	}
	l.update("c3", func(r *Record) { r.Closed = true })
	if r, ok := l.Get("c3"); !ok || !r.Closed || r.Notes != 3 {
		t.Errorf("Get(c3) = %+v, %v after update", r, ok)
	}
	l.add(Record{ID: "c3", Notes: 9}) // a repeated id: the newest wins
	if r, _ := l.Get("c3"); r.Notes != 9 {
		t.Errorf("repeated id: got %+v, want the newest", r)
	}
}

// With bad_json=1 and huge_event=1 every stream carries both faults, also
// when the position drawn is after the last piece (it was dropped then,
// so about one stream in 30 finished clean: the chaos long form saw it).
func TestAnswerLevelFaultsAlwaysSent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.HugeEventBytes = 64
	cfg.Faults = Faults{BadJSON: 1, HugeEvent: 1}
	srv, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	huge := strings.Repeat("x", cfg.HugeEventBytes)
	for i := range 200 {
		body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file."},{"role":"user","content":"limits %d?"}]}`, i)
		resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"content":"oops`) || !strings.Contains(string(b), huge) {
			t.Fatalf("stream %d lacks a fault (bad json %v, huge event %v):\n%s", i,
				strings.Contains(string(b), `"content":"oops`), strings.Contains(string(b), huge), b)
		}
	}
}
