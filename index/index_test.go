package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
)

func TestParseDocLine(t *testing.T) {
	tests := []struct {
		line    string
		want    Doc
		wantErr string
	}{
		{`{"id":"x","text":"hello"}`, Doc{ID: "x", Text: "hello", Kind: "library", Tenant: "default", KB: "default"}, ""},
		{`{"id":7,"text":"t","kind":"verse","tenant":"acme","kb":"k1"}`, Doc{ID: "7", Text: "t", Kind: "verse", Tenant: "acme", KB: "k1"}, ""},
		{`{"text":"no id"}`, Doc{}, "missing id"},
		{`{"id":"x","text":"  "}`, Doc{}, "missing text"},
		{`{"id":"x","text":"t","tenant":"../etc"}`, Doc{}, "invalid tenant"},
		{`{"id":"x","text":5}`, Doc{}, `field "text"`},
		{`{"id":"x",`, Doc{}, "not valid JSON (the line ends too early)"},
		{`["x"]`, Doc{}, "the line must be a JSON object, got array"},
		{`{"id":"x","deleted":true}`, Doc{ID: "x", Kind: "library", Tenant: "default", KB: "default"}, ""},
		{`{"id":"x","deleted":"yes"}`, Doc{}, `field "deleted": must be true or false`},
	}
	for _, tt := range tests {
		got, err := parseDocLine([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseDocLine(%s) error = %v, want containing %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDocLine(%s) error = %v", tt.line, err)
			continue
		}
		if got.ID != tt.want.ID || got.Text != tt.want.Text || got.Kind != tt.want.Kind || got.Tenant != tt.want.Tenant || got.KB != tt.want.KB {
			t.Errorf("parseDocLine(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
	d, err := parseDocLine([]byte(`{"id":"Genesis 1:1","text":"t","book":"Genesis","book_abbr":"Ge"}`))
	if err != nil || d.Meta["book_abbr"] != "Ge" {
		t.Errorf("extra fields: got meta %v, err %v; want book_abbr kept", d.Meta, err)
	}
}

func FuzzParseDocLine(f *testing.F) {
	for _, s := range []string{`{"id":"x","text":"y"}`, `{"id":1,"text":"y","meta":{"a":1}}`, `{"id":"","text":""}`, `[]`, `{"tenant":"a/b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := parseDocLine(b)
		if err != nil {
			return
		}
		if d.ID == "" || strings.TrimSpace(d.Text) == "" && !d.Deleted || d.Kind == "" || !ValidName(d.Tenant) || !ValidName(d.KB) {
			t.Fatalf("accepted an invalid doc: %+v", d)
		}
		if d.URL != "" && !httpURL(d.URL) || strings.ContainsAny(d.Title, "<>") {
			t.Fatalf("kept a url that is not http(s) or markup in the title: %q %q", d.URL, d.Title)
		}
		for _, c := range chunkDoc(d, 200, 50) {
			if c.DocID != d.ID || c.Kind != d.Kind {
				t.Fatalf("chunk lost its document fields: %+v", c)
			}
		}
	})
}

func FuzzParseMemoryLine(f *testing.F) {
	f.Add([]byte(`{"type":"pin","question":"q","refs":["a"]}`))
	f.Add([]byte(`{"type":"note","note":"n","triggers":["t"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMemoryLine(b)
		if err != nil {
			return
		}
		if m.Type != "pin" && m.Type != "note" {
			t.Fatalf("accepted type %q", m.Type)
		}
	})
}

func TestReadDocsReportsBadLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	content := `{"id":"a","text":"alpha"}

{"id":"b"}
not json
{"id":"a","text":"dup"}
{"id":"c","text":"gamma"}
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, bad, err := ReadDocs([]string{path}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Errorf("got %d docs, want 2", len(docs))
	}
	var got []string
	for _, le := range bad {
		got = append(got, le.Error())
	}
	want := []string{path + ":3:", path + ":4:", path + ":5:"}
	if len(got) != len(want) {
		t.Fatalf("bad lines = %q, want prefixes %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("bad line %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	_, _, err = ReadDocs([]string{path}, true)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Errorf("strict: err = %v, want a LineError at line 3", err)
	}
	// The build reports them in the manifest, and --strict fails it.
	man, err := Build(context.Background(), DefaultConfig(), []string{path}, nil, filepath.Join(dir, "snap"), zap.NewNop())
	if err != nil || len(man.BadLines) != 3 {
		t.Errorf("build: bad lines %v, err %v; want 3 reported", man.BadLines, err)
	}
	strict := DefaultConfig()
	strict.Strict = true
	if _, err := Build(context.Background(), strict, []string{path}, nil, filepath.Join(dir, "snap2"), zap.NewNop()); err == nil || !strings.Contains(err.Error(), path+":3") {
		t.Errorf("strict build: err = %v, want it to name %s:3", err, path)
	}
}

func TestReadDocsFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "guide.md"), []byte("# The Guide\n\nBody text."), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("plain notes"), 0o644)
	os.WriteFile(filepath.Join(dir, "skip.bin"), []byte{0, 1}, 0o644)
	docs, bad, err := ReadDocs([]string{dir}, true)
	if err != nil || len(bad) != 0 {
		t.Fatal(err, bad)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = d.Title
	}
	if got["sub/guide.md"] != "The Guide" || got["notes.txt"] != "notes" || len(got) != 2 {
		t.Errorf("folder docs = %v, want sub/guide.md (The Guide) and notes.txt", got)
	}
}

// TestReadDocsEditorFiles reads files as editors and site generators write
// them: a byte-order mark, YAML front matter, and text in Latin-1, which is a
// bad line (named, with the offending byte) rather than decoded into U+FFFD.
func TestReadDocsEditorFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bom.md", "\ufeff# Face grouping\n\nFaces are grouped once you turn it on.")
	write("front.md", "---\ntitle: \"Share links\"\nupdated: 2026-10-02\nurl: https://help.example/sharing/links\nkind: faq\ntags: [sharing, links]\n---\n\nA share link can expire after 7 days.")
	write("front-heading.md", "---\nweight: 3\n---\n# Refunds\n\nRefunds within 14 days.")
	write("rule.md", "---\n\nA page that opens with a rule and never closes it.")
	write("latin1.md", "# Caf\xe9 mode\n\nOffline albums.")                // one encoding, Windows-1252: read as such
	write("cp1252.md", "# Prices\n\nWe don\x92t charge \x80 fees: \xa35.") // Word's curly apostrophe, the euro and pound signs
	write("mixed.md", "# Caf\xc3\xa9\n\nWe don\x92t mind.")                // UTF-8 and a stray byte: two encodings, refused
	write("setext.md", "Exporting your library\n======================\n\nZip files of 50 GB.")
	write("fenced.md", "Run this first:\n\n```sh\n# install the desktop app\n```\n\n# Desktop app #\n\nWindows and macOS.")
	write("utf16.md", utf16File("# Notes\n\nSaved by Notepad as Unicode.", false)) // UTF-16: decoded
	write("c.jsonl", "\ufeff{\"id\":\"j1\",\"text\":\"first line after a BOM\"}\n{\"id\":\"j2\",\"text\":\"caf\xe9\"}\n")

	write("single.markdown", "---\ntitle: One page\n---\nGiven on its own.")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// The folder, and one file of another folder given on its own (its name
	// is its id; read as Markdown, not as JSON lines).
	os.Rename(filepath.Join(dir, "single.markdown"), filepath.Join(sub, "single.markdown"))
	docs, bad, err := ReadDocs([]string{dir, filepath.Join(sub, "single.markdown")}, false)
	if err != nil {
		t.Fatal(err)
	}
	type doc struct{ title, text string }
	got := map[string]doc{}
	for _, d := range docs {
		got[d.ID] = doc{d.Title, d.Text}
		if d.ID == "front.md" && (d.URL != "https://help.example/sharing/links" || d.Kind != "faq") {
			t.Errorf("front.md: url %q, kind %q; want the front matter's", d.URL, d.Kind)
		}
		if d.ID == "bom.md" && (d.URL != "" || d.Kind != "library") {
			t.Errorf("bom.md: url %q, kind %q; want none and library", d.URL, d.Kind)
		}
	}
	want := map[string]doc{
		"bom.md":              {"Face grouping", "Face grouping\n\nFaces are grouped once you turn it on."},
		"front.md":            {"Share links", "A share link can expire after 7 days."},
		"front-heading.md":    {"Refunds", "Refunds\n\nRefunds within 14 days."},
		"rule.md":             {"rule", "A page that opens with a rule and never closes it."},
		"j1":                  {"", "first line after a BOM"},
		"setext.md":           {"Exporting your library", "Exporting your library\n\nZip files of 50 GB."},
		"fenced.md":           {"Desktop app", "Run this first:\n\n# install the desktop app\n\nDesktop app\n\nWindows and macOS."},
		"latin1.md":           {"Café mode", "Café mode\n\nOffline albums."},
		"cp1252.md":           {"Prices", "Prices\n\nWe don\u2019t charge \u20ac fees: \u00a35."},
		"utf16.md":            {"Notes", "Notes\n\nSaved by Notepad as Unicode."},
		"sub/single.markdown": {"One page", "Given on its own."},
		"single.markdown":     {"One page", "Given on its own."},
	}
	if len(got) != len(want) {
		t.Errorf("docs = %q, want %q", got, want)
	}
	for id, w := range want {
		if g := got[id]; g != w {
			t.Errorf("%s = %q, want %q", id, g, w)
		}
	}
	var msgs []string
	for _, le := range bad {
		msgs = append(msgs, le.Error())
	}
	wantBad := []string{
		filepath.Join(dir, "c.jsonl") + ":2: not UTF-8 (byte 0xE9 at character 23): save the file as UTF-8 (from Windows-1252 or Latin-1, iconv -f cp1252 -t utf-8 converts it)",
		filepath.Join(dir, "mixed.md") + ":1: not UTF-8 (byte 0x92 at character 15): save the file as UTF-8 (from Windows-1252 or Latin-1, iconv -f cp1252 -t utf-8 converts it)",
	}
	if strings.Join(msgs, "\n") != strings.Join(wantBad, "\n") {
		t.Errorf("bad lines:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(wantBad, "\n"))
	}
}

func TestChunkDoc(t *testing.T) {
	para := strings.Repeat("This is a sentence about backups. ", 20) // ~680 chars
	d := Doc{ID: "d", Text: para + "\n\n" + para + "\n\nshort tail.", Kind: "lecture", Address: "HB 1", Title: "T", URL: "u"}
	chunks := chunkDoc(d, 800, 200)
	if len(chunks) != 2 {
		t.Fatalf("got %d chunks, want 2 (tail merged)", len(chunks))
	}
	for i, c := range chunks {
		if c.ID != "d#"+string(rune('1'+i)) || c.DocID != "d" || c.Address != "HB 1" || c.Kind != "lecture" || c.URL != "u" || c.Title != "T" {
			t.Errorf("chunk %d = %+v: lost document fields", i, c)
		}
	}
	if !strings.HasSuffix(chunks[1].Text, "short tail.") {
		t.Errorf("tail not merged into the last chunk")
	}
	one := chunkDoc(Doc{ID: "s", Text: "small"}, 800, 200)
	if len(one) != 1 || one[0].ID != "s" {
		t.Errorf("small doc chunks = %+v, want one chunk keeping id s", one)
	}
	long := chunkDoc(Doc{ID: "w", Text: strings.Repeat("word ", 1000)}, 300, 0)
	for _, c := range long {
		if len(c.Text) > 300 {
			t.Errorf("chunk of %d chars exceeds 300", len(c.Text))
		}
	}
}

func TestNormalizeAddress(t *testing.T) {
	tests := []struct{ in, want string }{
		{"John 3:16", "john 3:16"},
		{"Jn 3:16", "john 3:16"},
		{"jhn 3:16", "john 3:16"},
		{"1 Cor 13:4", "1corinthians 13:4"},
		{"1 Corinthians 13:4", "1corinthians 13:4"},
		{"Ge 1:1", "genesis 1:1"},
		{"Song of Solomon 2:1", "songofsolomon 2:1"},
		{"HB 2.3", "hb 2.3"},
		{"hb  2.3", "hb 2.3"},
		{"LF-4001", "lf 4001"},
		{"lf 4001", "lf 4001"},
		{"LF4001", "lf 4001"},
		{"hb 2.3", "hb 2.3"},
		{"HB2.3", "hb 2.3"},
		{"Hb. 2.3", "hb 2.3"},
		{"HB-2.3", "hb 2.3"},
		{"JOHN 3 : 16", "john 3:16"},
		{"gen. 1:1", "genesis 1:1"},
	}
	for _, tt := range tests {
		if got := normalizeAddress(tt.in, nil); got != tt.want {
			t.Errorf("normalizeAddress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := normalizeAddress("Xy 1:1", map[string]string{"xy": "exodus"}); got != "exodus 1:1" {
		t.Errorf("corpus alias: got %q, want exodus 1:1", got)
	}
}

func TestCalibration(t *testing.T) {
	c := Calibration{Knots: [][2]float64{{0, 0}, {0.2, 0.3}, {0.5, 0.8}, {1, 1}}}
	tests := []struct{ raw, want float64 }{{-1, 0}, {0, 0}, {0.1, 0.15}, {0.2, 0.3}, {0.35, 0.55}, {1, 1}, {2, 1}}
	for _, tt := range tests {
		if got := c.Apply(tt.raw); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("Apply(%v) = %v, want %v", tt.raw, got, tt.want)
		}
	}
	if err := (Calibration{Knots: [][2]float64{{0, 0}, {0, 1}}}).validate(); err == nil {
		t.Error("non-increasing knots accepted")
	}
}

func TestConfigValidateReportsEverything(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	c := DefaultConfig()
	c.ChunkChars = 5
	c.Embedder = "magic"
	c.Local.Dims = 1
	c.HNSW.Ml = 2
	err := c.Validate()
	for _, key := range []string{"chunk_chars:", "embedder:", "local.dims:", "hnsw.ml:"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Validate() = %v, want a problem for %s", err, key)
		}
	}
}

func TestDemoCorpusGroundsAndBails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo")
	man, err := BuildDemo(context.Background(), DefaultConfig(), out, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if man.Docs < 150 || man.Memory < 5 {
		t.Errorf("demo: %d docs, %d memory entries; want >= 150 and >= 5", man.Docs, man.Memory)
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	best := func(q string) (float64, string) {
		qt := p.Local().PrepareQuery(q)
		var m float64
		var id string
		for i, c := range p.Chunks() {
			if sc := p.local.Calib.Apply(p.Match(qt, i).Relevance()); sc > m {
				m, id = sc, c.ID
			}
		}
		return m, id
	}
	for _, q := range []string{"How do I restore a backup?", "What is the API rate limit?", "How do I invite people?"} {
		if m, id := best(q); m < 0.55 {
			t.Errorf("on-topic %q: best %.2f (%s), want >= 0.55", q, m, id)
		}
	}
	for _, q := range []string{"What is the capital of France?", "best recipe for chocolate cake"} {
		if m, id := best(q); m >= 0.40 {
			t.Errorf("off-topic %q: best %.2f (%s), want < 0.40", q, m, id)
		}
	}
	if got := p.Address("HB 2.3"); len(got) != 1 || p.Chunk(got[0]).ID != "hb-2-3" {
		t.Errorf("Address(HB 2.3) = %v, want hb-2-3", got)
	}
}

// The same pair of texts always scores the same bits: sparse sums do not
// depend on map order (a threshold compared at equality would flicker).
func TestSparseScoresAreDeterministic(t *testing.T) {
	var docs [][]string
	for _, s := range []string{"restore an old backup archive", "rotate the api keys every quarter", "backup archives are kept for thirty days", "the archive restore needs an admin key"} {
		docs = append(docs, Tokenize(s))
	}
	m := fitLocal(DefaultConfig().Local, docs)
	q := "restore the backup archive from last week with the admin key"
	d := "the archive restore needs an admin key and a backup archive"
	wantCos, wantRel := m.SparseText(q).Cosine(m.SparseText(d)), relevance(m.SparseText(q), m.SparseText(d))
	if wantCos <= 0 {
		t.Fatalf("cosine %v: texts share no terms", wantCos)
	}
	for range 200 {
		qs, ds := m.SparseText(q), m.SparseText(d)
		if got := qs.Cosine(ds); got != wantCos {
			t.Fatalf("Cosine = %v then %v", wantCos, got)
		}
		if got := relevance(qs, ds); got != wantRel {
			t.Fatalf("Relevance = %v then %v", wantRel, got)
		}
	}
}

// A build killed midway leaves .OUT.tmp-pidN-* behind; the next build of
// the same output removes it when that process is gone, and leaves the
// temp dir of a build that is still running.
func TestStaleTempDirsCleaned(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "v1")
	dead := filepath.Join(root, ".v1.tmp-pid999999999-123")
	live := filepath.Join(root, fmt.Sprintf(".v1.tmp-pid%d-456", os.Getpid()))
	other := filepath.Join(root, ".v2.tmp-pid999999999-789")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	docs := []Doc{{ID: "a", Text: "Alpha beta gamma delta epsilon."}}
	if _, err := BuildDocs(context.Background(), DefaultConfig(), docs, nil, out, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("stale temp dir of a dead build still there (%v)", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(d), err)
		}
	}
}

// A FAQ export's JSON lines name their fields "question" and "answer", a
// help centre's article "body" (or "content"): read as the title and the
// text, as a CSV sheet's columns of those names are
// (trial 20's repair-shop FAQ had 14 such rows, each refused as "missing
// text"). A line's own title or text wins, and the alias is then kept in
// meta.
func TestParseDocLineFAQ(t *testing.T) {
	for _, tt := range []struct {
		line, title, text string
		meta              map[string]any
		wantErr           string
	}{
		{`{"id":"faq-01","question":"How long does a screen repair take?","answer":"Most screens are done in an hour."}`,
			"How long does a screen repair take?", "Most screens are done in an hour.", nil, ""},
		{`{"id":"f2","question":"Do you fix tablets?","text":"Yes, iPads and Galaxy Tabs."}`, "Do you fix tablets?", "Yes, iPads and Galaxy Tabs.", nil, ""},
		{`{"id":"f3","title":"Tablets","question":"Do you fix tablets?","answer":"Yes."}`, "Tablets", "Yes.", map[string]any{"question": "Do you fix tablets?"}, ""},
		{`{"id":"f4","text":"Open 9 to 5.","answer":"ignored"}`, "", "Open 9 to 5.", map[string]any{"answer": "ignored"}, ""},
		{`{"id":"f5","question":"Any text?"}`, "", "", nil, "missing text"},
		{`{"id":"f7","body":"We open at 9."}`, "", "We open at 9.", nil, ""},
		{`{"id":"f8","title":"Meter readings","body":"Send a reading online.","section":"Billing"}`, "Meter readings", "Send a reading online.", map[string]any{"section": "Billing"}, ""},
		{`{"id":"f9","answer":"From the answer.","body":"From the body.","content":"From the content."}`, "", "From the answer.", map[string]any{"body": "From the body.", "content": "From the content."}, ""},
		{`{"id":"f10","summary":"We open at 9."}`, "", "", nil, `doc "f10": missing text (the line has id, summary; a passage's text goes in "text", "body" or "content", a FAQ's in "answer" with "question", a chatbot intent's in "responses")`},
		{`{"id":"f6","question":"Q","answer":7}`, "", "", nil, `field "answer": must be a string`},
	} {
		d, err := parseDocLine([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseDocLine(%s) error = %v, want containing %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDocLine(%s): %v", tt.line, err)
			continue
		}
		if d.Title != tt.title || d.Text != tt.text || len(d.Meta) != len(tt.meta) {
			t.Errorf("parseDocLine(%s) = title %q text %q meta %v, want %q %q %v", tt.line, d.Title, d.Text, d.Meta, tt.title, tt.text, tt.meta)
		}
		for k, v := range tt.meta {
			if d.Meta[k] != v {
				t.Errorf("parseDocLine(%s): meta[%s] = %v, want %v", tt.line, k, d.Meta[k], v)
			}
		}
	}
}
