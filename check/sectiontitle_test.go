package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// poolGuide is a Markdown corpus page whose two sections are two chunks,
// titled "Pool guide: Opening hours" and "Pool guide: Water temperature".
const poolGuide = `# Pool guide

## Opening hours

The pool opens at 7am on weekdays and closes at 9pm in the evening. On Sundays and public holidays it opens at 9am and closes at 6pm. The last entry is half an hour before closing time, and the changing rooms close fifteen minutes after the pool.

## Water temperature

The main pool is heated to 28 degrees Celsius all year round. The children's pool is kept warmer, at 31 degrees Celsius, and the spa pool at 36 degrees. The water is tested every two hours by the lifeguards on duty.
`

// TestEvidenceNamesItsSection: a citation of a Markdown page whose
// sections are chunks is verified against the whole page; a finding whose
// evidence is in the second section names that section's title, not the
// first chunk's.
func TestEvidenceNamesItsSection(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "pool.md")
	if err := os.WriteFile(corpus, []byte(poolGuide), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newCheckerOn(t, DefaultConfig(), corpus)
	var titles []string
	docID := ""
	for _, ch := range c.deps.Partition.Chunks() {
		titles = append(titles, ch.Title)
		docID = ch.DocID
	}
	if strings.Join(titles, "|") != "Pool guide: Opening hours|Pool guide: Water temperature" {
		t.Fatalf("chunk titles %q: the page must be two chunks, one per section, or the test proves nothing", titles)
	}
	doc := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(doc, []byte("The main pool is heated to 18 degrees Celsius.[^pool]\n\n[^pool]: "+docID+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := c.CheckFile(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	var f *Finding
	for i := range got {
		if got[i].Kind == FindContradicted {
			f = &got[i]
		}
	}
	if f == nil {
		t.Fatalf("no contradicted finding: %+v", got)
	}
	if !strings.Contains(f.Evidence, "28 degrees") {
		t.Fatalf("evidence %q is not from the temperature section: the test proves nothing", f.Evidence)
	}
	if !strings.Contains(f.Message, `"Pool guide: Water temperature"`) || strings.Contains(f.Message, "Opening hours") {
		t.Errorf("message %q: want the evidence's section, Pool guide: Water temperature", f.Message)
	}
}
