package index

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// A LibreOffice (or Google Docs "OpenDocument") document, .odt, is a zip of
// XML parts as a .docx is: content.xml holds the body as headings
// (<text:h text:outline-level="2">), paragraphs (<text:p>), lists, tables
// and footnotes (<text:note>). odtPage turns the body into the HTML of the
// same structure and reads it as an HTML page is read, as docxPage does a
// Word document.

// odtTextNS and odtTableNS are OpenDocument's text and table namespaces.
const (
	odtTextNS  = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	odtTableNS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
)

// odtPage reads an OpenDocument text (.odt).
func odtPage(id string, b []byte) (Doc, error) {
	return zipPage(id, b, "an OpenDocument text", ".odt", "save it from the word processor as .odt or .docx",
		"content.xml", "an .odt saved by LibreOffice or Google Docs has one",
		func(body []byte, part func(string) ([]byte, error)) (string, error) {
			meta, _ := part("meta.xml")
			return odtHTML(body, odtTitle(meta))
		})
}

// odtTitle is the document's title in meta.xml (dc:title), "" when none.
func odtTitle(meta []byte) string {
	var m struct {
		Title string `xml:"meta>title"`
	}
	if meta == nil || xml.Unmarshal(meta, &m) != nil {
		return ""
	}
	return strings.TrimSpace(m.Title)
}

// odtHTML writes content.xml's body as HTML: <text:h> as <hN> by its
// outline level, a paragraph of the Title style as <h1>, list items as
// <li>, a table's rows and cells (a nested table flattened), other
// paragraphs as <p>, footnotes as "Note N: ..." paragraphs after the body
// (their citations in the text dropped). <text:s> is a space, <text:tab>
// a space, <text:line-break> a <br>; tracked deletions are not text.
func odtHTML(body []byte, title string) (string, error) {
	var out strings.Builder
	out.WriteString("<html><head>")
	if title != "" {
		out.WriteString("<title>" + html.EscapeString(title) + "</title>")
	}
	out.WriteString("</head><body>")
	dec := xml.NewDecoder(bytes.NewReader(body))
	var (
		para   strings.Builder
		depth  int // paragraphs and headings open (a note's are inside one)
		level  int // the open heading's level, 0 for a paragraph
		title0 bool
		lists  int
		tables int
		notes  []string
		note   *strings.Builder // the footnote being read
		inCite bool
	)
	text := func() *strings.Builder {
		if note != nil {
			return note
		}
		return &para
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("content.xml: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Space {
			case odtTextNS:
				switch t.Name.Local {
				case "tracked-changes":
					if err := dec.Skip(); err != nil {
						return "", fmt.Errorf("content.xml: %v", err)
					}
				case "h", "p":
					if depth++; depth > 1 || note != nil {
						text().WriteByte(' ')
						continue
					}
					para.Reset()
					level, title0 = 0, false
					if t.Name.Local == "h" {
						level = 1
						if n, err := strconv.Atoi(odtAttr(t, "outline-level")); err == nil && n >= 1 {
							level = min(n, 6)
						}
					} else if s := odtAttr(t, "style-name"); s == "Title" {
						title0 = true
					}
				case "list":
					if lists == 0 && tables == 0 && note == nil {
						out.WriteString("<ul>")
					}
					lists++
				case "list-item":
					if lists == 1 && tables == 0 && note == nil {
						out.WriteString("<li>")
					}
				case "note":
					note = &strings.Builder{}
				case "note-citation":
					inCite = true
				case "s":
					n, err := strconv.Atoi(odtAttr(t, "c"))
					if err != nil || n < 1 {
						n = 1
					}
					text().WriteString(strings.Repeat(" ", min(n, 8)))
				case "tab":
					text().WriteByte(' ')
				case "line-break":
					if note == nil {
						para.WriteString("<br>")
					} else {
						note.WriteByte(' ')
					}
				}
			case odtTableNS:
				switch t.Name.Local {
				case "table":
					if tables == 0 && note == nil {
						out.WriteString("<table>")
					}
					tables++
				case "table-row":
					if tables == 1 && note == nil {
						out.WriteString("<tr>")
					}
				case "table-cell":
					if tables == 1 && note == nil {
						out.WriteString("<td>")
					}
				}
			}
		case xml.EndElement:
			switch t.Name.Space {
			case odtTextNS:
				switch t.Name.Local {
				case "note-citation":
					inCite = false
				case "note":
					if n := strings.Join(strings.Fields(note.String()), " "); n != "" {
						notes = append(notes, n)
					}
					note = nil
				case "h", "p":
					if depth--; depth > 0 || note != nil {
						continue
					}
					s := para.String()
					if strings.TrimSpace(strings.ReplaceAll(s, "<br>", "")) == "" {
						continue
					}
					switch {
					case tables > 0 || lists > 0:
						out.WriteString("<p>" + s + "</p>")
					case level > 0 || title0:
						n := strconv.Itoa(max(level, 1))
						out.WriteString("<h" + n + ">" + s + "</h" + n + ">")
					default:
						out.WriteString("<p>" + s + "</p>")
					}
				case "list-item":
					if lists == 1 && tables == 0 && note == nil {
						out.WriteString("</li>")
					}
				case "list":
					if lists--; lists == 0 && tables == 0 && note == nil {
						out.WriteString("</ul>")
					}
				}
			case odtTableNS:
				switch t.Name.Local {
				case "table-cell":
					if tables == 1 && note == nil {
						out.WriteString("</td>")
					}
				case "table-row":
					if tables == 1 && note == nil {
						out.WriteString("</tr>")
					}
				case "table":
					if tables--; tables == 0 && note == nil {
						out.WriteString("</table>")
					}
				}
			}
		case xml.CharData:
			if depth > 0 && !inCite {
				if note != nil {
					note.Write(t)
				} else {
					para.WriteString(html.EscapeString(string(t)))
				}
			}
		}
	}
	writeNotes(&out, notes)
	out.WriteString("</body></html>")
	return out.String(), nil
}

// odtAttr is xmlAttr in OpenDocument's text namespace.
func odtAttr(t xml.StartElement, local string) string { return xmlAttr(t, odtTextNS, local) }
