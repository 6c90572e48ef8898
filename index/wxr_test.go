package index

import (
	"strings"
	"testing"
)

// TestReadWXR: a WordPress export's published pages and posts are read
// (Gutenberg comments and shortcodes gone, headings as sections, the slug
// as id, the link as url); a draft or private item is an unpublished
// document; an attachment is not content; a .xml file that is not an
// export is one bad line saying so.
func TestReadWXR(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "site.xml", `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Iron Crane Dojo</title><link>https://dojo.example</link>
<item><title>Prices</title><link>https://dojo.example/prices/</link>
<content:encoded><![CDATA[<!-- wp:paragraph --><p>Juniors pay &pound;35 a month.</p><!-- /wp:paragraph -->
<!-- wp:heading --><h2>Gradings</h2><!-- /wp:heading -->
[caption id="a1"]<img src="belt.jpg"> A grading&nbsp;fee is £20.[/caption]]]></content:encoded>
<wp:post_id>12</wp:post_id><wp:post_name>prices</wp:post_name><wp:status>publish</wp:status><wp:post_type>page</wp:post_type></item>
<item><title>Summer BBQ</title><content:encoded><![CDATA[<p>Draft.</p>]]></content:encoded>
<wp:post_id>44</wp:post_id><wp:post_name></wp:post_name><wp:status>draft</wp:status><wp:post_type>post</wp:post_type></item>
<item><title>belt.jpg</title><content:encoded><![CDATA[]]></content:encoded><wp:post_id>50</wp:post_id><wp:status>inherit</wp:status><wp:post_type>attachment</wp:post_type></item>
</channel></rss>
`)
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(bad) != 0 || len(docs) != 2 {
		t.Fatalf("err %v bad %v docs %+v", err, bad, docs)
	}
	d := docs[0]
	if d.ID != "prices" || d.Title != "Prices" || d.URL != "https://dojo.example/prices/" || d.Text != "Juniors pay £35 a month.\n\nGradings\n\nA grading fee is £20." || len(d.sections) != 1 {
		t.Errorf("page: %q %q %q %q %+v", d.ID, d.Title, d.URL, d.Text, d.sections)
	}
	if d := docs[1]; d.ID != "post-44" || !d.Deleted || !d.unpublished {
		t.Errorf("draft: %+v", d)
	}
	_, bad, err = ReadDocs([]string{writeFile(t, dir, "sitemap.xml", `<?xml version="1.0"?><urlset><url><loc>https://x</loc></url></urlset>`)}, false)
	if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), "not a WordPress export") {
		t.Errorf("sitemap: %v %v", err, bad)
	}
}
