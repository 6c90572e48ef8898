package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDocsNotJSONLines: a JSON array, pretty-printed objects and a help
// desk's wrapped export are read as the documents they hold, each at the
// line it starts on, a bad one reported at its line; a file of another type
// given on its own is refused by name; a .json file of JSON lines is read.
func TestReadDocsNotJSONLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"id":"g","text":"Refunds take five working days."}`+"\n")
	// A file of JSON documents rather than JSON lines is read as the
	// documents it holds, each at the line it starts on.
	for _, tc := range []struct {
		name, content string
		lines         []int
	}{
		{"array.json", `[{"id":"a","text":"one"},{"id":"b","text":"two"}]` + "\n", []int{1, 1}},
		{"array-pretty.json", "[\n  {\"id\": \"a\", \"text\": \"one\"},\n  {\"id\": \"b\", \"text\": \"two\"}\n]\n", []int{2, 3}},
		{"pretty.jsonl", "{\n  \"id\": \"a\",\n  \"text\": \"one\"\n}\n{\n  \"id\": \"b\",\n  \"text\": \"two\"\n}\n", []int{1, 5}},
		{"wrapped.json", "{\n  \"count\": 2,\n  \"articles\": [\n    {\"id\": \"a\", \"title\": \"One\", \"body\": \"one\"},\n    {\"id\": \"b\", \"body\": \"two\"}\n  ],\n  \"next_page\": null\n}\n", []int{4, 5}},
	} {
		p := write(tc.name, tc.content)
		docs, bad, err := ReadDocs([]string{p, good}, true)
		if err != nil || len(bad) != 0 {
			t.Fatalf("%s: %v, bad %v", tc.name, err, bad)
		}
		if len(docs) != 3 || docs[0].ID != "a" || docs[0].Text != "one" || docs[1].ID != "b" || docs[1].Text != "two" || docs[2].ID != "g" {
			t.Fatalf("%s: docs = %+v, want a, b and the next file's g", tc.name, docs)
		}
		for i, l := range tc.lines {
			if want := fmt.Sprintf("%s:%d", p, l); docs[i].Origin != want {
				t.Errorf("%s: doc %s from %s, want %s", tc.name, docs[i].ID, docs[i].Origin, want)
			}
		}
	}
	// A bad document is reported at its line and the others are read; JSON
	// that does not parse stops the file at the line of the fault.
	p := write("help.json", "[\n  {\"id\": \"a\", \"text\": \"one\"},\n  {\"id\": \"b\", \"summary\": \"two\"},\n  \"three\",\n  {\"id\": \"d\", \"content\": \"four\"}\n]\n")
	docs, bad, err := ReadDocs([]string{p}, false)
	if err != nil || len(docs) != 2 || docs[1].ID != "d" || len(bad) != 2 || bad[0].Line != 3 || !strings.Contains(bad[0].Error(), "the line has id, summary") || bad[1].Line != 4 {
		t.Errorf("help.json: docs %v, bad %v, err %v; want a and d, and lines 3 (no text, naming its fields) and 4 bad", docs, bad, err)
	}
	p = write("cut.json", "[\n  {\"id\": \"a\", \"text\": \"one\"},\n  {\"id\": \"b\", \"text\": \"two\"\n")
	docs, bad, _ = ReadDocs([]string{p}, false)
	if len(docs) != 1 || len(bad) != 1 || bad[0].Line != 3 {
		t.Errorf("cut.json: docs %v, bad %v; want a read and one bad line at 3", docs, bad)
	}
	if _, _, err := ReadDocs([]string{p}, true); err == nil {
		t.Error("cut.json strict: no error")
	}
	// An object with no text and two lists: which is meant is not guessed.
	p = write("two.json", "{\n \"a\": [{\"id\": \"x\", \"text\": \"one\"}],\n \"b\": [{\"id\": \"y\", \"text\": \"two\"}]\n}\n")
	if _, bad, _ := ReadDocs([]string{p}, false); len(bad) != 1 || !strings.Contains(bad[0].Error(), "missing id") && !strings.Contains(bad[0].Error(), "missing text") {
		t.Errorf("two.json: bad %v, want one bad document", bad)
	}
	// A line that is broken JSON further down is reported as before.
	p = write("broken.jsonl", `{"id":"a","text":"one"}`+"\n{\n")
	if _, bad, _ := ReadDocs([]string{p}, false); len(bad) != 1 || bad[0].Line != 2 || strings.Contains(bad[0].Error(), "jq") {
		t.Errorf("broken.jsonl: bad lines = %v, want line 2 as plain bad JSON", bad)
	}
	p = write("terms.pdf", "%PDF-1.7")
	if _, _, err := ReadDocs([]string{p}, false); err == nil || !strings.Contains(err.Error(), "pdftotext terms.pdf out.txt") {
		t.Errorf("terms.pdf: err = %v, want the advice to extract its text", err)
	}
	for _, name := range []string{"page.xhtml", "notes.adoc"} {
		p := write(name, "id,text\n1,hello\n")
		_, _, err := ReadDocs([]string{p}, false)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "file is not read: corpus files are JSON Lines (.jsonl, .ndjson), CSV with a header row (.csv, .tsv), ") || !strings.Contains(err.Error(), "Word (.docx)") {
			t.Errorf("%s: err = %v, want it refused by name with the types read", name, err)
		}
	}
}

// TestReadMemoryNotJSONLines: a pretty-printed memory file is one bad line.
func TestReadMemoryNotJSONLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "memory.jsonl")
	content := "{\n  \"type\": \"pin\",\n  \"question\": \"how much\",\n  \"refs\": [\"a\"]\n}\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mem, bad, err := readMemory([]string{p}, false, DocRef{})
	if err != nil || len(mem) != 0 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "printed over several lines") {
		t.Errorf("memory: entries %v, bad %v, err %v; want one bad line naming the shape", mem, bad, err)
	}
}
