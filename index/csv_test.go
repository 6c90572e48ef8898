package index

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadDocsCSV: a spreadsheet's export as a European locale writes it
// (byte-order mark, semicolons, header names in any case, a quoted cell
// holding the separator, quotes and a line break, a column the corpus
// schema lacks, trailing empty rows) reads as documents; a row without an
// id, a row of the wrong width and a Latin-1 cell are bad lines at their
// own line numbers, and the rest is read.
func TestReadDocsCSV(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "faq.csv", utf8BOM+
		" ID ;Text;Title;Price\r\n"+
		"c1;Beans are £7.50 for 250g.;;7.50\r\n"+
		"c2;\"Grinds: espresso; filter; \"\"cafetiere\"\".\nWhole bean keeps longer.\";Grinding;\r\n"+
		";A row without an id.;;\r\n"+
		"c4;Too many;cells;here;really\r\n"+
		"c5;Caf\xe9 opening hours.;;\r\n"+
		"c6;We roast on Mondays.;;\r\n"+
		";;;\r\n")
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if want := []string{"c1", "c2", "c6"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	if got, want := docs[1].Text, "Grinds: espresso; filter; \"cafetiere\".\nWhole bean keeps longer."; got != want {
		t.Errorf("quoted cell = %q, want %q", got, want)
	}
	if docs[1].Title != "Grinding" || docs[0].Title != "" {
		t.Errorf("titles = %q, %q; want \"\" (empty cell) and \"Grinding\"", docs[0].Title, docs[1].Title)
	}
	if got := docs[0].Meta["price"]; got != "7.50" {
		t.Errorf("meta price = %v, want \"7.50\"", got)
	}
	if d := docs[0]; d.Tenant != DefaultTenant || d.KB != DefaultKB || d.Kind != "library" || d.Origin != p+":2" {
		t.Errorf("c1 = %+v, want the defaults and origin %s:2", d, p)
	}
	if docs[2].Origin != p+":8" {
		t.Errorf("c6 origin = %q, want line 8 (c2's cell spans two lines)", docs[2].Origin)
	}
	want := []struct {
		line int
		says string
	}{{5, "missing id"}, {6, "a row of 5 cells under a header of 4"}, {7, "iconv -f cp1252"}}
	if len(bad) != len(want) {
		t.Fatalf("bad lines = %v, want %d", bad, len(want))
	}
	for i, w := range want {
		if bad[i].File != p || bad[i].Line != w.line || !strings.Contains(bad[i].Error(), w.says) {
			t.Errorf("bad line %d = %v, want line %d saying %q", i, bad[i], w.line, w.says)
		}
	}
	_, _, err = ReadDocs([]string{p}, true)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 5 {
		t.Errorf("strict: err = %v, want the first bad line (5)", err)
	}
}

// TestReadDocsCSVHeader: a CSV without a header row naming a text (or
// answer) column or a table's short headings (no header at all, a row of
// numbers, only field columns) is one bad line for the file, saying which
// column is missing and which it has; the next file is read. A list
// column, a repeated or an empty name are refused the same way.
func TestReadDocsCSVHeader(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.tsv", "id\ttext\tkb\ng1\tDelivery is free over 30 pounds.\tshop\n")
	for _, tc := range []struct{ name, content, want string }{
		{"noheader.csv", "c1,Beans are 7.50.\nc2,We roast on Mondays.\n", "has no text column (it has c1, beans are 7.50.)"},
		{"numbers.csv", "2026,7.50\n2027,8.00\n", "has no text column (it has 2026, 7.50)"},
		{"fields.csv", "id,title\nc1,Beans\n", "has no text column (it has id, title)"},
		{"sentence.csv", "c1,we roast our beans every monday morning\n", "has no text column"},
		{"twice.csv", "id,text,Text\nc1,a,b\n", `column "text" twice`},
		{"unnamed.csv", "id,text,\nc1,a,b\n", "column 3 has no name"},
		{"sources.csv", "id,text,sources\nc1,a,b\n", `a "sources" column is not read from CSV`},
		{"empty.csv", "", "the file is empty"},
	} {
		p := writeFile(t, dir, tc.name, tc.content)
		docs, bad, err := ReadDocs([]string{p, good}, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(bad) != 1 || bad[0].Line != 1 || !strings.Contains(bad[0].Error(), tc.want) {
			t.Errorf("%s: bad lines = %v, want one at line 1 saying %q", tc.name, bad, tc.want)
		}
		if len(docs) != 1 || docs[0].ID != "g1" || docs[0].KB != "shop" {
			t.Errorf("%s: docs = %v, want the .tsv file's one document in KB shop", tc.name, docs)
		}
	}
}

// TestReadDocsCSVTable: a sheet whose header names a table's columns and
// no text (a price list: service,price,notes) is read a row to a document,
// each cell after its heading as the header writes it, blank cells left
// out, the short first cell the title; a single such column is the text
// alone; field columns (id, kb) keep their meaning.
func TestReadDocsCSVTable(t *testing.T) {
	dir := t.TempDir()
	prices := writeFile(t, dir, "prices.csv", "Service,Price,Notes\n"+
		"Full valet,£85,\"Takes about 3 hours; book ahead.\"\n"+
		"Mini valet,£45,\n")
	body := writeFile(t, dir, "body.csv", "id,Body,kb\nc1,Beans are roasted on Mondays.,shop\n")
	qa := writeFile(t, dir, "qa.csv", "q,a\nhow much?,7.50\n")
	docs, bad, err := ReadDocs([]string{prices, body, qa}, true)
	if err != nil || len(bad) != 0 {
		t.Fatalf("ReadDocs: %v, bad %v", err, bad)
	}
	want := []struct{ id, title, text, kb string }{
		{"prices-2", "Full valet", "Service: Full valet\nPrice: £85\nNotes: Takes about 3 hours; book ahead.", "default"},
		{"prices-3", "Mini valet", "Service: Mini valet\nPrice: £45", "default"},
		{"c1", "", "Beans are roasted on Mondays.", "shop"},
		{"qa-2", "how much?", "q: how much?\na: 7.50", "default"},
	}
	if len(docs) != len(want) {
		t.Fatalf("docs = %+v, want %d", docs, len(want))
	}
	for i, w := range want {
		d := docs[i]
		if d.ID != w.id || d.Title != w.title || d.Text != w.text || d.KB != w.kb {
			t.Errorf("doc %d = id %q title %q text %q kb %q, want %+v", i, d.ID, d.Title, d.Text, d.KB, w)
		}
	}
}

// TestReadDocsCSVQuestionAnswer: a FAQ sheet's question and answer columns
// are title and text, and a sheet without an id column names its rows by
// file and sheet row (a quoted cell over two lines and a blank row still
// count one row each); a sheet with an id column must fill it.
func TestReadDocsCSVQuestionAnswer(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "cakes.csv", "Question,Answer,Category\n"+
		"How far ahead should I order?,\"Six weeks for a wedding cake,\nthree for a birthday.\",orders\n"+
		",,\n"+
		"Do you deliver?,Yes: free within 10 miles.,delivery\n")
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 {
		t.Fatalf("ReadDocs: %v, bad %v", err, bad)
	}
	want := []struct{ id, title, text string }{
		{"cakes-2", "How far ahead should I order?", "Six weeks for a wedding cake,\nthree for a birthday."},
		{"cakes-4", "Do you deliver?", "Yes: free within 10 miles."},
	}
	if len(docs) != len(want) {
		t.Fatalf("docs = %+v, want %d", docs, len(want))
	}
	for i, w := range want {
		d := docs[i]
		if d.ID != w.id || d.Title != w.title || d.Text != w.text || d.Meta["category"] == nil {
			t.Errorf("doc %d = %q %q %q meta %v, want %q %q %q with its category", i, d.ID, d.Title, d.Text, d.Meta, w.id, w.title, w.text)
		}
	}
	// A title column wins over question, which is then kept in meta.
	p = writeFile(t, dir, "titled.csv", "id,title,question,answer\nt1,Orders,How far ahead?,Six weeks.\n")
	docs, bad, err = ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 || len(docs) != 1 || docs[0].Title != "Orders" || docs[0].Text != "Six weeks." || docs[0].Meta["question"] != "How far ahead?" {
		t.Errorf("titled sheet: docs %+v bad %v err %v", docs, bad, err)
	}
	// A help centre's body column is the text; the first alias present wins
	// (answer before body), the other kept in meta.
	p = writeFile(t, dir, "articles.csv", "id,title,answer,body\na1,Orders,Six weeks.,Order six weeks ahead.\n")
	docs, bad, err = ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 || len(docs) != 1 || docs[0].Text != "Six weeks." || docs[0].Meta["body"] != "Order six weeks ahead." {
		t.Errorf("answer and body: docs %+v bad %v err %v", docs, bad, err)
	}
	// An id column must be filled.
	p = writeFile(t, dir, "holes.csv", "id,text\n,Six weeks.\n")
	if _, bad, _ = ReadDocs([]string{p}, false); len(bad) != 1 || bad[0].Line != 2 {
		t.Errorf("a blank id cell: bad = %v, want one bad line 2", bad)
	}
}

// TestReadDocsCSVInFolder: a folder's .csv and .tsv files are read (not
// listed as unread), with --tenant/--kb for rows that name none; a
// spreadsheet other than .xlsx given on its own is refused with the way
// to export it.
func TestReadDocsCSVInFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "faq/shop.csv", "id,text,tenant\nc1,Beans are 7.50.,\nm1,Old Mill beans are 8.,oldmill\n")
	writeFile(t, dir, "faq/more.tsv", "id\ttext\nc2\tWe roast on Mondays.\n")
	writeFile(t, dir, "faq/prices.ods", "PK")
	docs, bad, err := readDocs([]string{filepath.Join(dir, "faq")}, false, DocRef{Tenant: "kettle", KB: "shop"})
	if err != nil || len(bad) != 0 {
		t.Fatalf("err %v, bad %v", err, bad)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = d.Tenant + "/" + d.KB
	}
	if want := map[string]string{"c1": "kettle/shop", "c2": "kettle/shop", "m1": "oldmill/shop"}; !reflect.DeepEqual(got, want) {
		t.Errorf("partitions = %v, want %v", got, want)
	}
	unread, err := UnreadFiles([]string{filepath.Join(dir, "faq")})
	if err != nil || len(unread) != 1 || filepath.Base(unread[0]) != "prices.ods" {
		t.Errorf("unread = %v (%v), want only prices.ods", unread, err)
	}
	_, _, err = ReadDocs([]string{filepath.Join(dir, "faq/prices.ods")}, false)
	if err == nil || !strings.Contains(err.Error(), "save it as an Excel workbook (.xlsx) or CSV (UTF-8)") {
		t.Errorf("ods: err = %v, want it refused with the export to make", err)
	}
}

// TestCSVAsJSONL: the trial-5 coffee FAQ exported as CSV reads as the same
// documents as its JSON lines (the same ids, texts and defaults).
func TestCSVAsJSONL(t *testing.T) {
	dir := filepath.Join("..", "bench", "testdata", "trial5", "coffee")
	fromCSV, bad, err := ReadDocs([]string{filepath.Join(dir, "faq.csv")}, true)
	if err != nil || len(bad) != 0 {
		t.Fatalf("csv: %v %v", err, bad)
	}
	fromJSONL, _, err := ReadDocs([]string{filepath.Join(dir, "faq.jsonl")}, true)
	if err != nil {
		t.Fatal(err)
	}
	var want []Doc
	for _, d := range fromJSONL {
		if d.Tenant == DefaultTenant {
			d.Origin = ""
			want = append(want, d)
		}
	}
	for i := range fromCSV {
		fromCSV[i].Origin = ""
	}
	if len(fromCSV) != 28 || !reflect.DeepEqual(fromCSV, want) {
		t.Errorf("csv read %d docs, jsonl %d; they differ", len(fromCSV), len(want))
	}
}

// FuzzReadCSV: whatever the bytes, reading a CSV corpus does not panic,
// every document it keeps has an id, a text and valid partition names, and
// every bad line names a line of the file.
func FuzzReadCSV(f *testing.F) {
	f.Add("id,text\nc1,Beans are 7.50.\n")
	f.Add(utf8BOM + "ID;Text;Title\r\nc1;\"a;\"\"b\"\"\nc\";t\r\n;x;\r\n")
	f.Add("question,answer\nhow?,so\n")
	f.Add("id,text,deleted,tenant\nc1,,true,\nc2,x,maybe,Bad Name\n\"c3,\"x\n")
	f.Fuzz(func(t *testing.T, content string) {
		var bad []*LineError
		lines := strings.Count(content, "\n") + 1
		err := readCSV(strings.NewReader(content), "f.csv", false, &bad, DocRef{}, func(d Doc, n int) error {
			if d.ID == "" || (strings.TrimSpace(d.Text) == "" && !d.Deleted) || !ValidName(d.Tenant) || !ValidName(d.KB) {
				t.Errorf("kept %+v", d)
			}
			if n < 1 || n > lines {
				t.Errorf("doc %q at line %d of %d", d.ID, n, lines)
			}
			return nil
		})
		if err != nil {
			t.Errorf("err %v with strict off", err)
		}
		for _, le := range bad {
			if le.Line < 1 || le.Line > lines {
				t.Errorf("bad line %v outside 1..%d", le, lines)
			}
		}
	})
}

// TestCSVGroupedRows: a price list whose group name stands only on each
// group's first row (merged cells, exported) has it filled down: every
// row of the group holds it and is titled "Group: Item".
func TestCSVGroupedRows(t *testing.T) {
	p := writeFile(t, t.TempDir(), "prices.csv", "Category,Item,Price,Notes\nMugs,Small mug,£12.50,\n,Large mug,£15,Most popular\nOpening hours,Saturday,9.30am-6pm,\n,Sunday,10am-4pm,\n")
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 || len(docs) != 4 {
		t.Fatalf("err %v bad %v docs %d", err, bad, len(docs))
	}
	if d := docs[3]; d.Title != "Opening hours: Sunday" || d.Text != "Category: Opening hours\nItem: Sunday\nPrice: 10am-4pm" {
		t.Errorf("a filled-down row: %q %q", d.Title, d.Text)
	}
	if d := docs[0]; d.Title != "Mugs" {
		t.Errorf("a group's first row: %q", d.Title)
	}
}

// TestCSVShopVariants: a shop's product export gives a product's variants
// as rows with its Handle and no Title: they are read into the product's
// document (a draft product's with it), an HTML description is read per
// cell, and image links are left out.
func TestCSVShopVariants(t *testing.T) {
	p := writeFile(t, t.TempDir(), "products_export.csv", "Handle,Title,Body (HTML),Option1 Value,Variant Price,Image Src,Status\n"+
		"assam,Assam Breakfast,<p>Malty and strong.</p><p>Steep 4 minutes.</p>,50g,6.50,https://cdn.example/a.jpg,active\n"+
		"assam,,,250g,24.00,,\n"+
		"assam,,,,,https://cdn.example/a2.jpg,\n"+
		"spice,Winter Spice,<p>Cinnamon.</p>,100g,9.00,,draft\n"+
		"spice,,,250g,19.00,,\n")
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 || len(docs) != 2 {
		t.Fatalf("err %v bad %v docs %+v", err, bad, docs)
	}
	want := "Handle: assam\nBody (HTML): Malty and strong.\n\nSteep 4 minutes.\nOption1 Value: 50g\nVariant Price: 6.50\nStatus: active\n\nOption1 Value: 250g\nVariant Price: 24.00"
	if d := docs[0]; d.Title != "Assam Breakfast" || d.Text != want {
		t.Errorf("product: %q %q, want text %q", d.Title, d.Text, want)
	}
	if d := docs[1]; !d.Deleted {
		t.Errorf("the draft product and its variant: %+v", d)
	}
}
