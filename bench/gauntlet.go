package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// GauntletReport scores the marker gauntlet end to end: the simulated
// upstream injects faults at known rates and records each one; every answer
// that comes back through the proxy is checked against that record.
type GauntletReport struct {
	Answers          int            `json:"answers"`
	Faults           string         `json:"faults"`
	Injected         map[string]int `json:"injected"`           // faults the upstream injected, by kind
	DroppedByReason  map[string]int `json:"dropped_by_reason"`  // what the gauntlet reported dropping
	ValidCites       int            `json:"valid_cites"`        // valid citations the upstream wrote
	ValidKept        int            `json:"valid_kept"`         // of those, present in the answers
	UnresolvedLeft   int            `json:"unresolved_left"`    // "[^" or malformed markers left in answers
	LeakedLeft       int            `json:"leaked_left"`        // injected ids still present in answers
	InventedLeft     int            `json:"invented_left"`      // output markers that name no reported citation
	AuditFindings    int            `json:"audit_findings"`     // what the proxy's own online auditor reported (should be 0)
	Failures         []string       `json:"failures,omitempty"` // first few problems, for the report
	StreamedAnswers  int            `json:"streamed_answers"`
	Refused          int            `json:"refused"` // answers the gate refused (no upstream call)
	ElapsedSeconds   float64        `json:"elapsed_seconds"`
	AnswersPerSecond float64        `json:"answers_per_second"`
}

// OK reports whether every injected fault was removed and no valid
// citation was lost.
func (r GauntletReport) OK() bool {
	return r.UnresolvedLeft == 0 && r.LeakedLeft == 0 && r.InventedLeft == 0 && r.AuditFindings == 0 && r.ValidKept == r.ValidCites
}

// DefaultGauntletFaults are the marker faults of the gauntlet suite.
const DefaultGauntletFaults = "invent=0.3,split=0.5,malformed=0.25,repeat=0.25,leak=0.25,uncited=0.2"

// demoQuestions are questions the embedded demo corpus grounds.
var demoQuestions = []string{
	"How do I restore Lanternfish from a backup?",
	"Which port does Lanternfish listen on?",
	"How do I reset someone's two-factor authentication?",
	"How do I unlock a locked account?",
	"How long are deleted pages kept in the trash?",
	"How do I configure single sign-on with SAML?",
	"What are the hardware requirements for a Lanternfish server?",
	"How do I verify that a backup is intact?",
	"How does full-text search indexing work?",
	"How do I rotate the encryption key for backups?",
	"What does error LF-4002 mean?",
	"How do I invite a new member to a space?",
}

var (
	outMarker   = regexp.MustCompile(`\[(\d+)\]`)
	unresolved  = regexp.MustCompile(`\[\^|\[\^?x\d|\[ ?\^`)
	guardObject = regexp.MustCompile(`"guard":`)
)

// GauntletQuality runs n answers (alternating stream and non-stream) through
// an in-process proxy with the full pipeline over the embedded demo corpus,
// against the simulated upstream injecting faults, and writes a Markdown
// report to w.
func GauntletQuality(ctx context.Context, n int, faults string, seed uint64, w io.Writer) (GauntletReport, error) {
	rep := GauntletReport{Faults: faults, Injected: map[string]int{}, DroppedByReason: map[string]int{}}
	f, err := mockllm.ParseFaults(faults)
	if err != nil {
		return rep, err
	}
	mock, url, stop, err := startFaultyGuard(f, seed, nil)
	if err != nil {
		return rep, err
	}
	defer stop()
	client := &http.Client{Timeout: 30 * time.Second}
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		stream := i%2 == 1
		id, content, guard, err := askDemo(ctx, client, url, "case", i)
		if err != nil {
			return rep, fmt.Errorf("answer %d: %w", i, err)
		}
		rep.Answers++
		rec, ok := mock.Log().Get(id)
		if !ok { // refused by the gate: no upstream call, nothing injected
			rep.Refused++
			continue
		}
		if stream {
			rep.StreamedAnswers++
		}
		scoreAnswer(&rep, rec, content, guard)
	}
	rep.ElapsedSeconds = time.Since(start).Seconds()
	rep.AnswersPerSecond = float64(rep.Answers) / rep.ElapsedSeconds
	writeGauntletMarkdown(w, rep)
	return rep, nil
}

// startFaultyGuard starts a proxy with the full pipeline over the embedded
// demo corpus and an in-process simulated upstream injecting faults f
// (unpaced, 4-rune events), configured further by mutate (may be nil). It
// returns the simulated upstream (its injection log is the ground truth),
// the chat completions URL and a stop function.
func startFaultyGuard(f mockllm.Faults, seed uint64, mutate func(*proxy.Config)) (*mockllm.Server, string, func(), error) {
	mcfg := mockllm.DefaultConfig()
	mcfg.Faults, mcfg.Pace, mcfg.Seed, mcfg.ChunkRunes = f, 0, seed, 4
	ip, err := StartInProcess(mcfg, func(c *proxy.Config) {
		c.Log.Level = "error"
		if mutate != nil {
			mutate(c)
		}
	}, nil)
	if err != nil {
		return nil, "", nil, err
	}
	return ip.Mock, ip.ProxyURL + "/chat/completions", func() { ip.Close() }, nil //nolint:errcheck
}

type guardWire struct {
	Decision string `json:"decision"`
	Query    string `json:"query"` // a follow-up's joined query
	Claims   []struct {
		Text      string `json:"text"`
		Citations []int  `json:"citations"`
		Verdict   string `json:"verdict"`
		Evidence  string `json:"evidence"`
		Uncited   string `json:"uncited"`
		Reason    string `json:"reason"`
	} `json:"claims"`
	Citations []struct {
		N  int    `json:"n"`
		ID string `json:"id"`
	} `json:"citations"`
	Markers struct {
		Kept     int            `json:"kept"`
		Dropped  int            `json:"dropped"`
		ByReason map[string]int `json:"by_reason"`
		Audit    struct {
			Invented  int `json:"invented"`
			Broken    int `json:"broken"`
			LeakedIDs int `json:"leaked_ids"`
		} `json:"audit"`
	} `json:"markers"`
}

func scoreAnswer(rep *GauntletReport, rec mockllm.Record, content string, g guardWire) {
	fail := func(format string, args ...any) {
		if len(rep.Failures) < 10 {
			rep.Failures = append(rep.Failures, fmt.Sprintf("%s: ", rec.ID)+fmt.Sprintf(format, args...))
		}
	}
	rep.Injected["invented"] += rec.Invented
	rep.Injected["split"] += rec.Split
	rep.Injected["malformed"] += rec.Malformed
	rep.Injected["repeated"] += rec.Repeated
	rep.Injected["leaked"] += len(rec.Leaked)
	rep.Injected["uncited"] += rec.Uncited
	for k, v := range g.Markers.ByReason {
		rep.DroppedByReason[k] += v
	}
	rep.AuditFindings += g.Markers.Audit.Invented + g.Markers.Audit.Broken + g.Markers.Audit.LeakedIDs
	rep.ValidCites += len(rec.ValidCites)
	known := map[int]bool{}
	for _, c := range g.Citations {
		known[c.N] = true
	}
	marks := outMarker.FindAllStringSubmatch(content, -1)
	kept := min(len(marks), len(rec.ValidCites))
	rep.ValidKept += kept
	if len(marks) < len(rec.ValidCites) {
		fail("lost %d valid citations: %q", len(rec.ValidCites)-len(marks), content)
	}
	for _, m := range marks {
		var k int
		fmt.Sscan(m[1], &k)
		if !known[k] {
			rep.InventedLeft++
			fail("marker [%d] names no reported citation", k)
		}
	}
	if len(marks) > len(rec.ValidCites) {
		rep.InventedLeft += len(marks) - len(rec.ValidCites)
		fail("%d more markers than valid citations: %q", len(marks)-len(rec.ValidCites), content)
	}
	if unresolved.MatchString(content) {
		rep.UnresolvedLeft++
		fail("unresolved marker left: %q", content)
	}
	for _, l := range rec.Leaked {
		if strings.Contains(content, l) {
			rep.LeakedLeft++
			fail("leaked id %s left", l)
		}
	}
}

// askDemo asks demo question i (streamed when i is odd). The OpenAI "user"
// field, tag-i, reaches the upstream untouched, so each answer gets its own
// seed while the questions repeat.
func askDemo(ctx context.Context, c *http.Client, url, tag string, i int) (string, string, guardWire, error) {
	stream := i%2 == 1
	body, _ := json.Marshal(map[string]any{"model": "mock-1", "stream": stream, "user": fmt.Sprintf("%s-%d", tag, i),
		"messages": []map[string]string{{"role": "user", "content": demoQuestions[i%len(demoQuestions)]}}})
	return ask(ctx, c, url, body, stream)
}

// ask sends one request and returns the completion id, the answer text and
// the guard object.
func ask(ctx context.Context, c *http.Client, url string, body []byte, stream bool) (string, string, guardWire, error) {
	return askTenant(ctx, c, url, "", body, stream)
}

// askTenant is ask for a tenant's partition (X-Tenant-ID, auth off; ""
// sends none).
func askTenant(ctx context.Context, c *http.Client, url, tenant string, body []byte, stream bool) (string, string, guardWire, error) {
	var g guardWire
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(string(body)))
	if err != nil {
		return "", "", g, err
	}
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", "", g, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", g, err
	}
	if resp.StatusCode != 200 {
		return "", "", g, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if !stream {
		var out struct {
			ID      string `json:"id"`
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
			Guard guardWire `json:"guard"`
		}
		if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) == 0 {
			return "", "", g, fmt.Errorf("not a completion: %s", b)
		}
		return out.ID, out.Choices[0].Message.Content, out.Guard, nil
	}
	var id string
	var text strings.Builder
	guards := 0
	for _, line := range strings.Split(string(b), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			ID      string `json:"id"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Guard *guardWire `json:"guard"`
			Error any        `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return "", "", g, fmt.Errorf("bad event %q: %w", data, err)
		}
		if ch.Error != nil {
			return "", "", g, fmt.Errorf("error event: %s", data)
		}
		if id == "" {
			id = ch.ID
		}
		if len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
		if ch.Guard != nil {
			g = *ch.Guard
			guards++
		}
	}
	if guards != 1 || !guardObject.Match(b) {
		return "", "", g, fmt.Errorf("stream carried %d guard objects, want 1", guards)
	}
	return id, text.String(), g, nil
}

func writeGauntletMarkdown(w io.Writer, r GauntletReport) {
	fmt.Fprintf(w, "## Marker gauntlet, end to end (%d answers, %d streamed; faults %s)\n\n", r.Answers, r.StreamedAnswers, r.Faults)
	fmt.Fprintf(w, "| injected | count |\n|---|---|\n")
	for _, k := range []string{"invented", "split", "malformed", "repeated", "leaked", "uncited"} {
		fmt.Fprintf(w, "| %s | %d |\n", k, r.Injected[k])
	}
	fmt.Fprintf(w, "\n| gauntlet dropped (reported) | count |\n|---|---|\n")
	for k, v := range r.DroppedByReason {
		fmt.Fprintf(w, "| %s | %d |\n", k, v)
	}
	fmt.Fprintf(w, "\n| check | value |\n|---|---|\n")
	fmt.Fprintf(w, "| refused by the gate (no upstream call) | %d |\n", r.Refused)
	fmt.Fprintf(w, "| valid citations kept | %d / %d |\n| unresolved markers left | %d |\n| leaked ids left | %d |\n| invented markers left | %d |\n| online auditor findings | %d |\n| answers/s (in-process, one client) | %.0f |\n\n",
		r.ValidKept, r.ValidCites, r.UnresolvedLeft, r.LeakedLeft, r.InventedLeft, r.AuditFindings, r.AnswersPerSecond)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "- %s\n", f)
	}
}
