package gauntlet

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestAudit(t *testing.T) {
	s := testSpec(t)
	catalog := func(id string) bool { return id == "doc_a1" || id == "REALID42" || id == "John 3:16" }
	cited := []Citation{
		{N: 1, ID: "doc_a1", Address: "Lecture 1"},
		{N: 2, ID: "John 3:16", Address: "John 3:16"},
	}
	tests := []struct {
		name string
		text string
		want AuditReport // counts only
	}{
		{"clean", "A [1]. B [2] and John 3:16.", AuditReport{Markers: 2}},
		{"invented marker", "A [1] [2] [3] [0].", AuditReport{Markers: 4, Invented: 2}},
		{"broken marker", "A [1] [^2] [2].", AuditReport{Markers: 2, Broken: 1}},
		{"leaked ids", "A [1] doc_9abc REALID42 [2] 123e4567-e89b-12d3-a456-426614174000.", AuditReport{Markers: 2, LeakedIDs: 3}},
		{"code is skipped", "A [1] `doc_9abc [^3] [7]` [2]\n```\n[9] doc_1x\n```\n", AuditReport{Markers: 2}},
		{"unused citation", "A [1].", AuditReport{Markers: 1, UnusedCitations: 1}},
		{"not markers", "A [1] [2] [1-3] [12 items] [1234567].", AuditReport{Markers: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Audit(tt.text, cited, catalog)
			if nf := len(got.Findings); nf != got.Invented+got.Broken+got.LeakedIDs+got.UnknownCitations+got.UnusedCitations {
				t.Errorf("%d findings for counts %+v", nf, got)
			}
			got.Findings = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Audit(%q) = %+v, want %+v", tt.text, got, tt.want)
			}
		})
	}
	r := s.Audit("A [1].", []Citation{{N: 1, ID: "doc_zz"}}, catalog)
	if r.UnknownCitations != 1 || r.OK() || r.Findings[0].Kind != FindUnknownCitation {
		t.Errorf("unknown citation: got %+v", r)
	}
	if r := s.Audit("A [1].", []Citation{{N: 1, ID: "doc_zz"}}, nil); !r.OK() {
		t.Errorf("nil catalog: got %+v, want OK", r)
	}
}

// The auditor finds nothing in what the gauntlet lets through, and finds the
// faults in what it was given.
func TestAuditAgainstStream(t *testing.T) {
	s := testSpec(t)
	in := "A [^1]. B [^9] doc_0a1b2c3d4e [^x]. C [^2][^2] REALID42."
	o := testOptions()
	catalog := o.Catalog
	before := s.Audit(in, nil, catalog)
	if before.Broken != 5 || before.LeakedIDs != 2 {
		t.Errorf("audit of the raw answer = %+v, want 5 broken and 2 leaked", before)
	}
	out, st := run(s, o, in)
	if r := s.Audit(out, st.Citations(), func(id string) bool { return catalog(id) || strings.HasPrefix(id, "doc_") }); !r.OK() {
		t.Errorf("audit of %q = %+v, want OK", out, r)
	}
}

func TestConfig(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	bad := DefaultConfig()
	bad.IDPatterns = []string{"(", ""}
	bad.MaxMarkerLen = 8
	bad.CatalogMinLen = 0
	bad.CardPrefix = "Card"
	bad.ActionPrefix = "Card"
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want errors")
	}
	for _, want := range []string{"id_patterns[0]:", "id_patterns[1]: must not be empty", "max_marker_len: must be in [16,1024], got 8",
		"catalog_min_len:", "card_prefix:", "action_prefix: must differ"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %q, missing %q", err, want)
		}
	}
	if _, err := Compile(bad); err == nil {
		t.Error("Compile(bad) = nil error")
	}
}

// The section as the lead's strict decoder will see it: every key decodes
// into the field it names.
func TestConfigYAML(t *testing.T) {
	src := `
id_patterns: ['\bref_[0-9]+']
max_marker_len: 80
catalog_min_len: 4
catalog_numbers: true
card_prefix: "src:"
action_prefix: "do:"
`
	var c Config
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	want := Config{IDPatterns: []string{`\bref_[0-9]+`}, MaxMarkerLen: 80, CatalogMinLen: 4, CatalogNumbers: true, CardPrefix: "src:", ActionPrefix: "do:"}
	if strings.Join(c.IDPatterns, ",") != strings.Join(want.IDPatterns, ",") || c.MaxMarkerLen != 80 || c.CatalogMinLen != 4 ||
		!c.CatalogNumbers || c.CardPrefix != "src:" || c.ActionPrefix != "do:" {
		t.Fatalf("decoded %+v, want %+v", c, want)
	}
	s, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Cards: map[string]bool{"X": true}}
	if got, _ := run(s, o, "see ref_12 and [src:X] [card:X] doc_1abc"); got != "see and [src:X] [card:X] doc_1abc" {
		t.Errorf("custom config output = %q", got)
	}
}

func TestScrubAndPrefilter(t *testing.T) {
	s := testSpec(t)
	if got := s.Scrub("a doc_12ab b 123e4567-e89b-12d3-a456-426614174000 c 0123456789abcdef0 d 2020"); got != "a  b  c  d 2020" {
		t.Errorf("Scrub = %q", got)
	}
	// The prefilter never hides a match the regexp would find.
	for _, tok := range []string{"doc_1", "DOC_x", "x-doc_1", "0123456789abcdef", "123e4567-e89b-12d3-a456-426614174000", "1999", "3.14", "a-b", "kb_9"} {
		var direct bool
		for _, p := range s.ids {
			direct = direct || p.re.MatchString(tok)
		}
		if got := s.IDShaped([]byte(tok)); got != direct {
			t.Errorf("IDShaped(%q) = %v, regexp says %v", tok, got, direct)
		}
	}
}

func TestResetReuse(t *testing.T) {
	s := testSpec(t)
	st := s.New(testOptions())
	first := string(st.Close(st.Write(nil, []byte("A [^2] [^1] doc_1abc [^"))))
	st.Reset(testOptions())
	second := string(st.Close(st.Write(nil, []byte("A [^2] [^1] doc_1abc [^"))))
	if first != second || first != "A [1] [2]" {
		t.Errorf("first %q, after Reset %q, want both %q", first, second, "A [1] [2]")
	}
	if c := st.Counts(); c.Kept != 2 || c.Dropped != 2 {
		t.Errorf("counts after Reset = %+v, want kept 2 dropped 2", c)
	}
	if got := st.Write(nil, []byte("more")); len(got) != 0 {
		t.Errorf("Write after Close = %q, want nothing", got)
	}
}

func TestPool(t *testing.T) {
	s := testSpec(t)
	st := s.Get(testOptions())
	if got := string(st.Close(st.Write(nil, []byte("A [^2].")))); got != "A [1]." {
		t.Fatalf("output = %q", got)
	}
	s.Put(st)
	st2 := s.Get(testOptions())
	if got := string(st2.Close(st2.Write(nil, []byte("B [^9] [^1].")))); got != "B [1]." {
		t.Errorf("pooled stream output = %q, want %q", got, "B [1].")
	}
	if c := st2.Citations(); len(c) != 1 || c[0].ID != "doc_a1" {
		t.Errorf("pooled stream citations = %+v", c)
	}
}

// The gauntlet section of configs/guard.yaml, the one place its defaults are
// documented, decodes strictly to exactly DefaultConfig().
func TestDefaultSectionYAML(t *testing.T) {
	b, err := os.ReadFile("../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]yaml.Node
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	sec, ok := file["gauntlet"]
	if !ok {
		t.Fatal("configs/guard.yaml has no gauntlet section")
	}
	sb, err := yaml.Marshal(&sec)
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	dec := yaml.NewDecoder(bytes.NewReader(sb))
	dec.KnownFields(true)
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if want := DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("configs/guard.yaml gauntlet = %+v\nwant DefaultConfig() %+v", got, want)
	}
}

func TestStreamAudit(t *testing.T) {
	s := testSpec(t)
	known := func(id string) bool {
		for _, n := range testNotes {
			if n.ID == id {
				return true
			}
		}
		return false
	}
	o := testOptions()
	o.Catalog = known
	st := s.New(o)
	out := string(st.Close(st.Write(nil, []byte("A [^1]. See [card:Lecture 1] and chunk_5f00d."))))
	if r := st.Audit(out); !r.OK() {
		t.Errorf("audit of the gauntlet's own output %q = %+v", out, r)
	}
	r := st.Audit(out + " [card:Nope] [action:open_map] [action:rm] [card:x")
	if r.UnknownNamed != 2 || r.Broken != 1 {
		t.Errorf("audit = %+v, want 2 unknown named markers and 1 broken", r)
	}
	o.Bailout = true
	st = s.New(o)
	if r := st.Audit("A [card:Lecture 1] [1]."); r.UnknownNamed != 1 || r.Invented != 1 {
		t.Errorf("bail-out audit = %+v, want the card and the marker reported", r)
	}
}

// An answer without findings is audited without an allocation per token
// (its tokens are views of the text).
func TestAuditAllocs(t *testing.T) {
	s := testSpec(t)
	cited := []Citation{{N: 1, ID: "doc_1"}, {N: 2, ID: "doc_2"}}
	text := strings.Repeat("Opened items can be returned within 30 days (see section 4.2, form RT-7) [1]. Refunds take 5 days [2]. ", 8)
	if a := testing.AllocsPerRun(100, func() { s.Audit(text, cited, nil) }); a > 2 {
		t.Errorf("%v allocations per audit; want at most 2", a)
	}
}
