package gate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// cleanInline is the note cleaner as it was before noteTexts: every step
// on every text of every turn.
func cleanInline(cfg Config, notes []Note) func(string) string {
	addr := make(map[string]bool, len(notes))
	for _, n := range notes {
		addr[n.Address] = true
	}
	var refs []string
	seen := map[string]bool{"": true}
	for _, n := range notes {
		for _, s := range []string{n.URL, n.ID} {
			if seen[s] || addr[s] || len(s) < 3 {
				continue
			}
			seen[s] = true
			refs = append(refs, s)
		}
	}
	return func(s string) string {
		s = hideRefs(s, refs)
		if cfg.Scrub != nil {
			s = cfg.Scrub(s)
		}
		s = stripMarkers(s)
		s = neutralizeNumbers(s)
		return collapseSpace(endParagraphs(s))
	}
}

// The cleaner with the texts' preparations kept across turns gives what
// every step run inline gives: seeded texts with markers, bracketed
// numbers, paragraphs, spaces, ids and URLs, against turns of one to eight
// notes, with and without a scrub that changes the text, from a miss and
// from a hit.
func TestCleanerCachedEqualsInline(t *testing.T) {
	parts := []string{"Rent is due ", "on 1 October", ". ", "[^2]", "[^x]", "[3]", "[1, 2]", "(4)", "\n\n", "\n", "  ", "\t",
		"\u00a0", "hb-1-1", "hb-1-10 ", "doc_7f3a9c", "https://ex.org/faq/faq-0001", "faq-0002", "[lockers]", "lockers ",
		"Heading", "£8 per wheel", "café", "x.y", "-", "SEC-4711 ", "end"}
	var texts []string
	for i := range 1500 {
		var b strings.Builder
		for k := range 1 + i%11 {
			b.WriteString(parts[(i*7+k*k*5+k*3)%len(parts)])
		}
		texts = append(texts, b.String())
	}
	var notes []Note
	for i := range 8 {
		id := fmt.Sprintf("faq-%04d", i)
		notes = append(notes, Note{N: i + 1, ID: id, URL: "https://ex.org/faq/" + id, Address: fmt.Sprintf("Prices %d", i)})
	}
	notes = append(notes, Note{N: 9, ID: "lockers", Address: "Lockers"}, Note{N: 10, ID: "hb-1-1", Address: "hb-1-1"})
	scrubs := []func(string) string{nil, func(s string) string { return strings.ReplaceAll(s, "SEC-4711", "") }}
	for _, scrub := range scrubs {
		cfg := DefaultConfig()
		cfg.Scrub = scrub
		for _, ns := range [][]Note{notes[:1], notes[:2], notes[:3], notes[:8], notes, notes[8:]} {
			got, want := cleaner(cfg, ns), cleanInline(cfg, ns)
			for _, s := range texts {
				for range 2 { // a miss, then a hit
					if g, w := got(s), want(s); g != w {
						t.Fatalf("clean(%q) with %d notes = %q, want %q", s, len(ns), g, w)
					}
				}
			}
		}
	}
}

// noteRefs without maps lists what the maps list: ids and URLs repeated,
// short, empty, equal to an address of another note.
func TestNoteRefsAsMaps(t *testing.T) {
	vals := []string{"", "ab", "abc", "faq-1", "faq-2", "https://ex.org/faq-1", "Lockers", "lockers", "hb-1-1"}
	for i := range 5000 {
		var notes []Note
		for k := range 1 + i%(smallNotes+4) {
			v := func(j int) string { return vals[(i*7+k*k*3+j*5+k)%len(vals)] }
			notes = append(notes, Note{N: k + 1, ID: v(0), URL: v(1), Address: v(2)})
		}
		got, want := noteRefs(notes), noteRefsMap(notes)
		if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
			t.Fatalf("noteRefs(%v) = %q, want %q", notes, got, want)
		}
	}
}

// The default prompt, its note lines written straight into it, is what the
// template engine makes of DefaultSystemTemplate for the same turn:
// grounded with and without caveat, with memory, and fallback.
func TestSystemPromptDefaultAsTemplate(t *testing.T) {
	cfg := rerankConfig()
	cfg.Scrub = func(s string) string { return strings.ReplaceAll(s, "SEC-4711", "") }
	var cands []Candidate
	for i := range 5 {
		id := fmt.Sprintf("faq-%04d", i)
		cands = append(cands, Candidate{ID: id, URL: "https://ex.org/faq/" + id, Kind: "library", Address: fmt.Sprintf("Prices (%d)", i),
			Rerank: 0.9 - float64(i)/10, Text: fmt.Sprintf("Line %d [^3] of %s, SEC-4711\n\nsee [2] and https://ex.org/faq/faq-0001 .", i, id)})
	}
	ground := Decide(cfg, cands, true, Ask{})
	caveat := ground
	caveat.Checks = map[string]bool{"caveat": true}
	fallback := Outcome{Decision: Fallback}
	viaTemplate := cfg
	viaTemplate.SystemTemplate = DefaultSystemTemplate + "{{/* a copy: the template engine runs */}}"
	for _, o := range []Outcome{ground, caveat, fallback} {
		for _, memory := range [][]string{nil, {"Users of the\nlibrary are students [^2].", ""}} {
			got, want := SystemPrompt(cfg, o, memory), SystemPrompt(viaTemplate, o, memory)
			if got != want || got == "" {
				t.Fatalf("%s: default prompt\n%q\nwant\n%q", o.Decision, got, want)
			}
		}
	}
}

// Turns on several goroutines share noteTexts: each gets what the inline
// cleaner gives (go test -race checks the cache's locking).
func TestCleanerConcurrent(t *testing.T) {
	var notes []Note
	for i := range 8 {
		id := fmt.Sprintf("faq-%04d", i)
		notes = append(notes, Note{N: i + 1, ID: id, URL: "https://ex.org/faq/" + id, Address: fmt.Sprintf("Prices %d", i)})
	}
	cfg := DefaultConfig()
	want := cleanInline(cfg, notes)
	var texts []string
	for i := range 200 {
		texts = append(texts, fmt.Sprintf("Note %d  costs [^1] faq-%04d\n\nsee [2].", i, i%9))
	}
	errs := make(chan string, 4)
	for g := range 4 {
		go func() {
			clean := cleaner(cfg, notes)
			for k := range 2000 {
				s := texts[(k*7+g)%len(texts)]
				if got, w := clean(s), want(s); got != w {
					errs <- fmt.Sprintf("clean(%q) = %q, want %q", s, got, w)
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
