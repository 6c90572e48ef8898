package index

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRST: a Sphinx page (testdata/sphinx-plans.rst) reads as its text:
// the overlined title and the underlined sections as headings (levels by
// first use), roles and links as their text, a note and a titled warning
// as paragraphs led by their names, a list-table as rows, auto-numbered
// items numbered, a literal block kept, the toctree, link targets and
// options gone, a footnote kept as "Note: ...", its reference dropped.
func TestRST(t *testing.T) {
	docs, bad, err := ReadDocs([]string{filepath.Join("testdata", "sphinx-plans.rst")}, false)
	if err != nil || len(bad) != 0 || len(docs) != 1 {
		t.Fatalf("err %v bad %v docs %d", err, bad, len(docs))
	}
	d := docs[0]
	want := "Plans and pricing\n\nLedgerLite has three plans. See getting-started and the VAT page.\n\nNote: Prices exclude VAT.\n\nStarter\n\nThe Starter plan is free for up to 5 invoices a month.\n\nPlan prices\n\nPlan, Monthly, Yearly\nStarter, £0, £0\nPro, £12, £120\n\nCancelling\n\n1. Open Settings.\n2. Click Cancel plan.\n\nWarning: Data export. Export your invoices first; we delete them after 30 days.\n\nTo export, run:\n\nledger export --all\n\nSupport hours\n\nMonday to Friday, 9am to 5pm.\n\nNote: UK time."
	if d.Title != "Plans and pricing" || d.Text != want {
		t.Errorf("title %q text\n%q\nwant\n%q", d.Title, d.Text, want)
	}
	var heads []string
	for _, s := range d.sections {
		heads = append(heads, s.Heading)
	}
	if strings.Join(heads, "|") != "Starter|Cancelling|Support hours" {
		t.Errorf("sections %q", heads)
	}
}

// FuzzRST: any text read as reStructuredText gives UTF-8 Markdown no
// longer than a small multiple of it, and never panics.
func FuzzRST(f *testing.F) {
	f.Add("Title\n=====\n\n.. note::\n   x\n")
	f.Add(".. list-table::\n\n   * - a\n     - b\n")
	f.Add("x::\n\n    code\n\n.. [#] n\n:ref:`a <b>` `c <d>`_ |e| [#]_")
	f.Add("===\nA\n===\n.. csv-table:: T\n\n   \"a\",b\n")
	f.Fuzz(func(t *testing.T, in string) {
		md := rstMarkdown(in)
		if len(md) > 4*len(in)+64 {
			t.Fatalf("%d bytes from %d: %q", len(md), len(in), in)
		}
		markdownText(md)
	})
}
