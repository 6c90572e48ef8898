package index

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// mdCase is one markdownText case: its plain text is want.
type mdCase struct{ name, in, want string }

func checkMarkdownText(t *testing.T, cases []mdCase) {
	t.Helper()
	for _, tc := range cases {
		got, _, _ := markdownText(tc.in)
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestMarkdownText(t *testing.T) {
	checkMarkdownText(t, []mdCase{
		{"heading apart from the next sentence", "## Two-step verification\nTurn on two-step verification.", "Two-step verification\n\nTurn on two-step verification."},
		{"closing hashes", "### Refunds ###\ntext", "Refunds\n\ntext"},
		{"setext", "Storage\n=======\nFree 5 GB.\n\nLimits\n------\nPro 2 TB.", "Storage\n\nFree 5 GB.\n\nLimits\n\nPro 2 TB."},
		{"not a heading", "#hashtag and 5 # 3", "#hashtag and 5 # 3"},
		{"emphasis and code", "Tap **Forgot password?** now. Open **Settings > Security**, then *Backup* and __Wi-Fi__; run `drift --sync **all**`.", "Tap Forgot password? now. Open Settings > Security, then Backup and Wi-Fi; run drift --sync **all**."},
		{"intraword and spaced markers", "snake_case_name and 2 * 3 and ~~old~~ price", "snake_case_name and 2 * 3 and old price"},
		{"links and images", "See [the plans](https://x.example/plans \"Plans\") and ![a phone](img/p.png) or [ref text][1] or <https://x.example/a>.\n\n[1]: https://x.example/ref", "See the plans and a phone or ref text or https://x.example/a."},
		{"html", "Text <!-- a\ncomment --> more <b>bold</b> <br/> 3 < 4 &amp; &lt;tag&gt; &#233;", "Text more bold 3 < 4 & <tag> é"},
		{"lists", "Plans:\n- Free\n* Plus\n+ Pro\n1. first\n2) second\n- [x] done\n> quoted", "Plans:\nFree\nPlus\nPro\n1. first\n2) second\ndone\nquoted"},
		{"table", "| Plan | Price |\n|:-----|------:|\n| Plus | £2.99 |\n\nA | B\n--|--\n1 | 2", "Plan, Price\nPlus, £2.99\n\nA, B\n1, 2"},
		{"fence verbatim", "Run:\n```sh\n# not a heading\n  echo **hi** [x](y)\n```\nDone.", "Run:\n\n# not a heading\n  echo **hi** [x](y)\n\nDone."},
		{"thematic break", "a\n\n---\n\nb\n***\nc", "a\n\nb\n\nc"},
		{"escapes", `\*not emphasis\* and \# and \[x\]`, "*not emphasis* and # and [x]"},
		{"crlf", "# T\r\n\r\nBody.\r\n", "T\n\nBody."},
	})
}

func TestMarkdownSections(t *testing.T) {
	text, _, secs := markdownText("# Page\n\nIntro.\n\n## One\n\nA.\n\n```\n## in code\n```\n\n### Two *deep*\n\nB.")
	var got []string
	for _, s := range secs {
		got = append(got, s.Heading+"@"+text[s.Off:s.Off+len(s.Heading)])
	}
	if want := "One@One|Two deep@Two deep"; strings.Join(got, "|") != want {
		t.Errorf("sections = %q, want %q (text %q)", strings.Join(got, "|"), want, text)
	}
	// A level-one heading after the first (a Google Docs export's parts, a
	// page written with "#" for every heading) starts a section too; the
	// first is the title.
	text, title, secs := markdownText("# Handbook\n\nIntro.\n\n# Before you move in\n\n## Deposit\n\nA.\n\n# Living there\n\nB.")
	got = got[:0]
	for _, s := range secs {
		got = append(got, s.Heading+"@"+text[s.Off:s.Off+len(s.Heading)])
	}
	if want := "Before you move in@Before you move in|Deposit@Deposit|Living there@Living there"; title != "Handbook" || strings.Join(got, "|") != want {
		t.Errorf("title %q, sections = %q, want Handbook and %q", title, strings.Join(got, "|"), want)
	}
}

// TestMarkdownOrderedLists: an ordered list item keeps the number a reader
// of the rendered page sees (operator trial 7: "12. Dogs must be kept on a
// lead" lost its "12." and "what does rule 12 say?" found nothing).
func TestMarkdownOrderedLists(t *testing.T) {
	checkMarkdownText(t, []mdCase{
		{"as written", "Rules:\n11. No glass.\n12. Dogs must be kept on a lead.", "Rules:\n11. No glass.\n12. Dogs must be kept on a lead."},
		{"ones renumbered", "1. Book.\n1. Pay.\n1. Come.", "1. Book.\n2. Pay.\n3. Come."},
		{"start kept, later numbers ignored", "3. Three.\n7. Four.", "3. Three.\n4. Four."},
		{"loose list", "1. One.\n\n1. Two.\n\n   More about two.\n\n1. Three.", "1. One.\n\n2. Two.\n\nMore about two.\n\n3. Three."},
		{"lazy continuation", "1. One\nstill one.\n1. Two.", "1. One\nstill one.\n2. Two."},
		{"paragraph ends the list", "1. One.\n\nText.\n\n1. New.", "1. One.\n\nText.\n\n1. New."},
		{"heading ends the list", "1. One.\n## Next\n1. New.", "1. One.\n\nNext\n\n1. New."},
		{"other delimiter starts a list", "1. One.\n1) New.\n1) Two.", "1. One.\n1) New.\n2) Two."},
		{"bullet ends the list", "1. One.\n- b\n1. New.", "1. One.\nb\n1. New."},
		{"nested numbered on its own", "1. Dogs:\n   1. on a lead\n   1. no fouling\n1. Cats.", "1. Dogs:\n1. on a lead\n2. no fouling\n2. Cats."},
		{"bullets nested in an ordered list", "1. Dogs:\n   - on a lead\n1. Cats.", "1. Dogs:\non a lead\n2. Cats."},
		{"task box and emphasis", "1. [x] **Done** step", "1. Done step"},
		{"in a blockquote", "> 4. Quoted rule.\n> 4. Next.", "4. Quoted rule.\n5. Next."},
	})
}

// FuzzMarkdownText: markdownText (after markdownSource) never panics, its output is valid UTF-8,
// never longer than its input plus mdGrowth (and mdItemGrowth a line for
// renumbered list items), and its sections point at their headings in it.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range []string{
		"# T\n\n## A\nx **y** [z](http://a) ![i](j) <!-- c --> <b>t</b>\n- a\n| a | b |\n|---|---|\n```\ncode\n```\n",
		"S\n===\n\nT\n---\n\n> q\n1. x `c` &amp; &#0; \\*", "[a][b] [c](d(e)f) <http://x> ~~s~~ _u_", "|a|b|c|d|e|f|\n|-|-|-|-|-|-|",
		"```\n", "<!--", "#", "\xff# x", "a\n=", "[[a](b)](c) \\[d](e) ![[f][g]](h(i)j) [k][[l] [[[[ ((((",
		":::tip T\nx\n:::\nimport a from 'b';\n<Tabs><TabItem label=\"i\">", "[[a|b]] ![[c.png]] > [!note]\n{{< x caption=\"y\" >}}{% z %}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, secs := markdownText(markdownSource(in))
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		if len(out) > len(in)+mdGrowth+mdItemGrowth*(strings.Count(in, "\n")+1) {
			t.Fatalf("output %d bytes from %d: %q -> %q", len(out), len(in), in, out)
		}
		last := -1
		for _, s := range secs {
			if s.Off <= last || !strings.HasPrefix(out[s.Off:], s.Heading) {
				t.Fatalf("section %+v not at its heading in %q", s, out)
			}
			last = s.Off
		}
	})
}

// TestChunkMarkdownLongSection: a section longer than a chunk is split
// within itself, every piece titled by the section; ids run on across
// sections.
func TestChunkMarkdownLongSection(t *testing.T) {
	long := strings.Repeat("Backups run every night over Wi-Fi. ", 30) // ~1080 chars
	d := textDoc("p.md", "# Page\n\n## Big\n\n"+long+"\n\n"+long+"\n\n## Small\n\n"+strings.Repeat("Short text here. ", 15), true)
	var got []string
	for _, c := range chunkDoc(d, 1200, 200) {
		got = append(got, c.ID+"|"+c.Title+"|"+c.Text[:min(12, len(c.Text))])
	}
	want := []string{"p.md#1|Page: Big|Page\n\nBig\n\nB", "p.md#2|Page: Big|Backups run ", "p.md#3|Page: Small|Small\n\nShort"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chunks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBuildMarkdownSections builds a snapshot from Markdown files on disk
// and reads its chunks back: plain text, one chunk per section that
// reaches the minimum size, titled "Page title: Section heading" (both
// headings for a short section merged into another), ids "file#n" in text
// order.
func TestBuildMarkdownSections(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, markdownHelp)
	got := map[string][2]string{}
	for id, c := range buildChunks(t, dir) {
		got[id] = [2]string{c.Title, c.Text}
	}
	want := map[string][2]string{
		"desktop/guide.md#1": {"Desktop guide", "Desktop app\n\nThe desktop app backs up the photo folders on your computer. It runs on Windows and macOS; there is no Linux version, so on a Linux laptop use the website instead. Sign in with the same account as on your phone, and your photos appear in one library."},
		"desktop/guide.md#2": {"Desktop guide: Installing on Windows", "Installing on Windows\n\n1. Download the installer from the downloads page.\n2. Run DriftwoodSetup.exe and follow the steps.\n3. Choose the folders to back up; Pictures is chosen for you.\n\nWindows 10 or later is needed. The app starts with Windows and waits in the notification area."},
		"desktop/guide.md#3": {"Desktop guide: Installing on macOS; Uninstalling", "Installing on macOS\n\nVersion, Supported\nmacOS 13 or later, yes\nmacOS 12, no\n\nDrag the app to Applications, then allow it in System Settings > Privacy so it can read your photo library. Apple silicon and Intel Macs both work.\n\nUninstalling\n\nDrag the app to the Bin."},
		"billing.md#1":       {"Billing questions: Refunds", "Billing questions\n\nRefunds\n\nPaid on the website? Ask for a full refund within 14 days of the charge from Account > Billing. Paid through the App Store or Google Play? Those stores refund their own charges: ask them, as we cannot see or reverse those payments."},
		"billing.md#2":       {"Billing questions: Cancelling", "Cancelling\n\nCancel from Account > Billing at any time. You keep your paid storage until the end of the period you paid for; after that, photos over the free 5 GB stay safe but new ones wait on your phone."},
		"codes.md":           {"codes: Backup codes", "Before any heading, a short line.\n\nBackup codes\n\n## not a heading\necho done\n\nKeep them safe."},
	}
	if len(got) != len(want) {
		t.Errorf("chunk ids %v, want %d", keysOf(got), len(want))
	}
	for id, w := range want {
		if g := got[id]; g != w {
			t.Errorf("%s:\n got %q\nwant %q", id, g, w)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// markdownHelp is a small help centre in Markdown: front matter, a page
// whose only text before its sections is its title, sections with lists,
// links, a table, code fences and a small trailing subsection, and a file
// without a title whose short lead joins its only section.
var markdownHelp = map[string]string{
	"desktop/guide.md": `---
title: Desktop guide
---
# Desktop app

The **desktop app** backs up the photo folders on your computer. <!-- TODO: screenshots --> It runs on Windows and macOS; there is no Linux version, so on a Linux laptop use the [website](https://driftwood.example/web) instead. Sign in with the same account as on your phone, and your photos appear in one library.

## Installing on Windows

1. Download the installer from the [downloads page](https://driftwood.example/download).
2. Run ` + "`DriftwoodSetup.exe`" + ` and follow the steps.
3. Choose the folders to back up; *Pictures* is chosen for you.

Windows 10 or later is needed. The app starts with Windows and waits in the notification area.

## Installing on macOS

| Version | Supported |
|---------|-----------|
| macOS 13 or later | yes |
| macOS 12 | no |

Drag the app to Applications, then allow it in System Settings > Privacy so it can read your photo library. Apple silicon and Intel Macs both work.

### Uninstalling

Drag the app to the Bin.
`,
	"billing.md": "# Billing questions\n\n## Refunds\n\nPaid on the website? Ask for a full refund within 14 days of the charge from **Account > Billing**. Paid through the App Store or Google Play? Those stores refund their own charges: ask them, as we cannot see or reverse those payments.\n\n## Cancelling\n\nCancel from **Account > Billing** at any time. You keep your paid storage until the end of the period you paid for; after that, photos over the free 5 GB stay safe but new ones wait on your phone.\n",
	"codes.md":   "Before any heading, a short line.\n\n## Backup codes\n\n```sh\n## not a heading\necho done\n```\n\nKeep them safe.\n",
}

func BenchmarkMarkdownText(b *testing.B) {
	page := strings.Repeat(markdownHelp["desktop/guide.md"], 4) // ~4 KB
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		markdownText(page)
	}
}

// TestMergedSectionsTitled: trial 5's policy pages, on disk, where a short
// clause section merges into its neighbour: the chunk is titled by both
// headings, so the citation of "3.5 Students and visitors" no longer reads
// "3.4 Garden contents" alone; sections that stand alone keep their own.
func TestMergedSectionsTitled(t *testing.T) {
	got := map[string]string{}
	for id, c := range buildChunks(t, filepath.Join("..", "bench", "testdata", "trial5", "insurance")) {
		got[id] = c.Title
	}
	for id, want := range map[string]string{
		"02-buildings.md#3": "Section 2: Buildings: 2.2 The excess; 2.3 Tracing a leak",
		"03-contents.md#5":  "Section 3: Contents: 3.4 Garden contents; 3.5 Students and visitors",
		"03-contents.md#4":  "Section 3: Contents: 3.3 Food in your freezer",
		"04-extras.md#1":    "Section 5: Optional extras: 5.1 Accidental damage", // the page's short lead, before the first section
	} {
		if got[id] != want {
			t.Errorf("%s titled %q, want %q", id, got[id], want)
		}
	}
}

// TestMarkdownShortcodes: a Hugo page's shortcodes and a Jekyll page's
// Liquid tags are dropped, the text they wrap and their captions kept.
func TestMarkdownShortcodes(t *testing.T) {
	text, _, _ := markdownText(markdownSource("Lessons are £38.\n\n{{< button href=\"/book\" >}}Book now{{< /button >}}\n\n{{< figure src=\"car.jpg\" caption=\"Our dual-control cars\" >}}\n\n{{% notice info %}}Tests are booked by you.{{% /notice %}}\n\n{% include cta.html %}\nSee {{ site.title }}.\n"))
	want := "Lessons are £38.\n\nBook now\n\nOur dual-control cars\n\nTests are booked by you.\n\nSee {{ site.title }}."
	if text != want {
		t.Errorf("text\n%q\nwant\n%q", text, want)
	}
}

// TestMarkdownPandoc: Markdown as pandoc writes it from a Word document
// (operator trial 30): heading attributes dropped, grid-table borders
// dropped and their rows read as a pipe table's, a hard line break's
// backslash and escapes gone, footnotes kept as "Note N: ..." where they
// are defined, their references dropped.
func TestMarkdownPandoc(t *testing.T) {
	text, title, secs := markdownText("# Handbook {#top}\n\nWe open at 8am\\\nand close at 6pm. Email hello\\@oaks.example.[^1]\n\n## Fees and funding {#fees-and-funding .big}\n\n+------+-------+\n| Session | Price |\n+======+=======+\n| Full day | £60 |\n+------+-------+\n\n[^1]: Training days are 3 January and 1 September.\n")
	want := "Handbook\n\nWe open at 8am\nand close at 6pm. Email hello@oaks.example.\n\nFees and funding\n\nSession, Price\nFull day, £60\n\nNote 1: Training days are 3 January and 1 September."
	if title != "Handbook" || text != want || len(secs) != 1 || secs[0].Heading != "Fees and funding" {
		t.Errorf("title %q sections %+v text\n%q\nwant\n%q", title, secs, text, want)
	}
}

// TestMarkdownObsidian: a vault note's wikilinks read as their shown text
// or the note's name, an embedded image is left out, a callout's marker
// gives way to its title or type.
func TestMarkdownObsidian(t *testing.T) {
	text, _, _ := markdownText(markdownSource("Ask the [[Joining and subs|treasurer]] or see [[Match days]] and [[Kit#Shin pads]].\n![[kit.png]]\n![[Code of conduct]]\n\n> [!info] Half term\n> No training.\n\n> [!warning]\n> Bring water.\n"))
	want := "Ask the treasurer or see Match days and Kit, Shin pads.\n\nCode of conduct\n\nHalf term\nNo training.\n\nWarning\nBring water."
	if text != want {
		t.Errorf("text\n%q\nwant\n%q", text, want)
	}
}

// TestMarkdownMDX: a Docusaurus page's imports and JSX tags are dropped (a
// tab's label kept), its admonitions read as paragraphs led by their kind
// and title, a code fence left as written.
func TestMarkdownMDX(t *testing.T) {
	text, _, _ := markdownText(markdownSource("import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\nTurn on reminders.\n\n:::tip Save time\nUse templates.\n:::\n\n<Tabs>\n  <TabItem value=\"ios\" label=\"iPhone\">\n\nOpen Settings.\n\n  </TabItem>\n</Tabs>\n\n```js\nimport x from 'y';\n```\n"))
	want := "Turn on reminders.\n\nTip: Save time\nUse templates.\n\niPhone\n\nOpen Settings.\n\nimport x from 'y';"
	if text != want {
		t.Errorf("text\n%q\nwant\n%q", text, want)
	}
}
