package retrieve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
)

func TestFollowsUp(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		// openers
		{"and on sunday?", true},
		{"And on Sunday?", true},
		{"also, for kids?", true},
		{"what about dogs?", true},
		{"How about cats?", true},
		{"what if I'm late?", true},
		{"same for DVDs?", true},
		{"ok and for a medium dog?", true},
		{"but on weekends?", true},
		// short, refers back
		{"how much is it for kids?", true},
		{"do I need to book that?", true},
		{"how long does it take?", true},
		{"can I park there?", true},
		{"which one is cheaper?", true},
		{"do they need vaccinations?", true},
		{"is that free?", true},
		{"can I get one?", true},
		// no content word beyond the ask
		{"how much?", true},
		{"when?", true},
		{"what's the price?", true},
		{"how long?", true},
		{"What days?", true},
		{"which day?", true},
		{"what age?", true},
		{"what day is bin collection?", false},
		{"what days are you open?", false},
		// standalone
		{"is there parking?", false},
		{"are there lockers?", false},
		{"is it possible to pay by card?", false},
		{"how much does a full groom cost for a large dog?", false},
		{"can I bring my cat?", false},
		{"thanks! what's the capital of france?", false},
		{"who wrote war and peace?", false},
		{"what's your phone number?", false},
		{"when do you close?", false},
		{"opening hours?", false},
		{"thanks!", false},
		{"ok", false},
		{"", false},
		{"   ", false},
		{"how much is a one day pass?", false},
		{"does it matter if my dog has fleas, matted fur and bad teeth?", false},
	} {
		if got := FollowsUp(tt.msg); got != tt.want {
			t.Errorf("FollowsUp(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestFollowupQuery(t *testing.T) {
	for _, tt := range []struct {
		last, prev, want string
		followup         bool
	}{
		{"and on sunday?", "what time do you open on saturday?", "what time do you open on saturday?\nand on sunday?", true},
		{"and on sunday?", "", "and on sunday?", false},
		{"and on sunday?", "  ", "and on sunday?", false},
		{"is there parking?", "what time do you open on saturday?", "is there parking?", false},
		{"thanks! what's the capital of france?", "do you groom cats?", "thanks! what's the capital of france?", false},
		{"what's the weather going to be like this weekend?", "how much is a full groom?", "what's the weather going to be like this weekend?", false},
		{"is that one open this saturday?", "which branch is nearest?", "which branch is nearest?\nis that one open this saturday?", true},
		// a short question after a message that tells the customer's situation
		{"Is fitting extra?", "I need two new tyres", "I need two new tyres\nIs fitting extra?", true},
		{"Does she have to do anything first?", "Can my daughter use the gym?", "Can my daughter use the gym?\nDoes she have to do anything first?", true},
		{"How long do you keep my stuff?", "I've closed my account.", "I've closed my account.\nHow long do you keep my stuff?", true},
		{"What happens now?", "I'm a month behind on my rent.", "I'm a month behind on my rent.\nWhat happens now?", true},
		// ... but not one about the service in general, its contact details, a long one, or after a question
		{"do you take cash?", "My dog had a groom last month.", "do you take cash?", false},
		{"what are your opening hours?", "I need two new tyres", "what are your opening hours?", false},
		{"how tall is the eiffel tower?", "I need to store my furniture for six months.", "how tall is the eiffel tower?", false},
		{"Is fitting extra?", "do you sell tyres?", "Is fitting extra?", false},
		{"Is fitting extra?", "thanks", "Is fitting extra?", false},
		{"fitting is extra", "I need two new tyres", "fitting is extra", false},
	} {
		got, f := FollowupQuery(tt.last, tt.prev)
		if got != tt.want || f != tt.followup {
			t.Errorf("FollowupQuery(%q, %q) = %q, %v; want %q, %v", tt.last, tt.prev, got, f, tt.want, tt.followup)
		}
	}
}

// followupEngine is an engine with retrieve.followup on or off, the
// default configuration otherwise changed by mutate (may be nil).
func followupEngine(tb testing.TB, ic index.Config, on bool, mutate func(*Config)) *Engine {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.Followup = on
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := New(cfg, ic, nil, zap.NewNop())
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// A follow-up is retrieved for with the previous message; the result says
// so, and with retrieve.followup off the last message is read alone.
func TestRetrieveFollowup(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), nil)
	defer s.Close()
	for _, on := range []bool{true, false} {
		e := followupEngine(t, ic, on, nil)
		q := Query{Tenant: "acme", KB: "docs", Text: "and the port?", Previous: "how do I restore a backup"}
		r, err := e.RetrieveFrom(context.Background(), s, q)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := q.Text
		if on {
			want = q.Previous + "\n" + q.Text
		}
		if r.Query != want {
			t.Errorf("followup %v: Query %q; want %q", on, r.Query, want)
		}
	}
}

// The remote rewriter is given the previous user message as context when
// followup is on, and not when it is off.
func TestRewriteGetsPreviousMessage(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "keywords: backup port"}}}})
	}))
	defer srv.Close()
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), nil)
	defer s.Close()
	for _, on := range []bool{true, false} {
		e := followupEngine(t, ic, on, func(c *Config) {
			c.Rewrite = RewriteConfig{Enabled: true, BaseURL: srv.URL + "/v1", Model: "m", Max: 3, Timeout: DefaultConfig().Rewrite.Timeout}
		})
		_, err := e.RetrieveFrom(context.Background(), s, Query{Tenant: "acme", KB: "docs", Text: "is there parking?", Previous: "how do I restore a backup"})
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		last := bodies[len(bodies)-1]
		mu.Unlock()
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal([]byte(last), &req); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(last, "how do I restore a backup")
		if got != on {
			t.Errorf("followup %v: the rewriter saw the previous message %v, want %v (%s)", on, got, on, last)
		}
		if n := len(req.Messages); n == 0 || req.Messages[n-1].Content != "is there parking?" {
			t.Errorf("followup %v: the rewriter's last message is not the question: %s", on, last)
		}
	}
}

var followupSink bool

// BenchmarkFollowsUp is the rule's cost per message, on a mix of
// follow-up and standalone messages.
func BenchmarkFollowsUp(b *testing.B) {
	msgs := []string{"and on sunday?", "how much is it for kids?", "is there parking?",
		"thanks! what's the capital of france?", "how much does a full groom cost for a large dog?", "what about dogs?"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		followupSink = FollowsUp(msgs[i%len(msgs)])
		i++
	}
}

// BenchmarkFollowupQuery is the whole decision for a last message and the
// one before it (FollowsUp, then Statement and shortQuestion when it does
// not follow up), on a mix of chats.
func BenchmarkFollowupQuery(b *testing.B) {
	chats := [][2]string{{"and on sunday?", "what time do you open on saturday?"}, {"Is fitting extra?", "I need two new tyres"},
		{"do you take cash?", "My dog had a groom last month."}, {"is there parking?", "how much is a day pass?"},
		{"how much does a full groom cost for a large dog?", "I've got a spaniel."}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := chats[i%len(chats)]
		_, followupSink = FollowupQuery(c[0], c[1])
		i++
	}
}

// BenchmarkRetrieveFollowup is one follow-up turn's retrieval with the rule
// off (the last message alone) and on (joined with the previous message):
// the cost of the rule's effect, a longer query, not of the rule.
func BenchmarkRetrieveFollowup(b *testing.B) {
	ic := index.DefaultConfig()
	_, s := buildSnap(b, ic, testDocs(), nil)
	defer s.Close()
	q := Query{Tenant: "acme", KB: "docs", Text: "and the port?", Previous: "how do I restore a backup"}
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			e := followupEngine(b, ic, on, func(c *Config) { c.QuestionCacheMB = 0 })
			defer e.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.RetrieveFrom(context.Background(), s, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzFollowupQuery: any pair of messages. No panic; with no previous
// message the query is the last message alone; a follow-up's query is the
// previous message, a newline and the last message; FollowsUp agrees with
// FollowupQuery.
func TestContext(t *testing.T) {
	for _, tt := range []struct{ prev, before, want string }{
		{"i booked for today", "can i get a refund on a play session", "can i get a refund on a play session\ni booked for today"},
		{"how long does that take?", "how much to fix a puncture?", "how much to fix a puncture?\nhow long does that take?"},
		{"Can she use the gym?", "My daughter is 12.", "My daughter is 12.\nCan she use the gym?"},
		{"is there parking?", "what time do you open?", "is there parking?"},
		{"i booked for today", "", "i booked for today"},
		{"i booked for today", "I moved house.", "i booked for today"},
	} {
		if got := Context(tt.prev, tt.before); got != tt.want {
			t.Errorf("Context(%q, %q) = %q, want %q", tt.prev, tt.before, got, tt.want)
		}
	}
}

func TestStatement(t *testing.T) {
	for msg, want := range map[string]bool{
		"I need two new tyres": true, "I've closed my account.": true, "my dog is 14 and gets stressed easily": true,
		"do you sell tyres?": false, "can I park there": false, "is there parking": false, "what time do you open": false,
		"thanks": false, "ok": false, "": false, "I need two new tyres?": false, "does it hurt": false,
	} {
		if got := Statement(msg); got != want {
			t.Errorf("Statement(%q) = %v, want %v", msg, got, want)
		}
	}
}

func FuzzFollowupQuery(f *testing.F) {
	for _, s := range [][2]string{{"and on sunday?", "what time do you open?"}, {"is there parking?", "x"},
		{"İt \xff THERE", "İİ"}, {"", ""}, {"one", "\u212a"}, {"what about", "  "}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, last, prev string) {
		q, fu := FollowupQuery(last, prev)
		switch {
		case fu != (strings.TrimSpace(prev) != "" && (FollowsUp(last) || Statement(prev) && shortQuestion(last))):
			t.Fatalf("FollowupQuery(%q, %q) followup %v, FollowsUp %v, Statement %v, shortQuestion %v", last, prev, fu, FollowsUp(last), Statement(prev), shortQuestion(last))
		case !fu && q != last:
			t.Fatalf("FollowupQuery(%q, %q) = %q, want the last message alone", last, prev, q)
		case fu && q != strings.TrimSpace(prev)+"\n"+last:
			t.Fatalf("FollowupQuery(%q, %q) = %q, want both", last, prev, q)
		}
	})
}
