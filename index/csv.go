package index

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A CSV corpus file is a spreadsheet's export: its first row names the
// columns, with the names of the JSON Lines fields (id, text, title, kind,
// address, url, tenant, kb, deleted; case and surrounding spaces ignored,
// BEIR's _id for id), and every other row is one document. A FAQ sheet's
// question and answer columns are read as title and text where the sheet has
// no title or text column. A sheet with neither, whose header names its
// columns ("service,price,notes": a price list), is a table: each row's
// text is its other cells, each after its column's heading ("Service: Full
// valet\nPrice: £85"; a single such column's cell alone), and a short
// first cell is its title where no title column gives one. Without an
// id column a row's id is the file's name and its row number in the sheet
// ("faq-2" for the first row under the header), so inserting rows renumbers
// the ones below. Any other column is kept in the document's meta under its
// header. An empty cell is a field not given (a title, tenant or kb
// then takes its default). The separator is a tab for .tsv; for .csv the
// one of comma, semicolon (spreadsheets in locales with a decimal comma)
// and tab that the header row uses most. Quoted cells may hold separators,
// quotes ("") and line breaks.

// csvFields are the columns that fill a Doc field; "meta" and "sources" are
// lists or objects, which a cell does not hold.
var csvFields = map[string]bool{"id": true, "_id": true, "text": true, "title": true, "kind": true, "address": true, "url": true, "tenant": true, "kb": true, "deleted": true}

// readCSV reads the CSV corpus file r (named path) and hands each good row
// to keep as a Doc in part (where the row names no tenant or kb) with its
// line number. A bad row is a *LineError appended to bad (returned at once
// when strict); a header without the required columns is one *LineError
// for the whole file, which is then skipped, as is the rest of a file after
// a row the CSV reader cannot parse.
func readCSV(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	report := func(n int, err error) error {
		le := &LineError{File: path, Line: n, Err: err}
		if strict {
			return le
		}
		*bad = append(*bad, le)
		return nil
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	cr := csv.NewReader(br)
	cr.Comma = csvComma(br, path)
	cr.LazyQuotes = true // a stray quote inside a cell, as spreadsheets let one type
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return report(1, errors.New("the file is empty (nothing to index)"))
	}
	if err != nil {
		return report(1, fmt.Errorf("header row: %w", csvError(err)))
	}
	cols, table, err := csvHeader(header)
	if err != nil {
		return report(1, err)
	}
	// A sheet without an id column names its rows stem-N by sheet row.
	stem, rowIDs := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), !hasIDColumn(cols)
	group := "" // the first column's last value, for the rows of its group
	// A shop's product export (Shopify) gives a product's variants as
	// rows under it with the same key (Handle) and no title: they are
	// read into the product's document, so "how much is the 250g?" finds
	// the product, and a draft product's variants are drafts too
	// (operator trial 42's tea shop: each variant was a chunk of its own).
	titleCol := slices.Index(cols, "title")
	var pend *Doc // the last document read, kept back for its variant rows
	pendLine, pendKey := 0, ""
	flush := func() error {
		if pend == nil {
			return nil
		}
		d := *pend
		pend = nil
		return keep(d, pendLine)
	}
	for sheetRow := 2; ; sheetRow++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return flush()
		}
		if err != nil && !errors.Is(err, csv.ErrFieldCount) {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return report(line, fmt.Errorf("%w (the rest of the file is not read)", csvError(err)))
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			if rerr := report(line, fmt.Errorf("a row of %d cells under a header of %d", len(row), len(cols))); rerr != nil {
				return rerr
			}
			continue
		}
		if blankRow(row) {
			continue
		}
		if pend != nil && table && titleCol > 0 && !csvFields[cols[0]] && strings.TrimSpace(row[0]) == pendKey && strings.TrimSpace(row[titleCol]) == "" {
			if more, _ := rowLines(header, cols, row, 1); len(more) > 0 {
				pend.Text += "\n\n" + strings.Join(more, "\n")
			}
			continue
		}
		filled := false
		if len(row) > 1 && !csvFields[cols[0]] {
			// a group's name in the first column only on its first row
			// (merged cells as a sheet exports them): filled down
			if v := strings.TrimSpace(row[0]); v != "" {
				group = v
			} else if group != "" {
				row[0], filled = group, true
			}
		}
		d, err := csvDoc(cols, row)
		if err == nil && table {
			tableText(&d, header, cols, row)
			if filled && d.Title == group {
				d.Title = groupTitle(group, cols, row)
			}
		}
		if err == nil {
			unpublished(&d)
			htmlBody(&d)
		}
		if err == nil && rowIDs {
			d.ID = fmt.Sprintf("%s-%d", stem, sheetRow)
		}
		if err == nil {
			d, err = normalizeDoc(inPartition(d, part))
		}
		if err != nil {
			if rerr := report(line, err); rerr != nil {
				return rerr
			}
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		dd := d
		pend, pendLine, pendKey = &dd, line, strings.TrimSpace(row[0])
	}
}

// csvComma picks the separator of a .csv file from its header row: the one
// of comma, semicolon and tab it holds most (comma on a tie or none); a
// .tsv file's is a tab.
func csvComma(br *bufio.Reader, path string) rune {
	if strings.EqualFold(filepath.Ext(path), ".tsv") {
		return '\t'
	}
	head, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	comma, most := ',', bytes.Count(head, []byte{','})
	for _, c := range []rune{';', '\t'} {
		if n := bytes.Count(head, []byte(string(c))); n > most {
			comma, most = c, n
		}
	}
	return comma
}

// csvHeader reads the header row: each column's name, lower-cased and
// trimmed, with fieldAliases (question, answer, body, content) renamed
// title and text where no column has those names. It is an error when the text column is missing, when a
// name repeats or is empty, or for a list column (meta, sources). table
// says the sheet has no text column and its headings name a table's
// columns (tableHeader).
func csvHeader(header []string) (cols []string, table bool, err error) {
	cols = make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if err := checkUTF8([]byte(h)); err != nil {
			return nil, false, fmt.Errorf("header row: %w", err)
		}
		switch {
		case h == "":
			return nil, false, fmt.Errorf("header row: column %d has no name", i+1)
		case seen[h]:
			return nil, false, fmt.Errorf("header row: column %q twice", h)
		case h == "meta" || h == "sources":
			return nil, false, fmt.Errorf("header row: a %q column is not read from CSV (it is a list or an object): give such documents as JSON lines", h)
		}
		seen[h] = true
		cols[i] = h
	}
	named := append([]string(nil), cols...)
	for _, a := range fieldAliases {
		if seen[a.field] {
			continue
		}
		for i, c := range cols {
			if c == a.alias {
				cols[i], seen[a.field] = a.field, true
			}
		}
	}
	table = !slices.Contains(cols, "text")
	if table && !tableHeader(header, cols) {
		return nil, false, fmt.Errorf("the first row names the columns, and it has no text column (it has %s): a CSV corpus needs a header row with text, or a FAQ's question and answer, or short headings over a table's columns (id, title, kind, address, url, tenant, kb optional)",
			strings.Join(named, ", "))
	}
	return cols, table, nil
}

// tableHeader reports whether a header without a text column names a
// table's columns: at least one column that is no Doc field, and every
// such heading a short name (at most maxHeadingWords words and
// maxHeadingBytes bytes, no sentence punctuation, not a number), so the
// first row of a sheet with no header ("c1,Beans are 7.50.") is not read
// as one.
func tableHeader(header, cols []string) bool {
	content := 0
	for i, c := range cols {
		if csvFields[c] {
			continue
		}
		h := strings.TrimSpace(header[i])
		if len(h) > maxHeadingBytes || len(strings.Fields(h)) > maxHeadingWords || strings.ContainsAny(h, ".?!") || strings.Trim(h, "0123456789,£$€ ") == "" {
			return false
		}
		content++
	}
	return content > 0
}

// maxHeadingWords and maxHeadingBytes bound a table column's heading.
const (
	maxHeadingWords = 5
	maxHeadingBytes = 40
)

// maxTableTitle is the longest first cell that titles its row.
const maxTableTitle = 80

// tableText fills d's text from a table row: every cell of a column that is
// no Doc field, after its heading as the header row writes it, one to a
// line ("Price: £85"); a single such column's cell alone. Where the sheet
// gives no title, the first such cell is the row's title when it is short
// (maxTableTitle) and another column holds text too.
func tableText(d *Doc, header, cols, row []string) {
	lines, first := rowLines(header, cols, row, 0)
	switch {
	case len(lines) == 1:
		d.Text = first
	case len(lines) > 1:
		d.Text = strings.Join(lines, "\n")
		if d.Title == "" && len(first) <= maxTableTitle && !strings.Contains(first, "\n") {
			d.Title = first
		}
	}
}

// groupTitle titles a row of a group whose name (in the first column) was
// filled down: the group and the row's next cell ("Opening hours:
// Saturday"), the group alone when that cell is long or absent. Operator
// trial 41's price list had every row below a group's first titled by its
// item alone, "Saturday" with no sign it was an opening time.
func groupTitle(group string, cols, row []string) string {
	for i := 1; i < len(row); i++ {
		if v := strings.TrimSpace(row[i]); v != "" && !csvFields[cols[i]] {
			if len(v) <= maxTableTitle && !strings.Contains(v, "\n") {
				return group + ": " + v
			}
			break
		}
	}
	return group
}

// rowLines are a table row's cells from column from on, each after its
// heading ("Price: £85"), the Doc fields' columns and blank cells left
// out, and so are links to images (a shop export's Image Src: no reader
// asks for them); first is the first such cell's text as written.
// readCSV skips a row of another length than the header.
func rowLines(header, cols, row []string, from int) (lines []string, first string) {
	for i := from; i < len(row); i++ {
		v := strings.TrimSpace(row[i])
		if v == "" || csvFields[cols[i]] || imageURLRE.MatchString(v) {
			continue
		}
		if first == "" {
			first = v
		}
		if bodyHTMLRE.MatchString(v) {
			// a cell of HTML (a product's description) read as a page's
			// body, its paragraphs kept, the row's other lines apart
			if md, _, _, err := htmlMarkdown(v); err == nil {
				if t, _, _ := markdownText(md); strings.TrimSpace(t) != "" {
					v = t
				}
			}
		}
		lines = append(lines, strings.TrimSpace(header[i])+": "+v)
	}
	return lines, first
}

// imageURLRE is a cell that is only a link to an image.
var imageURLRE = regexp.MustCompile(`(?i)^https?://\S+\.(?:jpe?g|png|gif|webp|svg|avif)(?:\?\S*)?$`)

// hasIDColumn reports a header with an id or _id column: its rows must give
// their id (a blank cell is an error), where a sheet without one names its
// rows by number.
func hasIDColumn(cols []string) bool {
	return slices.Contains(cols, "id") || slices.Contains(cols, "_id")
}

// csvDoc makes a row into a Doc by its columns' names.
func csvDoc(cols, row []string) (Doc, error) {
	var d Doc
	var id, bid string
	for i, v := range row {
		if err := checkUTF8([]byte(v)); err != nil {
			return Doc{}, fmt.Errorf("column %q: %w", cols[i], err)
		}
		if strings.TrimSpace(v) == "" {
			continue
		}
		switch c := cols[i]; c {
		case "id":
			id = strings.TrimSpace(v)
		case "_id":
			bid = strings.TrimSpace(v)
		case "text":
			d.Text = v
		case "title":
			d.Title = v
		case "kind":
			d.Kind = strings.TrimSpace(v)
		case "address":
			d.Address = strings.TrimSpace(v)
		case "url":
			d.URL = strings.TrimSpace(v)
		case "tenant":
			d.Tenant = strings.TrimSpace(v)
		case "kb":
			d.KB = strings.TrimSpace(v)
		case "deleted":
			switch truth(v) {
			case 1:
				d.Deleted = true
			case -1:
				return Doc{}, fmt.Errorf("column \"deleted\": %q is not true or false", v)
			}
		default:
			if d.Meta == nil {
				d.Meta = map[string]any{}
			}
			d.Meta[c] = v
		}
	}
	d.ID = id
	if d.ID == "" {
		d.ID = bid
	}
	return d, nil
}

// blankRow reports a row whose cells are all blank (a spreadsheet's
// trailing empty rows, ",,,").
func blankRow(row []string) bool {
	for _, v := range row {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// csvError says a CSV reader's error without repeating its position (the
// bad line gives the line).
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
