package proxy

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/jsonw"
	"github.com/answer-guard/guard/judge"
)

var reportStrings = []string{"", "ground", "Opening hours", "a <b> & \"c\" \\", "\b\f\n\x00 \u2028 caf\u00e9", "bad \xff utf-8", "LF-4002"}

func randReport(r *rand.Rand) *Report {
	str := func() string { return reportStrings[r.IntN(len(reportStrings))] }
	flt := func() float64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return r.Float64() * 1e-7
		case 2:
			return math.Round(r.Float64()*1000) / 1000
		}
		return r.Float64() * 300
	}
	rep := &Report{Decision: gate.Decision(str())}
	if r.IntN(4) > 0 {
		rep.Coverage = &gate.Coverage{Max: flt(), PrimaryKindCount: r.IntN(5), Outline: r.IntN(9) - 1}
	}
	if r.IntN(4) > 0 {
		rep.Citations = []gauntlet.Citation{}
		for range r.IntN(4) {
			rep.Citations = append(rep.Citations, gauntlet.Citation{N: r.IntN(9), ID: str(), Title: str(), Address: str(), URL: str()})
		}
	}
	if r.IntN(4) > 0 {
		m := &MarkerReport{}
		m.Kept, m.Dropped = r.IntN(5), r.IntN(5)
		if r.IntN(2) == 0 {
			m.ByReason = map[string]int{}
			for range r.IntN(4) {
				m.ByReason[str()] = r.IntN(7)
			}
		}
		m.Audit = gauntlet.AuditReport{Markers: r.IntN(5), Invented: r.IntN(2), Broken: r.IntN(2), LeakedIDs: r.IntN(2),
			UnknownCitations: r.IntN(2), UnusedCitations: r.IntN(2), UnknownNamed: r.IntN(2)}
		for range r.IntN(3) {
			m.Audit.Findings = append(m.Audit.Findings, gauntlet.Finding{Kind: str(), Text: str(), Offset: r.IntN(90) - 1})
		}
		rep.Markers = m
	}
	if r.IntN(4) > 0 {
		rep.Claims = []judge.Claim{}
		for range r.IntN(4) {
			c := judge.Claim{Text: str(), Verdict: str(), Confidence: flt(), Severity: str(), Method: str(), Reliability: flt(),
				Risk: str(), Suggestion: str(), Evidence: str(), Reason: str(), Uncited: str()}
			if r.IntN(3) > 0 {
				c.Citations = []int{}
				for range r.IntN(3) {
					c.Citations = append(c.Citations, r.IntN(9))
				}
			}
			if r.IntN(5) == 0 {
				c.ClaimReview = map[string]any{"@type": "ClaimReview", "claimReviewed": str(), "reviewRating": map[string]any{"ratingValue": 1}}
			}
			rep.Claims = append(rep.Claims, c)
		}
	}
	if r.IntN(4) > 0 {
		rep.Summary = &judge.Summary{Claims: r.IntN(5), Verified: r.IntN(5), Miscited: r.IntN(5), Uncited: r.IntN(5), Gaps: r.IntN(5)}
	}
	if r.IntN(3) > 0 {
		rep.Degraded = []string{}
		for range r.IntN(3) {
			rep.Degraded = append(rep.Degraded, str())
		}
	}
	if r.IntN(4) > 0 {
		rep.LatencyMS = map[string]float64{}
		for _, k := range []string{"retrieve", "gate", "verify", "planner", "a<b"}[:r.IntN(6)] {
			rep.LatencyMS[k] = flt()
		}
	}
	if r.IntN(3) > 0 {
		rep.URLs = []string{}
		for range r.IntN(3) {
			rep.URLs = append(rep.URLs, str())
		}
	}
	return rep
}

// TestReportJSONAsMarshal holds the report's hand-written JSON
// (internal/jsonw) to what encoding/json made of the Report before, on
// random reports that use every field, escape and nil/empty case: a field
// added to Report, judge.Claim or the gauntlet's types fails here until the
// writer has it.
func TestReportJSONAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	for i := range 5000 {
		rep := randReport(r)
		want, _ := json.Marshal(rep)
		if got := rep.json(); string(got) != string(want) {
			t.Fatalf("report %d:\n got %s\nwant %s", i, got, want)
		}
		wantCites := []byte("[]")
		if len(rep.URLs) > 0 {
			wantCites, _ = json.Marshal(rep.URLs)
		}
		body := []byte(`{"id":"x","choices":[]}`)
		wantBody := jsonw.AppendMembers(body, citationsKey, wantCites, guardKey, want)
		if got := attachReportTo(body, rep, false); string(got) != string(wantBody) {
			t.Fatalf("report %d attached:\n got %s\nwant %s", i, got, wantBody)
		}
	}
	// NaN: Marshal fails and nothing is sent, as before.
	rep := &Report{Decision: gate.Ground, LatencyMS: map[string]float64{"gate": math.NaN()}}
	if got := rep.json(); len(got) != 0 {
		t.Errorf("NaN report = %s, want nothing (as json.Marshal)", got)
	}
}

// refUpstreamBody is upstreamBody as it was, the system message made by
// json.Marshal of a map.
func refUpstreamBody(r *chatRequest, model, system string) ([]byte, error) {
	body := r.raw
	var err error
	if model != r.model {
		if body, err = sjson.SetBytes(body, "model", model); err != nil {
			return nil, err
		}
	}
	if system != "" {
		sys, _ := json.Marshal(map[string]string{"role": "system", "content": system})
		arr := make([]byte, 0, len(sys)+len(body))
		arr = append(arr, '[')
		arr = append(arr, sys...)
		for _, m := range r.messages {
			arr = append(arr, ',')
			arr = append(arr, m.Raw...)
		}
		arr = append(arr, ']')
		if body, err = sjson.SetRawBytes(body, "messages", arr); err != nil {
			return nil, err
		}
	}
	switch {
	case !r.stream, r.includeUsage:
	case !r.hasStreamOpt:
		body = jsonw.AppendMembers(body, streamUsage)
	default:
		if body, err = sjson.SetBytes(body, "stream_options.include_usage", true); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// TestUpstreamBodyAsMarshal: the body sent upstream is the old code's to
// the byte.
func TestUpstreamBodyAsMarshal(t *testing.T) {
	bodies := requestBodies()
	bodies["stream"] = []byte(`{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"hours <b>?"}]}`)
	for name, body := range bodies {
		for _, system := range append(reportStrings, "Answer from the notes.\n\n[^1] Opening hours: 9\u20135 & <weekends>\b\f") {
			if system == "" {
				continue
			}
			r, ae := parseChatRequest(body, 64)
			if ae != nil {
				t.Fatal(ae)
			}
			if r.msgsEnd == 0 {
				t.Fatalf("%s: the messages array's place was not kept", name)
			}
			for _, model := range []string{"other", r.model} { // the one-pass body keeps the model
				got, err := r.upstreamBody(model, system)
				if err != nil {
					t.Fatal(err)
				}
				want, err := refUpstreamBody(r, model, system)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("%s, model %s, system %q:\n got %s\nwant %s", name, model, system, got, want)
				}
			}
		}
	}
}

// BenchmarkReportJSON writes the ground turn's golden report
// (testdata/report-ground.json) with internal/jsonw against json.Marshal,
// which wrote it before.
func BenchmarkReportJSON(b *testing.B) {
	raw, err := os.ReadFile("testdata/report-ground.json")
	if err != nil {
		b.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		b.Fatal(err)
	}
	b.Run("jsonw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = rep.json()
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&rep)
		}
	})
}

// BenchmarkUpstreamBody builds the upstream body of the anchor question
// with a grounded system prompt of eight 700-byte notes, against the code
// it replaced (json.Marshal of a map for the system message).
func BenchmarkUpstreamBody(b *testing.B) {
	system := "Answer the user's question using only the numbered notes below.\n" +
		strings.Repeat("[^1] (kind: reference; address: LF-4002) Error LF-4002 means the account is locked after five failed sign-ins; "+
			strings.Repeat("an administrator can unlock it from the console, or it unlocks by itself after 30 minutes & <no> action. ", 6)+"\n", 8)
	r, ae := parseChatRequest(requestBodies()["anchor"], 64)
	if ae != nil {
		b.Fatal(ae)
	}
	for _, impl := range []struct {
		name  string
		build func(*chatRequest, string, string) ([]byte, error)
	}{{"jsonw", (*chatRequest).upstreamBody}, {"marshal", refUpstreamBody}} {
		// The request's own model (a turn's common case: one pass) and
		// another one (sjson sets it).
		for _, model := range []string{r.model, "other"} {
			name := impl.name + "/same-model"
			if model != r.model {
				name = impl.name + "/other-model"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := impl.build(r, model, system); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
