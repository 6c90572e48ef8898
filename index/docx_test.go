package index

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docxFile makes a .docx of the given parts (name -> XML).
func docxFile(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const wordHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`

// wp is a paragraph of style style ("" for none) holding runs.
func wp(style string, runs ...string) string {
	p := "<w:p>"
	if style != "" {
		p += `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	for _, r := range runs {
		p += "<w:r><w:t xml:space=\"preserve\">" + r + "</w:t></w:r>"
	}
	return p + "</w:p>"
}

// TestDocx: a Word document is read as the HTML page of its structure:
// the Title style (or the document's title property) titles it, heading
// styles start sections (a German Word's "berschrift2" is "heading 2" by
// its name in styles.xml), runs join into paragraphs, numbered paragraphs
// are list items, a table's rows are "cell, cell" lines; deleted text of a
// tracked change and field codes are not text, and "<" stays text; a
// footnote is kept as "Note 1: ..." at the end.
func TestDocx(t *testing.T) {
	body := wordHead +
		wp("Titel", "Harbour Dental Care") +
		wp("", "We are a family practice in ", "Kestrel Street.") +
		wp("berschrift2", "Fees") +
		wp("", "A check-up is £27.40.<w:tab/>Children are free.") +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Band 1: £27.40</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Band 2: £75.30</w:t></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc>` + wp("", "Day") + `</w:tc><w:tc>` + wp("", "Hours") + `</w:tc></w:tr><w:tr><w:tc>` + wp("", "Monday") + `</w:tc><w:tc>` + wp("", "8am to 6pm") + `</w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><w:t xml:space="preserve">Call </w:t></w:r><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:txbxContent>` + wp("", "Open late Thursdays") + `</w:txbxContent></mc:Choice><mc:Fallback><w:pict><w:txbxContent>` + wp("", "Open late Thursdays") + `</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>01632 960735</w:t></w:r></w:p>` +
		wp("berschrift2", "Emergencies") +
		`<w:p><w:r><w:t>Ring us at 8am</w:t></w:r><w:del><w:r><w:delText> or 9am</w:delText></w:r></w:del><w:r><w:instrText>HYPERLINK "x"</w:instrText></w:r><w:r><w:t xml:space="preserve"> for a slot if age &lt; 5.</w:t></w:r></w:p>` +
		`</w:body></w:document>`
	styles := `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:styleId="Titel"><w:name w:val="Title"/></w:style><w:style w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style></w:styles>`
	notes := `<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> Closed on bank holidays.</w:t></w:r></w:p></w:footnote></w:footnotes>`
	d, err := docxPage("guide.docx", docxFile(t, map[string]string{"word/document.xml": body, "word/styles.xml": styles, "word/footnotes.xml": notes}))
	if err != nil {
		t.Fatal(err)
	}
	want := "Harbour Dental Care\n\nWe are a family practice in Kestrel Street.\n\nFees\n\nA check-up is £27.40. Children are free.\n\nBand 1: £27.40\nBand 2: £75.30\n\nDay, Hours\nMonday, 8am to 6pm\n\nCall Open late Thursdays 01632 960735\n\nEmergencies\n\nRing us at 8am for a slot if age < 5.\n\nNote 1: Closed on bank holidays."
	if d.Title != "Harbour Dental Care" || d.Text != want {
		t.Errorf("title %q text\n%q\nwant\n%q", d.Title, d.Text, want)
	}
	var heads []string
	for _, s := range d.sections {
		heads = append(heads, s.Heading)
	}
	if strings.Join(heads, "|") != "Fees|Emergencies" {
		t.Errorf("sections %q", heads)
	}
	// a paragraph all in bold (a FAQ's question in Word) is a heading; one
	// with a bold lead-in is not
	d, err = docxPage("faq.docx", docxFile(t, map[string]string{"word/document.xml": wordHead +
		`<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Do you deliver?</w:t></w:r></w:p>` + wp("", "Within 10 miles.") +
		`<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">Note: </w:t></w:r><w:r><w:rPr><w:b w:val="0"/></w:rPr><w:t>cash only</w:t></w:r></w:p>` +
		"</w:body></w:document>"}))
	if err != nil || len(d.sections) != 1 || d.sections[0].Heading != "Do you deliver?" || !strings.Contains(d.Text, "Note: cash only") {
		t.Errorf("bold question: %v %+v %q", err, d.sections, d.Text)
	}
	// the title property names a document with no Title paragraph
	core := `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Patient guide</dc:title></cp:coreProperties>`
	d, err = docxPage("guide.docx", docxFile(t, map[string]string{"word/document.xml": wordHead + wp("", "Body.") + "</w:body></w:document>", "docProps/core.xml": core}))
	if err != nil || d.Title != "Patient guide" || d.Text != "Body." {
		t.Errorf("title property: %q %q %v", d.Title, d.Text, err)
	}
}

// TestReadDocsDocx: a .docx in a folder or on its own is read; one that
// is not a zip, or a zip without a Word body, or a body of no text, is a
// bad line saying so; an old .doc is refused with the advice to save it
// as .docx.
func TestReadDocsDocx(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string { return writeFile(t, dir, name, string(b)) }
	good := write("prices.docx", docxFile(t, map[string]string{"word/document.xml": wordHead + wp("Heading1", "Prices") + wp("", "Lessons are £38.") + "</w:body></w:document>"}))
	docs, bad, err := ReadDocs([]string{good}, false)
	if err != nil || len(bad) != 0 || len(docs) != 1 || docs[0].ID != "prices.docx" || docs[0].Title != "Prices" || docs[0].Text != "Prices\n\nLessons are £38." {
		t.Fatalf("good: %v %v %+v", err, bad, docs)
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"renamed.docx": {[]byte("Lessons are £38."), "not a Word document (.docx is a zip archive"},
		"other.docx":   {docxFile(t, map[string]string{"x.xml": "<x/>"}), "no word/document.xml"},
		"empty.docx":   {docxFile(t, map[string]string{"word/document.xml": wordHead + "</w:body></w:document>"}), "the file is empty"},
		"broken.docx":  {docxFile(t, map[string]string{"word/document.xml": wordHead + "<w:p>"}), "word/document.xml: XML syntax error"},
	} {
		_, bad, err := ReadDocs([]string{write(name, c.b)}, false)
		if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), c.want) {
			t.Errorf("%s: err %v, bad %v; want one bad line saying %q", name, err, bad, c.want)
		}
	}
	_, _, err = ReadDocs([]string{write("old.doc", []byte{0xd0, 0xcf, 0x11, 0xe0})}, false)
	if err == nil || !strings.Contains(err.Error(), "save it as a Word document (.docx)") {
		t.Errorf("old.doc: %v", err)
	}
}

// TestDocxPandoc: a .docx written by a real tool (pandoc 2.17.1.1 from
// testdata/pandoc-guide.md) reads as its source: the title property, the
// headings as sections, the table's rows, the list items, the footnote.
func TestDocxPandoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "pandoc-guide.docx"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := docxPage("pandoc-guide.docx", b)
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, s := range d.sections {
		heads = append(heads, s.Heading)
	}
	for _, want := range []string{"Small, £35, £25", "Nail clipping: £8\nTeeth cleaning: £10", "Brush your dog twice a week.", "Note 1: A slicker brush works best."} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, d.Text)
		}
	}
	if d.Title != "Oakwood Dog Grooming — Customer Guide" || strings.Join(heads, "|") != "Booking|Prices|Aftercare" {
		t.Errorf("title %q, sections %q", d.Title, heads)
	}
}

// TestODT: an OpenDocument text written by a real tool (pandoc 2.17.1.1
// from testdata/pandoc-guide.md) reads as its source, as the .docx does:
// the title, the headings as sections, the table's rows, the list
// items, the footnote as "Note 1: ...", its citation gone.
func TestODT(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "pandoc-guide.odt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := odtPage("pandoc-guide.odt", b)
	if err != nil {
		t.Fatal(err)
	}
	want := "Oakwood Dog Grooming — Customer Guide\n\nBooking\n\nYou can book online or by phone. We need 48 hours’ notice to cancel.\n\nPrices\n\nDog size, Full groom, Bath and brush\nSmall, £35, £25\nLarge, £55, £40\n\nNail clipping: £8\nTeeth cleaning: £10\n\nArrive ten minutes early.\nBring your dog’s lead.\n\nAftercare\n\nBrush your dog twice a week.\n\nNote 1: A slicker brush works best."
	var heads []string
	for _, s := range d.sections {
		heads = append(heads, s.Heading)
	}
	if d.Title != "Oakwood Dog Grooming — Customer Guide" || d.Text != want || strings.Join(heads, "|") != "Booking|Prices|Aftercare" {
		t.Errorf("title %q sections %q text\n%q\nwant\n%q", d.Title, heads, d.Text, want)
	}
	if _, err := odtPage("x.odt", []byte("plain text")); err == nil || !strings.Contains(err.Error(), "not an OpenDocument text") {
		t.Errorf("a renamed file: %v", err)
	}
}
