package judge

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/answer-guard/guard/index/encoder"
)

// Conditions and scope: a claim that widens, drops or shifts a condition
// of its evidence is not entailed; one that keeps it (in other words) is.
func TestScopeVerdicts(t *testing.T) {
	const (
		parking  = "Parking is free for the first 3 hours; after that it costs 2 euros an hour."
		children = "Children under 5 travel free; children aged 5 to 15 pay half fare."
		sauna    = "The sauna is open to guests aged 18 and over."
		pool     = "The outdoor pool is open from May to September, daily from 10:00 to 19:00."
		reading  = "The reading room is open Monday to Thursday from 9:00 to 20:00."
		leave    = "New employees receive 25 days of paid leave per year after their probation period."
		withdraw = "Withdrawals are free at our own machines; other banks' machines charge 2 euros."
	)
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct {
		evidence, claim, label, reason string
	}{
		{parking, "The car park is free all day.", Contradiction, ReasonScopeWidened},
		{parking, "Parking is free.", Contradiction, ReasonConditionDropped},
		{parking, "You can park for free for the first three hours.", Entailment, ""},
		{children, "All children travel free.", Contradiction, ReasonScopeWidened},
		{children, "Children under 10 travel free.", Contradiction, ReasonRangeMismatch},
		{children, "Kids younger than 5 ride for free.", Entailment, ""},
		{children, "Children aged 5 to 12 pay half fare.", Entailment, ""},
		{sauna, "The sauna is open to all guests.", Contradiction, ReasonScopeWidened},
		{sauna, "The sauna is open to everyone aged 12 and over.", Contradiction, ""},
		{pool, "The outdoor pool is open all year.", Contradiction, ReasonScopeWidened},
		{pool, "From May to September the outdoor pool opens every day at 10:00.", Entailment, ""},
		{reading, "The reading room is open every weekday from 9:00 to 20:00.", Contradiction, ReasonScopeWidened},
		{reading, "From Monday through Thursday the reading room opens at 9:00 and closes at 20:00.", Entailment, ""},
		{leave, "New employees receive 25 days of paid leave per year.", Neutral, ReasonConditionDropped},
		// a clause without conditions, another that contrasts with it
		{withdraw, "Withdrawals are free at any cash machine.", Contradiction, ReasonScopeWidened},
		{withdraw, "Withdrawals are free at our own machines.", Entailment, ""},
	} {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "faq", Text: tt.evidence}})
		switch {
		case tt.label[0] == '!' && got.Label == tt.label[1:]:
			t.Errorf("%q against %q: got %s (%s), want anything but %s", tt.claim, tt.evidence, got.Label, got.Reason, tt.label[1:])
		case tt.label[0] != '!' && got.Label != tt.label:
			t.Errorf("%q against %q: got %s (%s), want %s", tt.claim, tt.evidence, got.Label, got.Reason, tt.label)
		case tt.reason != "" && got.Reason != tt.reason:
			t.Errorf("%q: reason %q, want %q", tt.claim, got.Reason, tt.reason)
		case got.Label != Entailment && got.Evidence == "":
			t.Errorf("%q: %s without an evidence span", tt.claim, got.Label)
		}
	}
}

func TestScopeOff(t *testing.T) {
	cfg := DefaultConfig().Local
	cfg.Scope = "off"
	got, _ := NewLocal(cfg).Verify(context.Background(), "All children travel free.",
		[]Passage{{N: 1, Text: "Children under 5 travel free; children aged 5 to 15 pay half fare."}})
	if got.Reason == ReasonScopeWidened {
		t.Errorf("scope off: reason %s", got.Reason)
	}
}

func FuzzAnalyseScope(f *testing.F) {
	for _, s := range []string{"from May to September, daily from 10:00 to 19:00", "24/7", "under 5; aged 5 to 15", "Monday to", "9pm", "1:", "first"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		analyseScope(s)
		checkScope(s, s+"; "+s)
	})
}

// faqNote is a short FAQ note with conditions, and faqClaims sentences
// about it: widened, dropped, shifted and faithful.
const faqNote = "Parking is free for the first 3 hours; after that it costs 2 euros an hour. Children under 5 travel free on the shuttle bus, which runs Monday to Thursday from 7:00 to 19:00."

var faqClaims = []string{
	"The car park is free all day [1].",
	"Parking is free for the first three hours [1].",
	"Children under 10 travel free on the shuttle bus [1].",
	"The shuttle bus runs every weekday [1].",
}

// Per-sentence cost of the local verifier with the scope rules, without
// the encoder (the goal is under 1 ms a sentence): analysed note cached,
// as the judge caches it.
func BenchmarkLocalVerifyFAQScope(b *testing.B) {
	v := NewLocal(DefaultConfig().Local)
	docs := []*prepared{prepare("Parking and shuttle", faqNote)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.verify(faqClaims[i%len(faqClaims)], docs)
		i++
	}
}

// The same with the embedded sentence encoder's similarity (two
// embeddings a sentence: the claim and its best window).
func BenchmarkLocalVerifyFAQEncoder(b *testing.B) {
	enc, err := encoder.Default()
	if err != nil {
		b.Fatal(err)
	}
	v := NewLocal(DefaultConfig().Local).WithEncoder(enc)
	docs := []*prepared{prepare("Parking and shuttle", faqNote)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.verify(faqClaims[i%len(faqClaims)], docs)
		i++
	}
}

// A range the claim keeps does not excuse a number it changes elsewhere.
func TestScopeRangeDoesNotExcuseChangedNumber(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	ev := []Passage{{N: 1, Text: "The Skerry lighthouse tower is 38 metres tall and its light can be seen from 22 nautical miles out at sea on a clear night."}}
	got, _ := v.Verify(context.Background(), "The Skerry lighthouse tower is 83 metres tall and its light can be seen from 22 nautical miles out at sea on a clear night.", ev)
	if got.Label != Contradiction {
		t.Errorf("changed height: %s (%s), want contradiction", got.Label, got.Reason)
	}
}

// A one-sided bound is a time or a limit, not a range to narrow: another
// number in it is a changed fact.
func TestScopeOneSidedBoundNotExcused(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct{ evidence, claim string }{
		{"The account unlocks after 30 minutes or when an administrator unlocks it.", "The account unlocks after 67 minutes or when an administrator unlocks it."},
		{"Members may borrow up to 20 books at a time.", "Members may borrow up to 10 books at a time."},
	} {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.evidence}})
		if got.Label == Entailment {
			t.Errorf("%q against %q: entailment (%s), want not entailed", tt.claim, tt.evidence, got.Detail)
		}
	}
}

// A limit in other units is the same limit.
func TestScopeUnits(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct{ evidence, claim, want string }{
		{"After ten failed password attempts within 15 minutes an account is locked for 30 minutes.", "After ten failed password attempts within 900 seconds an account is locked for 30 minutes.", Entailment},
		{"The account unlocks after 30 minutes or when an administrator unlocks it.", "The account unlocks after 1800 seconds or when an administrator unlocks it.", Entailment},
		{"Parking is free for the first 3 hours; after that it costs 2 euros an hour.", "Parking is free for the first 180 minutes.", Entailment},
		{"Parking is free for the first 3 hours; after that it costs 2 euros an hour.", "Parking is free for the first 5 hours.", Contradiction},
	} {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.evidence}})
		if got.Label != tt.want {
			t.Errorf("%q against %q: %s (%s %s), want %s", tt.claim, tt.evidence, got.Label, got.Reason, got.Detail, tt.want)
		}
	}
}

// readScope reads a window from the cache (scopeWindows) exactly as it
// reads it fresh: every claim against every window, and every clause of a
// window as the carrier, on a cold cache, then from it, in both orders.
func TestReadScopeCachedEqualsFresh(t *testing.T) {
	windows := []string{
		"Parking is free for the first 3 hours; after that it costs 2 euros an hour.",
		"Children under 5 travel free; children aged 5 to 15 pay half fare.",
		"The outdoor pool is open from May to September, daily from 10:00 to 19:00.",
		"The reading room is open Monday to Thursday from 9:00 to 20:00.",
		"Entry is free for people aged 65 and over and for pregnant women.",
		"Withdrawals are free at our own machines; other banks' machines charge 2 euros.",
		"Returns are accepted within 30 days (except sale items) with a receipt.",
		faqNote, "", ";",
	}
	claims := append([]string{
		"Parking is free.", "All children travel free.", "Withdrawals are free at any cash machine.",
		"The pool is open all year.", "Sale items can be returned within 30 days.", "Entry is free for everyone.",
		"From Monday through Thursday the reading room opens at 9:00 and closes at 20:00.",
	}, faqClaims...)
	type read struct {
		f             scopeFinding
		bad, restated bool
	}
	fresh := map[[2]string]read{}
	for _, w := range windows {
		for _, c := range claims {
			scopeWindows.m.reset()
			f, bad, restated := readScope(c, w)
			fresh[[2]string{c, w}] = read{f, bad, restated}
		}
	}
	// each part of the cached window is what readScope computed inline
	for _, win := range windows {
		w := scopeWindows.get(win)
		if !reflect.DeepEqual(w.clauses, scopeClauses(win)) {
			t.Errorf("%q: clauses %q, want %q", win, w.clauses, scopeClauses(win))
		}
		after := false
		for i, c := range w.clauses {
			after = after || analyseScope(c).after
			if !reflect.DeepEqual(w.terms[i], analyse(c)) {
				t.Errorf("%q clause %d: terms differ", win, i)
			}
			ev := analyseScope(unbracket(c))
			cond := map[string]bool{}
			for _, k := range ev.conds {
				for _, t := range analyse(k.text) {
					cond[t.stem] = true
				}
			}
			for _, x := range ev.words {
				for _, t := range analyse(x.cue) {
					cond[t.stem] = true
				}
				for _, st := range x.stems {
					cond[st] = true
				}
			}
			cr := w.carrier(i)
			if !reflect.DeepEqual(cr.ev, ev) || !reflect.DeepEqual(cr.cond, cond) || !reflect.DeepEqual(cr.content, analyse(normPhrases(c))) {
				t.Errorf("%q clause %d: carrier differs", win, i)
			}
		}
		if w.after != after {
			t.Errorf("%q: after %v, want %v", win, w.after, after)
		}
	}
	for pass := range 2 {
		for i := range windows {
			w := windows[i]
			if pass == 1 {
				w = windows[len(windows)-1-i]
			}
			for _, c := range claims {
				f, bad, restated := readScope(c, w)
				if got, want := (read{f, bad, restated}), fresh[[2]string{c, w}]; !reflect.DeepEqual(got, want) {
					t.Errorf("pass %d: readScope(%q, %q) = %+v, fresh %+v", pass, c, w, got, want)
				}
			}
		}
	}
}

// porterStem gives porterstemmer.StemString's stem, from the table or not,
// when words collide in a slot and when many goroutines stem at once.
func TestPorterStem(t *testing.T) {
	words := strings.Fields("running runs ran runner generalization generalizations connected connecting relational " +
		"conditional rational valency hopeful goodness formalize electricity adjustable dependent adoption " +
		"parking children travel free prices opening hours saturday pensioners seniors discount puncture tyre")
	for i := range 40000 { // more words than slots: collisions replace entries
		words = append(words, fmt.Sprintf("word%dings", i))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for pass := range 2 {
				for k := range words {
					w := words[(k*(g+1))%len(words)]
					if got, want := porterStem(w), porterstemmer.StemString(w); got != want {
						t.Errorf("pass %d: porterStem(%q) = %q, want %q", pass, w, got, want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkAnalyseClaim is the word analysis of one answer sentence, the
// step every claim and evidence clause goes through (stems remembered by
// porterStem after the first op).
func BenchmarkAnalyseClaim(b *testing.B) {
	const s = "Puncture repair costs 8 pounds per wheel, including a new inner tube, and the shop is open Tuesday to Saturday."
	b.ReportAllocs()
	for b.Loop() {
		analyse(normPhrases(s))
	}
}

// A claim that is its source's sentence, or states the same limit as the
// sentence, widens nothing, though the sentence holds a universal ("any
// time", "every") beside its own limit (trial 5).
func TestScopeOwnLimitKept(t *testing.T) {
	const (
		pause = "You can pause, skip a delivery or cancel your subscription any time from your account page, as long as you do it before 9am on the day before your next roast date. There's no minimum term."
		roast = "We roast every Monday, Wednesday and Friday, and we only ship beans within 48 hours of roasting, so they arrive fresh."
	)
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct {
		evidence, claim, label, reason string
	}{
		{pause, "You can pause, skip a delivery or cancel your subscription any time from your account page, as long as you do it before 9am on the day before your next roast date.", Entailment, "covered"},
		{pause, "You can pause, skip a delivery or cancel your subscription any time from your account page, as long as you do it before 9am on the day before your next roast date [1].", Entailment, "covered"},
		{pause, "You can cancel your subscription any time from your account page, as long as you do it before 9am on the day before your next roast date.", Entailment, "covered"},
		{roast, "We roast every Monday, Wednesday and Friday, and we only ship beans within 48 hours of roasting, so they arrive fresh.", Entailment, "covered"},
		{roast, "We roast every Monday, Wednesday and Friday.", Entailment, "covered"},
		// the limit left out, or another limit, still widens
		{pause, "You can pause, skip a delivery or cancel your subscription any time from your account page.", Contradiction, ReasonScopeWidened},
		{roast, "We roast every day, and we only ship beans within 48 hours of roasting, so they arrive fresh.", Contradiction, ReasonScopeWidened},
	} {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "faq", Text: tt.evidence}})
		if got.Label != tt.label || tt.reason != "" && got.Reason != tt.reason {
			t.Errorf("%q against %q: got %s (%s), want %s (%s)", tt.claim, tt.evidence, got.Label, got.Reason, tt.label, tt.reason)
		}
	}
}

// readScope of a claim that quotes a sentence of its window reads no
// condition of that sentence, only another sentence's contrast to a
// widening claim.
func TestReadScopeQuote(t *testing.T) {
	const (
		pause = "You can cancel any time, as long as you do it before 9am. There's no minimum term."
		cash  = "Withdrawals are free at any cash machine. Other banks' machines charge 2 euros."
	)
	for _, tt := range []struct {
		claim, window string
		bad           bool
		reason        string
	}{
		{"You can cancel any time, as long as you do it before 9am.", pause, false, ""},
		{"you can cancel  any time, as long as you do it before 9am [2]", pause, false, ""},
		{"You can pause or cancel your subscription any time from your account page.", "You can pause or cancel your subscription any time from your account page, as long as you do it before 9am.", true, ReasonScopeWidened},
		{"Withdrawals are free at any cash machine.", cash, true, ReasonScopeWidened},
	} {
		f, bad, _ := readScope(tt.claim, tt.window)
		if bad != tt.bad || f.reason != tt.reason {
			t.Errorf("readScope(%q, %q) = %v %q, want %v %q", tt.claim, tt.window, bad, f.reason, tt.bad, tt.reason)
		}
	}
}
