package gate

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestSystemPromptGround(t *testing.T) {
	cfg := rerankConfig()
	o := Decide(cfg, []Candidate{
		{ID: "doc_7f3a9c", URL: "https://ex.org/doc_7f3a9c", Title: "Intro", Kind: "lecture", Address: "Lecture 3 §2",
			Text: "Line one\nline two (see doc_7f3a9c or https://ex.org/doc_7f3a9c) [^4] end.", Rerank: 0.9},
		{ID: "John 3:16", Kind: "verse", Address: "John 3:16", Text: "For God so loved the world", Rerank: 0.7},
	}, true, Ask{})
	got := SystemPrompt(cfg, o, []string{"Users of the\nlibrary are students [^2]."})

	wantLines := []string{
		"[^1] (kind: lecture; address: Lecture 3 §2) Line one line two (see or ) end.",
		"[^2] (kind: verse; address: John 3:16) For God so loved the world",
	}
	for _, w := range wantLines {
		if !strings.Contains(got, "\n"+w+"\n") && !strings.HasSuffix(got, "\n"+w) {
			t.Errorf("prompt misses line %q:\n%s", w, got)
		}
	}
	for _, leak := range []string{"doc_7f3a9c", "https://", "[^4]"} {
		if strings.Contains(got, leak) {
			t.Errorf("prompt contains %q:\n%s", leak, got)
		}
	}
	if !strings.Contains(got, "Background (do not cite):\n- Users of the library are students .") {
		t.Errorf("prompt misses the background block:\n%s", got)
	}
	// The mock upstream's parser must find both notes with their text.
	noteLine := regexp.MustCompile(`(?m)^\[\^(\d+)\] (?:\([^)]*\) )?(.*)$`)
	if m := noteLine.FindAllStringSubmatch(got, -1); len(m) != 2 || m[1][2] != "For God so loved the world" {
		t.Errorf("note lines parsed as %q, want 2 with the verse text", m)
	}
}

func TestSystemPromptFallbackAndRefuse(t *testing.T) {
	cfg := rerankConfig()
	o := Decide(cfg, nil, true, Ask{})
	got := SystemPrompt(cfg, o, nil)
	if !strings.Contains(got, cfg.Disclaimer) || !strings.Contains(got, cfg.FallbackInstruction) {
		t.Errorf("fallback prompt misses instruction or disclaimer:\n%s", got)
	}
	if strings.Contains(got, "[^") || strings.Contains(got, "Background") {
		t.Errorf("fallback prompt has notes or empty background:\n%s", got)
	}
	r := Decide(cfg, []Candidate{lib(0.5)}, true, Ask{})
	if r.Decision != Refuse {
		t.Fatalf("Decision = %q, want refuse", r.Decision)
	}
	if got := SystemPrompt(cfg, r, nil); got != "" {
		t.Errorf("refuse prompt = %q, want empty", got)
	}
}

func TestSystemPromptCaveatAndCustomTemplate(t *testing.T) {
	cfg := rerankConfig()
	cfg.Between = BetweenGround
	o := Decide(cfg, []Candidate{lib(0.5)}, true, Ask{})
	if got := SystemPrompt(cfg, o, nil); !strings.Contains(got, cfg.Caveat) {
		t.Errorf("caveat missing:\n%s", got)
	}
	cfg.SystemTemplate = `{{range .NoteList}}<{{.N}}|{{.Address}}>{{end}}`
	if got, want := SystemPrompt(cfg, o, nil), "<1|->"; got != want {
		t.Errorf("custom template = %q, want %q", got, want)
	}
	cfg.SystemTemplate = `{{.Nope}}` // fails at execution: falls back to the default
	if got := SystemPrompt(cfg, o, nil); !strings.Contains(got, "[^1] (kind: library; address: -) ") {
		t.Errorf("broken template did not fall back:\n%s", got)
	}
}

func TestSystemPromptScrub(t *testing.T) {
	cfg := rerankConfig()
	re := regexp.MustCompile(`\b[0-9a-f]{16,}\b`)
	cfg.Scrub = func(s string) string { return re.ReplaceAllLiteralString(s, "") }
	o := Decide(cfg, []Candidate{{Kind: "library", Rerank: 0.9, Text: "hash 0123456789abcdef0 here"}}, true, Ask{})
	if got := SystemPrompt(cfg, o, nil); strings.Contains(got, "0123456789abcdef0") || !strings.Contains(got, "hash here") {
		t.Errorf("scrub not applied:\n%s", got)
	}
}

// Ids are hidden by whole-token matches only: a slug id that is also an
// ordinary word ("lockers", "sauna", "lanes", "parties") stays in prose and
// goes only where it stands as a reference; an id-shaped id goes wherever
// it is a whole token, never out of a longer word or id.
func TestHideRefsWholeTokens(t *testing.T) {
	refs := []string{"lockers", "sauna", "lanes", "parties", "hb-0402", "https://ex.org/hb-0402"}
	for _, tc := range []struct{ in, want string }{
		{"Larger lockers for bags and prams", "Larger lockers for bags and prams"},
		{"The sauna and steam room are for adults", "The sauna and steam room are for adults"},
		{"six lanes [2]", "six lanes [2]"},
		{"Private parties (up to 20) by booking.", "Private parties (up to 20) by booking."},
		{"Lockers: see [lockers] or `sauna`.", "Lockers: see  or ."},
		{"id: parties, ref:lanes", "id: , ref:"},
		{"more at https://ex.org/docs/sauna now", "more at https://ex.org/docs/ now"},
		{"See hb-0402.", "See ."},
		{"See hb-0402, hb-04021 and xhb-0402 and hb-0402-b", "See , hb-04021 and xhb-0402 and hb-0402-b"},
		{"at https://ex.org/hb-0402 (hb-0402)", "at  "},
		{"saunas and lockersmith", "saunas and lockersmith"},
	} {
		if got := hideRefs(tc.in, refs); got != tc.want {
			t.Errorf("hideRefs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The prompt keeps prose around slug ids (the note text as written), and a
// bare bracketed number inside a passage reaches the model as "(n)", not as
// a marker the gauntlet would resolve to another note.
func TestSystemPromptSlugIDsAndBareNumbers(t *testing.T) {
	cfg := rerankConfig()
	o := Decide(cfg, []Candidate{
		{ID: "lockers", Kind: "library", Rerank: 0.9, Text: "Larger lockers for bags and prams [1]."},
		{ID: "sauna", Kind: "library", Rerank: 0.8, Text: "The sauna and steam room are for adults [2, 3] (see [sauna])."},
		{ID: "lanes", Kind: "library", Rerank: 0.7, Text: "There are six lanes [^2] and [12 items]."},
	}, true, Ask{})
	got := SystemPrompt(cfg, o, nil)
	for _, want := range []string{
		") Larger lockers for bags and prams (1).",
		") The sauna and steam room are for adults (2, 3) (see ).",
		") There are six lanes and [12 items].",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt misses %q:\n%s", want, got)
		}
	}
}

// collapseSpace gives what strings.Join(strings.Fields(s), " ") gives, and
// s itself when that is already s.
func TestCollapseSpace(t *testing.T) {
	in := []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u0085b", "a\u2003b",
		"£8 per wheel", "naïve café", "a\xffb", "a \xff", "\v", "x\ry", "one two three.", "a\u3000", "a\u1680b", "a\u205fb", "\u2029", "a\u200bb",
		"don\u2019t \u2014 this", "caf\u00e9 \u00a3 8", "a\u2019 \u2003b", "\u00e9\u00a0", "x\xe2"}
	parts := []string{"a", "bc", " ", "  ", "\n", "£", "\u00a0", "\xe2", "é", "\t", "x.y"}
	for i := range 2000 {
		var b strings.Builder
		for k := range 1 + i%9 {
			b.WriteString(parts[(i*7+k*k*3+k)%len(parts)])
		}
		in = append(in, b.String())
	}
	for _, s := range in {
		want := strings.Join(strings.Fields(s), " ")
		got := collapseSpace(s)
		if got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
		if want == s && unsafe.StringData(got) != unsafe.StringData(s) && s != "" {
			t.Errorf("collapseSpace(%q) copied a collapsed string", s)
		}
	}
}

// BenchmarkSystemPrompt renders a grounded turn's prompt: eight notes of
// about 700 bytes with ids, URLs and a scrub that leaves them as they are.
func BenchmarkSystemPrompt(b *testing.B) {
	cfg := rerankConfig()
	cfg.Scrub = func(s string) string { return s }
	var cands []Candidate
	for i := range 8 {
		id := fmt.Sprintf("faq-%04d", i)
		cands = append(cands, Candidate{ID: id, URL: "https://ex.org/faq/" + id, Kind: "library", Address: fmt.Sprintf("Prices %d", i),
			Rerank: 0.9 - float64(i)/100,
			Text:   strings.TrimSpace(strings.Repeat("Puncture repair costs 8 pounds per wheel, including a new inner tube, open Tuesday to Saturday. ", 7))})
	}
	o := Decide(cfg, cands, true, Ask{})
	b.ReportAllocs()
	cpu0 := cpuNs()
	for b.Loop() {
		SystemPrompt(cfg, o, nil)
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuNs is this process's user and system CPU time so far: CPU per op is
// steadier than ns/op on a shared machine.
func cpuNs() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// Skipping the refs whose shared prefix a text lacks hides what hideRefs
// hides: texts with and without the site's prefix, ids that are prefixes
// of others, refs that share nothing.
func TestHideGuardedEqualsHideRefs(t *testing.T) {
	refs := []string{"https://docs.ex.org/handbook/start#what", "https://docs.ex.org/handbook/start#why", "https://docs.ex.org/api/x",
		"hb-1-1", "hb-1-10", "lockers", "https://other.example/a", "doc_7f3a9c", "doc_7f3a9cde", "John 3:16"}
	if g := refGuards(refs); g[0] != "https://docs.ex.org/handbook/start#wh" || g[2] != "https://docs.ex.org/" || g[3] != "" || g[7] != "doc_7f3a9c" || g[5] != "" {
		t.Fatalf("guards %q", g)
	}
	parts := []string{"see ", "https://docs.ex.org/handbook/start#what", "https://docs.ex.org/handbook/start#why ", "https://docs.ex.org/",
		"hb-1-1 ", "hb-1-10.", "[lockers] ", "lockers ", "doc_7f3a9c ", "doc_7f3a9cde", "John 3:16 ", "https://other.example/a/b ", "x",
		"hb-1", "-1-1", "1-10", "doc_", "7f3a", "9cde", "John 3", ":16", "ockers", "https://docs.ex.org/handbook/st"}
	for i := range 3000 {
		var b strings.Builder
		for k := range 1 + i%7 {
			b.WriteString(parts[(i*5+k*k*7+k)%len(parts)])
		}
		s := b.String()
		for _, rs := range [][]string{refs, refs[:3], refs[3:5], refs[7:], nil} {
			if got, want := hideGuarded(s, rs, refGuards(rs)), hideRefs(s, rs); got != want {
				t.Fatalf("hideGuarded(%q, %q) = %q, want %q", s, rs, got, want)
			}
			if got, want := hideGuarded(s, rs, nil), hideRefs(s, rs); got != want {
				t.Fatalf("hideGuarded(%q, %q) = %q, want %q", s, rs, got, want)
			}
		}
	}
}

// A bigram set never rules out a substring of its text.
func TestBigramSetHasEverySubstring(t *testing.T) {
	s := "Puncture repair costs £8 per wheel [hb-1-1], see https://ex.org/faq/x#y_z."
	bs := newBigramSet(s)
	for i := range len(s) {
		for j := i; j <= len(s); j++ {
			if !bs.mayContain(s[i:j]) {
				t.Fatalf("mayContain(%q) = false for a substring", s[i:j])
			}
		}
	}
	if bs.mayContain("qqzz") {
		t.Errorf("mayContain(%q) = true for a text without it (no collision expected)", "qqzz")
	}
}

// BenchmarkHideGuarded hides a demo turn's refs (eight note ids and their
// URLs) in one note text that holds none of them, as most notes do.
func BenchmarkHideGuarded(b *testing.B) {
	var refs []string
	for i := range 8 {
		id := fmt.Sprintf("hb-%d-%d", i+1, 7-i)
		refs = append(refs, id, "https://docs.lanternfish.example/handbook/section-"+id+"#part")
	}
	guards := refGuards(refs)
	text := strings.TrimSpace(strings.Repeat("Stop the service, then run the restore command with the path or URL of a backup; "+
		"maintenance mode blocks sign-ins and edits for everyone except site administrators. ", 4))
	b.ReportAllocs()
	cpu0 := cpuNs()
	for b.Loop() {
		hideGuarded(text, refs, guards)
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}

// The written-out default prompt is DefaultSystemTemplate's output, to the
// byte, for every decision and with and without caveat, notes and memory.
func TestDefaultPromptIsTemplate(t *testing.T) {
	tmpl, err := parseTemplate(DefaultSystemTemplate)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "x", "two\nlines", ` "quoted" {{.Notes}} <b>&amp;</b> `, "[^1] (kind: lecture; address: HB 1.1) Text.\n[^2] (kind: -; address: -) More."}
	for _, dec := range []string{"ground", "fallback", "refuse", ""} {
		for i, notes := range texts {
			for j, memory := range texts {
				for k, caveat := range texts {
					d := PromptData{Decision: dec, Notes: notes, Memory: memory, Caveat: caveat,
						FallbackInstruction: texts[(i+j)%len(texts)], Disclaimer: texts[(j+k)%len(texts)]}
					var b strings.Builder
					if err := tmpl.Execute(&b, d); err != nil {
						t.Fatal(err)
					}
					if got := defaultPrompt(&d); got != b.String() {
						t.Fatalf("defaultPrompt(%+v) =\n%q\nwant\n%q", d, got, b.String())
					}
				}
			}
		}
	}
}

// Each NoteLine's Line is its fixed-format line, and the lines joined are
// the Notes block.
func TestNoteLinesAreNotes(t *testing.T) {
	cfg := rerankConfig()
	var cands []Candidate
	for i := range 3 {
		cands = append(cands, Candidate{ID: fmt.Sprintf("n-%d", i), Kind: "library", Address: fmt.Sprintf("Shelf (%d)", i), Rerank: 0.9 - float64(i)/10,
			Text: strings.Repeat("Books  may be borrowed [2] for three weeks. ", i+1)})
	}
	o := Decide(cfg, cands, true, Ask{})
	cfg.SystemTemplate = `{{range $i, $n := .NoteList}}{{if $i}}` + "\n" + `{{end}}{{$n.Line}}{{end}}`
	joined := SystemPrompt(cfg, o, nil)
	cfg.SystemTemplate = `{{.Notes}}`
	if notes := SystemPrompt(cfg, o, nil); joined != notes || notes == "" {
		t.Fatalf("lines joined = %q, notes = %q", joined, notes)
	}
	cfg.SystemTemplate = `{{range .NoteList}}{{.Line}}|{{printf "[^%d] (kind: %s; address: %s) %s" .N .Kind .Address .Text}}` + "\n" + `{{end}}`
	for _, l := range strings.Split(strings.TrimSuffix(SystemPrompt(cfg, o, nil), "\n"), "\n") {
		if a, b, _ := strings.Cut(l, "|"); a != b {
			t.Errorf("Line %q, want %q", a, b)
		}
	}
}

// A paragraph that ends without closing punctuation (a Markdown heading, a
// list's last item) ends with a full stop before the next, so a note's one
// line keeps the heading a sentence of its own; line breaks inside a
// paragraph and text that already closes are left as they are.
func TestEndParagraphs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no break at all", "no break at all"},
		{"Two-step verification\n\nTurn on codes.", "Two-step verification.\n\nTurn on codes."},
		{"Heading\r\n \r\nText", "Heading.\r\n \r\nText"},
		{"wrapped\nline\n\nnext", "wrapped\nline.\n\nnext"},
		{"Done.\n\nNext", "Done.\n\nNext"},
		{"Ask: \n\nthis", "Ask: \n\nthis"},
		{"A\n\n\n\nB\n\nC", "A.\n\n\n\nB.\n\nC"},
		{"\n\nlead", "\n\nlead"},
		{"trail\n\n", "trail.\n\n"},
		{"\u201cquoted\u201d\n\nx", "\u201cquoted\u201d\n\nx"},
	} {
		if got := endParagraphs(tc.in); got != tc.want {
			t.Errorf("endParagraphs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
