package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// An HTML page (.html, .htm: a help centre's export, a saved web page) is
// read by turning its DOM into Markdown and handing that to the Markdown
// reader (markdownText): one code path, so a page's text, title, sections,
// lists, tables and chunks come out as those of the same page written in
// Markdown.
//
//   - The title is the page's <title>, else its first <h1>, else the file
//     name. <link rel="canonical">, else <meta property="og:url">, else a
//     browser's "saved from url=" comment gives the document's url, when it
//     is an absolute http(s) URL.
//   - <h1>-<h6> are headings of their level (<h2> and deeper start
//     sections); <p>, <div> and the other block elements are paragraphs;
//     <br> is a line break; whitespace is collapsed (a no-break space too,
//     as the Markdown reader does); entities are decoded.
//   - <li> is a list item on a line of its own. An ordered list's items
//     keep their numbers (from <ol start>, or a first <li value>; the
//     Markdown reader counts on by one from the first item, so a later
//     <li value> and <ol reversed> are not followed); a nested list counts
//     on its own; <ol type="a">, "A", "i" and "I" items keep their letters
//     or numerals. <dt> and <dd> are lines, each term opening a paragraph.
//   - A <table> row is a line of its cells, as a Markdown table row is
//     (header cells are cells; the first row heads the table). A table
//     whose cells hold headings or tables is layout, read as blocks.
//   - <pre> is kept verbatim, as a fenced code block is. A link keeps its
//     text, an image its alt text. A permalink beside a heading (a link to
//     "#..." whose text is one symbol: Sphinx's and MkDocs' "¶",
//     Docusaurus's zero-width space) is dropped.
//   - <script>, <style>, <noscript>, <template>, <svg>, <iframe>,
//     <object>, <canvas>, <audio>, <video>, form controls and comments
//     are dropped. Elements marked hidden or aria-hidden are kept: an FAQ
//     page's accordion hides its answers that way until clicked. So is page
//     chrome (<nav>, <aside>, a <header> or <footer> outside <article>,
//     <section> and <main>, a <form> that holds no heading, the ARIA roles
//     navigation, banner, contentinfo, complementary and search, a
//     cookie-consent banner: consentBanner) unless the page has no other
//     text. A page with a <main> element (or role="main") is read from it
//     alone when it holds text. A footer that gives a way to reach the
//     business is kept as a last section, "Contact" (contactFooter).
//   - A <details> element is one paragraph: its <summary> (an FAQ's
//     question) and its answer stay in one chunk.
//   - Text that would read as Markdown ("1. " or "- " opening a line, "#",
//     "*", "|", a literal "<b>") is escaped, so it stays text.
//
// A page is decoded first (htmlDecode): a byte-order mark, else valid
// UTF-8, else its <meta> charset, else Windows-1252, so a page saved in
// Windows-1252, ISO-8859-1 or UTF-16 reads as written. The parser
// (golang.org/x/net/html) reads malformed markup as browsers do.

// htmlPage reads an HTML file: its text decoded (htmlDecode), then read
// as htmlDoc says. A page of no text is an error saying so.
func htmlPage(id string, b []byte) (Doc, error) {
	page, err := htmlDecode(b)
	if err != nil {
		return Doc{}, err
	}
	if blank(page) {
		return Doc{}, errEmptyFile
	}
	d, err := htmlDoc(id, page)
	if err == nil && d.Text == "" {
		err = errors.New("the page holds no text outside its markup, scripts and styles (nothing to index)")
	}
	return d, err
}

// htmlDecode turns an HTML file's bytes into text, in the encoding
// charset.DetermineEncoding finds as a browser does for a page without an
// HTTP header, save that valid UTF-8 is read as UTF-8:
//
//   - a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) names the encoding;
//   - else a page that is valid UTF-8 throughout is UTF-8, whatever it
//     declares: a page saved as UTF-8 under a stale <meta charset> (an
//     HTTP header that said UTF-8 overrode it until the page was saved);
//     text in another encoding is almost never valid UTF-8;
//   - else the encoding its <meta charset> or <meta http-equiv=
//     "Content-Type"> names in its first 1024 bytes (as the WHATWG
//     Encoding standard maps labels: ISO-8859-1 and ASCII read as
//     Windows-1252);
//   - else Windows-1252, the web's default.
//
// A page read as UTF-8 that is not (one that says UTF-8, or whose first
// 1024 bytes hold UTF-8 letters, then a byte of another encoding: a page
// of two encodings) is checkUTF8's error, naming the byte.
func htmlDecode(b []byte) (string, error) {
	// Without a Content-Type, DetermineEncoding is certain of a
	// byte-order mark alone.
	enc, name, bom := charset.DetermineEncoding(b, "")
	valid := utf8.Valid(b)
	if name == "utf-8" || (valid && !bom) {
		if !valid {
			return "", checkUTF8(b)
		}
		return string(b), nil
	}
	text, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return "", fmt.Errorf("decode the page as %s: %w", name, err)
	}
	return string(text), nil
}

// htmlDoc turns an HTML page into a Doc (as textDoc does a Markdown file):
// text, title and sections as markdownText reads htmlMarkdown's output.
// The only error is a page the parser refuses: elements nested more than
// 512 deep.
func htmlDoc(id, body string) (Doc, error) {
	d := Doc{ID: id, Title: strings.TrimSuffix(filepath.Base(id), filepath.Ext(id)), markdown: true}
	md, title, url, err := htmlMarkdown(strings.ToValidUTF8(strings.TrimPrefix(body, utf8BOM), ""))
	if err != nil {
		return Doc{}, err
	}
	var h1 string
	d.Text, h1, d.sections = markdownText(md)
	switch {
	case title != "":
		d.Title = title
	case h1 != "":
		d.Title = h1
	}
	d.URL = url
	return d, nil
}

// savedFromRE finds the address a browser's "Save page as" writes at the
// top of the file: <!-- saved from url=(0042)https://... -->.
var savedFromRE = regexp.MustCompile(`^\s*saved from url=\(\d+\)(\S+)`)

// htmlMarkdown converts an HTML page to Markdown, and returns its <title>
// text and its address: the first absolute http(s) URL of its canonical
// link, its og:url and a "saved from" comment ("" when none).
func htmlMarkdown(page string) (md, title, url string, err error) {
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		// The parser refuses a page whose open elements nest more than 512
		// deep (its guard against stack exhaustion): tags never closed.
		return "", "", "", fmt.Errorf("the HTML parser refuses the page (%v): elements nested that deep are usually tags that are never closed", err)
	}
	var main *html.Node
	var canonical, og, saved string
	var scan func(n *html.Node)
	scan = func(n *html.Node) {
		switch n.Type {
		case html.CommentNode:
			if m := savedFromRE.FindStringSubmatch(n.Data); m != nil && saved == "" {
				saved = m[1]
			}
		case html.ElementNode:
			if htmlSkip(n) {
				return
			}
			switch {
			case n.DataAtom == atom.Title:
				if title == "" {
					title = strings.Join(strings.Fields(nodeText(n)), " ")
				}
				return
			case n.DataAtom == atom.Link && canonical == "" && hasWord(attr(n, "rel"), "canonical"):
				canonical = strings.TrimSpace(attr(n, "href"))
			case n.DataAtom == atom.Meta && og == "" && (attr(n, "property") == "og:url" || attr(n, "name") == "og:url"):
				og = strings.TrimSpace(attr(n, "content"))
			case main == nil && (n.DataAtom == atom.Main || attr(n, "role") == "main"):
				main = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			scan(c)
		}
	}
	scan(root)
	for _, u := range []string{canonical, og, saved} {
		if httpURL(u) {
			url = u
			break
		}
	}
	if main != nil {
		md = htmlConvert(main, false)
	}
	if md == "" {
		if md = htmlConvert(root, false); md == "" {
			md = htmlConvert(root, true) // nothing but chrome: keep it
		}
	}
	return md + sidebarWidgets(root, md) + contactFooter(root, md), title, url, nil
}

// navWidgetRE finds a sidebar widget that points elsewhere, by its opening
// words: related, recent or popular articles, categories, tags, archives,
// sharing, following, a newsletter or a search box.
var navWidgetRE = regexp.MustCompile(`(?i)^\s*(?:related|recent|popular|latest|more|other|categories|tags|archives?|share|follow|subscribe|newsletter|search|sign up|stay in touch|you may also)\b`)

// sidebarWidgets is the text of a page's sidebar widgets that are content,
// each a section under its own heading: a widget of a sidebar (an <aside>
// outside <article>, <section>, <main> and <nav>, or role="complementary")
// that has a heading and whose text is not mostly links (linkText below
// 0.5), and that md does not already hold. "Recent posts" and "Categories"
// are links and stay chrome; a locksmith's "Areas we cover" list of towns
// (operator trial 30) was in no chunk, so "do you cover Chirk?" found
// nothing. A sidebar without widgets of its own is read as one widget.
func sidebarWidgets(root *html.Node, md string) string {
	var b strings.Builder
	keep := func(w *html.Node) {
		if !holds(w, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6) {
			return
		}
		if _, share := linkText(w); share >= 0.5 || navWidgetRE.MatchString(nodeText(w)) {
			return
		}
		if t := htmlConvert(w, true); t != "" && !strings.Contains(md, t) && !strings.Contains(b.String(), t) {
			b.WriteString("\n\n")
			b.WriteString(t)
		}
	}
	chromeParts(root, func(n *html.Node, sectioning int) bool {
		return n.DataAtom == atom.Aside && sectioning == 0 || strings.EqualFold(attr(n, "role"), "complementary")
	}, func(n *html.Node) {
		widgets := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Section || c.DataAtom == atom.Div) {
				widgets++
				keep(c)
			}
		}
		if widgets == 0 {
			keep(n)
		}
	})
	return b.String()
}

// contactFooter is the page footer's text as a section of its own,
// "## Contact", when the footer gives a way to reach the business (a phone
// number, an email address, a postcode or opening hours: contactLikeRE)
// and md does not already hold it; "" otherwise. A site builder's page
// often gives its address, phone and hours in the footer alone: read as
// chrome, they were in no chunk, and a contact question was refused
// (operator trial 22's cleaning company). The footer is a <footer> outside
// <article>, <section>, <main>, <aside> and <nav>, or role="contentinfo".
func contactFooter(root *html.Node, md string) string {
	var b strings.Builder
	chromeParts(root, func(n *html.Node, sectioning int) bool {
		return n.DataAtom == atom.Footer && sectioning == 0 || strings.EqualFold(attr(n, "role"), "contentinfo")
	}, func(n *html.Node) {
		if t := htmlConvert(n, true); t != "" && contactLikeRE.MatchString(t) && !strings.Contains(md, t) && !strings.Contains(b.String(), t) {
			b.WriteString("\n\n## Contact\n\n")
			b.WriteString(t)
		}
	})
	return b.String()
}

// chromeParts calls keep with each element of root that match reports,
// given how many sectioning elements (sectioningElement) enclose it, and
// does not look inside such an element; scripts, styles and the like
// (htmlSkip) are not looked into either. contactFooter and sidebarWidgets
// find the page chrome they keep with it.
func chromeParts(root *html.Node, match func(n *html.Node, sectioning int) bool, keep func(n *html.Node)) {
	var walk func(n *html.Node, sectioning int)
	walk = func(n *html.Node, sectioning int) {
		if n.Type == html.ElementNode {
			if htmlSkip(n) {
				return
			}
			if match(n, sectioning) {
				keep(n)
				return
			}
			if sectioningElement(n.DataAtom) {
				sectioning++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, sectioning)
		}
	}
	walk(root, 0)
}

// contactLikeRE finds a way to reach a business in a footer's text: an
// email address, a phone number (ten or more digits, spaced or not), a UK
// postcode, a US ZIP code after a state's two capitals, or opening hours.
var contactLikeRE = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+|\+?\(?\d[\d ()-]{8,}\d|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b[A-Z]{2} \d{5}\b|(?i)\b(?:opening (?:hours|times)|office hours|open (?:monday|mon|daily|every day))`)

// htmlSkip reports an element whose content is never text: scripts,
// styles, embedded objects, form controls and SVG.
func htmlSkip(n *html.Node) bool {
	if n.Namespace == "svg" {
		return true
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object,
		atom.Embed, atom.Canvas, atom.Audio, atom.Video, atom.Select, atom.Textarea, atom.Input:
		return true
	case atom.Button:
		return !disclosureButton(n)
	}
	return false
}

// disclosureButton reports a button that shows or hides a part of the
// page (an accordion's or a FAQ's question, as site builders write them:
// <h3><button aria-expanded="false">Do you deliver?</button></h3>): its
// text is content. It says so with aria-expanded or aria-controls, or by
// standing in a heading. Other buttons ("Book now", "Accept cookies") are
// controls, not text (operator trial 33: a help page's 19 questions were
// dropped and their answers ran together).
func disclosureButton(n *html.Node) bool { return inHeading(n) || opensPart(n) }

// inHeading reports an element whose parent is h1 to h6.
func inHeading(n *html.Node) bool {
	p := n.Parent
	return p != nil && p.Type == html.ElementNode && isHeading(p.DataAtom)
}

// opensPart reports a control that shows or hides a part of the page: it
// has aria-expanded or aria-controls.
func opensPart(n *html.Node) bool { return hasAttr(n, "aria-expanded") || hasAttr(n, "aria-controls") }

// permalink reports a link to a place in the page ("#...") whose text is
// at most one symbol, spaces and zero-width characters aside: the "¶" or
// "#" a documentation generator puts beside each heading.
func permalink(n *html.Node) bool {
	if !strings.HasPrefix(attr(n, "href"), "#") {
		return false
	}
	symbols := 0
	for _, r := range nodeText(n) {
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Cf, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return false
		default:
			symbols++
		}
	}
	return symbols <= 1
}

// chromeRoles are the ARIA landmark roles of page chrome.
var chromeRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

// hasWord reports whether the space-separated list s holds w (any case).
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}

// nodeText is the text of n's descendants, scripts and styles left out.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			if htmlSkip(n) {
				return
			}
			if n.DataAtom == atom.Br {
				b.WriteByte('\n')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// htmlList is an open <ul> or <ol>: its marker style and its next number.
type htmlList struct {
	ordered bool
	typ     string // "1", "a", "A", "i" or "I"
	next    int
}

// htmlWriter writes Markdown as the DOM is walked: the finished lines to
// out, the current line's (escaped) text to line.
type htmlWriter struct {
	out  strings.Builder
	line strings.Builder
	// space: whitespace came after the line's last text.
	space bool
	// lead opens the current line (an item's marker, indented); cont
	// opens the lines after it within the same item.
	lead, cont string
	// inPara: out holds a line of the current paragraph.
	inPara bool
	// flat > 0 inside a heading or a table cell: breaks are spaces.
	flat  int
	lists []htmlList
	// olEnd is out's length when a top-level ordered list ended.
	olEnd int
	// sectioning counts the <article>, <section>, <main>, <aside> and
	// <nav> elements open: a <header> or <footer> inside one is not chrome.
	sectioning int
	chrome     bool
	// joined > 0 inside a <details>: its summary and its answer are one
	// paragraph, so the chunker never puts a question and its answer in
	// two chunks.
	joined int
}

// htmlConvert writes n as Markdown ("" when it holds no text), page chrome
// included when chrome.
func htmlConvert(n *html.Node, chrome bool) string {
	w := &htmlWriter{chrome: chrome, olEnd: -1}
	w.node(n)
	w.endPara()
	return strings.TrimSpace(w.out.String())
}

// text adds a text node's text to the line: whitespace collapsed, Markdown
// syntax escaped.
func (w *htmlWriter) text(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			if w.line.Len() > 0 {
				w.space = true
			}
			continue
		}
		if w.space {
			w.line.WriteByte(' ')
			w.space = false
		}
		switch r {
		case '\\', '`', '*', '_', '[', ']', '#', '~':
			w.line.WriteByte('\\')
			w.line.WriteRune(r)
		case '|':
			w.line.WriteString("&#124;") // a backslash would not keep a table cell whole
		case '&':
			w.line.WriteString("&amp;")
		case '<':
			w.line.WriteString("&lt;")
		case '>':
			w.line.WriteString("&gt;")
		default:
			w.line.WriteRune(r)
		}
	}
}

// lineStartRE matches what opens a Markdown block at the start of a line
// and is not escaped by text: a list marker, a setext underline, "+".
var lineStartRE = regexp.MustCompile(`^(?:[0-9]{1,9}([.)])|([-+=]))`)

// endLine finishes the current line.
func (w *htmlWriter) endLine() {
	if w.line.Len() == 0 {
		w.space = false
		return
	}
	if w.flat > 0 {
		w.space = true
		return
	}
	l := w.line.String()
	if m := lineStartRE.FindStringSubmatchIndex(l); m != nil {
		i := m[2] // the delimiter after a number
		if i < 0 {
			i = m[4]
		}
		l = l[:i] + "&#" + strconv.Itoa(int(l[i])) + ";" + l[i+1:]
	}
	if w.inPara {
		w.out.WriteByte('\n')
	}
	w.out.WriteString(w.lead)
	w.out.WriteString(l)
	w.lead = w.cont
	w.line.Reset()
	w.space = false
	w.inPara = true
}

// endPara finishes the current paragraph (within a list item, the line).
func (w *htmlWriter) endPara() {
	w.endLine()
	if w.flat > 0 || len(w.lists) > 0 || w.joined > 0 {
		return
	}
	if w.inPara {
		w.out.WriteString("\n\n")
		w.inPara = false
	}
}

// isChrome reports page chrome: navigation, banners, footers, sidebars,
// forms that are not the page's wrapper.
func (w *htmlWriter) isChrome(n *html.Node) bool {
	if w.chrome {
		return false
	}
	if chromeRoles[strings.ToLower(attr(n, "role"))] || consentBanner(n) || wayfinding(n) || notionFurniture(n) || emailPreheader(n) {
		return true
	}
	switch n.DataAtom {
	case atom.Nav, atom.Aside:
		return true
	case atom.Header, atom.Footer:
		return w.sectioning == 0
	case atom.Form:
		return !holds(n, atom.H1, atom.H2, atom.H3, atom.Main, atom.Article)
	case atom.Td, atom.Th:
		return linkMenu(n)
	}
	return false
}

// linkMenu reports a layout table's menu cell: three or more links whose
// text is at least linkMenuShare of the cell's letters and digits, and no
// heading. A data table's cells never reach isChrome (table writes them
// flat). Operator trial 25: an old-style page's left menu ("Home Our Cars
// Our Vans Rental Terms Contact Us") opened the page's first chunk.
func linkMenu(n *html.Node) bool {
	if holds(n, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table) {
		return false
	}
	links, share := linkText(n)
	return links >= 3 && share >= linkMenuShare
}

// linkText is how many links n holds and the share of its letters and
// digits that are link text (0 when it has none).
func linkText(n *html.Node) (links int, share float64) {
	var inLink, all int
	var walk func(n *html.Node, a bool)
	walk = func(n *html.Node, a bool) {
		switch n.Type {
		case html.TextNode:
			for _, r := range n.Data {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					all++
					if a {
						inLink++
					}
				}
			}
		case html.ElementNode:
			if htmlSkip(n) {
				return
			}
			if n.DataAtom == atom.A && attr(n, "href") != "" {
				links++
				a = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, a)
		}
	}
	walk(n, false)
	if all == 0 {
		return links, 0
	}
	return links, float64(inLink) / float64(all)
}

// linkMenuShare is the share of a menu cell's text that is link text.
const linkMenuShare = 0.8

// consentRE matches the id, class or aria-label of a cookie-consent
// banner ("sb-cookie-banner", "Cookie consent", "cookie-notice", "gdpr"):
// "cookie" with a banner's word, not "cookie" alone (a bakery's
// class="cookies" is content).
var consentRE = regexp.MustCompile(`(?i)gdpr|cookie[\w -]{0,12}(?:banner|notice|consent|bar\b|popup|pop-up|modal|alert|law|warning|message|dialog|notification|overlay)|(?:consent|privacy)[\w -]{0,12}cookie|\bcc-(?:window|banner)\b|onetrust|cookiebot`)

// consentBanner reports a cookie-consent banner (consentRE): chrome, the
// first text of many exported pages otherwise.
func consentBanner(n *html.Node) bool {
	s := attr(n, "id") + " " + attr(n, "class") + " " + attr(n, "aria-label")
	return len(s) > 2 && consentRE.MatchString(s)
}

// wayfindingRE finds breadcrumbs and skip links by an element's id, class
// or aria-label ("breadcrumb", "breadcrumbs", "skip-link", "skip-to-content").
var wayfindingRE = regexp.MustCompile(`(?i)bread-?crumb|\bskip[-_ ]?(?:links?|nav|to[-_ ]?(?:content|main|nav))\b`)

// skipTextRE is a skip link's text: "Skip to content", "Skip to main
// content", "Jump to navigation".
var skipTextRE = regexp.MustCompile(`(?i)^\s*(?:skip|jump)\s+to\s+(?:the\s+)?(?:main\s+)?(?:content|navigation|menu|main)\s*$`)

// wayfinding reports a page's breadcrumbs ("Home > Help > Billing") or a
// skip link ("Skip to content"): chrome a page without <main> put in its
// first chunk (operator trial 34's water company pages).
func wayfinding(n *html.Node) bool {
	s := attr(n, "id") + " " + attr(n, "class") + " " + attr(n, "aria-label")
	if len(s) > 2 && wayfindingRE.MatchString(s) {
		return true
	}
	return n.DataAtom == atom.A && strings.HasPrefix(attr(n, "href"), "#") && skipTextRE.MatchString(nodeText(n))
}

// preheaderStyleRE is the inline style an email hides its preheader with
// (the preview line an inbox shows): display none with no height, no
// size or no opacity, or Outlook's mso-hide.
var preheaderStyleRE = regexp.MustCompile(`(?i)mso-hide\s*:\s*all|display\s*:\s*none[^"]*(?:max-height\s*:\s*0|font-size\s*:\s*[01]px|opacity\s*:\s*0|line-height\s*:\s*0)|(?:max-height\s*:\s*0|font-size\s*:\s*[01]px|opacity\s*:\s*0)[^"]*display\s*:\s*none`)

// emailPreheader reports a saved email's hidden preheader (operator trial
// 43's newsletters: the inbox preview line opened every email's first
// chunk). A FAQ's hidden answer (display none alone, or the hidden
// attribute) is not one.
func emailPreheader(n *html.Node) bool {
	if c := attr(n, "class") + " " + attr(n, "id"); strings.Contains(strings.ToLower(c), "preheader") {
		return true
	}
	st := attr(n, "style")
	return st != "" && preheaderStyleRE.MatchString(st)
}

// notionFurniture reports what a Notion HTML export adds around a page's
// text (operator trial 41's council pages): the page's property table
// (Owner, Last edited, Tags: its tags ran together as "Bulky wasteFees")
// and an icon that is a symbol alone (a callout's emoji on a line of its
// own).
func notionFurniture(n *html.Node) bool {
	class := attr(n, "class")
	if class == "" {
		return false
	}
	if n.DataAtom == atom.Table && hasWord(class, "properties") {
		return true
	}
	if hasWord(class, "icon") {
		return strings.IndexFunc(nodeText(n), func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
	}
	return false
}

// sectioningElement reports the elements inside which a <header> or
// <footer> is the element's own, not page chrome (isChrome, contactFooter).
func sectioningElement(a atom.Atom) bool {
	switch a {
	case atom.Article, atom.Section, atom.Main, atom.Aside, atom.Nav:
		return true
	}
	return false
}

// holds reports whether n has a descendant element of one of the kinds.
func holds(n *html.Node, kinds ...atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		for _, k := range kinds {
			if c.DataAtom == k {
				return true
			}
		}
		if holds(c, kinds...) {
			return true
		}
	}
	return false
}

// node writes n and its descendants.
func (w *htmlWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default: // comments, doctypes
		return
	}
	if htmlSkip(n) || n.DataAtom == atom.Head || n.DataAtom == atom.Title || w.isChrome(n) {
		return
	}
	if toggleHeading(n) || w.flat == 0 && styledHeading(n) {
		w.heading(n, 4)
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.endLine()
	case atom.A:
		if !permalink(n) {
			w.children(n)
		}
	case atom.Img:
		if alt := attr(n, "alt"); alt != "" {
			w.text(" " + alt + " ")
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.heading(n, int(n.Data[1]-'0'))
	case atom.Ul, atom.Ol, atom.Menu, atom.Dir:
		w.list(n)
	case atom.Li:
		w.item(n)
	case atom.Dt:
		w.endPara()
		w.children(n)
		w.endLine()
	case atom.Dd:
		w.endLine()
		w.children(n)
		w.endLine()
	case atom.Table:
		w.table(n)
	case atom.Pre:
		w.pre(n)
	case atom.Article, atom.Section, atom.Main, atom.Aside, atom.Nav: // sectioningElement
		w.sectioning++
		w.block(n)
		w.sectioning--
	case atom.Details:
		w.endPara()
		w.joined++
		w.children(n)
		w.joined--
		w.endPara()
	case atom.P, atom.Div, atom.Blockquote, atom.Address, atom.Center, atom.Summary,
		atom.Dialog, atom.Dl, atom.Fieldset, atom.Legend, atom.Figure, atom.Figcaption, atom.Footer,
		atom.Header, atom.Form, atom.Hgroup, atom.Hr, atom.Body, atom.Html, atom.Caption, atom.Tr, atom.Td, atom.Th:
		w.block(n)
	default:
		w.children(n)
	}
}

func (w *htmlWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *htmlWriter) block(n *html.Node) {
	w.endPara()
	w.children(n)
	w.endPara()
}

// heading writes "## text" on a line of its own.
func (w *htmlWriter) heading(n *html.Node, level int) {
	if w.flat > 0 {
		w.children(n)
		w.endLine()
		return
	}
	w.endPara()
	w.flat++
	w.children(n)
	w.flat--
	if w.line.Len() > 0 {
		lead := w.lead
		w.lead = strings.Repeat("#", level) + " "
		w.endLine()
		w.lead = lead
	}
	w.endPara()
}

// list writes a <ul> or <ol>, its items each on a line.
func (w *htmlWriter) list(n *html.Node) {
	if w.flat > 0 {
		w.children(n)
		return
	}
	l := htmlList{ordered: n.DataAtom == atom.Ol, typ: "1", next: 1}
	if l.ordered {
		if s, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && s >= 0 && s < 1e9 {
			l.next = s
		}
		if t := attr(n, "type"); t == "a" || t == "A" || t == "i" || t == "I" {
			l.typ = t
		}
	}
	w.endPara()
	if l.ordered && len(w.lists) == 0 && w.olEnd == w.out.Len() {
		// Two ordered lists in a row: a thematic break keeps the Markdown
		// reader from counting the second on from the first.
		w.out.WriteString("---\n\n")
	}
	lead, cont := w.lead, w.cont
	w.lists = append(w.lists, l)
	w.children(n)
	w.endLine()
	w.lists = w.lists[:len(w.lists)-1]
	w.lead, w.cont = lead, cont
	w.endPara()
	if l.ordered && len(w.lists) == 0 {
		w.olEnd = w.out.Len()
	}
}

// item writes one <li>: its marker, then its text; blocks inside it are
// lines of the item.
func (w *htmlWriter) item(n *html.Node) {
	if w.flat > 0 {
		w.children(n)
		w.endLine()
		return
	}
	w.endLine()
	depth := max(len(w.lists), 1)
	// Past htmlMaxIndent levels, items share the deepest indent: the
	// Markdown reader needs the indent only to tell a nested list from
	// its parent, and a page of hundreds of nested lists would otherwise
	// make lines of thousands of spaces.
	indent := strings.Repeat("    ", min(depth-1, htmlMaxIndent))
	marker := "- "
	if len(w.lists) > 0 && w.lists[depth-1].ordered {
		l := &w.lists[depth-1]
		if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "value"))); err == nil && v >= 0 && v < 1e9 {
			l.next = v
		}
		switch l.typ {
		case "1":
			marker = strconv.Itoa(l.next) + ". "
		default: // letters and numerals are text to the Markdown reader
			marker = "- " + itemLabel(l.next, l.typ) + ". "
		}
		l.next++
	}
	lead, cont := w.lead, w.cont
	w.lead, w.cont = indent+marker, indent+"    "
	w.children(n)
	w.endLine()
	w.lead, w.cont = lead, cont
}

// htmlMaxIndent bounds the nesting levels a list item's indent shows.
const htmlMaxIndent = 16

// itemLabel is an <ol type> item's label: a letter ("a", "B") or a Roman
// numeral ("iv").
func itemLabel(n int, typ string) string {
	if n <= 0 {
		return strconv.Itoa(n)
	}
	var s string
	switch typ {
	case "a", "A":
		for ; n > 0; n = (n - 1) / 26 {
			s = string(rune('a'+(n-1)%26)) + s
		}
	default:
		if n >= 4000 {
			return strconv.Itoa(n)
		}
		for _, p := range []struct {
			v int
			s string
		}{{1000, "m"}, {900, "cm"}, {500, "d"}, {400, "cd"}, {100, "c"}, {90, "xc"}, {50, "l"}, {40, "xl"}, {10, "x"}, {9, "ix"}, {5, "v"}, {4, "iv"}, {1, "i"}} {
			for ; n >= p.v; n -= p.v {
				s += p.s
			}
		}
	}
	if typ == "A" || typ == "I" {
		s = strings.ToUpper(s)
	}
	return s
}

// table writes a table's rows as Markdown table rows, the first followed
// by the header rule; a layout table (cells holding headings or tables)
// as blocks.
func (w *htmlWriter) table(n *html.Node) {
	if w.flat > 0 || holds(n, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table) {
		w.block(n)
		return
	}
	w.endPara()
	var rows []*html.Node
	var caption *html.Node
	var collect func(n *html.Node)
	collect = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || htmlSkip(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				rows = append(rows, c)
			case atom.Caption:
				caption = c
			case atom.Thead, atom.Tbody, atom.Tfoot:
				collect(c)
			}
		}
	}
	collect(n)
	if caption != nil {
		w.block(caption)
	}
	header := true
	for _, tr := range rows {
		var cells []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) || htmlSkip(c) {
				continue
			}
			w.flat++
			w.children(c)
			w.flat--
			cells = append(cells, w.line.String())
			w.line.Reset()
			w.space = false
		}
		if strings.Join(cells, "") == "" {
			continue
		}
		if w.inPara {
			w.out.WriteByte('\n')
		}
		w.out.WriteString("| " + strings.Join(cells, " | ") + " |")
		if header {
			w.out.WriteString("\n|" + strings.Repeat("---|", len(cells)))
			header = false
		}
		w.inPara = true
	}
	w.endPara()
}

// pre writes a <pre> as a fenced block, its lines as written.
func (w *htmlWriter) pre(n *html.Node) {
	if w.flat > 0 {
		w.children(n)
		return
	}
	text := strings.Trim(nodeText(n), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	w.endPara() // within a list item, only the line
	fence := "```"
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if len(t) >= 3 && (strings.Trim(t, "`") == "" || strings.Trim(t, "~") == "") {
			continue // would close the fence
		}
		lines = append(lines, strings.TrimRight(l, " \t\r"))
	}
	if w.inPara {
		w.out.WriteByte('\n')
	}
	w.out.WriteString(fence + "\n" + strings.Join(lines, "\n") + "\n" + fence)
	w.inPara = true
	w.endPara()
}

// toggleHeading reports an accordion's question written as a control, not
// in a heading: a button or an element of role button that opens a part
// of the page (aria-expanded or aria-controls) and reads as a question
// (it ends in "?", or has four words or more; "Show more" does not). It is
// read as a heading, so its answer is a section titled by it: operator
// trial 33's allergen answers were a chunk titled by the question before
// them.
func toggleHeading(n *html.Node) bool {
	if n.DataAtom != atom.Button && attr(n, "role") != "button" || inHeading(n) || !opensPart(n) {
		return false
	}
	t := strings.Fields(nodeText(n))
	return len(t) > 0 && len(t) <= 30 && (strings.HasSuffix(t[len(t)-1], "?") || len(t) >= 4)
}

// styledHeading reports a paragraph that a page builder or a word
// processor's HTML made a heading by its look, not its element: all its
// text bold (<strong>, <b>, font-weight 600 or more) or in a large font
// (font-size 18px/14pt or more), short (at most styledHeadingMax
// characters), not ending as a sentence does (".", "!"; a question's "?"
// and a label's ":" may). Operator trial 38: a piano tuner's Wix-style
// page had no <h1>-<h6> under its title, so its 22 questions ran together
// in chunks cut by size.
func styledHeading(n *html.Node) bool {
	if n.DataAtom != atom.P && n.DataAtom != atom.Div {
		return false
	}
	var text strings.Builder
	ok := true
	var walk func(c *html.Node, styled bool)
	walk = func(c *html.Node, styled bool) {
		for ; c != nil && ok; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if strings.TrimSpace(c.Data) != "" {
					if !styled {
						ok = false
						return
					}
					text.WriteString(c.Data)
				}
			case html.ElementNode:
				if htmlSkip(c) {
					continue
				}
				switch c.DataAtom {
				case atom.P, atom.Div, atom.Ul, atom.Ol, atom.Table, atom.Br, atom.Img, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Section, atom.Article:
					if c.DataAtom != atom.Br || strings.TrimSpace(text.String()) != "" {
						ok = false // a block inside: not one line of text
						return
					}
				}
				walk(c.FirstChild, styled || loudElement(c))
			}
		}
	}
	walk(n.FirstChild, loudElement(n))
	t := strings.Join(strings.Fields(text.String()), " ")
	if !ok || t == "" || utf8.RuneCountInString(t) > styledHeadingMax || strings.ContainsAny(t[len(t)-1:], ".!;,") {
		return false
	}
	return strings.IndexFunc(t, unicode.IsLetter) >= 0
}

// styledHeadingMax is the longest text styledHeading reads as a heading.
const styledHeadingMax = 90

var (
	fontSizeRE   = regexp.MustCompile(`(?i)font-size\s*:\s*([0-9.]+)\s*(px|pt|em|rem)`)
	fontWeightRE = regexp.MustCompile(`(?i)font-weight\s*:\s*(bold|bolder|[6-9]00)`)
)

// loudElement reports an element that makes its text bold or large.
func loudElement(n *html.Node) bool {
	if n.DataAtom == atom.Strong || n.DataAtom == atom.B {
		return true
	}
	st := attr(n, "style")
	if st == "" {
		return false
	}
	if fontWeightRE.MatchString(st) {
		return true
	}
	if m := fontSizeRE.FindStringSubmatch(st); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		switch strings.ToLower(m[2]) {
		case "px":
			return v >= 18
		case "pt":
			return v >= 14
		default:
			return v >= 1.2
		}
	}
	return false
}

// hasAttr reports an attribute of n (of any value).
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return true
		}
	}
	return false
}

// isHeading reports h1 to h6.
func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}
