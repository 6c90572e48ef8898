package judge

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var longNote = Passage{ID: "kb/aspirin", Title: "Aspirin", Text: aspirinNote + " " +
	"Aspirin is also used to reduce fever and to relieve mild to moderate pain such as headaches. " +
	"Low doses are taken daily by many people to prevent blood clots from forming."}

var otherNote = Passage{ID: "kb/penicillin", Title: "Penicillin", Text: "Penicillin was discovered by Alexander Fleming in London in 1928. " +
	"It was the first widely used antibiotic and saved millions of lives during the Second World War. " +
	"Mass production began in the United States in 1942, led by a team at the Northern Regional Research Laboratory. " +
	"Many bacteria have since become resistant to penicillin, which limits its use today in hospitals. " +
	"Howard Florey and Ernst Chain turned it into a medicine at Oxford, and the three shared the Nobel Prize in Physiology or Medicine in 1945 for this work."}

func newJudge(t *testing.T, mut func(*Config)) *Judge {
	t.Helper()
	cfg := DefaultConfig()
	if mut != nil {
		mut(&cfg)
	}
	j, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestCheckStrictDrops(t *testing.T) {
	j := newJudge(t, func(c *Config) { c.Mode = "strict" })
	short := Passage{ID: "kb/short", Title: "Short", Text: "Aspirin was synthesised in 1897."}
	cited := map[int]Passage{1: longNote, 2: otherNote, 3: short}
	tests := []struct {
		name     string
		sentence string
		verdict  string
		drop     []int
		risk     string
	}{
		{"supported keeps", "Felix Hoffmann synthesised aspirin at Bayer in 1897 [1]. ", Entailment, nil, "low"},
		{"changed number drops", "Felix Hoffmann synthesised aspirin at Bayer in 1899 [1]. ", Contradiction, []int{1}, "high"},
		{"unsupported drops", "Aspirin cures the common cold within two days [1]. ", Neutral, []int{1}, "high"},
		{"unresolved marker drops", "Felix Hoffmann synthesised aspirin at Bayer in 1897 [1][9]. ", Entailment, []int{9}, "low"},
		{"contradicting second source dropped", "Felix Hoffmann synthesised aspirin at Bayer in 1897 [1][2]. ", Entailment, nil, "low"},
		{"short cited passage verified", "Aspirin was synthesised in 1897 [3]. ", Entailment, nil, "low"},
		{"short cited passage contradicted", "Aspirin was synthesised in 1899 [3]. ", Contradiction, []int{3}, "high"},
		{"opinion skipped", "I think aspirin is wonderful [1]. ", Opinion, nil, "n/a"},
		{"uncited", "Aspirin was synthesised in Germany by chemists. ", Neutral, nil, "high"},
		{"not a claim", "## Aspirin\n", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, drop := j.Check(context.Background(), tt.sentence, cited)
			if c.Verdict != tt.verdict || !reflect.DeepEqual(drop, tt.drop) || c.Risk != tt.risk {
				t.Errorf("Check(%q) = %s drop %v risk %s (%+v), want %s drop %v risk %s", tt.sentence, c.Verdict, drop, c.Risk, c, tt.verdict, tt.drop, tt.risk)
			}
		})
	}
}

// TestStrictNeverEmitsContradictedCitation streams an answer with a changed
// number through the splitter and Check, as the proxy does in strict mode,
// and checks no emitted sentence keeps a citation judged contradicted.
func TestStrictNeverEmitsContradictedCitation(t *testing.T) {
	j := newJudge(t, func(c *Config) { c.Mode = "strict" })
	cited := map[int]Passage{1: longNote, 2: otherNote}
	answer := "Aspirin was first synthesised by Felix Hoffmann at Bayer in 1897 [1]. " +
		"In the ASPREE trial of 25,000 older adults, daily aspirin did not prolong disability-free survival [1]. " +
		"Penicillin was discovered by Alexander Fleming in 1935 [2]. " +
		"Mass production of penicillin began in the United States in 1942 [2]."
	s := NewSplitter()
	var out strings.Builder
	var claims []Claim
	emit := func(sents []string) {
		for _, sent := range sents {
			c, drop := j.Check(context.Background(), sent, cited)
			claims = append(claims, c)
			for _, n := range drop {
				sent = strings.ReplaceAll(sent, "["+strconv.Itoa(n)+"]", "")
			}
			out.WriteString(sent)
		}
	}
	for i := 0; i < len(answer); i += 5 {
		emit(s.Feed(answer[i:min(len(answer), i+5)]))
	}
	emit(s.Flush())
	var contradicted int
	for _, c := range claims {
		if c.Verdict == Contradiction {
			contradicted++
			if c.Severity != Critical || c.Evidence == "" || c.ClaimReview == nil {
				t.Errorf("contradiction %q: severity %s, evidence %q, review %v", c.Text, c.Severity, c.Evidence, c.ClaimReview != nil)
			}
		}
	}
	if contradicted != 2 {
		t.Errorf("contradictions = %d, want 2: %+v", contradicted, claims)
	}
	got := out.String()
	for _, bad := range []string{"25,000 older adults, daily aspirin did not prolong disability-free survival [1]", "in 1935 [2]"} {
		if strings.Contains(got, bad) {
			t.Errorf("strict output kept a contradicted citation: %q in %q", bad, got)
		}
	}
	for _, good := range []string{"Bayer in 1897 [1].", "in 1942 [2]."} {
		if !strings.Contains(got, good) {
			t.Errorf("strict output lost a supported citation %q: %q", good, got)
		}
	}
	rep := j.Finish(context.Background(), claims, nil, nil)
	if want := (Summary{Claims: 4, Verified: 2, Miscited: 2}); rep.Summary != want {
		t.Errorf("summary = %+v, want %+v", rep.Summary, want)
	}
	var b strings.Builder
	if err := j.WriteMetrics(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "guard_judge_citations_dropped_total 2\n") || !strings.Contains(b.String(), `guard_judge_verdicts_total{verdict="contradiction"} 2`) {
		t.Errorf("metrics:\n%s", b.String())
	}
}

type fakeKBs struct {
	kb string
	p  Passage
}

func (f fakeKBs) Find(_ context.Context, sentence string) (string, Passage, bool) {
	if strings.Contains(sentence, "Fleming") {
		return f.kb, f.p, true
	}
	return "", Passage{}, false
}

func TestReportUncitedAndFooter(t *testing.T) {
	j := newJudge(t, func(c *Config) { c.Footer = true })
	pool := []Passage{longNote, {ID: "kb/unrelated", Title: "Rivers", Text: strings.Repeat("The Nile is a long river in Africa. ", 20)}}
	cited := map[int]Passage{1: longNote}
	answer := "## Aspirin\n\nAspirin was first synthesised by Felix Hoffmann at Bayer in 1897 [1]. " +
		"Low doses are taken daily by many people to prevent blood clots. " +
		"Penicillin was discovered by Alexander Fleming in London. " +
		"Aspirin tablets are coloured blue in Norway by law. " +
		"I hope this helps!"
	rep := j.Report(context.Background(), answer, cited, pool, fakeKBs{kb: "medicine-history", p: otherNote})
	byClass := map[string]Claim{}
	for _, c := range rep.Claims {
		byClass[c.Uncited] = c
	}
	if c := byClass["likely_missed"]; !strings.Contains(c.Suggestion, "kb/aspirin") || !strings.HasPrefix(c.Text, "Low doses") {
		t.Errorf("likely_missed = %+v", c)
	}
	if c := byClass["other_kb"]; !strings.Contains(c.Suggestion, "medicine-history") || !strings.HasPrefix(c.Text, "Penicillin") {
		t.Errorf("other_kb = %+v", c)
	}
	if c := byClass["gap"]; !strings.HasPrefix(c.Text, "Aspirin tablets") || c.Risk != "high" {
		t.Errorf("gap = %+v", c)
	}
	if want := (Summary{Claims: 4, Verified: 1, Uncited: 3, Gaps: 1}); rep.Summary != want {
		t.Errorf("summary = %+v, want %+v", rep.Summary, want)
	}
	if !strings.Contains(rep.Footer, "4 claims, 1 verified") || rep.Degraded != nil {
		t.Errorf("footer %q degraded %v", rep.Footer, rep.Degraded)
	}
}

func TestReportDegradesToLocal(t *testing.T) {
	s := &scriptedJudge{block: make(chan struct{})}
	_, srv := newScripted(t, s)
	j := newJudge(t, func(c *Config) {
		c.Verifier, c.LLM.BaseURL, c.LLM.Model = "both", srv.URL+"/v1", "judge-model"
		c.LLM.Timeout, c.SentenceTimeout = 50*time.Millisecond, time.Second
	})
	rep := j.Report(context.Background(), "Felix Hoffmann synthesised aspirin at Bayer in 1899 [1].", map[int]Passage{1: longNote}, nil, nil)
	if !slices.Equal(rep.Degraded, []string{"judge"}) || len(rep.Claims) != 1 {
		t.Fatalf("report = %+v, want degraded judge", rep)
	}
	c := rep.Claims[0]
	if c.Verdict != Contradiction || c.Method != "local" || c.Reason != reasonDegraded {
		t.Errorf("claim = %+v, want local contradiction marked degraded", c)
	}
	if got := j.m.degraded.Load(); got != 1 {
		t.Errorf("degraded count = %d, want 1", got)
	}
}

func TestReportUsesLLM(t *testing.T) {
	s := &scriptedJudge{first: answer("contradicted", 0.95)}
	_, srv := newScripted(t, s)
	j := newJudge(t, func(c *Config) {
		c.Verifier, c.LLM.BaseURL, c.LLM.Model = "llm", srv.URL+"/v1", "judge-model"
	})
	rep := j.Report(context.Background(), "Aspirin reduces the risk of heart attack [1]. It also relieves headaches [1].", map[int]Passage{1: longNote}, nil, nil)
	if len(rep.Claims) != 2 || rep.Degraded != nil {
		t.Fatalf("report = %+v", rep)
	}
	for _, c := range rep.Claims {
		if c.Verdict != Contradiction || c.Method != "llm" || c.Evidence != "quoted span" {
			t.Errorf("claim = %+v, want the LLM's verdict", c)
		}
	}
	if s.calls != 2 {
		t.Errorf("calls = %d, want 2", s.calls)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	c := DefaultConfig()
	c.Mode, c.Verifier, c.ChainPoll.Agree, c.ChainPoll.High, c.MinContextChars, c.Concurrency = "loose", "llm", 5, 0.2, -1, 0
	c.Reliability.Resolves, c.Reliability.HighBelow, c.Reliability.LowFrom = 1.5, 0.8, 0.6
	err := c.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"mode:", "llm.base_url:", "llm.model:", "chainpoll.agree:", "chainpoll.high:", "min_context_chars:", "concurrency:",
		"reliability.resolves:", "reliability.high_below:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := New(c, nil); err == nil {
		t.Error("New accepted a bad config")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 9 {
		t.Errorf("want 9 joined errors, got %v", err)
	}
}

// The reliability weights and risk bands come from the configuration.
func TestReliabilityWeightsFromConfig(t *testing.T) {
	const sentence = "Felix Hoffmann synthesised aspirin at Bayer in 1897 [1]. "
	cited := map[int]Passage{1: longNote}
	def, _ := newJudge(t, nil).Check(context.Background(), sentence, cited)
	if def.Verdict != Entailment {
		t.Fatalf("verdict %s, want entailment", def.Verdict)
	}
	// default: 0.30 + 0.30 + 0.40*confidence
	if want := round3(0.60 + 0.40*def.Confidence); def.Reliability != want || def.Risk != "low" {
		t.Errorf("default reliability %v risk %s, want %v low", def.Reliability, def.Risk, want)
	}
	got, _ := newJudge(t, func(c *Config) {
		c.Reliability = ReliabilityConfig{HasSource: 0.1, Resolves: 0.1, Confidence: 0.2, HighBelow: 0.35, LowFrom: 0.9}
	}).Check(context.Background(), sentence, cited)
	if want := round3(0.20 + 0.20*got.Confidence); got.Reliability != want || got.Risk != "medium" {
		t.Errorf("configured reliability %v risk %s, want %v medium", got.Reliability, got.Risk, want)
	}
}

func BenchmarkCheckSentence(b *testing.B) {
	j, _ := New(DefaultConfig(), nil)
	cited := map[int]Passage{1: longNote, 2: otherNote}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		j.Check(ctx, "In the ASPREE trial of 25,000 older adults, daily aspirin did not prolong disability-free survival [1]. ", cited)
	}
}

// BenchmarkReportTypicalAnswer is the time report mode adds at the end of
// the stream for a typical eight-sentence answer with two sources.
func BenchmarkReportTypicalAnswer(b *testing.B) {
	j, _ := New(DefaultConfig(), nil)
	cited := map[int]Passage{1: longNote, 2: otherNote}
	pool := []Passage{longNote, otherNote}
	answer := "## Aspirin and penicillin\n\n" +
		"Aspirin was first synthesised by Felix Hoffmann at Bayer in 1897 [1]. " +
		"It reduces the risk of heart attack in adults with cardiovascular disease [1]. " +
		"In the ASPREE trial of 19,114 older adults, aspirin did not prolong disability-free survival [1]. " +
		"Bleeding was more frequent, at 3.8 percent versus 2.8 percent [1]. " +
		"Penicillin was discovered by Alexander Fleming in London in 1928 [2]. " +
		"Mass production began in the United States in 1942 [2]. " +
		"Low doses are taken daily to prevent blood clots. " +
		"Both drugs remain widely used today."
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		j.Report(ctx, answer, cited, pool, nil)
	}
}

// The minimum-context rule applies where seed 000 applies it: a cited
// claim is verified against its cited passage however short the turn's
// notes are; an uncited sentence is not judged against notes that total
// fewer than MinContextChars (and says why), and is judged against them
// when they are long enough.
func TestTurnCombinedContext(t *testing.T) {
	j := newJudge(t, nil)
	lamp := Passage{ID: "faq/lamp", Title: "Lighthouse", Text: "The Skerry lighthouse was first lit on 14 March 1887 and has been automated since 1989."}
	bus := Passage{ID: "faq/bus", Title: "Bus", Text: "The harbour bus leaves every 20 minutes from the quay between 7:00 and 19:00."}
	filler := Passage{ID: "faq/filler", Text: strings.Repeat("Visitors may walk the cliff path at their own risk. ", 8)}
	cited := map[int]Passage{1: lamp, 2: bus}
	const uncited = "The Skerry lighthouse has been automated since 1989."
	for _, notes := range [][]Passage{{lamp, bus}, {lamp, bus, filler}} {
		turn := j.Turn(notes)
		for _, tt := range []struct {
			sentence, verdict string
		}{
			{"The Skerry lighthouse was first lit on 21 March 1887 [1].", Contradiction},
			{"The Skerry lighthouse was first lit on 14 March 1887 [1].", Entailment},
			{"The harbour bus leaves every 45 minutes from the quay [2].", Contradiction},
			{"The lighthouse has been automated since 1989 [1].", Entailment},
		} {
			c, _ := turn.Check(context.Background(), tt.sentence, cited)
			if c.Verdict != tt.verdict {
				t.Errorf("context %d chars: %q: %s (%s), want %s", turn.Chars(), tt.sentence, c.Verdict, c.Reason, tt.verdict)
			}
			if tt.verdict == Contradiction && (c.Evidence == "" || c.ClaimReview == nil) {
				t.Errorf("%q: contradiction without evidence span or ClaimReview: %+v", tt.sentence, c)
			}
		}
		c, _ := turn.Check(context.Background(), uncited, cited)
		r := j.Finish(context.Background(), []Claim{c}, notes, nil)
		got := r.Claims[0]
		if turn.Chars() < 500 {
			if got.Verdict != NotChecked || got.Uncited != UncitedNotChecked || !strings.Contains(got.Reason, "combined context") {
				t.Errorf("context %d chars: uncited %q: %s/%s (%q), want not_checked naming the combined context", turn.Chars(), uncited, got.Verdict, got.Uncited, got.Reason)
			}
			continue
		}
		if got.Uncited != "likely_missed" {
			t.Errorf("context %d chars: uncited %q: %s/%s, want likely_missed", turn.Chars(), uncited, got.Verdict, got.Uncited)
		}
	}
}

// TestTurnInline: only the local verifier without the encoder runs on the
// caller's goroutine; a remote judge (network) or the encoder (milliseconds)
// keep their own.
func TestTurnInline(t *testing.T) {
	for _, tc := range []struct {
		verifier, encoder string
		want              bool
	}{{"local", "off", true}, {"local", "embedded", false}, {"llm", "off", false}, {"both", "off", false}} {
		cfg := DefaultConfig()
		cfg.Verifier, cfg.Local.Encoder = tc.verifier, tc.encoder
		cfg.LLM.BaseURL, cfg.LLM.Model = "http://127.0.0.1:9/v1", "judge"
		j, err := New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := j.Turn(nil).Inline(); got != tc.want {
			t.Errorf("verifier %s, encoder %s: Inline() = %v, want %v", tc.verifier, tc.encoder, got, tc.want)
		}
		j.Close()
	}
}
