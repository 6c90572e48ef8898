package gate

import (
	"fmt"
	"strings"
	"sync"
	"text/template"
)

// PromptData is what a system_template sees.
type PromptData struct {
	Decision            string     // "ground", "fallback" (a refused turn has no prompt)
	Notes               string     // the notes block: one line per note, "[^n] (kind: K; address: A) text"
	NoteList            []NoteLine // the same notes, as fields
	Memory              string     // background notes, one per line, no markers; empty if none
	Caveat              string     // the caveat text when between: ground grounded the turn, else empty
	FallbackInstruction string
	Disclaimer          string
}

// NoteLine is one note as the model may see it: no ID, no URL.
type NoteLine struct {
	N             int
	Kind, Address string
	Text          string // newlines collapsed, ids scrubbed
	Line          string // the full fixed-format line
}

var templates sync.Map // template source -> *template.Template

func compiled(src string) (*template.Template, error) {
	if t, ok := templates.Load(src); ok {
		return t.(*template.Template), nil
	}
	t, err := parseTemplate(src)
	if err != nil {
		return nil, err
	}
	templates.Store(src, t)
	return t, nil
}

// SystemPrompt renders the system message for this turn: for Ground, the
// citation rules and the notes; for Fallback, the general-knowledge
// instruction that requires the disclaimer; for Refuse, "" (no upstream call).
// memory holds uncited background notes (text only), rendered without markers
// under "Background (do not cite)". The template is cfg.SystemTemplate; a
// template that fails to parse or execute (Validate catches the former) falls
// back to DefaultSystemTemplate so a turn never goes out without its rules.
//
// Each note line is exactly "[^n] (kind: K; address: A) text", text with
// newlines collapsed to spaces. Real IDs and URLs are never rendered: every
// note's ID (unless it equals a note's address, as in corpora whose id is the
// human address) and URL is removed from all texts, then cfg.Scrub is applied.
func SystemPrompt(cfg Config, o Outcome, memory []string) string {
	if o.Decision != Ground && o.Decision != Fallback {
		return ""
	}
	d := PromptData{
		Decision:            string(o.Decision),
		FallbackInstruction: cfg.FallbackInstruction,
		Disclaimer:          cfg.Disclaimer,
	}
	clean := cleaner(cfg, o.Notes)
	if o.Decision == Ground {
		if o.Caveat() {
			d.Caveat = cfg.Caveat
		}
		var b strings.Builder
		d.NoteList = make([]NoteLine, len(o.Notes))
		for i, n := range o.Notes {
			nl := NoteLine{N: n.N, Kind: header(n.Kind), Address: header(n.Address), Text: clean(n.Text)}
			nl.Line = fmt.Sprintf("[^%d] (kind: %s; address: %s) %s", nl.N, nl.Kind, nl.Address, nl.Text)
			d.NoteList[i] = nl
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(nl.Line)
		}
		d.Notes = b.String()
	}
	var mb strings.Builder
	for _, m := range memory {
		m = clean(m)
		if m == "" {
			continue
		}
		if mb.Len() > 0 {
			mb.WriteByte('\n')
		}
		mb.WriteString("- ")
		mb.WriteString(m)
	}
	d.Memory = mb.String()

	t, err := compiled(cfg.SystemTemplate)
	var b strings.Builder
	if err == nil {
		err = t.Execute(&b, d)
	}
	if err != nil {
		b.Reset()
		t, _ = compiled(DefaultSystemTemplate)
		_ = t.Execute(&b, d) // the default template is tested to execute
	}
	return b.String()
}

// cleaner returns the text cleaner for this turn's notes: collapse
// whitespace, remove footnote-looking markers, every note ID and URL (except
// an ID equal to some note's address) and whatever cfg.Scrub removes.
func cleaner(cfg Config, notes []Note) func(string) string {
	addr := make(map[string]bool, len(notes))
	for _, n := range notes {
		addr[n.Address] = true
	}
	var pairs []string
	seen := map[string]bool{"": true}
	for _, n := range notes {
		for _, s := range []string{n.URL, n.ID} {
			if seen[s] || addr[s] || len(s) < 3 {
				continue
			}
			seen[s] = true
			pairs = append(pairs, s, "")
		}
	}
	var rep *strings.Replacer
	if len(pairs) > 0 {
		rep = strings.NewReplacer(pairs...)
	}
	return func(s string) string {
		if rep != nil {
			s = rep.Replace(s)
		}
		if cfg.Scrub != nil {
			s = cfg.Scrub(s)
		}
		s = stripMarkers(s)
		return strings.Join(strings.Fields(s), " ")
	}
}

// header makes a kind or address safe for the "(kind: K; address: A)" header:
// one line, no parentheses or semicolons that would break its parse.
func header(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '(', ')', ';', '[', ']':
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	return s
}

// stripMarkers removes "[^n]" footnote markers already present in a text, so
// a note cannot smuggle a marker of another numbering into the prompt.
func stripMarkers(s string) string {
	if !strings.Contains(s, "[^") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "[^")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := i + 2
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i+2 && j < len(s) && s[j] == ']' {
			s = s[j+1:]
			continue
		}
		b.WriteString("[^")
		s = s[i+2:]
	}
}
