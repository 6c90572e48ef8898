package index

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Doc is one corpus document (the JSONL schema of DESIGN.md). `id` (or
// BEIR's `_id`) and `text` are required; kind defaults to "library", tenant and kb to
// "default". Unknown top-level fields are kept in Meta.
type Doc struct {
	ID      string         `json:"id"`
	Text    string         `json:"text"`
	Title   string         `json:"title,omitempty"`
	Kind    string         `json:"kind,omitempty"`
	Address string         `json:"address,omitempty"`
	URL     string         `json:"url,omitempty"`
	Tenant  string         `json:"tenant,omitempty"`
	KB      string         `json:"kb,omitempty"`
	Meta    map[string]any `json:"meta,omitempty"`
	// droppedScheme is the scheme of a url that normalizeDoc dropped (not
	// http or https), for the build's warning.
	droppedScheme string
	// Sources marks a derived entry (an FAQ written from the handbook, a
	// summary page): the ids, in the same partition, it was written from.
	// HaluGate checks its claims against them at index time.
	Sources []string `json:"sources,omitempty"`
	// Deleted marks a deletion line ({"id":..,"deleted":true}): guard index
	// add removes the document; its other fields (text included) are not
	// needed. A build reports such a line as bad.
	Deleted bool `json:"deleted,omitempty"`
	// unpublished marks an exported draft (draft true, published false,
	// status draft: unpublished), read as a deletion: a build leaves it
	// out, an add removes the published version it replaces.
	unpublished bool
	// Origin is the input file and line ("file:line"), for reports.
	Origin string `json:"-"`
	// markdown marks a Markdown file read as plain text (markdownText);
	// sections are where its level-2+ sections start in Text (a plain-text
	// file's: where its section headings start, see plainText). chunkDoc
	// keeps them apart and keeps the paragraph breaks of such a document.
	markdown bool
	sections []mdSection
	// paragraphs marks a plain-text file (plainText): chunkDoc keeps its
	// paragraph breaks, as a Markdown page's.
	paragraphs bool
}

// MemoryEntry is one curated-memory line: a pin (a curated question whose
// refs answer it) or a note (background text with triggers and refs).
type MemoryEntry struct {
	Type     string   `json:"type"`
	ID       string   `json:"id,omitempty"`
	Question string   `json:"question,omitempty"`
	Answer   string   `json:"answer,omitempty"`
	Note     string   `json:"note,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
	Refs     []string `json:"refs,omitempty"`
	Tenant   string   `json:"tenant,omitempty"`
	KB       string   `json:"kb,omitempty"`
	// Sources marks a derived entry: its answer or note was written from
	// these ids, and HaluGate checks it against them at index time.
	Sources []string `json:"sources,omitempty"`

	file string // where readMemory read it (for a LineError)
	line int
}

// LineError is a bad input line, reported with its file and line number.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

const (
	// DefaultTenant and DefaultKB are used when a line names none.
	DefaultTenant = "default"
	DefaultKB     = "default"
	maxLineBytes  = 16 << 20
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidName reports whether s may name a tenant or a KB (it becomes a
// directory name in the snapshot): 1-64 letters, digits, '.', '-' or '_',
// the first a letter or a digit. The proxy holds the X-Tenant-ID and
// X-KB-ID headers to it.
func ValidName(s string) bool { return nameRE.MatchString(s) }

var knownDocFields = map[string]bool{"_id": true, "id": true, "text": true, "title": true, "kind": true, "address": true, "url": true, "tenant": true, "kb": true, "meta": true, "sources": true, "deleted": true}

// fieldAliases are the names exports give a passage's title and text
// (a FAQ's question and answer, a help centre's article body), and the Doc
// fields they are read as (a JSON line's keys, a CSV sheet's columns),
// where the field itself is absent: the first alias present wins.
var fieldAliases = []struct{ alias, field string }{{"question", "title"}, {"answer", "text"}, {"body", "text"}, {"content", "text"}}

// botReplyKeys and botPhraseKeys are a chatbot export's fields of an
// intent's replies (the passage's text) and of the phrases that ask for
// it (its title, then "Also asked as"), where a document has neither
// text nor title nor their fieldAliases; maxAskedAs bounds the phrases
// kept.
var (
	botReplyKeys  = []string{"responses", "response", "replies", "reply"}
	botPhraseKeys = []string{"trainingPhrases", "training_phrases", "patterns", "utterances", "examples", "questions"}
)

const maxAskedAs = 12

// jsonStrings are the text strings of a JSON value, in order: a string;
// an array's elements' strings; an object's string fields but those that
// name rather than say (type, id, url, image, language, ...). depth bounds
// the nesting read.
func jsonStrings(v json.RawMessage, depth int) []string {
	if depth > 8 {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s = strings.TrimSpace(s); s != "" {
			return []string{s}
		}
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		var out []string
		for _, e := range arr {
			out = append(out, jsonStrings(e, depth+1)...)
		}
		return out
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return nil
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !jsonNameKeys[strings.ToLower(k)] {
			out = append(out, jsonStrings(obj[k], depth+1)...)
		}
	}
	return out
}

// jsonNameKeys are the fields of a rich reply that name or point rather
// than say (jsonStrings leaves them out).
var jsonNameKeys = map[string]bool{"type": true, "id": true, "url": true, "uri": true, "image": true, "imageurl": true,
	"image_url": true, "language": true, "lang": true, "platform": true, "payload": true, "action": true, "condition": true, "name": true}

// parseDocLine decodes one corpus JSONL line and applies the defaults.
func parseDocLine(line []byte) (Doc, error) { return parseDocLineIn(line, DocRef{}) }

// parseDocLineIn is parseDocLine with part's tenant and KB (when set) for
// a line that names none.
func parseDocLineIn(line []byte, part DocRef) (Doc, error) {
	if err := checkUTF8(line); err != nil {
		return Doc{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Doc{}, plainJSONError(err)
	}
	var d Doc
	str := func(k string, dst *string) error {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			// Numeric ids are common in BEIR-like dumps: accept them as text.
			var n json.Number
			if (k == "id" || k == "_id") && json.Unmarshal(v, &n) == nil {
				*dst = n.String()
				return nil
			}
			return fmt.Errorf("field %q: must be a string", k)
		}
		return nil
	}
	var errs []error
	for _, f := range []struct {
		k string
		p *string
	}{{"id", &d.ID}, {"text", &d.Text}, {"title", &d.Title}, {"kind", &d.Kind}, {"address", &d.Address}, {"url", &d.URL}, {"tenant", &d.Tenant}, {"kb", &d.KB}} {
		if err := str(f.k, f.p); err != nil {
			errs = append(errs, err)
		}
	}
	if d.ID == "" {
		// BEIR corpora name the id "_id".
		if err := str("_id", &d.ID); err != nil {
			errs = append(errs, err)
		}
	}
	// A FAQ export's "question" and "answer", a help centre's "body", are
	// the title and text, as a CSV sheet's columns of those names are read
	// (fieldAliases), where the line has no field of the name they stand for.
	aliased := map[string]bool{}
	filled := map[string]bool{}
	for _, a := range fieldAliases {
		if _, ok := raw[a.field]; ok || filled[a.field] {
			continue
		}
		if _, ok := raw[a.alias]; !ok {
			continue
		}
		aliased[a.alias], filled[a.field] = true, true
		dst := &d.Title
		if a.field == "text" {
			dst = &d.Text
		}
		if err := str(a.alias, dst); err != nil {
			errs = append(errs, err)
		}
	}
	// A chatbot's intents, exported for a migration ({"name": ...,
	// "trainingPhrases": [...], "responses": [...]}; the tutorials'
	// intents.json: "tag", "patterns", "responses"): the responses are the
	// text, the first phrase the title, the other phrases kept after the
	// text ("Also asked as: ...") for retrieval to find (operator trial 37).
	var askedAs []string
	if _, ok := raw["text"]; !ok && !filled["text"] {
		for _, k := range botReplyKeys {
			if v, ok := raw[k]; ok {
				if t := strings.Join(jsonStrings(v, 0), "\n"); strings.TrimSpace(t) != "" {
					d.Text, aliased[k], filled["text"] = t, true, true
					break
				}
			}
		}
	}
	if _, ok := raw["title"]; !ok && !filled["title"] && filled["text"] {
		for _, k := range botPhraseKeys {
			if v, ok := raw[k]; ok {
				if ps := jsonStrings(v, 0); len(ps) > 0 {
					d.Title, aliased[k], filled["title"] = ps[0], true, true
					askedAs = ps[1:min(len(ps), 1+maxAskedAs)]
					break
				}
			}
		}
	}
	if len(askedAs) > 0 {
		d.Text += "\n\nAlso asked as: " + strings.Join(askedAs, "; ")
	}
	if v, ok := raw["meta"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &d.Meta); err != nil {
			errs = append(errs, fmt.Errorf("field \"meta\": must be an object"))
		}
	}
	if v, ok := raw["sources"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &d.Sources); err != nil {
			errs = append(errs, fmt.Errorf("field \"sources\": must be an array of ids"))
		}
	}
	if v, ok := raw["deleted"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &d.Deleted); err != nil {
			errs = append(errs, errors.New("field \"deleted\": must be true or false"))
		}
	}
	for k, v := range raw {
		if knownDocFields[k] || aliased[k] {
			continue
		}
		var x any
		if json.Unmarshal(v, &x) == nil {
			if d.Meta == nil {
				d.Meta = map[string]any{}
			}
			d.Meta[k] = x
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Doc{}, err
	}
	unpublished(&d)
	htmlBody(&d)
	d, err := normalizeDoc(inPartition(d, part))
	if _, ok := raw["text"]; errors.Is(err, errMissingText) && !ok {
		// {"id","body"}: name what the line has, so a corpus exported
		// with other field names is fixed in one pass
		keys := slices.Sorted(maps.Keys(raw))
		return Doc{}, fmt.Errorf("%w (the line has %s; a passage's text goes in \"text\", \"body\" or \"content\", a FAQ's in \"answer\" with \"question\", a chatbot intent's in \"responses\")",
			err, strings.Join(keys, ", "))
	}
	return d, err
}

// WithPartition puts the documents and curated-memory entries of Build's
// or Add's sources that name no tenant or KB (every Markdown, HTML and
// text file; JSONL lines without "tenant" or "kb") in tenant and kb instead of
// "default". An empty name keeps "default".
func WithPartition(tenant, kb string) Option {
	return func(o *options) { o.part = DocRef{Tenant: tenant, KB: kb} }
}

// inPartition gives d part's tenant and KB where d names none.
func inPartition(d Doc, part DocRef) Doc {
	if d.Tenant == "" {
		d.Tenant = part.Tenant
	}
	if d.KB == "" {
		d.KB = part.KB
	}
	return d
}

// errMissingText is normalizeDoc's error for a document with no text.
var errMissingText = errors.New("missing text")

func normalizeDoc(d Doc) (Doc, error) {
	d.ID = strings.TrimSpace(d.ID)
	if d.ID == "" {
		return Doc{}, errors.New("missing id")
	}
	if strings.TrimSpace(d.Text) == "" && !d.Deleted {
		return Doc{}, fmt.Errorf("doc %q: %w", d.ID, errMissingText)
	}
	if d.Kind == "" {
		d.Kind = "library"
	}
	if d.Tenant == "" {
		d.Tenant = DefaultTenant
	}
	if d.KB == "" {
		d.KB = DefaultKB
	}
	if u := strings.TrimSpace(d.URL); u != "" && !httpURL(u) {
		// Citations hand the url to chat apps as a link: only http(s).
		scheme, _, _ := strings.Cut(u, ":")
		if len(scheme) > 16 || strings.ContainsAny(scheme, "/?# ") {
			scheme = "(none)"
		}
		d.URL, d.droppedScheme = "", strings.ToLower(scheme)
	}
	d.Title = plainTitle(d.Title)
	if !ValidName(d.Tenant) {
		return Doc{}, fmt.Errorf("doc %q: invalid tenant %q", d.ID, d.Tenant)
	}
	if !ValidName(d.KB) {
		return Doc{}, fmt.Errorf("doc %q: invalid kb %q", d.ID, d.KB)
	}
	return d, nil
}

// httpURL reports whether u is an absolute http or https URL with a host.
func httpURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (strings.EqualFold(p.Scheme, "http") || strings.EqualFold(p.Scheme, "https")) && p.Host != ""
}

var (
	scriptRE = regexp.MustCompile(`(?is)<(script|style)\b[^>]*>.*?</(script|style)\s*>`)
	tagRE    = regexp.MustCompile(`(?s)<[/!?]?[A-Za-z][^>]*>|<!--.*?-->`)
)

// plainTitle makes a title plain text: entities decoded, script and style
// elements removed with their content, other tags removed, and any '<' or
// '>' left over dropped, so a title rendered as HTML by a chat app cannot
// carry markup.
func plainTitle(t string) string {
	if !strings.ContainsAny(t, "<>&") {
		return t
	}
	for range 2 { // entities may hide tags: "&lt;b&gt;"
		t = html.UnescapeString(t)
		t = scriptRE.ReplaceAllString(t, " ")
		t = tagRE.ReplaceAllString(t, " ")
	}
	t = strings.NewReplacer("<", "", ">", "").Replace(t)
	return strings.Join(strings.Fields(t), " ")
}

// plainJSONError says why a line did not decode, in plain words: no Go
// type names or decoder internals.
func plainJSONError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input"):
		return errors.New("not valid JSON (the line ends too early)")
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON (at character %d)", syn.Offset)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("the line must be a JSON object, got %s", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("field %q has the wrong kind of value (%s)", typ.Field, typ.Value)
	}
	return errors.New("not valid JSON")
}

// parseMemoryLine decodes one curated-memory JSONL line.
func parseMemoryLine(line []byte) (MemoryEntry, error) { return parseMemoryLineIn(line, DocRef{}) }

// parseMemoryLineIn is parseMemoryLine with part's tenant and KB (when
// set) for an entry that names none.
func parseMemoryLineIn(line []byte, part DocRef) (MemoryEntry, error) {
	if err := checkUTF8(line); err != nil {
		return MemoryEntry{}, err
	}
	var m MemoryEntry
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&m); err != nil {
		return MemoryEntry{}, plainJSONError(err)
	}
	if m.Tenant == "" {
		m.Tenant = part.Tenant
	}
	if m.KB == "" {
		m.KB = part.KB
	}
	if m.Tenant == "" {
		m.Tenant = DefaultTenant
	}
	if m.KB == "" {
		m.KB = DefaultKB
	}
	if !ValidName(m.Tenant) || !ValidName(m.KB) {
		return MemoryEntry{}, fmt.Errorf("invalid tenant/kb %q/%q", m.Tenant, m.KB)
	}
	switch m.Type {
	case "pin":
		if strings.TrimSpace(m.Question) == "" {
			return MemoryEntry{}, errors.New("pin: missing question")
		}
		if len(m.Refs) == 0 {
			return MemoryEntry{}, errors.New("pin: missing refs")
		}
	case "note":
		if strings.TrimSpace(m.Note) == "" {
			return MemoryEntry{}, errors.New("note: missing note")
		}
	default:
		return MemoryEntry{}, fmt.Errorf("type: must be pin or note, got %q", m.Type)
	}
	return m, nil
}

// utf8BOM is the byte-order mark some editors (Windows Notepad among them)
// write at the start of a UTF-8 file.
const utf8BOM = "\ufeff"

// checkUTF8 reports a line or file that is not UTF-8 (Latin-1 or Windows-1252
// saved by an older editor): decoding it would turn each such byte into
// U+FFFD, silently. The command it gives converts from Windows-1252, which
// reads a Latin-1 file's letters the same: converted as Latin-1, a Word
// export's curly quotes, dashes and euro signs (bytes 0x80-0x9F) would become
// invisible control characters that the build then takes without a word
// (operator trial 8).
func checkUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	if bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		return errors.New("UTF-16, not UTF-8: save the file as UTF-8 (iconv -f utf-16 -t utf-8 converts it)") // Windows Notepad's "Unicode"
	}
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return fmt.Errorf("not UTF-8 (byte 0x%02X at character %d): save the file as UTF-8 (from Windows-1252 or Latin-1, iconv -f cp1252 -t utf-8 converts it)", b[i], utf8.RuneCount(b[:i])+1)
}

// errSkipFile stops reading a JSONL file that notJSONLines rejected.
var errSkipFile = errors.New("skip file")

// notJSONLines explains a file whose first line shows it is JSON but not
// JSON Lines: an array, or an object printed over several lines (as jq,
// Python's json.dump with indent, and editors write it). Such a file is
// one bad line, with the command that converts it. It returns nil for any
// other first line.
func notJSONLines(first []byte, path string) error {
	switch {
	case first[0] == '[':
		return fmt.Errorf("a JSON array, not JSON Lines (one object per line): convert it with jq -c '.[]' %s > FILE.jsonl", path)
	case string(first) == "{":
		return fmt.Errorf("a JSON object printed over several lines, not JSON Lines (one object per line): convert it with jq -c . %s > FILE.jsonl", path)
	}
	return nil
}

// eachJSONLine reads the JSON lines of r (the file path) with parse and
// hands each good one to keep with its line number. A line too long or
// not parsed is a *LineError appended to bad (returned at once when
// strict); a first line that shows the file is not JSON Lines at all (a
// JSON array, a pretty-printed object) is one *LineError for the whole
// file, which is then skipped.
func eachJSONLine[T any](r io.Reader, path string, strict bool, bad *[]*LineError, parse func([]byte) (T, error), keep func(T, int) error) error {
	first := true
	report := func(n int, err error) error {
		le := &LineError{File: path, Line: n, Err: err}
		if strict {
			return le
		}
		*bad = append(*bad, le)
		return nil
	}
	err := readLines(r, func(n int, line []byte) error {
		if line == nil {
			first = false
			return report(n, fmt.Errorf("line longer than %d bytes", maxLineBytes))
		}
		v, err := parse(line)
		if err != nil && first {
			if ferr := notJSONLines(line, path); ferr != nil {
				// One report for the file, not one per line of it.
				if err := report(n, ferr); err != nil {
					return err
				}
				return errSkipFile
			}
		}
		first = false
		if err != nil {
			return report(n, err)
		}
		return keep(v, n)
	})
	if errors.Is(err, errSkipFile) {
		return nil
	}
	return err
}

// readLines calls fn for every non-blank line of r, with 1-based line numbers.
// A byte-order mark at the start of the first line is dropped.
func readLines(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte(utf8BOM))
		}
		if len(line) > 0 {
			n++
			if len(line) > maxLineBytes {
				if ferr := fn(n, nil); ferr != nil {
					return ferr
				}
			} else if t := bytes.TrimSpace(line); len(t) > 0 {
				if ferr := fn(n, t); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// corpusType is one kind of corpus file: a page (one document a file) or
// a file of many documents (one a line or row).
type corpusType struct {
	// name is what messages call it ("Markdown", "CSV with a header row").
	name string
	// exts are its extensions, lower case, read in a folder and given on
	// their own; alone are more, read as this type only when a file is
	// given on its own (a .json file, a file without an extension).
	exts, alone []string
	// charset: the reader decodes the file itself (an HTML page's
	// encoding, a zip archive's XML), so the file is not read as
	// Windows-1252 first (legacyText).
	charset bool
	// page reads a file that is one document named id; nil for a file of
	// many documents. Its error is the file's one bad line.
	page func(id string, b []byte) (Doc, error)
	// docs reads a file of many documents as readCSV does: each good one
	// handed to keep with its line number, each bad one a *LineError
	// appended to bad (returned at once when strict).
	docs func(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error
}

// corpusTypes are the file types ReadDocs reads, in the order
// CorpusFileTypes names them. A new type is a line here.
var corpusTypes = []corpusType{
	{name: "Markdown", exts: []string{".md", ".markdown", ".mdx"}, page: markdownPage},
	{name: "HTML", exts: []string{".html", ".htm"}, page: htmlPage, charset: true},
	{name: "plain text", exts: []string{".txt", ".text"}, page: plainPage},
	{name: "reStructuredText", exts: []string{".rst", ".rest"}, page: rstPage},
	{name: "Word", exts: []string{".docx"}, page: docxPage, charset: true},
	{name: "OpenDocument text", exts: []string{".odt"}, page: odtPage, charset: true},
	{name: "JSON Lines", exts: []string{".jsonl", ".ndjson"}, alone: []string{".json", ""}, docs: readJSONLines},
	{name: "CSV with a header row", exts: []string{".csv", ".tsv"}, docs: readCSV},
	{name: "YAML", exts: []string{".yml", ".yaml"}, docs: readYAML},
	{name: "Excel workbook", exts: []string{".xlsx"}, docs: readXLSX, charset: true},
	{name: "WordPress export", exts: []string{".xml"}, docs: readWXR},
}

// spreadsheetExts are the spreadsheet files a corpus source may not be:
// refused with the advice to save them as CSV.
var spreadsheetExts = []string{".xls", ".ods", ".numbers"}

// wordProcessorExts are the word processors' files other than .docx: each
// is refused with the advice to save it as .docx.
var wordProcessorExts = []string{".doc", ".rtf", ".pages", ".wpd"}

// corpusExts are the file types ReadDocs reads in a folder, by extension.
var corpusExts = func() map[string]*corpusType {
	m := map[string]*corpusType{}
	for i := range corpusTypes {
		for _, e := range corpusTypes[i].exts {
			m[e] = &corpusTypes[i]
		}
	}
	return m
}()

// corpusTypeOf is the type of a file of extension ext (lower case): in a
// folder, or given on its own when alone. Nil when ReadDocs does not read
// it.
func corpusTypeOf(ext string, alone bool) *corpusType {
	if t := corpusExts[ext]; t != nil || !alone {
		return t
	}
	for i := range corpusTypes {
		if slices.Contains(corpusTypes[i].alone, ext) {
			return &corpusTypes[i]
		}
	}
	return nil
}

// CorpusFileTypes names corpusExts for a message: the file types ReadDocs
// reads in a corpus folder (".md, .markdown, ... or .tsv").
var CorpusFileTypes = func() string {
	var exts []string
	for _, t := range corpusTypes {
		exts = append(exts, t.exts...)
	}
	return orList(exts)
}()

// notCorpusFile says why a file given on its own, of extension ext, is
// not read: a spreadsheet is to be saved as CSV; any other type is named
// beside the types that are read (the files of many documents first).
func notCorpusFile(src, ext string) error {
	if ext == ".pdf" {
		return fmt.Errorf("corpus %s: a PDF is not read: extract its text (pdftotext %s out.txt, from poppler-utils) and index the .txt: its page headers, footers, page numbers and hyphenated line ends are read as such; or index the document it was made from (.docx, HTML, Markdown)", src, filepath.Base(src))
	}
	if slices.Contains(wordProcessorExts, ext) {
		return fmt.Errorf("corpus %s: a %s file is not read: save it as a Word document (.docx), Markdown, HTML or plain text", src, ext)
	}
	if slices.Contains(spreadsheetExts, ext) {
		return fmt.Errorf("corpus %s: a spreadsheet is not read: save it as an Excel workbook (.xlsx) or CSV (UTF-8), its first row naming the columns id and text (title, url, ... optional)", src)
	}
	var many, pages []string
	for _, t := range corpusTypes {
		s := t.name + " (" + strings.Join(t.exts, ", ") + ")"
		if t.page == nil {
			many = append(many, s)
		} else {
			pages = append(pages, s)
		}
	}
	// Read as JSON lines, a PDF would be one bad line per line of it,
	// none saying what is wrong.
	return fmt.Errorf("corpus %s: a %s file is not read: corpus files are %s", src, ext, orList(append(many, pages...)))
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// errEmptyFile is the bad line of a page file with nothing in it. Said as
// "doc \"notes.md\": missing text", it read as a field missing from a JSON
// line.
var errEmptyFile = errors.New("the file is empty (nothing to index)")

// blank reports a file of nothing but whitespace (and a byte-order mark).
func blank(s string) bool { return strings.TrimSpace(strings.TrimPrefix(s, utf8BOM)) == "" }

// markdownPage reads a Markdown file (textDoc); it must be UTF-8.
func markdownPage(id string, b []byte) (Doc, error) { return textPage(id, b, true) }

// plainPage reads a plain-text file (textDoc); it must be UTF-8.
func plainPage(id string, b []byte) (Doc, error) { return textPage(id, b, false) }

func textPage(id string, b []byte, markdown bool) (Doc, error) {
	if err := checkUTF8(b); err != nil {
		return Doc{}, err
	}
	if blank(string(b)) {
		return Doc{}, errEmptyFile
	}
	return textDoc(id, string(b), markdown), nil
}

// readJSONLines reads a JSON Lines corpus file as readCSV reads a CSV one;
// a file that is one JSON document (an array of documents, a help desk's
// wrapped export, a pretty-printed object) as readJSONDocument says.
func readJSONLines(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if jsonWhole(br) {
		return readJSONDocument(br, path, strict, bad, part, keep)
	}
	var in io.Reader = br
	if head, _ := br.Peek(jsonWholeProbe); jsonOpensObjectOnFirstLine(head) {
		// {"agent": "...", "intents": [ on its first line: one document
		// printed over lines, not JSON lines, when the whole file is valid
		all, err := io.ReadAll(br)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if json.Valid(bytes.TrimPrefix(all, []byte(utf8BOM))) {
			return readJSONDocument(bytes.NewReader(all), path, strict, bad, part, keep)
		}
		in = bytes.NewReader(all)
	}
	return eachJSONLine(in, path, strict, bad, func(line []byte) (Doc, error) { return parseDocLineIn(line, part) }, keep)
}

// ReadDocs reads corpus sources: files of a type in corpusTypes (a JSONL
// file, a CSV file as readCSV says, a Markdown, HTML or text file), or
// folders holding them (a Markdown, HTML or text file's path relative to
// the folder becomes its id; a file given on its own is named by its base
// name; an HTML page is read as htmlPage says). Bad lines are returned as
// *LineError and skipped; with strict, the first bad line is an error.
func ReadDocs(sources []string, strict bool) ([]Doc, []*LineError, error) {
	return readDocs(sources, strict, DocRef{})
}

// readDocs is ReadDocs with part's tenant and KB (when set) for the
// documents that name none.
func readDocs(sources []string, strict bool, part DocRef) ([]Doc, []*LineError, error) {
	var docs []Doc
	var bad []*LineError
	seen := map[[3]string]string{}
	add := func(d Doc, file string, line int) error {
		key := [3]string{d.Tenant, d.KB, d.ID}
		if prev, dup := seen[key]; dup {
			le := &LineError{File: file, Line: line, Err: fmt.Errorf("duplicate id %q (first at %s)", d.ID, prev)}
			if strict {
				return le
			}
			bad = append(bad, le)
			return nil
		}
		seen[key] = fmt.Sprintf("%s:%d", file, line)
		d.Origin = seen[key]
		docs = append(docs, d)
		return nil
	}
	// read reads the file at path, of type t; a page is the document id.
	read := func(t *corpusType, path, id string) error {
		if t.page == nil {
			f, err := os.Open(path)
			if err != nil {
				return fmt.Errorf("open corpus %s: %w", path, err)
			}
			defer f.Close()
			var r io.Reader = f
			if !t.charset {
				if r, err = legacyReader(f, path); err != nil {
					return err
				}
			}
			return t.docs(r, path, strict, &bad, part, func(d Doc, n int) error { return add(d, path, n) })
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if !t.charset {
			b = legacyText(b)
		}
		d, err := t.page(id, b)
		if err == nil {
			if d, err = normalizeDoc(inPartition(d, part)); err == nil {
				return add(d, path, 1)
			}
		}
		le := &LineError{File: path, Line: 1, Err: err}
		if strict {
			return le
		}
		bad = append(bad, le)
		return nil
	}
	for _, src := range sources {
		st, err := os.Stat(src)
		if err != nil {
			return nil, bad, fmt.Errorf("corpus %s: %w", src, err)
		}
		if !st.IsDir() {
			ext := strings.ToLower(filepath.Ext(src))
			t := corpusTypeOf(ext, true)
			if t == nil {
				return nil, bad, notCorpusFile(src, ext)
			}
			if err := read(t, src, filepath.Base(src)); err != nil {
				return nil, bad, err
			}
			continue
		}
		err = filepath.WalkDir(src, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if hidden(src, path, de) {
				if de.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if de.IsDir() {
				return nil
			}
			if t := corpusTypeOf(strings.ToLower(filepath.Ext(path)), false); t != nil {
				rel, _ := filepath.Rel(src, path)
				return read(t, path, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, bad, err
		}
	}
	dropRepeatedSections(docs)
	return docs, bad, nil
}

// repeatedSectionMin is the shortest tail dropRepeatedSections reads as a
// site's repeated part, in bytes of text.
const repeatedSectionMin = 40

// dropRepeatedSections keeps the sections (or paragraphs) that end
// several documents of one partition word for word in the first of them
// only: the footer with a site's address and phone lines that every saved
// page of a site repeats, read as each page's "Contact" section and its
// sub-headings, or a sidebar widget kept at a page's end. It stood in the
// last chunk of every page (operator trial 34's water company: the same
// footer in 8 chunks), so a question about the phone lines had eight
// equal answers, and every page's last chunk read as partly about contact
// details. A document that would be left with no text keeps its own.
func dropRepeatedSections(docs []Doc) {
	type tail struct{ tenant, kb, text string }
	first := map[tail]int{} // a run of last sections or paragraphs -> the first document ending with it
	for i := range docs {
		d := &docs[i]
		if d.Deleted {
			continue
		}
		// where a tail may start: each section's heading, then each
		// paragraph (a saved email's footer has no heading of its own)
		starts := []int{0}
		for _, sec := range d.sections {
			starts = append(starts, sec.Off)
		}
		for off := strings.Index(d.Text, "\n\n"); off >= 0; {
			starts = append(starts, off+2)
			next := strings.Index(d.Text[off+2:], "\n\n")
			if next < 0 {
				break
			}
			off += 2 + next
		}
		slices.Sort(starts)
		starts = slices.Compact(starts)
		cut, from := -1, -1
		for _, at := range starts {
			t := tail{d.Tenant, d.KB, strings.TrimSpace(d.Text[at:])}
			if len(t.text) < repeatedSectionMin {
				break
			}
			if j, seen := first[t]; seen && j != i {
				cut, from = at, j // the longest repeated run at the end
				break
			}
			first[t] = i
		}
		if cut < 0 {
			continue
		}
		head := strings.TrimRight(d.Text[:cut], " \t\n")
		// the document holds nothing else (a contact page that is the
		// footer): keep it whole; so when what stands before the run here
		// stands before it in the first document too
		tailText := strings.TrimSpace(d.Text[cut:])
		before := strings.TrimRight(strings.TrimSuffix(strings.TrimRight(docs[from].Text, " \t\n"), tailText), " \t\n")
		if head == "" || strings.HasSuffix(before, head) {
			continue
		}
		d.Text = head
		k := 0
		for k < len(d.sections) && d.sections[k].Off < len(head) {
			k++
		}
		d.sections = d.sections[:k]
	}
}

// CorpusFile reports whether ReadDocs reads a file of this name in a
// corpus folder (by its extension).
func CorpusFile(name string) bool { return corpusExts[strings.ToLower(filepath.Ext(name))] != nil }

// hidden reports a file or folder below src whose name starts with a dot
// (.git, .github, an editor's .draft.md): ReadDocs does not read them, as
// static site generators do not publish them.
func hidden(src, path string, de fs.DirEntry) bool {
	return path != src && strings.HasPrefix(de.Name(), ".")
}

// UnreadFiles lists the files in the folders among sources that ReadDocs
// leaves out: hidden ones and those of another type (reStructuredText, PDF,
// images), so a command can say what it did not index instead of
// dropping them silently. Paths are as found under each source.
func UnreadFiles(sources []string) ([]string, error) {
	var out []string
	for _, src := range sources {
		st, err := os.Stat(src)
		if err != nil || !st.IsDir() {
			continue
		}
		err = filepath.WalkDir(src, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if hidden(src, path, de) {
				out = append(out, path)
				if de.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !de.IsDir() && !CorpusFile(path) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("corpus %s: %w", src, err)
		}
	}
	return out, nil
}

// dropDeletions moves the deletion lines of docs to bad: a build starts
// from nothing, so there is nothing for them to delete. An unpublished
// document (an exported draft) is left out without a report there; its
// ids are returned.
func dropDeletions(docs []Doc, bad []*LineError) ([]Doc, []*LineError, []string) {
	kept := docs[:0]
	var drafts []string
	for _, d := range docs {
		if !d.Deleted {
			kept = append(kept, d)
			continue
		}
		if d.unpublished {
			drafts = append(drafts, d.ID)
			continue
		}
		file, line := d.Origin, 0
		if i := strings.LastIndexByte(d.Origin, ':'); i >= 0 {
			file = d.Origin[:i]
			fmt.Sscan(d.Origin[i+1:], &line)
		}
		bad = append(bad, &LineError{File: file, Line: line, Err: fmt.Errorf("doc %q: \"deleted\": true in a build (only guard index add removes documents)", d.ID)})
	}
	return kept, bad, drafts
}

// textDoc turns a Markdown or text file into a Doc. A byte-order mark is
// dropped. A Markdown file's front matter (a first line "---", "key: value"
// lines, a closing "---", as Jekyll, Hugo and Docusaurus write it) is left
// out of the text; its "title:" becomes the title, and its "url:", "kind:"
// and "address:" the document's (other keys are ignored). Without a title
// there, the first level-one heading is the title; without either, the
// file name. A Markdown body is made plain text (markdownText), and its
// level-2+ sections are kept for chunkDoc. A plain-text file is titled by
// its first line when that reads as a title, else by its file name, and
// its title and heading lines become paragraphs, and its heading lines
// that open a block start sections (plainText).
func textDoc(id, body string, markdown bool) Doc {
	body = strings.TrimPrefix(body, utf8BOM)
	d := Doc{ID: id, Text: body, Title: strings.TrimSuffix(filepath.Base(id), filepath.Ext(id))}
	if !markdown {
		var title string
		d.Text, title, d.sections = plainText(body)
		if title != "" {
			d.Title = title
		}
		d.paragraphs = true
		return d
	}
	rest, keys, ok := frontMatter(body)
	if ok {
		d.URL, d.Kind, d.Address = keys["url"], keys["kind"], keys["address"]
		// a page of a static site marked draft (Hugo, Jekyll, Docusaurus:
		// "draft: true", "published: false") is not published: read as an
		// exported draft is (operator trial 32's driving school)
		state := Doc{Meta: map[string]any{}}
		for _, k := range []string{"draft", "published", "status"} {
			if v, set := keys[k]; set {
				state.Meta[k] = v
			}
		}
		if unpublished(&state); state.Deleted {
			d.unpublished, d.Deleted = true, true
		}
	}
	d.markdown = true
	var title string
	d.Text, title, d.sections = markdownText(markdownSource(rest))
	if t := keys["title"]; t != "" {
		d.Title = t
	} else if title != "" {
		d.Title = title
	}
	return d
}

// frontMatter splits a YAML front-matter block off the start of a Markdown
// body: it returns the body after the block and the block's top-level
// "key: value" pairs with plain values (quotes removed; lists, nested maps
// and multi-line values are left out), or ok false when the body does not
// open with a closed block.
func frontMatter(body string) (rest string, keys map[string]string, ok bool) {
	first, after, found := strings.Cut(body, "\n")
	if !found || strings.TrimRight(first, " \t\r") != "---" {
		return body, nil, false
	}
	keys = map[string]string{}
	for off := 0; off < len(after); {
		line, _, _ := strings.Cut(after[off:], "\n")
		next := off + len(line) + 1
		l := strings.TrimRight(line, " \t\r")
		if l == "---" || l == "..." {
			return after[min(next, len(after)):], keys, true
		}
		if k, v, ok := strings.Cut(l, ":"); ok && k != "" && !strings.ContainsAny(k[:1], " \t#-") {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			if v != "" && v != "|" && v != ">" {
				keys[strings.ToLower(strings.TrimSpace(k))] = v
			}
		}
		off = next
	}
	return body, nil, false
}

// readMemory reads curated-memory JSONL files.
func readMemory(files []string, strict bool, part DocRef) ([]MemoryEntry, []*LineError, error) {
	var out []MemoryEntry
	var bad []*LineError
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, bad, fmt.Errorf("open memory %s: %w", path, err)
		}
		err = eachJSONLine(f, path, strict, &bad, func(line []byte) (MemoryEntry, error) { return parseMemoryLineIn(line, part) },
			func(m MemoryEntry, n int) error {
				m.file, m.line = path, n
				out = append(out, m)
				return nil
			})
		f.Close()
		if err != nil {
			return nil, bad, err
		}
	}
	return out, bad, nil
}

// memoryWithoutDocs moves to bad the curated-memory entries whose tenant
// and KB hold no document (hasDocs false): their refs can name nothing,
// and a partition of memory alone has no lanes to load. The usual cause
// is a memory file without "kb" beside a corpus placed in another KB.
func memoryWithoutDocs(mem []MemoryEntry, hasDocs func(tenant, kb string) bool, strict bool) ([]MemoryEntry, []*LineError, error) {
	var keep []MemoryEntry
	var bad []*LineError
	for _, m := range mem {
		if hasDocs(m.Tenant, m.KB) {
			keep = append(keep, m)
			continue
		}
		le := &LineError{File: m.file, Line: m.line, Err: fmt.Errorf("memory %s: tenant %q, kb %q has no corpus document, so its refs name nothing: give the entry the tenant and kb of its documents (or index build --tenant/--kb)", m.Type, m.Tenant, m.KB)}
		if strict {
			return nil, nil, le
		}
		bad = append(bad, le)
	}
	return keep, bad, nil
}
