package index

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadXLSX: an Excel workbook written by a real tool (openpyxl 3.0.10:
// a FAQ sheet with a Published column, a price sheet with currency,
// percent and date formats, a hidden sheet) is read as CSV sheets are:
// the FAQ's rows as question and answer, the unpublished row left out,
// the price list as a table whose numbers read as the sheet shows them,
// its rows named by file and sheet; the hidden sheet is not read.
func TestReadXLSX(t *testing.T) {
	docs, bad, err := ReadDocs([]string{filepath.Join("testdata", "openpyxl-skips.xlsx")}, false)
	if err != nil || len(bad) != 0 {
		t.Fatalf("err %v, bad %v", err, bad)
	}
	got := map[string]Doc{}
	var ids []string
	for _, d := range docs {
		got[d.ID] = d
		ids = append(ids, d.ID)
	}
	if strings.Join(ids, " ") != "openpyxl-skips-2 openpyxl-skips-3 openpyxl-skips-4 openpyxl-skips-6 openpyxl-skips-prices-2 openpyxl-skips-prices-3" {
		t.Errorf("ids %q", ids)
	}
	if d := got["openpyxl-skips-2"]; d.Title != "How much is a mini skip?" || d.Text != "A 2-yard mini skip is £180 for up to 14 days." {
		t.Errorf("faq row: %+v", d)
	}
	if d := got["openpyxl-skips-4"]; !d.Deleted {
		t.Errorf("the unpublished row is not a draft: %+v", d)
	}
	if d := got["openpyxl-skips-prices-3"]; d.Title != "Builder's skip" || d.Text != "Service: Builder's skip\nPrice: £260.50\nDiscount: 5%\nFrom: 15 April 2026" {
		t.Errorf("price row: %q %q", d.Title, d.Text)
	}
}

// TestReadXLSXBad: a file named .xlsx that is not a workbook, and a
// workbook whose sheet has no header row of known columns, are bad lines
// saying so (the sheet named); a workbook of no cells too.
func TestReadXLSXBad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string { return writeFile(t, dir, name, string(b)) }
	book := `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Notes" sheetId="1" r:id="rId1"/></sheets></workbook>`
	rels := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`
	sheet := func(rows string) string {
		return `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"renamed.xlsx": {[]byte("Question,Answer\n"), "not an Excel workbook (.xlsx is a zip archive"},
		"noheader.xlsx": {docxFile(t, map[string]string{"xl/workbook.xml": book, "xl/_rels/workbook.xml.rels": rels,
			"xl/worksheets/sheet1.xml": sheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>We are open 9 to 5 every day of the week.</t></is></c></row>`)}), `(sheet "Notes"):1: `},
		"empty.xlsx": {docxFile(t, map[string]string{"xl/workbook.xml": book, "xl/_rels/workbook.xml.rels": rels, "xl/worksheets/sheet1.xml": sheet("")}), "hold no cells"},
	} {
		_, bad, err := ReadDocs([]string{write(name, c.b)}, false)
		if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), c.want) {
			t.Errorf("%s: err %v, bad %v; want one bad line holding %q", name, err, bad, c.want)
		}
	}
}

// TestXLSXFormats: the number formats a sheet shows: currency with its
// decimals, percentages, dates (and the 1904 date system), times, and a
// number of no format as stored.
func TestXLSXFormats(t *testing.T) {
	for _, tc := range []struct {
		code string
		v    float64
		want string
	}{
		{`"£"#,##0.00`, 12.5, "£12.50"},
		{`[$€-2] #,##0`, 1200, "€1200"},
		{`0.0%`, 0.125, "12.5%"},
		{`dd/mm/yyyy`, 46082, "1 March 2026"},
		{`[h]:mm`, 0.75, "18:00"},
		{`General`, 3.25, "3.25"},
		{`0;[Red]-0`, -4, "-4"},
	} {
		if got := xlsxCodeFormat(tc.code).show(tc.v, false); got != tc.want {
			t.Errorf("%q of %v = %q, want %q", tc.code, tc.v, got, tc.want)
		}
	}
	if got := (xlsxFormat{date: true}).show(0, true); got != "1 January 1904" {
		t.Errorf("1904 system: %q", got)
	}
	if xlsxColumn("AB12") != 27 || xlsxColumn("12") != -1 {
		t.Error("column references")
	}
}
