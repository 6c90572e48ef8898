package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDocsPlainTextTitle reads plain-text files from a folder on disk:
// a first line that reads as a title titles the document (refusals named
// the railway's conditions "conditions", the file name); one that does not
// (a sentence, a long line, one that runs on into the next) leaves the file
// name.
func TestReadDocsPlainTextTitle(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"conditions.txt": "Kestrel Valley Railway - Conditions of Travel\n\n1. About these conditions\n1.1 They apply to all journeys.\n",
		"crlf.text":      "Refund policy\r\nRefunds take 20 working days.\r\n",
		"sentence.txt":   "Refunds take 20 working days.\nClaims within 28 days.",
		"runon.txt":      "Trains to the coast run every hour from the\nnorth platform on weekdays.",
		"oneline.txt":    "Lost property office",
		"long.txt":       strings.Repeat("Word ", 30) + "\n\nText.",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil || len(bad) > 0 {
		t.Fatalf("ReadDocs: %v, bad %v", err, bad)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = d.Title
	}
	want := map[string]string{
		"conditions.txt": "Kestrel Valley Railway - Conditions of Travel",
		"crlf.text":      "Refund policy",
		"sentence.txt":   "sentence",
		"runon.txt":      "runon",
		"oneline.txt":    "oneline",
		"long.txt":       "long",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: title %q, want %q", id, got[id], w)
		}
	}
}

// TestPlainTextNotes: a plain-text file's title line and section headings
// are paragraphs of their own in every chunk, so the notes made of them
// end them as sentences ("... of Travel. 6. Luggage, bicycles and animals.
// 6.1 ...") instead of running them into the clauses ("Conditions of Travel
// 1. About these conditions 1.1 ..."); clauses and prose lines keep their
// single line breaks, and a JSON line's text is left as it was.
func TestPlainTextNotes(t *testing.T) {
	dir := t.TempDir()
	body := "Kestrel Valley Railway - Conditions of Travel\n" +
		"1. About these conditions\n1.1 These conditions apply to all journeys.\n1.2 Staff may ask to see photo ID.\n\n" +
		"6. Luggage, bicycles and animals\n6.1 You may take up to three items of luggage.\n" +
		strings.Repeat("6.2 Folding bicycles travel free, other bicycles need a reservation.\n", 12) +
		"6.3 Up to two dogs per passenger travel free.\n"
	path := filepath.Join(dir, "conditions.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, _, err := ReadDocs([]string{path}, false)
	if err != nil || len(docs) != 1 {
		t.Fatalf("ReadDocs: %v, %d docs", err, len(docs))
	}
	chunks := chunkDoc(docs[0], 600, 200)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks, want the file cut in two or more", len(chunks))
	}
	var all []string
	for _, c := range chunks {
		all = append(all, c.Text)
		// section 1 is shorter than min_chunk_chars: merged into section 6
		if want := "Kestrel Valley Railway - Conditions of Travel: 1. About these conditions; 6. Luggage, bicycles and animals"; c.Title != want {
			t.Errorf("chunk %s titled %q, want %q", c.ID, c.Title, want)
		}
	}
	text := strings.Join(all, "\n\n")
	for _, want := range []string{
		"Kestrel Valley Railway - Conditions of Travel\n\n1. About these conditions\n\n1.1 These conditions apply to all journeys.\n1.2 Staff may ask to see photo ID.",
		"6. Luggage, bicycles and animals\n\n6.1 You may take up to three items of luggage.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chunks do not hold %q:\n%s", want, text)
		}
	}
	// A JSON line's text is not read as plain text.
	jl := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(jl, []byte(`{"id":"r1","text":"Opening hours\nMonday to Friday 9 to 5."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, _, err = ReadDocs([]string{jl}, false)
	if err != nil || len(docs) != 1 || docs[0].Text != "Opening hours\nMonday to Friday 9 to 5." || docs[0].Title != "" {
		t.Errorf("JSON line read as %+v (%v), want its text and no title", docs, err)
	}
}

// TestPlainTextSections chunks operator trial 6's self-storage terms and
// price list as they are on disk: every chunk opens with its section's
// heading (it was the last line of the chunk before: "... returned to
// you.\n\n4. What you must not store") and is titled "File title:
// Heading", short sections merged with both headings; the clauses stay
// whole in one section's chunk.
func TestPlainTextSections(t *testing.T) {
	dir := filepath.Join("..", "bench", "testdata", "trial6", "storage")
	docs, bad, err := ReadDocs([]string{filepath.Join(dir, "terms.txt"), filepath.Join(dir, "prices.txt")}, true)
	if err != nil || len(bad) > 0 || len(docs) != 2 {
		t.Fatalf("ReadDocs: %v, bad %v, %d docs", err, bad, len(docs))
	}
	got := map[string]string{} // title -> text
	var titles []string
	for _, d := range docs {
		for _, c := range chunkDoc(d, 1200, 200) {
			got[c.Title] = c.Text
			titles = append(titles, c.Title)
			last := c.Text[strings.LastIndexByte(c.Text, '\n')+1:]
			// (a file's title line alone is shorter than min_chunk_chars:
			// it opens its first section's chunk)
			if head := strings.TrimPrefix(c.Title, d.Title+": ")[:4]; c.Title != d.Title &&
				!strings.HasPrefix(c.Text, head) && !strings.HasPrefix(c.Text, d.Title+"\n\n"+head) {
				t.Errorf("chunk %s (%q) opens %q, not with its heading", c.ID, c.Title, c.Text[:min(40, len(c.Text))])
			}
			if len(last) < 40 && !strings.HasSuffix(last, ".") {
				t.Errorf("chunk %s ends with a heading line %q", c.ID, last)
			}
		}
	}
	for title, holds := range map[string]string{
		"Boxwell Self Storage: Terms and Conditions of Storage":                                           "These terms apply to every storage unit",
		"Boxwell Self Storage: Terms and Conditions of Storage: 3. Payment":                               "3.4 If rent remains unpaid 42 days",
		"Boxwell Self Storage: Terms and Conditions of Storage: 4. What you must not store":               "4.1 You must not store: (a) anything flammable",
		"Boxwell Self Storage: Terms and Conditions of Storage: 7. Changes to these terms; 8. Contact":    "Phone 01632 960 418",
		"Boxwell Self Storage: Price List 2026: Parking bays; Boxes and packing materials; Other charges": "A disc padlock costs 12 pounds",
	} {
		if text, ok := got[title]; !ok || !strings.Contains(text, holds) {
			t.Errorf("no chunk titled %q holding %q; titles:\n%s", title, holds, strings.Join(titles, "\n"))
		}
	}
}

// TestReadDocsEmptyFile: an empty or blank Markdown or text file is a bad
// line that says so (it was `doc "empty.md": missing text`, the wording of
// a JSON line without a text field); the folder's other files are read.
func TestReadDocsEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty.md": "", "blank.txt": "\ufeff \n\n", "ok.txt": "Open 9 to 5."} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil || len(docs) != 1 || docs[0].ID != "ok.txt" {
		t.Fatalf("ReadDocs: %v, docs %+v", err, docs)
	}
	var got []string
	for _, le := range bad {
		got = append(got, le.Error())
	}
	want := []string{
		filepath.Join(dir, "blank.txt") + ":1: the file is empty (nothing to index)",
		filepath.Join(dir, "empty.md") + ":1: the file is empty (nothing to index)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bad lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzPlainText: plainText changes only whitespace (the words of the file
// are the text's, in order, the title line included), and a title is one
// of the file's lines, trimmed.
func FuzzPlainText(f *testing.F) {
	f.Add("Kestrel Valley Railway\n\n1. About\n1.1 These apply.\n")
	f.Add("Refund policy\r\nRefunds take 20 days.\r\n")
	f.Add("trains run every hour from the\nnorth platform.")
	f.Add("\n\n  Title  \nA\nB\n")
	f.Add(" Price list\n\n  Offers\nHalf price.\n\n Boxes and tape\nA box is 2 pounds.\n")
	f.Add("0\n---")
	f.Add("Guide\n=====\n\n* * *\n- a\n- b\n")
	f.Add("Vets - Handbook\n\nNEW PATIENTS\nRegister your pet at the prac-\ntice desk.\n\nPage 1 of 2\n\fVets - Handbook\nsame-\nday slots.\n2\n")
	f.Fuzz(func(t *testing.T, body string) {
		text, title, secs := plainText(body)
		// every word is kept, in order, but those of underlines and rule lines
		var kept []string
		for _, l := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
			if !ruleLine(l) {
				kept = append(kept, l)
			}
		}
		pdf := strings.Contains(body, "\f") || strings.Contains(body, "-\n") || strings.Contains(body, "-\r\n") || pageLineRE.MatchString(body)
		if strings.Contains(text, "\f") {
			t.Fatalf("plainText(%q) kept a form feed: %q", body, text)
		}
		if got, want := strings.Fields(text), strings.Fields(strings.Join(kept, "\n")); !pdf && strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("plainText(%q) words %q, want %q", body, got, want)
		}
		if title != "" && !strings.Contains("\n"+pdfText(strings.ReplaceAll(body, "\r\n", "\n"))+"\n", title) {
			t.Fatalf("plainText(%q) title %q is not a line of it", body, title)
		}
		if title != strings.TrimSpace(title) || strings.Contains(title, "\n") {
			t.Fatalf("plainText(%q) title %q not one trimmed line", body, title)
		}
		last := 0
		for _, s := range secs {
			if s.Off <= last || s.Off > len(text) || !strings.HasPrefix(text[s.Off:], s.Heading) || s.Heading == "" {
				t.Fatalf("plainText(%q) section %+v: not a heading of text %q after offset %d", body, s, text, last)
			}
			last = s.Off
		}
	})
}

// TestPlainTextPriceListLines: the lines of a price list or a timetable
// ("Terraced house ... £12", "Saturday 9am to 1pm") are paragraphs of
// their own but never headings, so no chunk is titled by a price line
// (the first one used to title every chunk after it, the contact details
// included); the real headings ("Prices", "Opening hours") still are.
func TestPlainTextPriceListLines(t *testing.T) {
	body := "Sparkle Window Cleaning\n\nPrices\nWe price by the house, VAT included.\n\nTerraced house ... £12\nSemi-detached house ... £15\n" +
		"Detached house (up to 4 bedrooms) ... £22\nConservatory roof £30\nGutter clear\t£40\n\n" +
		"We clean every four weeks. Payment is due on the day by card or bank transfer, and we text you the evening before we come.\n\n" +
		"Opening hours\nThe office keeps these hours.\nMonday to Friday 8am to 6pm\nSaturday 9am to 1pm\nSunday 10:30 (office only)\nBank holidays closed\nWe shut for a week in August.\n\n" +
		"Contact us\nPhone 01632 960 777 or write to 4 Mill Lane, Upton UP1 2AB. We answer the phone from 8am.\n"
	for line, want := range map[string]bool{
		"Terraced house ... £12": true, "Gutter clear\t£40": true, "Conservatory roof £30": true,
		"Saturday 9am to 1pm": true, "Sunday 10:30": true, "Monday closed": true, "Bank holidays CLOSED": true, "Sundays 10am to 12 noon, from March to October": true, "Wed 6.30 to 8 in term": true, "Late fee 50p": true, "Big tub 5.30pm": true,
		"Prices": false, "3. Payment": false, "Opening hours": false, "Section 4": false, "Unit 2026": false, "Closed": false, "Saturday Club": false, "Sunday lunch menu": false,
	} {
		if got := listLine(line); got != want {
			t.Errorf("listLine(%q) = %v, want %v", line, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "info.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, bad, err := ReadDocs([]string{path}, true)
	if err != nil || len(bad) > 0 || len(docs) != 1 {
		t.Fatalf("ReadDocs: %v, bad %v, %d docs", err, bad, len(docs))
	}
	var titles []string
	for _, c := range chunkDoc(docs[0], 200, 50) {
		titles = append(titles, c.Title)
		if strings.ContainsAny(c.Title, "£\t") || strings.Contains(c.Title, "am to") || strings.Contains(c.Title, "closed") {
			t.Errorf("chunk %s titled by a list line: %q", c.ID, c.Title)
		}
	}
	all := strings.Join(titles, "\n")
	for _, h := range []string{"Prices", "Opening hours", "Contact us"} {
		if !strings.Contains(all, h) {
			t.Errorf("no chunk title names the heading %q; titles:\n%s", h, all)
		}
	}
}

// TestPlainTextCapsHeadings: a heading in capitals between blank lines
// ("PART 3 - CULTIVATION") starts a section, so it titles the rules under it
// and does not end the chunk before; a short line of another case between
// blank lines stays a paragraph.
func TestPlainTextCapsHeadings(t *testing.T) {
	body := "Greenacre Allotment Society\nRULES\n\nPART 1 - MEMBERSHIP\n\n1. Who can apply\n1.1 Anyone living in the parish may apply.\n\n" +
		"PART 2 - RENT\n\n2. Rent\n2.1 A full plot is £60 a year.\n\nThank you for reading\n\nThe committee meets monthly.\n"
	_, _, secs := plainText(body)
	var hs []string
	for _, s := range secs {
		hs = append(hs, s.Heading)
	}
	got := strings.Join(hs, "|")
	for _, h := range []string{"PART 1 - MEMBERSHIP", "PART 2 - RENT"} {
		if !strings.Contains(got, h) {
			t.Errorf("sections %q: no %q", got, h)
		}
	}
	if strings.Contains(got, "Thank you") {
		t.Errorf("sections %q: a one-line paragraph made a heading", got)
	}
}

// TestPlainTextUnderlined: a plain-text line underlined with ===== is the
// title, one underlined with ----- a section heading; the underlines and a
// rule line leave no text; a list item is never a heading.
func TestPlainTextUnderlined(t *testing.T) {
	body := "Arranging a funeral\n===================\n\nWe are here day and night.\n\nThe simple funeral\n------------------\n\nIt includes:\n- collecting the person within 25 miles\n- a simple coffin\n- a hearse\n\n* * *\n\nPaying\n------\nA deposit of £300 is due.\n"
	text, title, secs := plainText(body)
	if title != "Arranging a funeral" {
		t.Errorf("title %q, want the underlined first line", title)
	}
	var hs []string
	for _, s := range secs {
		hs = append(hs, s.Heading)
	}
	if got := strings.Join(hs, "|"); got != "The simple funeral|Paying" {
		t.Errorf("sections %q, want The simple funeral|Paying", got)
	}
	if strings.Contains(text, "---") || strings.Contains(text, "===") || strings.Contains(text, "* * *") {
		t.Errorf("underlines or rules kept in the text:\n%s", text)
	}
	if !strings.Contains(text, "- collecting the person within 25 miles\n- a simple coffin") {
		t.Errorf("the list lost its lines:\n%s", text)
	}
}

// TestPlainTextPDF: text extracted from a PDF is read without its page
// furniture. The running header stays once (the title), the footer and
// page numbers go, a word hyphenated across a line end is one word again
// ("practice"), a compound keeps its hyphen ("same-day"), and a sentence
// that runs over a page break stays one paragraph.
func TestPlainTextPDF(t *testing.T) {
	page := func(n int, body string) string {
		return "Harbour Dental Care — Patient Guide\n\n" + body + "\n\nwww.harbourdental.example\nPage " + string(rune('0'+n)) + " of 3\n"
	}
	body := page(1, "NEW PATIENTS\nTo join the prac-\ntice, bring photo ID to your\nfirst visit.") + "\f" +
		page(2, "EMERGENCIES\nRing at 8am for a same-\nday slot. Out of hours we\nare closed and") + "\f" +
		page(3, "you should call NHS 111.")
	text, title, secs := plainText(body)
	words := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"join the practice, bring photo ID", "a same-day slot", "we are closed and you should call NHS 111.", "www.harbourdental.example"} {
		if !strings.Contains(words, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "closed and\nyou should") {
		t.Errorf("the sentence over the page break is not one paragraph:\n%s", text)
	}
	for _, gone := range []string{"Page", "\f", "prac-"} {
		if strings.Contains(text, gone) {
			t.Errorf("text keeps %q:\n%s", gone, text)
		}
	}
	if n := strings.Count(text, "Patient Guide"); n != 1 || title != "Harbour Dental Care — Patient Guide" {
		t.Errorf("header %d times, title %q; want once, the title", n, title)
	}
	if n := strings.Count(text, "harbourdental"); n != 1 || !strings.HasSuffix(text, "www.harbourdental.example") {
		t.Errorf("footer %d times; want once, at the end:\n%s", n, text)
	}
	var heads []string
	for _, s := range secs {
		heads = append(heads, s.Heading)
	}
	if strings.Join(heads, "|") != "NEW PATIENTS|EMERGENCIES" {
		t.Errorf("sections %q", heads)
	}
	// Without a form feed (a copy of the whole document), only the
	// "Page N of M" lines and the hyphens are read as furniture.
	text, _, _ = plainText("Opening times\nMonday to Fri-\nday, 9am to 5pm.\nPage 1 of 1\n")
	if text != "Opening times\n\nMonday to Friday,\n9am to 5pm." {
		t.Errorf("copied text read as %q", text)
	}
}

// TestPlainTextPhoneNote: a note written on a phone heads its sections
// with an emoji and no blank line, and lists details as "Label: value":
// the emoji lines start sections (in capitals, ending in ":" or plain), a
// run of lines opening with the same emoji stays a list, and the label
// lines are no headings.
func TestPlainTextPhoneNote(t *testing.T) {
	text, title, secs := plainText("Hill Farm Barn 🐑\nWelcome!\n🔑 ARRIVAL\nCheck-in is from 4pm.\n• Code: 2468\n📶 Wi-Fi:\nNetwork: HillFarmBarn\nPassword: sheep2024\nSignal is best in the kitchen.\n🚗 Parking\nTwo cars on the gravel.\n✅ Towels\n✅ Linen\n✅ Logs\nPart 3: Payment\nPay on arrival.\nOwner (Ann): 07700 900123\nNearest A&E: Kendal.\n")
	var heads []string
	for _, s := range secs {
		heads = append(heads, s.Heading)
	}
	if want := "🔑 ARRIVAL|📶 Wi-Fi:|🚗 Parking"; strings.Join(heads, "|") != want {
		t.Errorf("sections %q, want %q\n%s", heads, want, text)
	}
	if title != "Hill Farm Barn 🐑" || !strings.Contains(text, "Network: HillFarmBarn\nPassword: sheep2024") {
		t.Errorf("title %q, text\n%s", title, text)
	}
	if lead, rest := emojiLead("☎️ EMERGENCIES"); lead != "☎️" || rest != "EMERGENCIES" {
		t.Errorf("emojiLead: %q %q", lead, rest)
	}
}

// TestPlainTextPDFHeadings: in text from a PDF (form feeds), a short line
// between blank lines is a heading in any case, as pdftotext -layout
// writes a designed page's headings; in other text only one in capitals.
func TestPlainTextPDFHeadings(t *testing.T) {
	body := "LUMEN PHOTOGRAPHY\n\n   Packages\n\nThe full day is £1,800.\n\n   Travel\n\nFree within 30 miles.\n\f   Copyright\n\nYou may print the photos.\n"
	_, _, secs := plainText(body)
	var heads []string
	for _, s := range secs {
		heads = append(heads, s.Heading)
	}
	if strings.Join(heads, "|") != "Packages|Travel|Copyright" {
		t.Errorf("paged sections %q", heads)
	}
	if _, _, secs := plainText(strings.ReplaceAll(body, "\f", "\n")); len(secs) != 0 {
		t.Errorf("unpaged text: sections %+v, want none", secs)
	}
}
