package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// TestReadYAML: a static site's FAQ data file is read, each item a
// document wherever it stands (in sections' lists here), named stem-N, its
// block-scalar answer kept with its lines, a number or a date read as
// text, its section in meta; an item with no answer is a bad line at its
// line; YAML that does not parse, and a file of no documents (a site's
// config), say so at their line.
func TestReadYAML(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	faq := write("faq.yml", `# skip FAQ
- section: Sizes and prices
  items:
    - q: How much is a mini skip?
      a: A 2-yard mini skip is £180 for up to 14 days.
    - q: What sizes do you do?
      a: |
        We hire three sizes:
        - mini (2 yards)
        - builder's (6 yards)
- section: Permits
  items:
    - q: 2024 permits?
      a: 2024-01-05
    - q: Do you need a permit for a driveway?
`)
	docs, bad, err := ReadDocs([]string{faq}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 {
		t.Fatalf("%d docs: %+v", len(docs), docs)
	}
	if d := docs[1]; d.ID != "faq-2" || d.Title != "What sizes do you do?" || !strings.Contains(d.Text, "sizes:\n- mini (2 yards)\n- builder's") || d.Meta["section"] != "Sizes and prices" {
		t.Errorf("doc 2: %+v", d)
	}
	if d := docs[2]; d.ID != "faq-3" || d.Title != "2024 permits?" || d.Text != "2024-01-05" || d.Meta["section"] != "Permits" {
		t.Errorf("doc 3: %+v", d)
	}
	if len(bad) != 1 || bad[0].Line != 15 || !strings.Contains(bad[0].Error(), "no answer") {
		t.Errorf("bad lines %v; want the answerless item at line 15", bad)
	}
	for name, c := range map[string]struct {
		body string
		line int
		want string
	}{
		"broken.yaml": {"- q: a\n  a: b\n - q: c\n", 2, "did not find expected '-' indicator (the rest of the file is not read"},
		"hugo.yaml":   {"baseURL: https://example.org/\ntitle: Slice\nparams:\n  phone: 0123\n", 1, "no document in the file (it has the keys baseURL, title, params)"},
	} {
		_, bad, err := ReadDocs([]string{write(name, c.body)}, false)
		if err != nil || len(bad) != 1 || bad[0].Line != c.line || !strings.Contains(bad[0].Error(), c.want) {
			t.Errorf("%s: err %v, bad %v; want one at line %d saying %q", name, err, bad, c.line, c.want)
		}
	}
	// a build reads it, and a folder's .yaml file too
	folder := filepath.Join(dir, "site")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "delivery.yaml"), []byte("items:\n  - question: Do you deliver?\n    answer: Within 3 miles.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	man, err := Build(context.Background(), DefaultConfig(), []string{faq, folder}, nil, filepath.Join(dir, "idx"), zap.NewNop())
	if err != nil || man.Docs != 4 {
		t.Fatalf("build: %v, %+v", err, man)
	}
}

// FuzzReadYAML: any bytes read as a YAML corpus give documents with an id
// and text, or bad lines, never a panic or an error of the read itself.
func FuzzReadYAML(f *testing.F) {
	f.Add("- q: Do you deliver?\n  a: Yes.\n")
	f.Add("- section: Sizes\n  items:\n    - q: Mini?\n      a: |\n        £180\n        - 14 days\n")
	f.Add("a: &x {q: 1, a: 2}\nb: *x\n---\n- text: t\n  id: 7\n")
	f.Add("items:\n  - question: [1, 2]\n    answer: {a: b}\n  - {q: x}\n")
	f.Fuzz(func(t *testing.T, in string) {
		var bad []*LineError
		var docs []Doc
		err := readYAML(strings.NewReader(in), "f.yml", false, &bad, DocRef{}, func(d Doc, line int) error {
			docs = append(docs, d)
			return nil
		})
		if err != nil {
			t.Fatalf("read error %v", err)
		}
		for _, d := range docs {
			if d.ID == "" || strings.TrimSpace(d.Text) == "" && !d.Deleted {
				t.Fatalf("doc %+v from %q", d, in)
			}
		}
	})
}
