package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
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

// TestUnpublished: an exported draft (draft true, published false, status
// draft or archived; a sheet's Published FALSE) is left out of a build
// with a warning that counts it, not as a bad line; an add removes the
// live version of a page that became a draft, and says nothing of a draft
// that was never published. A static site's page marked "draft: true" in
// its front matter is a draft too.
func TestUnpublished(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "help.json")
	if err := os.WriteFile(p, []byte(`[{"id":"a","title":"Quotes","body":"<p>Quotes are free.</p>","draft":false},
{"id":"b","title":"Pianos","body":"<p>Pianos cost extra.</p>","draft":true},
{"id":"c","text":"Storage from £25.","published":false},
{"id":"d","text":"Old prices.","status":"Archived"},
{"id":"e","text":"Parking permits.","status":"published"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "shop.csv")
	if err := os.WriteFile(c, []byte("Handle,Title,Body (HTML),Published\nbbq,BBQ packs,<p>Summer only.</p>,FALSE\nturkey,Turkeys,<p>Order by 1 December.</p>,TRUE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "content")
	for name, page := range map[string]string{
		"prices.md":    "---\ntitle: Prices\ndraft: false\n---\nLessons are £38.\n",
		"refresher.md": "---\ntitle: Refresher lessons\ndraft: true\n---\nRefreshers are £40.\n",
	} {
		if err := os.MkdirAll(site, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(site, name), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	core, logs := observer.New(zap.WarnLevel)
	base := filepath.Join(dir, "base")
	man, err := Build(ctx, DefaultConfig(), []string{p, c, site}, nil, base, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	if man.Docs != 4 || len(man.BadLines) != 0 {
		t.Errorf("build: %d docs, bad %v; want a, e, turkey and prices.md, no bad line", man.Docs, man.BadLines)
	}
	var warned bool
	for _, e := range logs.All() {
		if strings.Contains(e.Message, "unpublished") && e.ContextMap()["count"] == int64(5) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning counting the 5 unpublished documents (a static site's draft page among them): %v", logs.All())
	}
	// a becomes a draft, b stays one: a is removed, b is not reported
	if err := os.WriteFile(p, []byte(`[{"id":"a","text":"Quotes are free.","draft":true},{"id":"b","text":"Pianos cost extra.","draft":true}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	var ch Changes
	if _, err := Add(ctx, DefaultConfig(), base, []string{p}, nil, filepath.Join(dir, "v1"), zap.NewNop(), WithChanges(&ch)); err != nil {
		t.Fatal(err)
	}
	if got := refIDs(ch.Removed); !slices.Equal(got, []string{"a"}) || len(ch.NotFound) != 0 {
		t.Errorf("add: removed %v, not found %v; want a removed and nothing not found", got, refIDs(ch.NotFound))
	}
}

// TestJSONChatbotExport: a chatbot's intents exported for a migration (a
// wrapper object printed from its first line, intents without ids) are
// read: the responses as the text (a rich card's text and title, not its
// type or image), the first training phrase as the title, the others kept
// as "Also asked as", the intent's name (or the file and number) as the
// id; an intent with no response is a bad line at its line.
func TestJSONChatbotExport(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "intents.json", `{"agent": "Hope Shops", "intents": [
 {"name": "donate.furniture", "trainingPhrases": ["can I donate a sofa", "do you take furniture"], "responses": ["Yes, sofas need fire labels.", "We love furniture!"]},
 {"name": "opening.hours", "trainingPhrases": ["when are you open"], "responses": [{"type": "card", "title": "Opening hours", "text": "9am to 5pm.", "imageUrl": "https://x/y.png"}]},
 {"tag": "gift aid", "patterns": ["what is gift aid"], "responses": ["Gift Aid adds 25p to every pound."]},
 {"name": "hello", "trainingPhrases": ["hello"]}
]}
`)
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(docs) != 3 || len(bad) != 1 || bad[0].Line != 5 || !strings.Contains(bad[0].Error(), `"responses"`) {
		t.Fatalf("err %v, bad %v, docs %+v", err, bad, docs)
	}
	want := []Doc{
		{ID: "donate.furniture", Title: "can I donate a sofa", Text: "Yes, sofas need fire labels.\nWe love furniture!\n\nAlso asked as: do you take furniture"},
		{ID: "opening.hours", Title: "when are you open", Text: "9am to 5pm.\nOpening hours"},
		{ID: "intents-3", Title: "what is gift aid", Text: "Gift Aid adds 25p to every pound."},
	}
	for i, w := range want {
		if d := docs[i]; d.ID != w.ID || d.Title != w.Title || d.Text != w.Text {
			t.Errorf("doc %d: %q %q %q, want %q %q %q", i, d.ID, d.Title, d.Text, w.ID, w.Title, w.Text)
		}
	}
}
