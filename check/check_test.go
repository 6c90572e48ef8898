package check

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
	"go.uber.org/zap"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// newChecker builds testdata/corpus.jsonl into a real on-disk snapshot in
// a temp dir and wires a Checker over it with the default configuration.
func newChecker(t testing.TB, cfg Config) *Checker {
	t.Helper()
	return newCheckerOn(t, cfg, "testdata/corpus.jsonl")
}

// newCheckerOn is newChecker over the corpus file at path.
func newCheckerOn(t testing.TB, cfg Config, path string) *Checker {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "snap")
	ic := index.DefaultConfig()
	if _, err := index.Build(ctx, ic, []string{path}, nil, dir, zap.NewNop()); err != nil {
		t.Fatalf("build corpus: %v", err)
	}
	snap, err := index.Load(dir)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	rc := retrieve.DefaultConfig()
	eng, err := retrieve.New(rc, ic, snap, zap.NewNop())
	if err != nil {
		snap.Close()
		t.Fatalf("engine: %v", err)
	}
	t.Cleanup(eng.Close)
	j, err := judge.New(judge.DefaultConfig(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gauntlet.Compile(gauntlet.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg, Deps{Partition: snap.Partition(index.DefaultTenant, index.DefaultKB), Retriever: eng,
		Tenant: index.DefaultTenant, KB: index.DefaultKB, Judge: j, Spec: spec, AddressPatterns: rc.AddressPatterns}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckFixture(t *testing.T) {
	c := newChecker(t, DefaultConfig())
	got, err := c.CheckFile(context.Background(), "testdata/doc.md")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		line int
		kind string
	}
	want := map[key]string{
		{6, FindContradicted}:     Critical, // freezes at 10 degrees vs 0 (the sentence starts on line 6)
		{9, FindUnknownCitation}:  Critical, // [^blog] names a blog
		{10, FindMissingCitation}: Info,     // uncited, the salinity passage supports it
		{14, FindUncitedClaim}:    Warning,  // uncited, nothing supports it
		{27, FindLeakedID}:        Info,     // doc_7f3a9c
		{27, FindBrokenMarker}:    Warning,  // [^ draft]
		{37, FindUnusedFootnote}:  Info,     // [^spare]
	}
	gotKeys := map[key]string{}
	for _, f := range got {
		gotKeys[key{f.Line, f.Kind}] = f.Severity
	}
	for k, sev := range want {
		if gotKeys[k] != sev {
			t.Errorf("line %d %s: got severity %q, want %q", k.line, k.kind, gotKeys[k], sev)
		}
	}
	for _, f := range got {
		if _, ok := want[key{f.Line, f.Kind}]; !ok {
			t.Errorf("unexpected finding: %+v", f)
		}
	}
	st := c.Stats()
	// The supported claims: boiling (line 6), ice floats [1] (line 11),
	// density link (line 12), pressure cooker [^3] (line 16), tea link (line 17).
	if st.Verified != 5 {
		t.Errorf("verified: got %d, want 5 (stats %+v)", st.Verified, st)
	}
	if st.Unresolved != 1 {
		t.Errorf("unresolved citations: got %d, want 1", st.Unresolved)
	}
}

func TestGolden(t *testing.T) {
	c := newChecker(t, DefaultConfig())
	fs, err := c.CheckFile(context.Background(), "testdata/doc.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, format, fs, c.Stats()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "doc."+format+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./check -run TestGolden -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("%s output differs from %s:\ngot:\n%s\nwant:\n%s", format, golden, got, want)
			}
		})
	}
}

func TestAtOrAbove(t *testing.T) {
	fs := []Finding{{Severity: Info}, {Severity: Warning}, {Severity: Warning}, {Severity: Critical}}
	for _, tc := range []struct {
		min  string
		want int
	}{{Critical, 1}, {Warning, 3}, {Info, 4}} {
		if got := AtOrAbove(fs, tc.min); got != tc.want {
			t.Errorf("AtOrAbove(%s): got %d, want %d", tc.min, got, tc.want)
		}
	}
	if got := AtOrAbove(nil, Info); got != 0 {
		t.Errorf("AtOrAbove(nil): got %d, want 0", got)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	bad := Config{FailOn: "error", Format: "xml", UncitedK: 0, MaxFileBytes: 0, MinTitleChars: 0, MaxPassageChars: 10}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad config: got nil error")
	}
	for _, key := range []string{"fail_on:", "format:", "uncited_k:", "max_file_bytes:", "min_title_chars:", "max_passage_chars:"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name %s", err, key)
		}
	}
}

func TestMaxFileBytes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxFileBytes = 100
	c := newChecker(t, cfg)
	if _, err := c.CheckFile(context.Background(), "testdata/doc.md"); err == nil || !strings.Contains(err.Error(), "max_file_bytes") {
		t.Errorf("oversized file: got %v, want a max_file_bytes error", err)
	}
}

func TestNoCorpus(t *testing.T) {
	j, err := judge.New(judge.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(DefaultConfig(), Deps{Judge: j}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := c.Check(context.Background(), "x.md", "Water boils at 100 degrees.[^a]\n\n[^a]: water-boiling\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Kind != FindUnknownCitation || fs[0].Line != 1 {
		t.Errorf("empty corpus: got %+v, want one unknown_citation on line 1", fs)
	}
}

func TestGithubEscaping(t *testing.T) {
	var b bytes.Buffer
	fs := []Finding{{File: "a,b:c.md", Line: 3, Severity: Critical, Kind: "k", Message: "100% wrong\nreally"}}
	if err := Write(&b, "github", fs, Stats{}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.md,line=3,title=guard check%3A k::k: 100%25 wrong%0Areally\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func BenchmarkCheckFixture(b *testing.B) {
	c := newChecker(b, DefaultConfig())
	src, err := os.ReadFile("testdata/doc.md")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Check(ctx, "doc.md", string(src)); err != nil {
			b.Fatal(err)
		}
	}
}

func TestResolve(t *testing.T) {
	c := newChecker(t, DefaultConfig())
	for _, tc := range []struct {
		name, text, url  string
		wantDoc, wantHow string
	}{
		{"exact url", "", "https://example.org/water/boiling", "water-boiling", "url"},
		{"url case and trailing slash", "", "HTTPS://EXAMPLE.org/water/boiling/", "water-boiling", "url"},
		{"id as text", "water-freezing", "", "water-freezing", "id"},
		{"id as url scheme", "", "corpus://ocean-salinity", "ocean-salinity", "id"},
		{"id as last path segment", "", "https://intranet.example/docs/tea-brewing", "tea-brewing", "id"},
		{"address", "WB 1.3", "", "water-density", "address"},
		{"address inside text", "Handbook WB 3.1, p. 4", "", "rain-cycle", "address"},
		{"exact title", "Brewing tea", "", "tea-brewing", "title"},
		{"title inside text", "Smith, Salinity of the oceans, 2019", "", "ocean-salinity", "title"},
		{"url inside text", "see https://example.org/water/freezing.", "", "water-freezing", "url"},
		{"unknown", "A travel blog", "https://blog.example.com/beach", "", ""},
		{"wrong fragment", "", "https://example.org/water/boiling#nope", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slots, how := c.cat.resolve(tc.text, tc.url)
			gotDoc := ""
			if len(slots) > 0 {
				gotDoc = c.cat.p.Chunk(slots[0]).DocID
			}
			if gotDoc != tc.wantDoc || how != tc.wantHow {
				t.Errorf("resolve(%q, %q): got %q by %q, want %q by %q", tc.text, tc.url, gotDoc, how, tc.wantDoc, tc.wantHow)
			}
		})
	}
}
