package index

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/index/encoder"
	"go.uber.org/zap"
)

// faqDocs are short FAQ rows without titles, in a shop's words; the
// questions below ask for them in a customer's words.
var faqDocs = []Doc{
	{ID: "puncture", Text: "Puncture repair costs £8 per wheel, including a new inner tube."},
	{ID: "hours", Text: "We are open Tuesday to Saturday, 9am to 5:30pm."},
	{ID: "seniors", Text: "Seniors over 65 and students with a valid card pay 4.50 euros."},
	{ID: "returns", Text: "Returns are accepted within 30 days for a full refund to the original payment method."},
	{ID: "service", Text: "An annual service includes gears, brakes, chain and a safety check for 65 pounds."},
	{ID: "parking", Text: "Customer parking is available behind the building on Mill Lane."},
	{ID: "hire", Text: "Bike hire starts at 20 pounds a day; helmets are included."},
	{ID: "delivery", Text: "We deliver new bikes free of charge within ten miles of the shop."},
}

// faqQuestions: rank is the worst acceptable dense rank (1-based). The
// encoder alone does not tie "tune-up" to "service" (measured rank 3 of 8,
// behind the puncture price and free delivery): the lexical lane, soft
// coverage and the reranker have to do that part.
var faqQuestions = []struct {
	q, want string
	rank    int
}{
	{"how much do you charge to fix a flat tyre?", "puncture", 1},
	{"what are your hours on a saturday?", "hours", 1},
	{"Is there a discount for pensioners?", "seniors", 1},
	{"can I get my money back?", "returns", 1},
	{"how much is a yearly tune-up?", "service", 3},
}

func buildFAQ(t *testing.T, cfg Config, opts ...Option) (string, Manifest) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "snap")
	man, err := BuildDocs(context.Background(), cfg, faqDocs, nil, out, zap.NewNop(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return out, man
}

func nearest(t *testing.T, p *Partition, q string) string {
	t.Helper()
	if r := denseRanks(t, p, q, 1); len(r) > 0 {
		return r[0]
	}
	return ""
}

// denseRanks returns the doc ids of the dense lane's top k for q.
func denseRanks(t *testing.T, p *Partition, q string, k int) []string {
	t.Helper()
	hits, err := p.Dense(p.EmbedQuery(q), k, 4)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, p.Chunk(h.Index).DocID)
	}
	return out
}

// TestEncoderDenseLane builds with the default embedder (the embedded
// encoder) and checks the manifest records it, the dense lane finds
// paraphrased questions' passages, with and without a graph, and the
// build reports its progress.
func TestEncoderDenseLane(t *testing.T) {
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, graph := range []bool{false, true} {
		cfg := DefaultConfig()
		if graph {
			cfg.HNSW.ExactBelow = 4
		}
		var prog bytes.Buffer
		dir, man := buildFAQ(t, cfg, WithProgress(&prog))
		if man.Embedder != EmbedderUSE || man.EncoderChecksum != enc.Checksum() || man.Dims != 512 || man.Model != encoderModelName {
			t.Fatalf("manifest: embedder %q model %q dims %d checksum %.12s; want use, %s, 512, %.12s",
				man.Embedder, man.Model, man.Dims, man.EncoderChecksum, encoderModelName, enc.Checksum())
		}
		if pi := man.Partitions[0]; pi.DenseCalibration == nil || pi.Graph != graph {
			t.Fatalf("partition: dense calibration %v, graph %v (want %v)", pi.DenseCalibration, pi.Graph, graph)
		}
		if !strings.Contains(prog.String(), "encoder: 8 passages in") {
			t.Errorf("progress output %q lacks the summary line", prog.String())
		}
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := s.Partition("default", "default")
		if p.PrimaryDims() != 512 || p.Encoder() == nil {
			t.Fatalf("PrimaryDims %d, encoder %v", p.PrimaryDims(), p.Encoder())
		}
		for _, c := range faqQuestions {
			if got := denseRanks(t, p, c.q, c.rank); !slices.Contains(got, c.want) {
				t.Errorf("graph=%v: %q: top %d %v, want %q among them", graph, c.q, c.rank, got, c.want)
			}
		}
		// Calibration is increasing in the raw cosine and on [0,1].
		lo, hi := p.Calibrate(0.05, true), p.Calibrate(0.8, true)
		if !(0 <= lo && lo < hi && hi <= 1) {
			t.Errorf("calibrated 0.05 -> %v, 0.8 -> %v", lo, hi)
		}
		s.Close()
	}
}

func TestHashedEmbedderStaysSelectable(t *testing.T) {
	for _, name := range []string{EmbedderHashed, "local"} {
		cfg := DefaultConfig()
		cfg.Embedder = name
		dir, man := buildFAQ(t, cfg)
		if man.Embedder != EmbedderHashed || man.EncoderChecksum != "" {
			t.Fatalf("%s: manifest embedder %q checksum %q, want hashed and none", name, man.Embedder, man.EncoderChecksum)
		}
		if _, err := os.Stat(filepath.Join(dir, "parts/default/default/encoder.f32")); !os.IsNotExist(err) {
			t.Errorf("%s: encoder vectors written: %v", name, err)
		}
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := s.Partition("default", "default")
		if p.PrimaryDims() != cfg.Local.Dims || p.Encoder() != nil {
			t.Errorf("%s: PrimaryDims %d encoder %v, want %d and none", name, p.PrimaryDims(), p.Encoder(), cfg.Local.Dims)
		}
		if got := nearest(t, p, "when are you open on Saturday?"); got != "hours" {
			t.Errorf("%s: nearest %q, want hours", name, got)
		}
		s.Close()
	}
}

// TestEmbedderChangeRefused: a snapshot is only served, and only
// extended, with the embedder that built it; the message names both.
func TestEmbedderChangeRefused(t *testing.T) {
	useDir, _ := buildFAQ(t, DefaultConfig())
	hcfg := DefaultConfig()
	hcfg.Embedder = EmbedderHashed
	hashedDir, _ := buildFAQ(t, hcfg)
	for _, c := range []struct {
		dir, embedder string
		wantErr       bool
	}{
		{useDir, EmbedderUSE, false},
		{useDir, EmbedderHashed, true},
		{useDir, EmbedderRemote, true},
		{hashedDir, EmbedderHashed, false},
		{hashedDir, "local", false},
		{hashedDir, EmbedderUSE, true},
	} {
		s, err := Load(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Embedder = c.embedder
		err = s.CheckEmbedder(cfg)
		s.Close()
		if (err != nil) != c.wantErr {
			t.Errorf("snapshot %s, config %s: err %v, want error %v", filepath.Base(filepath.Dir(c.dir)), c.embedder, err, c.wantErr)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), `"`+canonicalEmbedder(c.embedder)+`"`) || !strings.Contains(err.Error(), "built with embedder")) {
			t.Errorf("message %q does not name both embedders", err)
		}
	}
	extra := filepath.Join(t.TempDir(), "extra.jsonl")
	if err := os.WriteFile(extra, []byte(`{"id":"new","text":"Gift vouchers can be bought in the shop."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Add(context.Background(), hcfg, useDir, []string{extra}, nil, filepath.Join(t.TempDir(), "added"), zap.NewNop())
	if err == nil || !strings.Contains(err.Error(), `"use"`) || !strings.Contains(err.Error(), `"hashed"`) {
		t.Errorf("Add with another embedder: %v, want a refusal naming use and hashed", err)
	}
}

func TestLoadRefusesOtherEncoderModel(t *testing.T) {
	dir, _ := buildFAQ(t, DefaultConfig())
	path := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["encoder_checksum"] = strings.Repeat("ab", 32)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "rebuild the index") {
		t.Errorf("Load with another encoder model: %v, want a refusal", err)
	}
}

func TestAddEncodesNewChunks(t *testing.T) {
	base, _ := buildFAQ(t, DefaultConfig())
	extra := filepath.Join(t.TempDir(), "extra.jsonl")
	if err := os.WriteFile(extra, []byte(`{"id":"vouchers","text":"Gift vouchers can be bought in the shop and online."}`+"\n"+
		`{"id":"hours","text":"From March we open every day, 8am to 6pm."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "added")
	var prog bytes.Buffer
	man, err := Add(context.Background(), DefaultConfig(), base, []string{extra}, nil, out, zap.NewNop(), WithProgress(&prog))
	if err != nil {
		t.Fatal(err)
	}
	if man.Embedder != EmbedderUSE || man.Partitions[0].DenseCalibration == nil {
		t.Fatalf("manifest after add: embedder %q calibration %v", man.Embedder, man.Partitions[0].DenseCalibration)
	}
	if !strings.Contains(prog.String(), "encoder: 2 passages in") {
		t.Errorf("progress %q", prog.String())
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition("default", "default")
	if got := nearest(t, p, "can I buy a gift card?"); got != "vouchers" {
		t.Errorf("new chunk: nearest %q, want vouchers", got)
	}
	hits, err := p.Dense(p.EmbedQuery("what time do you open?"), 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if c := p.Chunk(h.Index); c.DocID == "hours" && strings.Contains(c.Text, "Tuesday") {
			t.Errorf("the replaced hours chunk came back")
		}
	}
}

func TestEmbedderConfigValues(t *testing.T) {
	for _, c := range []struct {
		embedder string
		ok       bool
	}{
		{"use", true}, {"hashed", true}, {"local", true}, {"remote", true}, {"", false}, {"USE", false}, {"sbert", false},
	} {
		cfg := DefaultConfig()
		cfg.Embedder = c.embedder
		cfg.Remote.BaseURL, cfg.Remote.Model = "http://127.0.0.1:1/v1", "m"
		err := cfg.Validate()
		if (err == nil) != c.ok {
			t.Errorf("embedder %q: Validate() = %v, want ok %v", c.embedder, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "embedder: must be use, hashed") {
			t.Errorf("embedder %q: message %q does not list the values", c.embedder, err)
		}
	}
	if got := DefaultConfig().Embedder; got != EmbedderUSE {
		t.Errorf("default embedder %q, want use", got)
	}
}

// pairCoherence is the mean cosine between the encoder vectors of two
// different live chunks of p relative to the background, pair by pair.
func pairCoherence(t *testing.T, p *Partition) float64 {
	bg, err := background()
	if err != nil {
		t.Fatal(err)
	}
	rel := func(i int) []float32 {
		v := slices.Clone(p.vec(i))
		for j := range v {
			v[j] -= float32(bg[j])
		}
		return v
	}
	var sum float64
	n := 0
	for i := range p.Chunks() {
		for j := range p.Chunks() {
			if i != j {
				sum += encoder.Cosine(rel(i), rel(j))
				n++
			}
		}
	}
	return sum / float64(n)
}

// TestCoherenceKept: build and add keep the partition's coherence (the
// mean cosine between two of its chunks' encoder vectors relative to the
// background) and its basis in the manifest; a snapshot built before it
// was kept, or measured against another background, still loads and
// reports none (the gate then applies on_topic_sim alone).
func TestCoherenceKept(t *testing.T) {
	dir, man := buildFAQ(t, DefaultConfig())
	c := man.Partitions[0].DenseCoherence
	if c == nil || man.Partitions[0].DenseCoherenceBasis != coherenceBasis() {
		t.Fatalf("manifest: dense_coherence %v basis %q, want one on basis %q", c, man.Partitions[0].DenseCoherenceBasis, coherenceBasis())
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Partition("default", "default")
	got, ok := p.Coherence()
	if want := pairCoherence(t, p); !ok || got != *c || got < want-0.002 || got > want+0.002 {
		t.Errorf("Coherence() = %v, %v; manifest %v; pair by pair %v", got, ok, *c, want)
	}
	s.Close()

	extra := filepath.Join(t.TempDir(), "extra.jsonl")
	if err := os.WriteFile(extra, []byte(`{"id":"moon","text":"The Moon's far side was first photographed by Luna 3 in October 1959."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	added := filepath.Join(t.TempDir(), "added")
	aman, err := Add(context.Background(), DefaultConfig(), dir, []string{extra}, nil, added, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if ac := aman.Partitions[0].DenseCoherence; ac == nil || *ac >= *c {
		t.Errorf("coherence after adding an unrelated passage: %v, want below %v", ac, *c)
	}

	// A manifest measured against another background, then one without
	// the keys: the snapshot of an earlier build.
	path := filepath.Join(dir, "manifest.json")
	for _, change := range []struct {
		name string
		edit func(pi map[string]any)
	}{
		{"another background", func(pi map[string]any) { pi["dense_coherence_basis"] = "0123456789ab" }},
		{"no coherence", func(pi map[string]any) { delete(pi, "dense_coherence"); delete(pi, "dense_coherence_basis") }},
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, pi := range m["partitions"].([]any) {
			change.edit(pi.(map[string]any))
		}
		b, _ = json.Marshal(m)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		old, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v, want the snapshot loaded", change.name, err)
		}
		if got, ok := old.Partition("default", "default").Coherence(); ok {
			t.Errorf("%s: Coherence() = %v, true; want none", change.name, got)
		}
		old.Close()
	}
}

// The encoder's last progress line counts in words that agree with the
// count ("1 passage", "2 passages").
func TestProgressFinishLine(t *testing.T) {
	for n, want := range map[int]string{1: "encoder: 1 passage in ", 2: "encoder: 2 passages in "} {
		var b strings.Builder
		p := newProgress(&b, zap.NewNop(), n)
		p.add(n)
		p.finish()
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d passages: %q, want it to contain %q", n, b.String(), want)
		}
	}
}

// A snapshot closed twice (a reload racing a shutdown, a deferred Close
// after an explicit one) releases its files once; bleve panics on a second
// close of its index.
func TestSnapshotCloseTwice(t *testing.T) {
	dir, _ := buildFAQ(t, DefaultConfig())
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
