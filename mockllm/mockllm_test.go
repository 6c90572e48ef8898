package mockllm

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
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
	// The second answer came from the memo: its record is the first's but
	// for the id.
	r2.ID = r1.ID
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("repeated body, records differ beyond the id:\n%+v\n%+v", r1, r2)
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

	// Across blocks: a log larger than one block, filled twice over.
	big := newLog(logBlock + 3)
	total := 2*logBlock + 10
	for i := range total {
		big.add(Record{ID: fmt.Sprintf("c%d", i), Notes: i})
	}
	recs := big.Records()
	if len(recs) != logBlock+3 || recs[0].Notes != total-logBlock-3 || recs[len(recs)-1].Notes != total-1 {
		t.Fatalf("big log: %d records from %d to %d, want %d from %d to %d", len(recs), recs[0].Notes, recs[len(recs)-1].Notes, logBlock+3, total-logBlock-3, total-1)
	}
	for i, r := range recs {
		if r.Notes != total-logBlock-3+i {
			t.Fatalf("big log: record %d is %d, out of order", i, r.Notes)
		}
	}
	if _, ok := big.Get(fmt.Sprintf("c%d", total-logBlock-4)); ok {
		t.Error("big log: evicted record still found")
	}
	if r, ok := big.Get(fmt.Sprintf("c%d", total-5)); !ok || r.Notes != total-5 {
		t.Errorf("big log: Get = %+v %v", r, ok)
	}

	// Size 0 (a load run's upstream) keeps nothing and finds nothing.
	none := newLog(0)
	none.add(Record{ID: "c0"})
	none.update("c0", func(r *Record) { r.Closed = true })
	if _, ok := none.Get("c0"); ok || len(none.Records()) != 0 {
		t.Errorf("log of size 0 kept a record: %v", none.Records())
	}
	if err := (Config{ChunkRunes: 1, MaxSentences: 1, IdleTimeout: time.Second, LogSize: -1}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "log_size") {
		t.Errorf("Validate with log_size -1: %v, want a log_size error", err)
	}
}

// Paraphrase mode rewrites each cited sentence, records how, and changes a
// fact only in the sentences recorded as altered; the same body gives the
// same rewrites.
func TestParaphraseRecorded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.MaxSentences = 4
	cfg.Faults = Faults{Paraphrase: 1, Alter: 0.5}
	srv, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := `{"model":"m","messages":[{"role":"system","content":"Notes:\n` +
		`[^1] (kind: lecture) The Skerry lighthouse was first lit on 14 March 1887 by the harbour board.\n` +
		`[^2] (kind: lecture) Guided tours take 90 minutes and run twice a year from April.\n` +
		`[^3] (kind: lecture) On weekdays, the ferry uses the north quay and leaves every 2 hours.\n` +
		`[^4] (kind: lecture) Seven keepers lived at Skerry until Trinity House automated the light."},{"role":"user","content":"lighthouse?"}]}`
	ask := func() Record {
		resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			ID string `json:"id"`
		}
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		rec, ok := srv.Log().Get(out.ID)
		if !ok {
			t.Fatal("no record")
		}
		return rec
	}
	a, b := ask(), ask()
	if !slices.EqualFunc(a.Sentences, b.Sentences, func(x, y Sentence) bool { return x.Text == y.Text && x.Altered == y.Altered }) {
		t.Errorf("not deterministic:\n%+v\n%+v", a.Sentences, b.Sentences)
	}
	if len(a.Sentences) != 4 {
		t.Fatalf("%d sentences recorded, want 4: %+v", len(a.Sentences), a.Sentences)
	}
	for _, s := range a.Sentences {
		t.Logf("%v %v %q -> %q", s.Faithful, s.How, s.Source, s.Text)
		if s.Text == s.Source {
			t.Errorf("sentence copied, not paraphrased: %q", s.Text)
		}
		if s.Faithful != (s.Altered == "") {
			t.Errorf("faithful %v but altered %q", s.Faithful, s.Altered)
		}
	}
	// every rewrite on its own
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct{ in, how, want string }{
		{"Tours take 90 minutes", "unit", "1.5 hours"},
		{"It has 7 rooms", "number_word", "seven rooms"},
		{"It was lit on 14 March 1887", "date_format", "March 14, 1887"},
		{"It runs twice a year", "times", "2 times a year"},
		{"On Debian, add the repository", "reorder", "repository on Debian"},
	} {
		p := paraphrase(tt.in, false, r)
		if !slices.Contains(p.How, tt.how) || !strings.Contains(p.Text, tt.want) {
			t.Errorf("paraphrase(%q) = %q %v, want %s giving %q", tt.in, p.Text, p.How, tt.how, tt.want)
		}
	}
}

// A stream fault is recorded only when it is sent: bad JSON and huge events
// land on a piece the stream reaches, faults drawn after a cut are dropped
// from the record, and a non-stream answer records no stream fault.
func TestRecordedFaultsAreSent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.HugeEventBytes = 1 << 10
	cfg.Faults = Faults{BadJSON: 1, HugeEvent: 1}
	srv, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for i := range 40 {
		for _, stream := range []bool{true, false} {
			body := fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file, question %d.\n[^2] (kind: lecture; address: A 2) Backups run nightly at 02:00."},{"role":"user","content":"limits %d?"}]}`, stream, i, i)
			resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body) // a cut stream ends in an error here: what arrived is what was sent
			resp.Body.Close()
			rec, ok := srv.Log().Get(resp.Header.Get("X-Mock-Id"))
			if !ok {
				t.Fatalf("no record for %q", resp.Header.Get("X-Mock-Id"))
			}
			sentBad := strings.Contains(string(b), `"content":"oops`)
			sentHuge := strings.Contains(string(b), strings.Repeat("x", 1<<10))
			if rec.BadJSON != sentBad || rec.HugeEvent != sentHuge {
				t.Errorf("stream=%t #%d: record bad_json=%t huge=%t, sent bad_json=%t huge=%t", stream, i, rec.BadJSON, rec.HugeEvent, sentBad, sentHuge)
			}
			if !stream && (rec.Disconnect || rec.Stall) {
				t.Errorf("non-stream #%d records a stream fault: %+v", i, rec)
			}
		}
	}
	// With a cut: faults drawn at or after the cut piece are not recorded.
	cfg.Faults = Faults{BadJSON: 1, HugeEvent: 1, Stall: 1, Disconnect: 1}
	g := generator{cfg: cfg}
	for i := range 200 {
		body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file, case %d."},{"role":"user","content":"q"}]}`, i)
		var req chatRequest
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		a := g.build(&req, []byte(body), "x")
		for _, f := range []struct {
			name string
			at   int
			rec  bool
		}{{"bad_json", a.badAt, a.rec.BadJSON}, {"huge_event", a.hugeAt, a.rec.HugeEvent}, {"stall", a.stallAt, a.rec.Stall}} {
			if f.rec != (f.at >= 0) || (a.cutAt >= 0 && f.at >= a.cutAt) || f.at >= len(a.pieces) {
				t.Fatalf("case %d: %s at %d (cut %d, %d pieces) recorded %t", i, f.name, f.at, a.cutAt, len(a.pieces), f.rec)
			}
		}
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

// The OpenAI routes live under /v1 only, both of them, as BaseURL says:
// GET /v1/models and POST /v1/chat/completions answer; the same paths at
// the root, and the wrong methods, are a 404 whose message names the
// routes.
func TestRoutesUnderV1(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	srv, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasSuffix(srv.BaseURL(), "/v1") {
		t.Fatalf("base URL %s does not end in /v1", srv.BaseURL())
	}
	root := "http://" + srv.Addr()
	const chat = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/v1/models", 200},
		{"POST", "/v1/chat/completions", 200},
		{"GET", "/models", 404},
		{"POST", "/chat/completions", 404},
		{"POST", "/v1/models", 404},
		{"GET", "/v1/chat/completions", 404},
	} {
		req, err := http.NewRequest(c.method, root+c.path, strings.NewReader(chat))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d (%s)", c.method, c.path, resp.StatusCode, c.want, b)
			continue
		}
		var out struct {
			Object  string
			Choices []json.RawMessage
			Error   struct{ Message, Code string }
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Errorf("%s %s: %v: %s", c.method, c.path, err, b)
			continue
		}
		switch {
		case c.want == 404 && (out.Error.Code != "not_found" || !strings.Contains(out.Error.Message, "no route "+c.method+" "+c.path) ||
			!strings.Contains(out.Error.Message, "GET /v1/models, POST /v1/chat/completions")):
			t.Errorf("%s %s: error %+v does not name the routes", c.method, c.path, out.Error)
		case c.want == 200 && c.path == "/v1/models" && out.Object != "list", c.want == 200 && c.path == "/v1/chat/completions" && len(out.Choices) != 1:
			t.Errorf("%s %s: unexpected body %s", c.method, c.path, b)
		}
	}
}
