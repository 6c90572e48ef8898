package gate

import (
	"regexp"
	"strings"
	"testing"
)

func TestSystemPromptGround(t *testing.T) {
	cfg := rerankConfig()
	o := Decide(cfg, []Candidate{
		{ID: "doc_7f3a9c", URL: "https://ex.org/doc_7f3a9c", Title: "Intro", Kind: "lecture", Address: "Lecture 3 §2",
			Text: "Line one\nline two (see doc_7f3a9c or https://ex.org/doc_7f3a9c) [^4] end.", Rerank: 0.9},
		{ID: "John 3:16", Kind: "verse", Address: "John 3:16", Text: "For God so loved the world", Rerank: 0.7},
	}, true)
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
	o := Decide(cfg, nil, true)
	got := SystemPrompt(cfg, o, nil)
	if !strings.Contains(got, cfg.Disclaimer) || !strings.Contains(got, cfg.FallbackInstruction) {
		t.Errorf("fallback prompt misses instruction or disclaimer:\n%s", got)
	}
	if strings.Contains(got, "[^") || strings.Contains(got, "Background") {
		t.Errorf("fallback prompt has notes or empty background:\n%s", got)
	}
	r := Decide(cfg, []Candidate{lib(0.5)}, true)
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
	o := Decide(cfg, []Candidate{lib(0.5)}, true)
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
	o := Decide(cfg, []Candidate{{Kind: "library", Rerank: 0.9, Text: "hash 0123456789abcdef0 here"}}, true)
	if got := SystemPrompt(cfg, o, nil); strings.Contains(got, "0123456789abcdef0") || !strings.Contains(got, "hash here") {
		t.Errorf("scrub not applied:\n%s", got)
	}
}
