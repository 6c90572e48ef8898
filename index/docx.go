package index

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// A small business keeps its handbook, price list or FAQ in Word. The
// build refused a .docx by name and told the operator to convert it; now it
// reads one: a .docx is a zip of XML parts, and word/document.xml holds the
// body as paragraphs (<w:p>) of runs of text (<w:t>), with tables
// (<w:tbl>) and a style per paragraph. docxDoc turns that body into the
// HTML of the same structure (headings, paragraphs, lists, tables) and
// reads it as an HTML page is read (htmlDoc), so its sections, tables and
// chunks are what a saved web page of the document would give.

// zipMaxPart bounds the uncompressed size of a part read from a .docx or
// .xlsx archive (a zip bomb stops there with an error).
const zipMaxPart = 64 << 20

// zipParts returns the reader of zr's parts by name: a part's bytes, nil
// when the archive has no such part, an error past zipMaxPart.
func zipParts(zr *zip.Reader) func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		for _, f := range zr.File {
			if f.Name != name {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			data, err := io.ReadAll(io.LimitReader(rc, zipMaxPart+1))
			if err != nil {
				return nil, err
			}
			if len(data) > zipMaxPart {
				return nil, fmt.Errorf("%s is over %d MB uncompressed", name, zipMaxPart>>20)
			}
			return data, nil
		}
		return nil, nil
	}
}

// wordNS is the namespace of WordprocessingML's elements and attributes;
// markupCompatNS that of the markup-compatibility wrappers around text
// boxes and drawings (a Choice and its Fallback copy).
const (
	wordNS         = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	markupCompatNS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// docxPage reads a Word document (.docx).
func docxPage(id string, b []byte) (Doc, error) {
	return zipPage(id, b, "a Word document", ".docx", "save it from Word as .docx, or as Markdown, HTML or plain text",
		"word/document.xml", "a .docx saved by Word, LibreOffice or Google Docs has one",
		func(body []byte, part func(string) ([]byte, error)) (string, error) {
			styles, _ := part("word/styles.xml")
			core, _ := part("docProps/core.xml")
			notes, _ := part("word/footnotes.xml")
			return docxHTML(body, docxHeadingStyles(styles), docxTitle(core), docxFootnotes(notes))
		})
}

// zipPage reads a document that is a zip of XML parts (.docx, .odt), kind
// ("a Word document") of extension ext: a file that is no zip is not one
// (advice says what to do); its body part (why says why it should be
// there) is written as an HTML page by page, from the body and the other
// parts, and read as htmlDoc reads a page. A page of no text is
// errEmptyFile.
func zipPage(id string, b []byte, kind, ext, advice, body, why string, page func(body []byte, part func(string) ([]byte, error)) (string, error)) (Doc, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return Doc{}, fmt.Errorf("not %s (%s is a zip archive: %v); %s", kind, ext, err, advice)
	}
	part := zipParts(zr)
	data, err := part(body)
	if err != nil {
		return Doc{}, fmt.Errorf("read the document: %v", err)
	}
	if data == nil {
		return Doc{}, fmt.Errorf("not %s: the archive has no %s (%s)", kind, body, why)
	}
	html, err := page(data, part)
	if err != nil {
		return Doc{}, err
	}
	d, err := htmlDoc(id, html)
	if err != nil {
		return Doc{}, err
	}
	if strings.TrimSpace(d.Text) == "" {
		return Doc{}, errEmptyFile
	}
	return d, nil
}

// docxHeadingStyles maps a paragraph style's id to its heading level: 1-6
// for "heading 1" to "heading 6" (the style's name is English whatever the
// language of Word, its id is not: "berschrift1"), 0 for "Title". Styles
// based on a heading style are headings of its level. A document without
// styles.xml has the ids Word gives the built-in styles.
func docxHeadingStyles(styles []byte) map[string]int {
	levels := map[string]int{"Title": 0, "Heading1": 1, "Heading2": 2, "Heading3": 3, "Heading4": 4, "Heading5": 5, "Heading6": 6}
	if styles == nil {
		return levels
	}
	type style struct {
		ID   string `xml:"styleId,attr"`
		Name struct {
			Val string `xml:"val,attr"`
		} `xml:"name"`
		BasedOn struct {
			Val string `xml:"val,attr"`
		} `xml:"basedOn"`
	}
	var doc struct {
		Styles []style `xml:"style"`
	}
	if xml.Unmarshal(styles, &doc) != nil {
		return levels
	}
	levels = map[string]int{}
	based := map[string]string{}
	for _, s := range doc.Styles {
		name := strings.ToLower(strings.TrimSpace(s.Name.Val))
		switch {
		case name == "title":
			levels[s.ID] = 0
		case strings.HasPrefix(name, "heading "):
			if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && n >= 1 {
				levels[s.ID] = min(n, 6)
			}
		}
		if s.BasedOn.Val != "" {
			based[s.ID] = s.BasedOn.Val
		}
	}
	for id, base := range based {
		for range 8 { // a chain of styles based on styles, not a loop
			if _, ok := levels[id]; ok {
				break
			}
			if l, ok := levels[base]; ok {
				levels[id] = l
				break
			}
			if base = based[base]; base == "" {
				break
			}
		}
	}
	return levels
}

// docxTitle is the document's title in its properties (docProps/core.xml
// dc:title), "" when none.
func docxTitle(core []byte) string {
	var props struct {
		Title string `xml:"http://purl.org/dc/elements/1.1/ title"`
	}
	if core == nil || xml.Unmarshal(core, &props) != nil {
		return ""
	}
	return strings.TrimSpace(props.Title)
}

// docxHTML writes the body of word/document.xml as HTML: a paragraph of a
// heading style (or with an outline level) as <hN>, the Title style as
// <h1>, a numbered or bulleted paragraph as a list item, a table as a
// table (a nested one flattened into its cell), any other paragraph as
// <p>; the footnotes, after the body, as "Note N: ..." paragraphs (as
// the Markdown reader keeps pandoc's). Tabs are spaces, line breaks <br>; deleted text of tracked changes,
// field codes, headers, footers and comments are not in the body's text.
func docxHTML(body []byte, levels map[string]int, title string, notes []string) (string, error) {
	var out strings.Builder
	out.WriteString("<html><head>")
	if title != "" {
		out.WriteString("<title>" + html.EscapeString(title) + "</title>")
	}
	out.WriteString("</head><body>")
	dec := xml.NewDecoder(bytes.NewReader(body))
	var (
		para      strings.Builder // the current paragraph's text (escaped)
		inPara    bool
		inText    bool // inside <w:t>
		level     = -1 // the paragraph's heading level, -1 for none
		listItem  bool
		inList    bool
		tableRows int  // tables open (a nested one is flattened)
		pDepth    int  // paragraphs open (a text box's are inside another)
		bold      bool // the current run is bold
	)
	closeList := func() {
		if inList {
			out.WriteString("</ul>")
			inList = false
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("word/document.xml: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "Fallback" && t.Name.Space == markupCompatNS {
				// the copy of a text box or drawing for older readers:
				// its text is the Choice's, read already
				if err := dec.Skip(); err != nil {
					return "", fmt.Errorf("word/document.xml: %v", err)
				}
				continue
			}
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "p":
				if pDepth++; pDepth > 1 {
					para.WriteByte(' ') // a text box's paragraph inside this one
					continue
				}
				inPara, level, listItem = true, -1, false
				para.Reset()
			case "noBreakHyphen":
				if inPara {
					para.WriteByte('-')
				}
			case "pStyle":
				if l, ok := levels[wordAttr(t, "val")]; ok && inPara {
					level = l
				}
			case "outlineLvl":
				if n, err := strconv.Atoi(wordAttr(t, "val")); err == nil && n >= 0 && n < 6 && inPara && level < 0 {
					level = n + 1
				}
			case "numPr":
				listItem = inPara
			case "r":
				bold = false
			case "b":
				// a run's bold (<w:b/>, w:val "0" or "false" turns it off):
				// a paragraph all in bold reads as a heading (styledHeading)
				v := wordAttr(t, "val")
				bold = v != "0" && v != "false"
			case "t":
				inText = true
			case "tab":
				if inPara {
					para.WriteByte(' ')
				}
			case "br", "cr":
				if inPara {
					para.WriteString("<br>")
				}
			case "tbl":
				if tableRows == 0 {
					closeList()
					out.WriteString("<table>")
				}
				tableRows++
			case "tr", "tc":
				if tableRows == 1 {
					out.WriteString("<" + tableTags[t.Name.Local] + ">")
				}
			}
		case xml.EndElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if pDepth--; pDepth > 0 {
					para.WriteByte(' ')
					continue
				}
				inPara = false
				text := para.String()
				if strings.TrimSpace(strings.ReplaceAll(text, "<br>", "")) == "" {
					continue
				}
				switch {
				case tableRows > 0:
					out.WriteString("<p>" + text + "</p>")
				case level >= 0:
					closeList()
					n := strconv.Itoa(max(level, 1))
					out.WriteString("<h" + n + ">" + text + "</h" + n + ">")
				case listItem:
					if !inList {
						out.WriteString("<ul>")
						inList = true
					}
					out.WriteString("<li>" + text + "</li>")
				default:
					closeList()
					out.WriteString("<p>" + text + "</p>")
				}
			case "tr", "tc":
				if tableRows == 1 {
					out.WriteString("</" + tableTags[t.Name.Local] + ">")
				}
			case "tbl":
				tableRows--
				if tableRows == 0 {
					out.WriteString("</table>")
				}
			}
		case xml.CharData:
			if inText && inPara {
				if bold {
					para.WriteString("<strong>" + html.EscapeString(string(t)) + "</strong>")
				} else {
					para.WriteString(html.EscapeString(string(t)))
				}
			}
		}
	}
	closeList()
	writeNotes(&out, notes)
	out.WriteString("</body></html>")
	return out.String(), nil
}

// docxFootnotes are the texts of word/footnotes.xml's footnotes, in
// order, the separators Word keeps there left out.
func docxFootnotes(b []byte) []string {
	if b == nil {
		return nil
	}
	var notes []string
	var cur strings.Builder
	in, inText := false, false
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return notes // the end, or a broken part: the notes read so far
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space != wordNS:
			case t.Name.Local == "footnote":
				typ := wordAttr(t, "type")
				in = typ == "" || typ == "normal"
				cur.Reset()
			case t.Name.Local == "t":
				inText = in
			case t.Name.Local == "p" && in && cur.Len() > 0:
				cur.WriteByte(' ')
			}
		case xml.EndElement:
			switch {
			case t.Name.Space != wordNS:
			case t.Name.Local == "t":
				inText = false
			case t.Name.Local == "footnote" && in:
				if n := strings.Join(strings.Fields(cur.String()), " "); n != "" {
					notes = append(notes, n)
				}
				in = false
			}
		case xml.CharData:
			if inText {
				cur.Write(t)
			}
		}
	}
}

// tableTags are the HTML elements of a Word table's row and cell (a
// nested table's are flattened into the cell that holds it).
var tableTags = map[string]string{"tr": "tr", "tc": "td"}

// xmlAttr is the value of t's attribute local in namespace ns (or in
// none): Word's and OpenDocument's attributes.
func xmlAttr(t xml.StartElement, ns, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && (a.Name.Space == ns || a.Name.Space == "") {
			return a.Value
		}
	}
	return ""
}

// wordAttr is xmlAttr in Word's namespace.
func wordAttr(t xml.StartElement, local string) string { return xmlAttr(t, wordNS, local) }

// writeNotes writes a document's footnotes after its body as paragraphs
// "Note N: ...", as the Markdown reader keeps pandoc's.
func writeNotes(out *strings.Builder, notes []string) {
	for i, n := range notes {
		out.WriteString("<p>Note " + strconv.Itoa(i+1) + ": " + html.EscapeString(n) + "</p>")
	}
}
