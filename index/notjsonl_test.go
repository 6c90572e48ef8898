package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDocsNotJSONLines: a JSON array or a pretty-printed object given as
// a corpus is one bad line that names the conversion, not one per line of
// it; a file of another type given on its own is refused by name; a .json
// file of JSON lines is read.
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
	for _, tc := range []struct {
		name, content, want string
	}{
		{"array.json", `[{"id":"a","text":"one"},{"id":"b","text":"two"}]` + "\n", "a JSON array, not JSON Lines"},
		{"array-pretty.json", "[\n  {\"id\": \"a\", \"text\": \"one\"},\n  {\"id\": \"b\", \"text\": \"two\"}\n]\n", "a JSON array, not JSON Lines"},
		{"pretty.jsonl", "{\n  \"id\": \"a\",\n  \"text\": \"one\"\n}\n{\n  \"id\": \"b\",\n  \"text\": \"two\"\n}\n", "a JSON object printed over several lines"},
	} {
		p := write(tc.name, tc.content)
		docs, bad, err := ReadDocs([]string{p, good}, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(bad) != 1 || bad[0].Line != 1 || !strings.Contains(bad[0].Error(), tc.want) || !strings.Contains(bad[0].Error(), "jq -c") {
			t.Errorf("%s: bad lines = %v, want one at line 1 saying %q with the jq command", tc.name, bad, tc.want)
		}
		if len(docs) != 1 || docs[0].ID != "g" {
			t.Errorf("%s: docs = %v, want the next file's one document", tc.name, docs)
		}
		_, _, err = ReadDocs([]string{p, good}, true)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(le.Error(), tc.want) {
			t.Errorf("%s strict: err = %v, want the same report as an error", tc.name, err)
		}
	}
	// A line that is broken JSON further down is reported as before.
	p := write("broken.jsonl", `{"id":"a","text":"one"}`+"\n{\n")
	if _, bad, _ := ReadDocs([]string{p}, false); len(bad) != 1 || bad[0].Line != 2 || strings.Contains(bad[0].Error(), "jq") {
		t.Errorf("broken.jsonl: bad lines = %v, want line 2 as plain bad JSON", bad)
	}
	for _, name := range []string{"terms.pdf", "page.xhtml", "notes.rst"} {
		p := write(name, "id,text\n1,hello\n")
		_, _, err := ReadDocs([]string{p}, false)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "JSON Lines (.jsonl, .ndjson), CSV with a header row (.csv, .tsv), Markdown (.md, .markdown), HTML (.html, .htm) or plain text (.txt, .text)") {
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
