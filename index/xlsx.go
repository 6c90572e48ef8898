package index

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A FAQ sheet or a price list kept in Excel used to be refused with the
// advice to save it as CSV. readXLSX reads the workbook itself: each
// visible worksheet's cells, as Excel shows them (shared and inline text,
// numbers with their currency, percent and date formats, TRUE/FALSE), become
// the rows of a CSV sheet, read as readCSV reads one (its header row, its
// FAQ and table forms, its ids). A workbook of several sheets names the
// rows of its second and later sheets by file and sheet ("prices-hours-2").

// xlsxMaxCells bounds the cells read from a workbook.
const xlsxMaxCells = 2_000_000

// readXLSX reads an Excel workbook (.xlsx) as CSV sheets (see above). A
// file that is not a workbook is one bad line; a bad row is reported at
// its row in the sheet, the sheet named.
func readXLSX(r io.Reader, file string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	b, err := io.ReadAll(io.LimitReader(r, zipMaxPart+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	report := func(err error) error {
		le := &LineError{File: file, Line: 1, Err: err}
		if strict {
			return le
		}
		*bad = append(*bad, le)
		return nil
	}
	sheets, err := xlsxSheets(b)
	if err != nil {
		return report(err)
	}
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	read := 0
	for i, sh := range sheets {
		if len(sh.rows) == 0 {
			continue
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := w.WriteAll(sh.rows); err != nil {
			return report(err)
		}
		// readCSV names a sheet's rows stem-N by its file's name: the
		// first sheet's are the file's, a later sheet's the file's and
		// the sheet's ("prices-hours-2")
		as := file
		if i > 0 {
			as = filepath.Join(filepath.Dir(file), stem+"-"+slugWord(sh.name)+".csv")
		}
		var sheetBad []*LineError
		err := readCSV(&buf, as, strict, &sheetBad, part, keep)
		var le *LineError
		if errors.As(err, &le) {
			sheetBad = append(sheetBad, le)
		}
		for _, e := range sheetBad {
			e.File = fmt.Sprintf("%s (sheet %q)", file, sh.name)
		}
		if err != nil {
			if le != nil {
				return le
			}
			return err
		}
		*bad = append(*bad, sheetBad...)
		read++
	}
	if read == 0 {
		return report(errors.New("the workbook's visible sheets hold no cells (nothing to index)"))
	}
	return nil
}

// slugWord is s in lower case, its runs of other characters than letters
// and digits one "-".
func slugWord(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(f) == 0 {
		return "sheet"
	}
	return strings.Join(f, "-")
}

// xlsxSheet is one worksheet: its name and its rows of cell text, a row
// per sheet row from the first (blank rows kept, so a CSV line is a sheet
// row).
type xlsxSheet struct {
	name string
	rows [][]string
}

// xlsxSheets reads a workbook's visible worksheets, in the workbook's order.
func xlsxSheets(b []byte) ([]xlsxSheet, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("not an Excel workbook (.xlsx is a zip archive: %v); save it from the spreadsheet as .xlsx or CSV", err)
	}
	part := zipParts(zr)
	wb, err := part("xl/workbook.xml")
	if err != nil || wb == nil {
		return nil, fmt.Errorf("not an Excel workbook: no readable xl/workbook.xml (%v)", err)
	}
	var book struct {
		Sheets []struct {
			Name  string `xml:"name,attr"`
			State string `xml:"state,attr"`
			RID   string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
		Date1904 struct {
			On string `xml:"date1904,attr"`
		} `xml:"workbookPr"`
	}
	if err := xml.Unmarshal(wb, &book); err != nil {
		return nil, fmt.Errorf("xl/workbook.xml: %v", err)
	}
	rels, _ := part("xl/_rels/workbook.xml.rels")
	var rel struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	xml.Unmarshal(rels, &rel)
	target := map[string]string{}
	for _, r := range rel.Rels {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		target[r.ID] = t
	}
	shared, err := xlsxShared(part)
	if err != nil {
		return nil, err
	}
	fmts := xlsxFormats(part)
	date1904 := book.Date1904.On == "1" || book.Date1904.On == "true"
	cells := 0
	var out []xlsxSheet
	for i, s := range book.Sheets {
		if s.State == "hidden" || s.State == "veryHidden" {
			continue
		}
		name := target[s.RID]
		if name == "" {
			name = fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)
		}
		data, err := part(name)
		if err != nil {
			return nil, err
		}
		if data == nil {
			continue
		}
		rows, err := xlsxRows(data, shared, fmts, date1904, &cells)
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %v", s.Name, err)
		}
		out = append(out, xlsxSheet{name: s.Name, rows: rows})
	}
	return out, nil
}

// xlsxShared reads the workbook's shared strings: each string's text, its
// rich-text runs joined.
func xlsxShared(part func(string) ([]byte, error)) ([]string, error) {
	data, err := part("xl/sharedStrings.xml")
	if err != nil || data == nil {
		return nil, err
	}
	var sst struct {
		SI []xlsxText `xml:"si"`
	}
	if err := xml.Unmarshal(data, &sst); err != nil {
		return nil, fmt.Errorf("xl/sharedStrings.xml: %v", err)
	}
	out := make([]string, len(sst.SI))
	for i, si := range sst.SI {
		out[i] = si.String()
	}
	return out, nil
}

// xlsxText is a string item: plain (<t>) or rich text (<r><t>), its
// phonetic runs (<rPh>) left out.
type xlsxText struct {
	T string `xml:"t"`
	R []struct {
		T string `xml:"t"`
	} `xml:"r"`
}

func (x xlsxText) String() string {
	if len(x.R) == 0 {
		return x.T
	}
	var b strings.Builder
	b.WriteString(x.T)
	for _, r := range x.R {
		b.WriteString(r.T)
	}
	return b.String()
}

// xlsxFormat is how a cell style shows a number.
type xlsxFormat struct {
	date, clock, percent bool
	currency             string // "£", "$", "€": shown before the number
	decimals             int    // -1: as stored
}

// xlsxFormats reads each cell style's number format (xl/styles.xml
// cellXfs, by index): dates, times, percentages and currencies; other
// numbers are shown as stored.
func xlsxFormats(part func(string) ([]byte, error)) []xlsxFormat {
	data, _ := part("xl/styles.xml")
	var st struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmtID int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if data == nil || xml.Unmarshal(data, &st) != nil {
		return nil
	}
	codes := map[int]string{}
	for _, f := range st.NumFmts {
		codes[f.ID] = f.Code
	}
	out := make([]xlsxFormat, len(st.Xfs))
	for i, x := range st.Xfs {
		id := x.NumFmtID
		f := xlsxFormat{decimals: -1}
		switch {
		case id >= 14 && id <= 17 || id == 22:
			f.date, f.clock = true, id == 22
		case id >= 18 && id <= 21 || id >= 45 && id <= 47:
			f.clock = true
		case id == 9 || id == 10:
			f.percent, f.decimals = true, 2*(id-9)
		case id >= 5 && id <= 8:
			f.decimals = 2
		}
		if code, ok := codes[id]; ok {
			f = xlsxCodeFormat(code)
		}
		out[i] = f
	}
	return out
}

// xlsxCodeFormat reads a custom number format's code: its quoted and
// escaped literals and colour tags aside, d/y with m is a date, h or s a
// time, % a percentage; a currency symbol anywhere in it is shown; the
// zeros after its decimal point are the decimals.
func xlsxCodeFormat(code string) xlsxFormat {
	f := xlsxFormat{decimals: -1}
	if i := strings.IndexByte(code, ';'); i >= 0 {
		code = code[:i] // the positive numbers' section
	}
	for _, sym := range []string{"£", "$", "€", "¥"} {
		if strings.Contains(code, sym) {
			f.currency = sym
		}
	}
	var plain strings.Builder
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '\\', '_', '*':
			i++
		case '[':
			if j := strings.IndexByte(code[i:], ']'); j >= 0 {
				if in := code[i+1 : i+j]; in != "" && strings.Trim(strings.ToLower(in), "hms") == "" {
					plain.WriteString(in) // elapsed time: [h]:mm
				}
				i += j
			}
		default:
			plain.WriteByte(c)
		}
	}
	p := strings.ToLower(plain.String())
	f.date = strings.ContainsAny(p, "dy") && strings.Contains(p, "m")
	f.clock = strings.ContainsAny(p, "hs")
	f.percent = strings.Contains(p, "%")
	if i := strings.IndexByte(p, '.'); i >= 0 && !f.date && !f.clock {
		f.decimals = 0
		for _, c := range p[i+1:] {
			if c != '0' && c != '#' {
				break
			}
			f.decimals++
		}
	}
	return f
}

// show is the text of number v in format f, as a sheet shows it.
func (f xlsxFormat) show(v float64, date1904 bool) string {
	switch {
	case f.date || f.clock:
		epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
		if date1904 {
			epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		t := epoch.Add(time.Duration(math.Round(v*86400)) * time.Second)
		switch {
		case f.date && f.clock:
			return t.Format("2 January 2006 15:04")
		case f.date:
			return t.Format("2 January 2006")
		}
		return t.Format("15:04")
	case f.percent:
		return strconv.FormatFloat(v*100, 'f', f.decimals, 64) + "%"
	}
	s := strconv.FormatFloat(v, 'f', f.decimals, 64)
	if f.currency != "" {
		if v < 0 {
			return "-" + f.currency + strings.TrimPrefix(s, "-")
		}
		return f.currency + s
	}
	return s
}

// xlsxRows reads a worksheet's cells into rows by their references (A1),
// a row's missing cells and the sheet's missing rows blank. cells counts
// the workbook's cells so far (xlsxMaxCells).
func xlsxRows(data []byte, shared []string, fmts []xlsxFormat, date1904 bool, cells *int) ([][]string, error) {
	type cell struct {
		Ref   string   `xml:"r,attr"`
		Type  string   `xml:"t,attr"`
		Style int      `xml:"s,attr"`
		V     string   `xml:"v"`
		Is    xlsxText `xml:"is"`
	}
	var ws struct {
		Rows []struct {
			R     int    `xml:"r,attr"`
			Cells []cell `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := xml.Unmarshal(data, &ws); err != nil {
		return nil, err
	}
	var rows [][]string
	for ri, r := range ws.Rows {
		n := r.R
		if n <= 0 {
			n = ri + 1
		}
		if n > 1_048_576 {
			return nil, fmt.Errorf("row %d is past Excel's last row", n)
		}
		for len(rows) < n {
			rows = append(rows, nil)
		}
		row := rows[n-1]
		for ci, c := range r.Cells {
			if *cells++; *cells > xlsxMaxCells {
				return nil, fmt.Errorf("over %d cells", xlsxMaxCells)
			}
			col := xlsxColumn(c.Ref)
			if col < 0 {
				col = ci
			}
			if col > 16_384 {
				return nil, fmt.Errorf("cell %s is past Excel's last column", c.Ref)
			}
			var text string
			switch c.Type {
			case "s":
				if i, err := strconv.Atoi(strings.TrimSpace(c.V)); err == nil && i >= 0 && i < len(shared) {
					text = shared[i]
				}
			case "inlineStr":
				text = c.Is.String()
			case "str":
				text = c.V
			case "b":
				text = map[bool]string{true: "TRUE", false: "FALSE"}[strings.TrimSpace(c.V) == "1"]
			case "e":
			default:
				v, err := strconv.ParseFloat(strings.TrimSpace(c.V), 64)
				switch {
				case err != nil:
					text = c.V
				case c.Style >= 0 && c.Style < len(fmts):
					text = fmts[c.Style].show(v, date1904)
				default:
					text = strconv.FormatFloat(v, 'f', -1, 64)
				}
			}
			for len(row) <= col {
				row = append(row, "")
			}
			row[col] = text
		}
		rows[n-1] = row
	}
	// a CSV sheet's rows all have the header's width
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	for i := range rows {
		for len(rows[i]) < width {
			rows[i] = append(rows[i], "")
		}
	}
	return rows, nil
}

// xlsxColumn is the column index (0 for A) of a cell reference ("C5" is
// 2), -1 when it has no column letters.
func xlsxColumn(ref string) int {
	col, n := 0, 0
	for _, c := range ref {
		if c < 'A' || c > 'Z' {
			break
		}
		col = col*26 + int(c-'A'+1)
		n++
	}
	if n == 0 || n > 3 {
		return -1
	}
	return col - 1
}
