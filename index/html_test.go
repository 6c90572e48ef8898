package index

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/zap"
)

// htmlPlain is the plain text the reader makes of an HTML page.
func htmlPlain(page string) string {
	md, _, _, _ := htmlMarkdown(page)
	text, _, _ := markdownText(md)
	return text
}

func TestHTMLText(t *testing.T) {
	for _, tc := range []mdCase{
		{"entities", "<p>Entry &pound;5 &amp; parking&nbsp;free, 3&nbsp;&lt;&nbsp;4, caf&eacute; &#8364;2 &#x2013; &copy;</p>", "Entry £5 & parking free, 3 < 4, café €2 – ©"},
		{"whitespace collapsed", "<p>  one\n\t two   <b>three</b>four\n</p>", "one two threefour"},
		{"br is a line break", "<p>Mon-Fri 9-5<br>Sat 10-4<br/>Sun closed</p>", "Mon-Fri 9-5\nSat 10-4\nSun closed"},
		{"blocks are paragraphs", "<div>A.</div><div><p>B.</p></div>C.<blockquote>D.</blockquote>", "A.\n\nB.\n\nC.\n\nD."},
		{"headings", "<h1>Page</h1><p>Lead.</p><h2>Two</h2><p>x</p><h3>Three <small>deep</small></h3>", "Page\n\nLead.\n\nTwo\n\nx\n\nThree deep"},
		{"dropped elements", "<style>p{}</style><script>var a = 1;</script><noscript>Enable JS</noscript><template><p>t</p></template><p>Kept<svg><title>icon</title><text>s</text></svg>.</p><!-- note --><iframe>f</iframe><button>Yes</button>", "Kept."},
		{"collapsed answers kept", `<details><summary>Can I pause?</summary><p>Yes, for 3 months.</p></details><div class="faq"><button aria-expanded="false">Refunds?</button><div hidden>Within 14 days.</div><div aria-hidden="true">By card only.</div></div>`, "Can I pause?\nYes, for 3 months.\n\nRefunds?\n\nWithin 14 days.\n\nBy card only."},
		{"a details element is one paragraph", `<details><summary>Do you clean ovens?</summary><p>Yes.</p><p>From £60.</p></details><details><summary>Keys?</summary>We keep them in a safe.</details>`, "Do you clean ovens?\nYes.\nFrom £60.\n\nKeys?\nWe keep them in a safe."},
		{"heading permalinks dropped", `<h2 id="install">Installing<a class="headerlink" href="#install" title="Permalink">¶</a></h2><h3>Setup <a href="#setup" class="hash-link">&#8203;</a></h3><p>See <a href="#install">installing</a> or <a href="#n1">[1]</a>.</p>`, "Installing\n\nSetup\n\nSee installing or [1]."},
		{"links and images", `<p>See <a href="/plans">the plans</a> and <img src="p.png" alt="a phone"> or <img src="x.png" alt="">.</p>`, "See the plans and a phone or ."},
		{"nested lists", "<ul><li>Dogs:<ol><li>on a lead</li><li>no fouling</li></ol></li><li>Cats</li></ul><ol><li>One<ol><li>a</li><li>b</li></ol></li><li>Two</li></ol>", "Dogs:\n1. on a lead\n2. no fouling\nCats\n\n1. One\n1. a\n2. b\n2. Two"},
		{"list numbers", `<ol start="11"><li>No glass.</li><li>Dogs on a lead.</li></ol><p>Then:</p><ol><li value="4">Four</li><li>Five</li></ol>`, "11. No glass.\n12. Dogs on a lead.\n\nThen:\n\n4. Four\n5. Five"},
		{"two lists in a row count apart", "<ol><li>a</li><li>b</li></ol><ol><li>c</li></ol>", "1. a\n2. b\n\n1. c"},
		{"lettered and roman", `<ol type="a"><li>first</li><li>second</li></ol><ol type="I" start="4"><li>four</li></ol>`, "a. first\nb. second\n\nIV. four"},
		{"item paragraphs", "<ol><li><p>Pay.</p><p>Keep the receipt.</p></li><li>Come.</li></ol>", "1. Pay.\nKeep the receipt.\n2. Come."},
		{"definition list", "<dl><dt>Adult</dt><dd>£6.20</dd><dt>Child</dt><dd>£3.10</dd><dd>under 16</dd></dl>", "Adult\n£6.20\n\nChild\n£3.10\nunder 16"},
		{"price table", "<table><caption>Fares</caption><thead><tr><th>Ticket</th><th>Off-peak</th><th>Peak</th></tr></thead><tbody><tr><td>Adult</td><td>&pound;6.20</td><td>£8.40</td></tr><tr><td>Child <br>(5-15)</td><td><p>£3.10</p></td><td></td></tr></tbody></table><p>After.</p>", "Fares\n\nTicket, Off-peak, Peak\nAdult, £6.20, £8.40\nChild (5-15), £3.10\n\nAfter."},
		{"layout table read as blocks", "<table><tr><td><h2>Opening</h2><p>Daily.</p></td><td><table><tr><td>x</td></tr></table></td></tr></table>", "Opening\n\nDaily.\n\nx"},
		{"pre verbatim", "<p>Run:</p><pre>  guard index build\n# not a heading\n**x** &amp; [y](z)\n```\n</pre><p>Done.</p>", "Run:\n\n  guard index build\n# not a heading\n**x** & [y](z)\n\nDone."},
		{"markdown syntax stays text", "<p>1. not a list</p><p>- not a bullet</p><p># not a heading</p><p>=====</p><p>a | b | c</p><p>*stars* _under_ `tick` ~~s~~ [x](y) &lt;b&gt;bold&lt;/b&gt; &amp;amp; \\* &lt;!-- c --&gt;</p><p>> quote</p><p>---</p><p>+ plus</p><p>Title<br>===</p><p>2024. Year</p>",
			"1. not a list\n\n- not a bullet\n\n# not a heading\n\n=====\n\na | b | c\n\n*stars* _under_ `tick` ~~s~~ [x](y) <b>bold</b> &amp; \\* <!-- c -->\n\n> quote\n\n---\n\n+ plus\n\nTitle\n===\n\n2024. Year"},
		{"malformed", "<p>unclosed <b>bold <i>both</p><p>next</i></b> para<li>stray item<table><td>x<td>y</table>&#xZZ; &bogus; </div></span><div", "unclosed bold both\n\nnext para\n\nstray item\n\nx, y\n\n&#xZZ; &bogus;"},
		{"empty", "", ""},
		{"only markup", "<html><head><title>T</title><script>x()</script></head><body><div> </div><img src=a.png></body></html>", ""},
	} {
		if got := htmlPlain(tc.in); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestHTMLChrome: navigation, banners, footers, sidebars and forms are
// left out, unless the page has no other text; <main> alone is read when
// it holds text; an article's own header is not chrome.
func TestHTMLChrome(t *testing.T) {
	for _, tc := range []mdCase{
		{"chrome dropped", `<header><a href="/">Driftwood</a><form role="search"><input name=q><button>Search</button></form></header><nav><ul><li>Home</li><li>Billing</li></ul></nav><div class="content"><h1>Refunds</h1><p>Ask within 14 days.</p></div><aside>Related: Plans</aside><footer>© 2026 Driftwood · Privacy</footer>`, "Refunds\n\nAsk within 14 days."},
		{"roles", `<div role="banner">Logo</div><div role="navigation">Menu</div><p>Body.</p><div role="contentinfo">Legal</div><div role="complementary">Ads</div>`, "Body."},
		{"article header kept", `<header>Site</header><article><header><h1>Refunds</h1><p>Updated May</p></header><p>Body.</p><footer>Was this helpful?</footer></article>`, "Refunds\n\nUpdated May\n\nBody.\n\nWas this helpful?"},
		{"main alone", `<div class="sidebar">Popular articles</div><main><h1>Refunds</h1><p>Body.</p></main><div>Cookie banner</div>`, "Refunds\n\nBody."},
		{"empty main ignored", `<main><nav>Menu</nav></main><div>Body.</div>`, "Body."},
		{"form wrapping the page kept", `<form id="aspnetForm"><div><h1>Refunds</h1><p>Body.</p><input type=submit value=Go></div></form>`, "Refunds\n\nBody."},
		{"nothing but chrome", `<nav>Home · Billing</nav><footer>© 2026</footer>`, "Home · Billing\n\n© 2026"},
		{"cookie banner dropped", `<div class="sb-cookie" id="sb-cookie-banner" role="dialog" aria-label="Cookie consent"><p>We use cookies.</p><button>Accept</button></div><h1>Help</h1><p>Body.</p><div class="cookie-notice">We use cookies too.</div>`, "Help\n\nBody."},
		{"a bakery's cookies kept", `<h1>Biscuits</h1><div class="cookies"><p>Cookies are £1.</p></div><div id="cookie-box">Oat cookies £1.20.</div>`, "Biscuits\n\nCookies are £1.\n\nOat cookies £1.20."},
		{"a footer with contact details kept", `<header>Logo</header><main><h1>Help</h1><p>Body.</p></main><footer><p>Sparkle Ltd<br>Unit 4, Kestrel Court, Ashbridge AS4 7TN</p><p>Phone: 01632 960735<br>Office hours: Monday to Friday 8:30am to 5pm</p></footer>`,
			"Help\n\nBody.\n\nContact\n\nSparkle Ltd\nUnit 4, Kestrel Court, Ashbridge AS4 7TN\n\nPhone: 01632 960735\nOffice hours: Monday to Friday 8:30am to 5pm"},
		{"a layout table's menu cell dropped", `<table><tr><td colspan=2><b>Roadrunner Hire</b></td></tr><tr><td width=160><a href="index.html">Home</a><br><a href="cars.html">Our Cars</a><br><a href="terms.html"><b>Rental Terms</b></a></td><td><h2>Deposit</h2><p>We hold £250 on a card. See <a href="a">terms</a>, <a href="b">fees</a> and <a href="c">FAQ</a>.</p></td></tr></table>`,
			"Roadrunner Hire\n\nDeposit\n\nWe hold £250 on a card. See terms, fees and FAQ."},
		{"a cell of two links kept", `<table><tr><td><a href="a">Prices</a> <a href="b">Hours</a></td><td><h2>Hours</h2><p>9 to 5.</p></td></tr></table>`, "Prices Hours\n\nHours\n\n9 to 5."},
		{"a sidebar's content widget kept, its link lists dropped", `<main><h1>FAQ</h1><p>Body.</p></main><aside class="widget-area"><section class="widget"><h2>Recent posts</h2><ul><li><a href="/a">Lock snapping</a></li><li><a href="/b">Dark nights</a></li></ul></section><section class="widget"><h2>Areas we cover</h2><ul><li>Wrexham</li><li>Chirk</li></ul></section><section><p>No heading here.</p></section></aside>`,
			"FAQ\n\nBody.\n\nAreas we cover\n\nWrexham\nChirk"},
		{"an accordion's questions kept, other buttons dropped", `<h1>FAQ</h1><h3><button aria-expanded="false" aria-controls="a1">Do you deliver?</button></h3><div id="a1" hidden><p>Within 3 miles.</p></div><div role="button" aria-expanded="false">Cash?</div><div hidden><p>Yes.</p></div><p><button aria-controls="a3">Can I collect?</button></p><div id="a3"><p>From 5pm.</p></div><p>Order now <button class="btn">Go</button></p>`,
			"FAQ\n\nDo you deliver?\n\nWithin 3 miles.\n\nCash?\n\nYes.\n\nCan I collect?\n\nFrom 5pm.\n\nOrder now"},
		{"breadcrumbs and skip links dropped", `<a class="screen-reader-text" href="#content">Skip to content</a><div class="content"><ol class="breadcrumb"><li><a href="/">Home</a></li><li>Billing</li></ol><div id="breadcrumbs">Home » Help</div><h1>Paying your bill</h1><p>Pay by direct debit. <a href="#fees">Skip to fees</a></p></div>`,
			"Paying your bill\n\nPay by direct debit. Skip to fees"},
		{"a skip hire firm's classes kept", `<div class="skip-tonnage"><p>A midi skip holds 4 tonnes.</p></div><div id="skip-to-order-form-wrap"><p>Order below.</p></div>`, "A midi skip holds 4 tonnes.\n\nOrder below."},
		{"a Notion export's properties and icons dropped", `<article class="page sans"><header><h1 class="page-title">Prices</h1><table class="properties"><tbody><tr><th>Tags</th><td><span class="selected-value">Bulky waste</span><span class="selected-value">Fees</span></td></tr></tbody></table></header><figure class="callout"><div style="font-size:1.5em"><span class="icon">💡</span></div><div>Book by Friday.</div></figure><p>A sofa is £25.</p></article>`,
			"Prices\n\nBook by Friday.\n\nA sofa is £25."},
		{"an email's hidden preheader dropped, a hidden answer kept", `<div style="display:none;font-size:1px;max-height:0;overflow:hidden;mso-hide:all">Spring plans are here</div><span class="preheader">Preview</span><h1>Spring news</h1><div style="display:none">Answer kept.</div>`,
			"Spring news\n\nAnswer kept."},
		{"an email in the footer", `<p>Body.</p><div role="contentinfo">Write to hello@shop.example</div>`, "Body.\n\nContact\n\nWrite to hello@shop.example"},
	} {
		if got := htmlPlain(tc.in); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestHTMLDocTitleAndURL: the title is <title>, else the first <h1>, else
// the file name; the url is the canonical link, og:url or a browser's
// "saved from" comment, when it is an http(s) URL.
func TestHTMLDocTitleAndURL(t *testing.T) {
	for _, tc := range []struct{ name, page, title, url string }{
		{"title and canonical", `<html><head><title> Refunds &ndash; Help </title><link rel="canonical" href="https://help.example/refunds"><meta property="og:url" content="https://og.example/r"></head><body><h1>Refund policy</h1><p>x</p></body></html>`, "Refunds – Help", "https://help.example/refunds"},
		{"h1 and og:url", `<meta property="og:url" content="https://og.example/r"><h1>Refund <em>policy</em></h1><p>x</p>`, "Refund policy", "https://og.example/r"},
		{"saved page", "<!-- saved from url=(0032)https://help.example/a/b?c=1 -->\n<html><body><p>x</p></body></html>", "page", "https://help.example/a/b?c=1"},
		{"relative canonical dropped", `<link rel="canonical" href="/refunds"><p>x</p>`, "page", ""},
		{"svg title is not the page's", `<p>x<svg><title>icon</title></svg></p>`, "page", ""},
	} {
		d, _ := htmlDoc("help/page.html", tc.page)
		if d.Title != tc.title || d.URL != tc.url {
			t.Errorf("%s: title %q url %q, want %q %q", tc.name, d.Title, d.URL, tc.title, tc.url)
		}
	}
}

// TestHTMLSections: <h2> and deeper start sections at their headings.
func TestHTMLSections(t *testing.T) {
	d, _ := htmlDoc("p.html", "<h1>Page</h1><p>Intro.</p><h2>One</h2><p>A.</p><pre>## in code</pre><h3>Two <b>deep</b></h3><p>B.</p>")
	var got []string
	for _, s := range d.sections {
		got = append(got, s.Heading+"@"+d.Text[s.Off:s.Off+len(s.Heading)])
	}
	if want := "One@One|Two deep@Two deep"; strings.Join(got, "|") != want {
		t.Errorf("sections = %q, want %q (text %q)", strings.Join(got, "|"), want, d.Text)
	}
	// an accordion's question written as a control, not in a heading,
	// starts a section; a "Show more" toggle does not
	d, _ = htmlDoc("p.html", `<h1>FAQ</h1><div role="button" aria-expanded="false">Is there vegan cheese?</div><div hidden><p>Yes, on any pizza.</p></div><button aria-controls="m">Show more</button><div id="m">More.</div><h3><button aria-expanded="false">Do you deliver?</button></h3><p>Yes.</p>`)
	got = got[:0]
	for _, s := range d.sections {
		got = append(got, s.Heading)
	}
	if want := "Is there vegan cheese?|Do you deliver?"; strings.Join(got, "|") != want {
		t.Errorf("accordion sections = %q, want %q (text %q)", strings.Join(got, "|"), want, d.Text)
	}
	// a page builder's headings: bold or large paragraphs, short, not
	// sentences; a bold sentence and a paragraph with plain words stay text
	d, _ = htmlDoc("p.html", `<h1>Piano tuning</h1><div><p><span style="font-size:28px"><strong>Prices</strong></span></p><ul><li>Tuning £85</li></ul><p><strong>How often should my piano be tuned?</strong></p><p>Once a year.</p><p><strong>Please arrive on time.</strong></p><p><b>Note:</b> cash only.</p><div style="font-weight:700">Areas covered</div><p>Harrowbridge.</p></div>`)
	got = got[:0]
	for _, s := range d.sections {
		got = append(got, s.Heading)
	}
	if want := "Prices|How often should my piano be tuned?|Areas covered"; strings.Join(got, "|") != want {
		t.Errorf("styled sections = %q, want %q (text %q)", strings.Join(got, "|"), want, d.Text)
	}
}

// TestHTMLDeepNesting: a page whose elements nest past the parser's 512
// levels (tags never closed) is an error saying so, not an empty page; 200
// nested lists make lines of bounded indent.
func TestHTMLDeepNesting(t *testing.T) {
	if _, err := htmlDoc("deep.html", strings.Repeat("<div><span>", 300)+"text"); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("600 open elements: err %v, want the parser's refusal explained", err)
	}
	in := strings.Repeat("<ul><li>x", 200)
	md, _, _, err := htmlMarkdown(in)
	if err != nil || len(md) > 10*len(in) || strings.Count(md, "x") != 200 {
		t.Errorf("200 nested lists: err %v, %d bytes of Markdown from %d, %d items", err, len(md), len(in), strings.Count(md, "x"))
	}
}

// markdownHelpHTML is markdownHelp's pages as a help centre exports them:
// the same content in HTML, with the site's chrome around it.
var markdownHelpHTML = map[string]string{
	"desktop/guide.html": `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Desktop guide</title>
<style>body { font: 14px sans-serif }</style><script src="/app.js"></script></head>
<body>
<header class="site"><a href="/"><img src="/logo.svg" alt="Driftwood Help"></a>
<nav><ul><li><a href="/billing">Billing</a></li><li><a href="/desktop">Desktop</a></li></ul></nav></header>
<article>
<h1>Desktop app</h1>
<p>The <strong>desktop app</strong> backs up the photo folders on your computer. <!-- TODO: screenshots --> It runs on Windows and macOS;
there is no Linux version, so on a Linux laptop use the <a href="https://driftwood.example/web">website</a> instead. Sign in with the same account as on your phone, and your photos appear in one library.</p>
<h2 id="windows">Installing on Windows</h2>
<ol>
  <li>Download the installer from the <a href="https://driftwood.example/download">downloads page</a>.</li>
  <li>Run <code>DriftwoodSetup.exe</code> and follow the steps.</li>
  <li>Choose the folders to back up; <em>Pictures</em> is chosen for you.</li>
</ol>
<p>Windows 10 or later is needed. The app starts with Windows and waits in the notification area.</p>
<h2>Installing on macOS</h2>
<table>
<thead><tr><th>Version</th><th>Supported</th></tr></thead>
<tbody><tr><td>macOS 13 or later</td><td>yes</td></tr><tr><td>macOS 12</td><td>no</td></tr></tbody>
</table>
<p>Drag the app to Applications, then allow it in System Settings &gt; Privacy so it can read your photo library. Apple silicon and Intel Macs both work.</p>
<h3>Uninstalling</h3>
<p>Drag the app to the Bin.</p>
</article>
<footer><p>&copy; 2026 Driftwood. <a href="/privacy">Privacy</a></p><form action="/feedback"><label>Was this article helpful?</label><button>Yes</button><button>No</button></form></footer>
</body></html>
`,
	"billing.html": `<html><head><title>Billing questions</title></head><body><main><h1>Billing questions</h1>
<h2>Refunds</h2><p>Paid on the website? Ask for a full refund within 14 days of the charge from <b>Account &gt; Billing</b>. Paid through the App Store or Google Play? Those stores refund their own charges: ask them, as we cannot see or reverse those payments.</p>
<h2>Cancelling</h2><p>Cancel from <b>Account &gt; Billing</b> at any time. You keep your paid storage until the end of the period you paid for; after that, photos over the free 5&nbsp;GB stay safe but new ones wait on your phone.</p></main>
<aside><h2>Related articles</h2><ul><li>Plans</li></ul></aside></body></html>`,
	"codes.html": "<p>Before any heading, a short line.</p><h2>Backup codes</h2><pre><code class=\"language-sh\">## not a heading\necho done\n</code></pre><p>Keep them safe.</p>",
}

// buildChunks builds a snapshot of dir (a real index build) and returns
// its chunks by id.
func buildChunks(t *testing.T, dir string) map[string]Chunk {
	t.Helper()
	snap := filepath.Join(t.TempDir(), "snap")
	if _, err := Build(context.Background(), DefaultConfig(), []string{dir}, nil, snap, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string]Chunk{}
	for _, c := range s.Partition(DefaultTenant, DefaultKB).Chunks() {
		out[c.ID] = *c
	}
	return out
}

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		writeFile(t, dir, name, body)
	}
}

// TestBuildHTMLMatchesMarkdown: a help centre exported as HTML pages, site
// chrome included, builds the same chunks (ids, titles, texts, sections)
// as the same pages written in Markdown.
func TestBuildHTMLMatchesMarkdown(t *testing.T) {
	mdDir, htmlDir := t.TempDir(), t.TempDir()
	writeFiles(t, mdDir, markdownHelp)
	writeFiles(t, htmlDir, markdownHelpHTML)
	// Chunks by id without the file's extension, their ids left out.
	byPage := func(dir, ext string) map[string]Chunk {
		out := map[string]Chunk{}
		for id, c := range buildChunks(t, dir) {
			c.ID, c.DocID = "", ""
			out[strings.Replace(id, ext, "", 1)] = c
		}
		return out
	}
	md, hc := byPage(mdDir, ".md"), byPage(htmlDir, ".html")
	if len(md) != 6 || len(hc) != len(md) {
		t.Fatalf("chunks: %d from HTML, %d from Markdown (want 6): %v %v", len(hc), len(md), keysOf(hc), keysOf(md))
	}
	for id, m := range md {
		if h, ok := hc[id]; !ok || h != m {
			t.Errorf("%s:\n HTML     %+v\n Markdown %+v", id, h, m)
		}
	}
}

// TestReadDocsHTML reads a folder of HTML pages from disk: a help-centre
// article in its site's chrome, a price table, nested lists, a malformed
// page, an .htm page with entities, an empty page, one of markup alone and
// one of 600 elements never closed (each a bad line saying so, no crash).
func TestReadDocsHTML(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"article.html": `<!doctype html><html><head><title>Reset your password</title><link rel=canonical href="https://help.example/reset"></head>
<body><div id="top"><nav aria-label="breadcrumb"><a href="/">Help</a> › <a href="/account">Account</a></nav></div>
<main><h1>Reset your password</h1><p>Tap <b>Forgot password?</b> on the sign-in screen. The link we email lasts 1&nbsp;hour.</p></main>
<footer>Still stuck? <a href="/contact">Contact us</a></footer></body></html>`,
		"prices.html":   `<h1>Prices</h1><table><tr><th>Plan</th><th>Per month</th></tr><tr><td>Plus</td><td>&pound;2.99</td></tr><tr><td>Pro</td><td>&pound;9.99</td></tr></table>`,
		"rules.html":    `<h1>Rules</h1><ol start="11"><li>No glass.</li><li>Dogs:<ul><li>on a lead</li><li>no fouling</li></ul></li><li>No fires.</li></ol>`,
		"broken.html":   `<h1>Broken <p>page<li>one<td>cell</h1></i><b>bold`,
		"old/faq.HTM":   `<HTML><BODY><H2>Tom &amp; Jerry&#39;s caf&eacute;</H2><P>Open 9&ndash;5.</BODY>`,
		"empty.html":    "",
		"deep.html":     strings.Repeat("<div><span>", 300) + "Unclosed tags.",
		"markup.html":   "<html><head><style>p{}</style></head><body><script>go()</script></body></html>",
		"notes.md":      "# Notes\n\nMarkdown beside them.",
		"ignored.xhtml": "<p>not read</p>",
	})
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]string{}
	for _, d := range docs {
		got[d.ID] = [3]string{d.Title, d.Text, d.URL}
	}
	want := map[string][3]string{
		"article.html": {"Reset your password", "Reset your password\n\nTap Forgot password? on the sign-in screen. The link we email lasts 1 hour.", "https://help.example/reset"},
		"prices.html":  {"Prices", "Prices\n\nPlan, Per month\nPlus, £2.99\nPro, £9.99", ""},
		"rules.html":   {"Rules", "Rules\n\n11. No glass.\n12. Dogs:\non a lead\nno fouling\n13. No fires.", ""},
		"broken.html":  {"Broken page onecell", "Broken page onecell\n\nbold", ""}, // as a browser parses it: a <td> outside a table is dropped
		"old/faq.HTM":  {"faq", "Tom & Jerry's café\n\nOpen 9–5.", ""},
		"notes.md":     {"Notes", "Notes\n\nMarkdown beside them.", ""},
	}
	if len(got) != len(want) {
		t.Errorf("read %v, want %d docs", keysOf(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s:\n got %q\nwant %q", id, got[id], w)
		}
	}
	var msgs []string
	for _, le := range bad {
		msgs = append(msgs, le.Error())
	}
	all := strings.Join(msgs, "\n")
	if len(bad) != 3 || !strings.Contains(all, "empty.html:1: the file is empty (nothing to index)") ||
		!strings.Contains(all, "markup.html:1: the page holds no text outside its markup, scripts and styles (nothing to index)") ||
		!strings.Contains(all, "deep.html:1: the HTML parser refuses the page (html: open stack of elements exceeds 512 nodes): elements nested that deep are usually tags that are never closed") {
		t.Errorf("bad lines %q, want the empty page, the page of markup alone and the page nested too deep", msgs)
	}
	if unread, _ := UnreadFiles([]string{dir}); len(unread) != 1 || filepath.Base(unread[0]) != "ignored.xhtml" {
		t.Errorf("unread %v, want ignored.xhtml alone", unread)
	}
	// A page given on its own: its name is its id.
	if one, _, err := ReadDocs([]string{filepath.Join(dir, "old", "faq.HTM")}, true); err != nil || len(one) != 1 || one[0].ID != "faq.HTM" || one[0].Text != want["old/faq.HTM"][1] {
		t.Errorf("one page: %v, %+v", err, one)
	}
	named := map[string]bool{}
	for _, e := range strings.Split(strings.ReplaceAll(CorpusFileTypes, " or ", ", "), ", ") {
		named[e] = true
	}
	if len(named) != len(corpusExts) {
		t.Errorf("CorpusFileTypes %q names %d types, corpusExts has %d", CorpusFileTypes, len(named), len(corpusExts))
	}
	for ext := range corpusExts {
		if !named[ext] {
			t.Errorf("CorpusFileTypes %q lacks %s", CorpusFileTypes, ext)
		}
	}
}

// FuzzHTMLText: the HTML reader (its decoding too) never panics, refuses
// only a page read as UTF-8 that is not and one nested too deep, its
// plain text is valid UTF-8 and at most a few times its decoded input
// (list labels are the only text it adds), its sections point at their
// headings, and a page of text alone (no markup, no entities) keeps its
// words as written: no text reads as Markdown syntax.
func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{
		markdownHelpHTML["desktop/guide.html"], markdownHelpHTML["codes.html"],
		"<ol type=i start=3888><li>a<li>b</ol><dl><dt>t<dd>d</dl>",
		"<table><tr><th>a|b<td>c<table><tr><td>x</table></table>",
		"1. one\n- two\n# three\n| a | b |\n|---|---|\n*x* _y_ `z` [a](b) \\ ~~~\n===\n> q",
		"<p>&pound;5 &amp; &nbsp; &#0; &#xD800; &bogus</p><pre>```\n~~~</pre><br><hr>",
		"<nav>only chrome</nav>", "<main></main><", "\xff<p>\x00</p>", "<!-- saved from url=(0001)x -->",
		"<meta charset=windows-1252><p>\x93caf\xe9\x94 \xa35</p>", "<meta http-equiv=Content-Type content='text/html; charset=shift_jis'><p>\x93\xfa\x96</p>",
		"<meta charset=utf-8><p>caf\xe9</p>", "\xfe\xff\x00<\x00p\x00>\xd8\x00", utf16File("<h1>Café</h1>", false),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		page, err := htmlDecode([]byte(in))
		if err != nil {
			if !strings.Contains(err.Error(), "not UTF-8") {
				t.Fatalf("decode error %v", err)
			}
			return
		}
		d, err := htmlDoc("p.html", page)
		if err != nil {
			if !strings.Contains(err.Error(), "512") {
				t.Fatalf("error %v", err)
			}
			return
		}
		if !utf8.ValidString(d.Text) || !utf8.ValidString(d.Title) {
			t.Fatalf("not UTF-8: %q, title %q", d.Text, d.Title)
		}
		if len(d.Text) > 5*len(page)+64 {
			t.Fatalf("text %d bytes from %d: %q -> %q", len(d.Text), len(page), page, d.Text)
		}
		last := -1
		for _, s := range d.sections {
			if s.Off <= last || !strings.HasPrefix(d.Text[s.Off:], s.Heading) {
				t.Fatalf("section %+v not at its heading in %q", s, d.Text)
			}
			last = s.Off
		}
		if !strings.ContainsAny(in, "<&\x00\r") && utf8.ValidString(in) && !strings.HasPrefix(in, utf8BOM) {
			if got, want := strings.Join(strings.Fields(d.Text), " "), strings.Join(strings.Fields(in), " "); got != want {
				t.Fatalf("text page %q read as %q", in, d.Text)
			}
		}
	})
}

// benchPage is a 50 KB help page: markdownHelpHTML's guide, repeated.
func benchPage() string {
	var page strings.Builder
	page.WriteString("<html><head><title>Help</title></head><body>")
	for page.Len() < 50<<10 {
		page.WriteString(markdownHelpHTML["desktop/guide.html"])
	}
	page.WriteString("</body></html>")
	return page.String()
}

func BenchmarkHTMLText(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := htmlDoc("help.html", page); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTMLPage reads a 50 KB page from its bytes as a build does
// (htmlPage: its encoding found and decoded, then htmlDoc): UTF-8, and
// the same page in Windows-1252 (an o umlaut in every "photo").
func BenchmarkHTMLPage(b *testing.B) {
	page := benchPage()
	cp1252 := `<meta charset="windows-1252">` + strings.ReplaceAll(page, "photo", "ph\xf6to")
	for _, bc := range []struct{ name, page string }{{"utf-8", page}, {"windows-1252", cp1252}} {
		b.Run(bc.name, func(b *testing.B) {
			raw := []byte(bc.page)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := htmlPage("help.html", raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRepeatedFooter: the footer every saved page of a site repeats is
// kept in the first page only (by path), each page's other sections where
// they were; a page that is nothing but the footer keeps it.
func TestRepeatedFooter(t *testing.T) {
	dir := t.TempDir()
	footer := `<footer><p>Clearwater Water Ltd, 1 Reservoir Way, Ashbridge AS1 2CW</p><p>Billing: 0345 600 1234, Monday to Friday 8am to 6pm</p></footer>`
	page := func(h, p string) string {
		return `<html><head><title>` + h + `</title></head><body><nav>Home</nav><main><h1>` + h + `</h1><p>` + p + `</p><h2>More</h2><p>` + p + ` Again.</p></main>` + footer + `</body></html>`
	}
	writeFiles(t, dir, map[string]string{
		"a-billing.html": page("Paying your bill", "Pay by direct debit."),
		"b-leaks.html":   page("Leaks", "Report a leak in the street."),
		"c-moving.html":  page("Moving home", "Tell us two days before."),
		"d-contact.html": `<html><body>` + footer + `</body></html>`,
	})
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil || len(bad) != 0 || len(docs) != 4 {
		t.Fatalf("err %v bad %v docs %d", err, bad, len(docs))
	}
	for _, d := range docs {
		n := strings.Count(d.Text, "0345 600 1234")
		want := map[string]int{"a-billing.html": 1, "d-contact.html": 1}[d.ID]
		if n != want {
			t.Errorf("%s holds the footer %d times, want %d:\n%s", d.ID, n, want, d.Text)
		}
		for _, s := range d.sections {
			if !strings.HasPrefix(d.Text[s.Off:], s.Heading) {
				t.Errorf("%s: section %q not at its heading", d.ID, s.Heading)
			}
		}
		if d.ID == "b-leaks.html" && (d.Text != "Leaks\n\nReport a leak in the street.\n\nMore\n\nReport a leak in the street. Again." || len(d.sections) != 1) {
			t.Errorf("b-leaks.html: %q %+v", d.Text, d.sections)
		}
	}
	// saved emails: a footer in a layout table, no heading of its own
	mail := t.TempDir()
	foot := `<tr><td><p>GreenThumb Gardens, 4 Mill Lane, Ashby AB1 2CD</p><p>Unsubscribe | Update preferences</p></td></tr>`
	writeFiles(t, mail, map[string]string{
		"1-spring.html": `<table>` + `<tr><td><h2>Spring plans</h2><p>Our spring plan is £45 a month.</p></td></tr>` + foot + `</table>`,
		"2-summer.html": `<table>` + `<tr><td><h2>Hedges</h2><p>We cut hedges after the nesting season.</p></td></tr>` + foot + `</table>`,
	})
	docs, _, err = ReadDocs([]string{mail}, false)
	if err != nil || len(docs) != 2 || !strings.Contains(docs[0].Text, "4 Mill Lane") || strings.Contains(docs[1].Text, "4 Mill Lane") {
		t.Errorf("emails: %v %+v", err, docs)
	}
}
