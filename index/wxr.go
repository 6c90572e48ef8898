package index

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A WordPress site's content leaves it as a WordPress export file (Tools >
// Export: WXR, an RSS document of <item>s with the wp: namespace). An
// operator pointed the build at one and was told a .xml file is not read
// (operator trial 42's martial arts school). readWXR reads its pages and
// posts: each item's content (Gutenberg HTML) as an HTML page's body is
// read, its title and link, its slug as the id; an item that is not
// published (draft, private, pending, scheduled, trash) is an unpublished
// document, read as an exported draft is; attachments, menus and the
// site's settings are not content.

// wxrItem is one <item> of a WordPress export.
type wxrItem struct {
	Title   string `xml:"title"`
	Link    string `xml:"link"`
	Content string `xml:"http://purl.org/rss/1.0/modules/content/ encoded"`
	ID      string `xml:"post_id"`
	Slug    string `xml:"post_name"`
	Status  string `xml:"status"`
	Type    string `xml:"post_type"`
}

// wxrNotContent are the post types of an export that are not a page's
// text: files, menus, revisions, the theme's and the editor's records.
var wxrNotContent = map[string]bool{"attachment": true, "nav_menu_item": true, "revision": true, "custom_css": true,
	"customize_changeset": true, "oembed_cache": true, "user_request": true, "wp_block": true, "wp_template": true,
	"wp_template_part": true, "wp_global_styles": true, "wp_navigation": true, "wp_font_family": true, "wp_font_face": true}

// wpShortcodeRE is a WordPress shortcode's tag, [caption id="x"] or
// [/caption]: dropped, the text between kept.
var wpShortcodeRE = regexp.MustCompile(`\[/?[a-z][a-z0-9_-]*(?:\s[^\[\]]*)?\]`)

// readWXR reads a WordPress export (see above). A file that is not one is
// a bad line saying so; XML that does not parse stops the file at the line
// of the fault; an item whose content is empty is passed over.
func readWXR(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	b, report, err := wholeFile(r, path, strict, bad)
	if b == nil {
		return err
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n")) }
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false // entities an export leaves undeclared (&nbsp;)
	dec.Entity = xml.HTMLEntity
	items, wp := 0, false
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return report(lineAt(dec.InputOffset()), fmt.Errorf("%v (the rest of the file is not read)", err))
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local == "rss" {
			for _, a := range start.Attr {
				wp = wp || strings.HasPrefix(a.Value, "http://wordpress.org/export/")
			}
		}
		if start.Name.Local != "item" {
			continue
		}
		if !wp {
			return report(1, errNotWXR)
		}
		var it wxrItem
		if err := dec.DecodeElement(&it, &start); err != nil {
			return report(lineAt(dec.InputOffset()), fmt.Errorf("%v (the rest of the file is not read)", err))
		}
		line := lineAt(off)
		items++
		typ := strings.TrimSpace(it.Type)
		if wxrNotContent[typ] {
			continue
		}
		d := Doc{Title: strings.TrimSpace(it.Title), URL: strings.TrimSpace(it.Link), Text: it.Content}
		d.ID = strings.TrimSpace(it.Slug)
		if !ValidName(d.ID) {
			d.ID = "post-" + strings.TrimSpace(it.ID)
		}
		d.Meta = map[string]any{"post_type": typ, "status": strings.TrimSpace(it.Status)}
		switch strings.TrimSpace(it.Status) {
		case "publish", "":
		default:
			d.unpublished, d.Deleted = true, true // draft, private, pending, future, trash
		}
		if d.Text = strings.TrimSpace(wpShortcodeRE.ReplaceAllString(d.Text, "")); d.Text != "" {
			if md, _, _, err := htmlMarkdown(d.Text); err == nil {
				d.Text, _, d.sections = markdownText(md)
				d.markdown = true
			}
		}
		if strings.TrimSpace(d.Text) == "" && !d.Deleted {
			continue // a page of blocks without text (a gallery, a form)
		}
		d, err = normalizeDoc(inPartition(d, part))
		if err != nil {
			if rerr := report(line, err); rerr != nil {
				return rerr
			}
			continue
		}
		if err := keep(d, line); err != nil {
			return err
		}
	}
	if items == 0 {
		return report(1, errNotWXR)
	}
	return nil
}

// errNotWXR is the bad line of a .xml file that is not a WordPress export.
var errNotWXR = errors.New("not a WordPress export (Tools > Export writes an RSS file of <item>s with the wp: namespace): a .xml file is read only as one")
