package index

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16File is s as Windows Notepad's "Unicode" (little-endian) or
// "Unicode big endian" saves it: a byte-order mark, then UTF-16.
func utf16File(s string, bigEndian bool) string {
	var b []byte
	for _, u := range utf16.Encode([]rune("\ufeff" + s)) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}

// TestReadDocsHTMLCharsets reads pages saved in other encodings from
// disk: a page declaring windows-1252 (a pound sign, an e acute, a
// Windows curly apostrophe and dash), an ISO-8859-1 http-equiv page (read
// as Windows-1252, as browsers do), an undeclared page that is not UTF-8
// (Windows-1252), UTF-8 with a byte-order mark, UTF-16 both ways, a
// stale meta over UTF-8 text (read as UTF-8), and UTF-8 after 2 KB of
// ASCII head. A page that says UTF-8 and is not is a bad line naming the
// byte; a Markdown or text file in UTF-16 stays one, and one in
// Windows-1252 is read as such (legacy1252).
func TestReadDocsHTMLCharsets(t *testing.T) {
	const text = "Café prices\n\nTea £5 – we don’t take cheques."
	longHead := "<style>" + strings.Repeat("p { margin: 0 }\n", 128) + "</style>"
	pages := map[string]string{
		"cp1252.html":     "<html><head><meta charset=\"windows-1252\"><title>Prices</title></head><body><h1>Caf\xe9 prices</h1><p>Tea \xa35 \x96 we don\x92t take cheques.</p></body></html>",
		"latin1.htm":      "<HTML><HEAD><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=ISO-8859-1\"></HEAD><BODY><H1>Caf\xe9 prices</H1><P>Tea \xa35 \x96 we don\x92t take cheques.</BODY>",
		"undeclared.html": "<h1>Caf\xe9 prices</h1><p>Tea \xa35 \x96 we don\x92t take cheques.</p>",
		"bom.html":        "\ufeff<h1>Café prices</h1><p>Tea £5 – we don’t take cheques.</p>",
		"utf16le.html":    utf16File("<meta charset=\"utf-16\"><h1>Café prices</h1><p>Tea £5 – we don’t take cheques.</p>", false),
		"utf16be.html":    utf16File("<h1>Café prices</h1><p>Tea £5 – we don’t take cheques.</p>", true),
		"stale.html":      "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><h1>Café prices</h1><p>Tea £5 – we don’t take cheques.</p>",
		"late.html":       "<html><head>" + longHead + "</head><body><h1>Café prices</h1><p>Tea £5 – we don’t take cheques.</p></body></html>",
	}
	dir := t.TempDir()
	writeFiles(t, dir, pages)
	writeFiles(t, dir, map[string]string{
		"mixed.html": "<meta charset=\"utf-8\"><h1>Café prices</h1><p>Tea \xa35</p>",
		"old.txt":    "Caf\xe9 prices\n\nTea \xa35 \x96 we don\x92t take cheques.",
		"notepad.md": utf16File("# Café prices", false),
	})
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = d.Text
	}
	for id := range pages {
		if got[id] != text {
			t.Errorf("%s: text %q, want %q", id, got[id], text)
		}
	}
	if len(got) != len(pages)+2 { // and old.txt and notepad.md
		t.Errorf("read %v, want the %d pages", keysOf(got), len(pages))
	}
	var msgs []string
	for _, le := range bad {
		msgs = append(msgs, le.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"mixed.html:1: not UTF-8 (byte 0xA3 at character 50): save the file as UTF-8",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("bad lines %q lack %q", msgs, want)
		}
	}
	if len(bad) != 1 {
		t.Errorf("bad lines %q, want 1", msgs)
	}
	if got["notepad.md"] != "Café prices" {
		t.Errorf("notepad.md (UTF-16, Notepad's Unicode): %q", got["notepad.md"])
	}
	if got["old.txt"] != text {
		t.Errorf("old.txt (Windows-1252 text): %q, want %q", got["old.txt"], text)
	}
	// Built, the Windows-1252 page's chunk holds the same text.
	one := t.TempDir()
	writeFile(t, one, "cp1252.html", pages["cp1252.html"])
	for id, c := range buildChunks(t, one) {
		if c.Text != text || c.Title != "Prices" {
			t.Errorf("chunk %s: title %q text %q, want %q %q", id, c.Title, c.Text, "Prices", text)
		}
	}
}

// TestHTMLDecode pins the encoding rules on bytes: declared, sniffed and
// defaulted.
func TestHTMLDecode(t *testing.T) {
	for _, tc := range []struct{ name, in, want, err string }{
		{"ascii", "<p>plain</p>", "<p>plain</p>", ""},
		{"utf-8 undeclared", "<p>café</p>", "<p>café</p>", ""},
		{"windows-1252 undeclared", "<p>\x80 caf\xe9</p>", "<p>€ café</p>", ""},
		{"meta charset", "<meta charset=windows-1252><p>\x93q\x94</p>", "<meta charset=windows-1252><p>“q”</p>", ""},
		{"http-equiv latin1 is windows-1252", "<meta http-equiv=content-type content='text/html;charset=latin1'><p>\x80</p>", "<meta http-equiv=content-type content='text/html;charset=latin1'><p>€</p>", ""},
		{"iso-8859-15", "<meta charset=iso-8859-15><p>\xa4</p>", "<meta charset=iso-8859-15><p>€</p>", ""},
		{"shift_jis", "<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>", "<meta charset=shift_jis><p>日本</p>", ""},
		{"meta after 1 KB not seen", "<!--" + strings.Repeat("x", 1100) + "--><meta charset=iso-8859-15><p>\xa4</p>", "<!--" + strings.Repeat("x", 1100) + "--><meta charset=iso-8859-15><p>¤</p>", ""},
		{"says utf-8, is not", "<meta charset=utf-8><p>caf\xe9</p>", "", "not UTF-8 (byte 0xE9 at character 27)"},
		{"utf-8 bom, then not", "\ufeff<p>caf\xe9</p>", "", "not UTF-8 (byte 0xE9 at character 8)"},
		{"empty", "", "", ""},
	} {
		got, err := htmlDecode([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
