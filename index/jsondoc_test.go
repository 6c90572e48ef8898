package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDocsHTMLBody: an exported article whose body is HTML (a help
// desk's JSON, a CSV cell) is indexed as its text: paragraphs and list items
// kept apart, tags and entities gone, a heading inside it a section; a body
// that only mentions a "<" is left as written.
func TestReadDocsHTMLBody(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "help.json")
	body := `[{"id":"pianos","title":"Pianos","body":"<p>We move upright and baby grand pianos.</p><ul><li><strong>Upright:</strong> &pound;120</li><li>Baby grand: &pound;240</li></ul><h2>Stairs</h2><p>Add &pound;30 a flight.</p>","section":"Special items"},` +
		`{"id":"cmp","title":"Sizes","body":"A box < 30kg & over 2 ft is large."}]`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "faq.csv")
	if err := os.WriteFile(c, []byte("question,answer\nDo you store?,\"<p>Yes, from &pound;25 a month.</p><p>Access by appointment.</p>\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, bad, err := ReadDocs([]string{p, c}, true)
	if err != nil || len(bad) > 0 || len(docs) != 3 {
		t.Fatalf("ReadDocs: %v, bad %v, %d docs", err, bad, len(docs))
	}
	want := "We move upright and baby grand pianos.\n\nUpright: £120\nBaby grand: £240\n\nStairs\n\nAdd £30 a flight."
	if docs[0].Text != want {
		t.Errorf("HTML body read as\n%q\nwant\n%q", docs[0].Text, want)
	}
	if docs[0].Meta["section"] != "Special items" {
		t.Errorf("meta = %v, want the section kept", docs[0].Meta)
	}
	var titles []string
	for _, ch := range chunkDoc(docs[0], 60, 0) {
		titles = append(titles, ch.Title)
	}
	if !strings.Contains(strings.Join(titles, "|"), "Pianos: Stairs") {
		t.Errorf("chunk titles %q: the body's heading starts no section", titles)
	}
	if docs[1].Text != "A box < 30kg & over 2 ft is large." {
		t.Errorf("plain text changed: %q", docs[1].Text)
	}
	if docs[2].Text != "Yes, from £25 a month.\n\nAccess by appointment." || docs[2].Title != "Do you store?" {
		t.Errorf("CSV cell read as %q (title %q)", docs[2].Text, docs[2].Title)
	}
}
