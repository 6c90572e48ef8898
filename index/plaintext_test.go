package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDocsPlainTextTitle reads plain-text files from a folder on disk:
// a first line that reads as a title titles the document (refusals named
// the railway's conditions "conditions", the file name); one that does not
// (a sentence, a long line, one that runs on into the next) leaves the file
// name.
func TestReadDocsPlainTextTitle(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"conditions.txt": "Kestrel Valley Railway - Conditions of Travel\n\n1. About these conditions\n1.1 They apply to all journeys.\n",
		"crlf.text":      "Refund policy\r\nRefunds take 20 working days.\r\n",
		"sentence.txt":   "Refunds take 20 working days.\nClaims within 28 days.",
		"runon.txt":      "Trains to the coast run every hour from the\nnorth platform on weekdays.",
		"oneline.txt":    "Lost property office",
		"long.txt":       strings.Repeat("Word ", 30) + "\n\nText.",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil || len(bad) > 0 {
		t.Fatalf("ReadDocs: %v, bad %v", err, bad)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = d.Title
	}
	want := map[string]string{
		"conditions.txt": "Kestrel Valley Railway - Conditions of Travel",
		"crlf.text":      "Refund policy",
		"sentence.txt":   "sentence",
		"runon.txt":      "runon",
		"oneline.txt":    "oneline",
		"long.txt":       "long",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: title %q, want %q", id, got[id], w)
		}
	}
}

// TestPlainTextNotes: a plain-text file's title line and section headings
// are paragraphs of their own in every chunk, so the notes made of them
// end them as sentences ("... of Travel. 6. Luggage, bicycles and animals.
// 6.1 ...") instead of running them into the clauses ("Conditions of Travel
// 1. About these conditions 1.1 ..."); clauses and prose lines keep their
// single line breaks, and a JSON line's text is left as it was.
func TestPlainTextNotes(t *testing.T) {
	dir := t.TempDir()
	body := "Kestrel Valley Railway - Conditions of Travel\n" +
		"1. About these conditions\n1.1 These conditions apply to all journeys.\n1.2 Staff may ask to see photo ID.\n\n" +
		"6. Luggage, bicycles and animals\n6.1 You may take up to three items of luggage.\n" +
		strings.Repeat("6.2 Folding bicycles travel free, other bicycles need a reservation.\n", 12) +
		"6.3 Up to two dogs per passenger travel free.\n"
	path := filepath.Join(dir, "conditions.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, _, err := ReadDocs([]string{path}, false)
	if err != nil || len(docs) != 1 {
		t.Fatalf("ReadDocs: %v, %d docs", err, len(docs))
	}
	chunks := chunkDoc(docs[0], 600, 200)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks, want the file cut in two or more", len(chunks))
	}
	var all []string
	for _, c := range chunks {
		all = append(all, c.Text)
		if c.Title != "Kestrel Valley Railway - Conditions of Travel" {
			t.Errorf("chunk %s titled %q", c.ID, c.Title)
		}
	}
	text := strings.Join(all, "\n\n")
	for _, want := range []string{
		"Kestrel Valley Railway - Conditions of Travel\n\n1. About these conditions\n\n1.1 These conditions apply to all journeys.\n1.2 Staff may ask to see photo ID.",
		"6. Luggage, bicycles and animals\n\n6.1 You may take up to three items of luggage.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chunks do not hold %q:\n%s", want, text)
		}
	}
	// A JSON line's text is not read as plain text.
	jl := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(jl, []byte(`{"id":"r1","text":"Opening hours\nMonday to Friday 9 to 5."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, _, err = ReadDocs([]string{jl}, false)
	if err != nil || len(docs) != 1 || docs[0].Text != "Opening hours\nMonday to Friday 9 to 5." || docs[0].Title != "" {
		t.Errorf("JSON line read as %+v (%v), want its text and no title", docs, err)
	}
}

// TestReadDocsEmptyFile: an empty or blank Markdown or text file is a bad
// line that says so (it was `doc "empty.md": missing text`, the wording of
// a JSON line without a text field); the folder's other files are read.
func TestReadDocsEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty.md": "", "blank.txt": "\ufeff \n\n", "ok.txt": "Open 9 to 5."} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, bad, err := ReadDocs([]string{dir}, false)
	if err != nil || len(docs) != 1 || docs[0].ID != "ok.txt" {
		t.Fatalf("ReadDocs: %v, docs %+v", err, docs)
	}
	var got []string
	for _, le := range bad {
		got = append(got, le.Error())
	}
	want := []string{
		filepath.Join(dir, "blank.txt") + ":1: the file is empty (nothing to index)",
		filepath.Join(dir, "empty.md") + ":1: the file is empty (nothing to index)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bad lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzPlainText: plainText changes only whitespace (the words of the file
// are the text's, in order, the title line included), and a title is one
// of the file's lines, trimmed.
func FuzzPlainText(f *testing.F) {
	f.Add("Kestrel Valley Railway\n\n1. About\n1.1 These apply.\n")
	f.Add("Refund policy\r\nRefunds take 20 days.\r\n")
	f.Add("trains run every hour from the\nnorth platform.")
	f.Add("\n\n  Title  \nA\nB\n")
	f.Fuzz(func(t *testing.T, body string) {
		text, title := plainText(body)
		if got, want := strings.Fields(text), strings.Fields(body); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("plainText(%q) words %q, want %q", body, got, want)
		}
		if title != "" && !strings.Contains("\n"+strings.ReplaceAll(body, "\r\n", "\n")+"\n", title) {
			t.Fatalf("plainText(%q) title %q is not a line of it", body, title)
		}
		if title != strings.TrimSpace(title) || strings.Contains(title, "\n") {
			t.Fatalf("plainText(%q) title %q not one trimmed line", body, title)
		}
	})
}
