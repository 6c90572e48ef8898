// Package mockllm implements the simulated OpenAI-compatible upstream: a
// deterministic (seeded) chat server that answers by paraphrasing and citing
// the integer-footnote notes it finds in the system prompt, streams in small
// chunks at a configurable pace, injects faults at configured rates, and
// records what it injected so benches can score the guard against ground
// truth.
package mockllm

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Faults are injection rates in [0,1]. Sentence-level faults are drawn per
// cited sentence, answer-level faults once per answer.
type Faults struct {
	Invent     float64 `yaml:"invent" json:"invent"`         // cite a footnote number that was never minted
	Split      float64 `yaml:"split" json:"split"`           // split a marker across two SSE events (per marker)
	Malformed  float64 `yaml:"malformed" json:"malformed"`   // a broken marker such as "[^2" or "[^x]"
	Repeat     float64 `yaml:"repeat" json:"repeat"`         // cite the same note twice in one sentence
	Leak       float64 `yaml:"leak" json:"leak"`             // print an internal-looking id (uuid / doc_ id)
	Contradict float64 `yaml:"contradict" json:"contradict"` // change a number against the cited source
	Uncited    float64 `yaml:"uncited" json:"uncited"`       // add a factual sentence with no citation
	Disconnect float64 `yaml:"disconnect" json:"disconnect"` // close the stream mid-answer (answer-level)
	SlowFirst  float64 `yaml:"slow_first" json:"slow_first"` // delay the first token by SlowFirstDelay (answer-level)
	Stall      float64 `yaml:"stall" json:"stall"`           // pause StallDelay between two events (answer-level)
	BadJSON    float64 `yaml:"bad_json" json:"bad_json"`     // one event whose data is not JSON (answer-level)
	HugeEvent  float64 `yaml:"huge_event" json:"huge_event"` // one event of HugeEventBytes (answer-level)
	Refuse     float64 `yaml:"refuse" json:"refuse"`         // answer HTTP 503 instead of a completion (answer-level)
	// Paraphrase rewrites a cited sentence instead of copying it (see
	// paraphrase.go); Alter changes one fact of a paraphrased sentence.
	Paraphrase float64 `yaml:"paraphrase" json:"paraphrase"`
	Alter      float64 `yaml:"alter" json:"alter"`
}

// ParseFaults reads "invent=0.1,leak=0.05,..." (names as in the yaml tags).
// An empty string means no faults.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	s = strings.TrimSpace(s)
	if s == "" {
		return f, nil
	}
	fields := map[string]*float64{
		"invent": &f.Invent, "split": &f.Split, "malformed": &f.Malformed, "repeat": &f.Repeat,
		"leak": &f.Leak, "contradict": &f.Contradict, "uncited": &f.Uncited,
		"disconnect": &f.Disconnect, "slow_first": &f.SlowFirst, "stall": &f.Stall,
		"bad_json": &f.BadJSON, "huge_event": &f.HugeEvent, "refuse": &f.Refuse,
		"paraphrase": &f.Paraphrase, "alter": &f.Alter,
	}
	var errs []error
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		p, known := fields[k]
		if !ok || !known {
			errs = append(errs, fmt.Errorf("fault %q: want name=rate with name one of invent, split, malformed, repeat, leak, contradict, uncited, disconnect, slow_first, stall, bad_json, huge_event, refuse, paraphrase, alter", kv))
			continue
		}
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r < 0 || r > 1 {
			errs = append(errs, fmt.Errorf("fault %s: rate must be a number in [0,1], got %q", k, v))
			continue
		}
		*p = r
	}
	return f, errors.Join(errs...)
}

// String renders the faults in the form ParseFaults reads.
func (f Faults) String() string {
	var parts []string
	add := func(n string, v float64) {
		if v > 0 {
			parts = append(parts, n+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	add("invent", f.Invent)
	add("split", f.Split)
	add("malformed", f.Malformed)
	add("repeat", f.Repeat)
	add("leak", f.Leak)
	add("contradict", f.Contradict)
	add("uncited", f.Uncited)
	add("disconnect", f.Disconnect)
	add("slow_first", f.SlowFirst)
	add("stall", f.Stall)
	add("bad_json", f.BadJSON)
	add("huge_event", f.HugeEvent)
	add("refuse", f.Refuse)
	add("paraphrase", f.Paraphrase)
	add("alter", f.Alter)
	return strings.Join(parts, ",")
}

// Config configures the simulated upstream.
type Config struct {
	// Addr is where the simulated upstream listens (host:port): "" = a
	// free loopback port for guard serve's built-in one, 127.0.0.1:9090
	// for guard mockllm (whose --addr overrides it). New and Start do not
	// read it; their callers do.
	Addr           string        `yaml:"addr"`
	Seed           uint64        `yaml:"seed"`             // base seed; each answer is seeded by seed and the request body
	Pace           time.Duration `yaml:"pace"`             // delay between streamed events (0 = as fast as possible)
	ChunkRunes     int           `yaml:"chunk_runes"`      // max runes of content per streamed event (>= 1)
	MaxSentences   int           `yaml:"max_sentences"`    // cited sentences per answer, of each note the one sharing most words with the question (>= 1)
	SlowFirstDelay time.Duration `yaml:"slow_first_delay"` // delay used by the slow_first fault
	StallDelay     time.Duration `yaml:"stall_delay"`      // delay used by the stall fault
	HugeEventBytes int           `yaml:"huge_event_bytes"` // size of the huge_event fault's event
	IdleTimeout    time.Duration `yaml:"idle_timeout"`     // keep-alive connections idle this long are closed (> 0)
	LogSize        int           `yaml:"log_size"`         // records of the latest answers kept for look-up by id (0 = none)
	Faults         Faults        `yaml:"faults"`
}

// DefaultConfig is a fault-free, quick simulated model.
func DefaultConfig() Config {
	return Config{Seed: 1, Pace: 15 * time.Millisecond, ChunkRunes: 6, MaxSentences: 3,
		SlowFirstDelay: 2 * time.Second, StallDelay: 2 * time.Second, HugeEventBytes: 2 << 20,
		IdleTimeout: time.Minute, LogSize: 100_000}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.Addr != "" {
		if _, _, err := net.SplitHostPort(c.Addr); err != nil {
			errs = append(errs, fmt.Errorf("addr: want host:port (or empty), got %q", c.Addr))
		}
	}
	if c.Pace < 0 {
		errs = append(errs, fmt.Errorf("pace: must be >= 0, got %s", c.Pace))
	}
	if c.ChunkRunes < 1 {
		errs = append(errs, fmt.Errorf("chunk_runes: must be >= 1, got %d", c.ChunkRunes))
	}
	if c.MaxSentences < 1 {
		errs = append(errs, fmt.Errorf("max_sentences: must be >= 1, got %d", c.MaxSentences))
	}
	if c.IdleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("idle_timeout: must be > 0, got %s", c.IdleTimeout))
	}
	if c.LogSize < 0 || c.LogSize > 10_000_000 {
		errs = append(errs, fmt.Errorf("log_size: must be in [0,10000000], got %d", c.LogSize))
	}
	if c.SlowFirstDelay < 0 {
		errs = append(errs, fmt.Errorf("slow_first_delay: must be >= 0, got %s", c.SlowFirstDelay))
	}
	if c.StallDelay < 0 {
		errs = append(errs, fmt.Errorf("stall_delay: must be >= 0, got %s", c.StallDelay))
	}
	if c.HugeEventBytes < 0 {
		errs = append(errs, fmt.Errorf("huge_event_bytes: must be >= 0, got %d", c.HugeEventBytes))
	}
	for name, v := range map[string]float64{"invent": c.Faults.Invent, "split": c.Faults.Split,
		"malformed": c.Faults.Malformed, "repeat": c.Faults.Repeat, "leak": c.Faults.Leak,
		"contradict": c.Faults.Contradict, "uncited": c.Faults.Uncited, "disconnect": c.Faults.Disconnect,
		"slow_first": c.Faults.SlowFirst, "stall": c.Faults.Stall, "bad_json": c.Faults.BadJSON,
		"huge_event": c.Faults.HugeEvent, "refuse": c.Faults.Refuse, "paraphrase": c.Faults.Paraphrase, "alter": c.Faults.Alter} {
		if v < 0 || v > 1 {
			errs = append(errs, fmt.Errorf("faults.%s: must be in [0,1], got %g", name, v))
		}
	}
	return errors.Join(errs...)
}

// Record is what the simulated model did to one answer: the ground truth the
// quality bench scores the gauntlet and verifier against.
type Record struct {
	ID    string `json:"id"`
	Notes int    `json:"notes"` // notes found in the system prompt
	// Planner marks a reply of the scripted synthesis planner (planner.go).
	Planner    bool     `json:"planner,omitempty"`
	ValidCites []int    `json:"valid_cites"` // minted note numbers cited correctly (each occurrence)
	Invented   int      `json:"invented"`
	Split      int      `json:"split"`
	Malformed  int      `json:"malformed"`
	Repeated   int      `json:"repeated"`
	Leaked     []string `json:"leaked,omitempty"`
	Changed    []string `json:"changed,omitempty"` // "note n: old -> new" numbers changed against the source
	// Sentences are the cited sentences the paraphrase mode rewrote, in
	// answer order: faithful or altered, and how.
	Sentences []Sentence `json:"sentences,omitempty"`
	Uncited   int        `json:"uncited"`
	// UncitedFromNotes counts the uncited sentences taken from a note (a
	// citation the answer missed); the rest are unsupported filler.
	UncitedFromNotes int  `json:"uncited_from_notes"`
	Disconnect       bool `json:"disconnect"`
	SlowFirst        bool `json:"slow_first"`
	Stall            bool `json:"stall"`
	BadJSON          bool `json:"bad_json"`
	HugeEvent        bool `json:"huge_event"`
	Refused          bool `json:"refused"`
	ToolCall         bool `json:"tool_call"`
	Closed           bool `json:"closed"` // the client went away before the stream ended
}

// note is one footnote parsed from the system prompt.
type note struct {
	n    int
	text string
}

var noteLine = regexp.MustCompile(`(?m)^\[\^(\d+)\] (?:\([^)]*\) )?(.*)$`)

func parseNotes(system string) []note {
	var out []note
	for _, m := range noteLine.FindAllStringSubmatch(system, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		out = append(out, note{n: n, text: dropLead(dropHeadings(strings.TrimSpace(m[2])))})
	}
	return out
}

// headingRe matches a numbered section heading that opens a note's text
// once its lines are joined ("4. How to make a claim. 4.1 Call ...",
// "Section 6: General conditions. ..."): a section label, then at most eight
// words, the first capitalised, up to a full stop. A clause that ends in a
// colon is a list's lead, not a heading ("4.1 You must not store: (a)
// petrol; ..."): dropping it left "(a) petrol" as if it were allowed
// (operator trial 6).
var headingRe = regexp.MustCompile(`^(?:(?:Section|Part|Chapter|Article|Clause)\s+)?\d+(?:\.\d+)*[.:]?\s+[A-Z"“'][^\s.:!?]*(?:\s+[^\s.:!?]+){0,7}\.(?:\s|$)`)

// mayHead reports whether s opens as headingRe's matches do (a digit or a
// section label), so that most sentences skip the regexp.
func mayHead(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case 'S', 'P', 'C', 'A':
		return strings.HasPrefix(s, "Section") || strings.HasPrefix(s, "Part") || strings.HasPrefix(s, "Chapter") ||
			strings.HasPrefix(s, "Article") || strings.HasPrefix(s, "Clause")
	}
	return s[0] >= '0' && s[0] <= '9'
}

// dropHeadings removes the numbered headings that open a note's text, as a
// model answering from a Markdown section quotes its clauses, not the
// section's heading (which the chunk's title already carries). A note that
// is a heading and nothing else is kept whole, and so is a short numbered
// rule (see numberedClause).
func dropHeadings(s string) string {
	for {
		if !mayHead(s) {
			return s
		}
		m := headingRe.FindStringIndex(s)
		if m == nil || numberedClause(s[:m[1]]) {
			return s
		}
		rest := strings.TrimSpace(s[m[1]:])
		if rest == "" {
			return s
		}
		s = rest
	}
}

// clauseVerbs make a short numbered sentence a rule a model quotes, not a
// heading: "12. Dogs must be kept on a lead." (operator trial 7, a
// Markdown list of rules), against "3. Your right to cancel.".
var clauseVerbs = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "can": true, "cannot": true,
	"will": true, "must": true, "may": true, "should": true, "do": true, "does": true, "has": true, "have": true, "not": true}

// questionHeads open a heading phrased as a question without its mark
// ("4. What you must not store.", "4. How to make a claim.").
var questionHeads = map[string]bool{"what": true, "how": true, "when": true, "where": true, "who": true, "which": true, "why": true}

// numberedClause reports whether a headingRe match reads as a clause: "No"
// first (a prohibition) or a verb of clauseVerbs after its number, and no
// question word first.
func numberedClause(h string) bool {
	words := strings.Fields(strings.TrimRight(h, ". "))
	for i, w := range words {
		if i == 0 || (i == 1 && strings.IndexFunc(words[0], unicode.IsDigit) < 0) {
			continue // the label: "12.", "Section 6:"
		}
		w = strings.ToLower(strings.Trim(w, "\"'“”()"))
		if first := i == 1 || (i == 2 && strings.IndexFunc(words[0], unicode.IsDigit) < 0); first && questionHeads[w] {
			return false
		} else if first && w == "no" { // a prohibition: "11. No ball games."
			return true
		}
		if clauseVerbs[w] {
			return true
		}
	}
	return false
}

// qaLabel is a FAQ row's label before its question or its answer ("Q:",
// "Answer:").
var qaLabel = regexp.MustCompile(`^(?i:q|a|question|answer)\s*:\s+`)

// headingWords are words that make a short opening sentence a claim, not
// an unnumbered heading ("We are closed on Mondays.", not "Opening hours."):
// the verbs of clauseVerbs and the pronouns a claim opens with.
var headingWords = func() map[string]bool {
	m := maps.Clone(clauseVerbs)
	for _, w := range strings.Fields("we you it they our your this there") {
		m[w] = true
	}
	return m
}()

// dropLead removes what opens a note but is no claim a model would quote:
// an unnumbered heading (a Markdown page's "Opening hours", which the
// prompt ends with a full stop) and a FAQ row's question ("What is the
// deposit?"), with their Q:/A: labels. A note that is nothing else is kept
// whole.
func dropLead(s string) string {
	for {
		t := qaLabel.ReplaceAllString(s, "")
		if t == "" {
			return s
		}
		end := leadEnd(t)
		if end < 0 {
			return t
		}
		lead, rest := t[:end+1], strings.TrimSpace(t[end+1:])
		if rest == "" || !(lead[end] == '?' || isHeadingLead(lead) || isTitleLead(lead)) {
			return t
		}
		s = rest
	}
}

// leadEnd is the index of the punctuation that ends s's first sentence
// (a full stop, question or exclamation mark before a space or the end,
// not a decimal point), -1 when none does.
func leadEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			return i
		}
	}
	return -1
}

// isHeadingLead reports whether the sentence lead reads as a heading: at
// most six words, capitalised, without a digit, a semicolon, a colon or a
// word that makes a claim (headingWords), and with a comma only in a list
// of topics ("Fires, barbecues and gas.", listHeading).
func isHeadingLead(lead string) bool {
	words := strings.Fields(strings.TrimRight(lead, "."))
	if len(words) == 0 || len(words) > 6 || strings.ContainsAny(lead, "0123456789;:") || !unicode.IsUpper([]rune(lead)[0]) {
		return false
	}
	if strings.Contains(lead, ",") && !listHeading(strings.TrimRight(lead, ".")) {
		return false
	}
	for _, w := range words {
		if headingWords[strings.ToLower(strings.Trim(w, "\"'()"))] {
			return false
		}
	}
	return true
}

// isTitleLead reports whether the sentence lead reads as a document's
// title or a heading in capitals, which a model does not quote as a claim:
// a line in capitals ("SNOWLINE SKI SCHOOL: TERMS AND CONDITIONS OF
// BOOKING", "BOOKINGS AND PAYMENT", ended with a full stop by the prompt),
// or "Title: Subtitle" with every word of four or more letters capitalised
// ("Crag and Chalk: Terms of Membership"). Either has at most sixteen
// words and no word that makes a claim (headingWords, "no" first: "NO
// SMOKING ON SITE" is a rule).
func isTitleLead(lead string) bool {
	body := strings.TrimRight(lead, ".!? ")
	if !strings.Contains(body, ": ") && strings.IndexFunc(body, unicode.IsLower) >= 0 {
		return false // neither in capitals nor "Title: Subtitle": most sentences
	}
	words := strings.Fields(body)
	if len(words) == 0 || len(words) > 16 || strings.EqualFold(strings.Trim(words[0], "\"'()"), "no") {
		return false
	}
	letters, upper, capsWords := 0, 0, true
	for _, w := range words {
		w = strings.Trim(w, "\"'()“”‘’:,;&-")
		if headingWords[strings.ToLower(w)] {
			return false
		}
		if r := []rune(w); len(r) >= 4 && unicode.IsLetter(r[0]) && !unicode.IsUpper(r[0]) {
			capsWords = false
		}
	}
	for _, c := range body {
		if unicode.IsLetter(c) {
			letters++
			if unicode.IsUpper(c) {
				upper++
			}
		}
	}
	if letters >= 4 && upper == letters {
		return true
	}
	head, tail, ok := strings.Cut(body, ": ")
	return ok && capsWords && !strings.Contains(tail, ":") && len(strings.Fields(head)) <= 8 &&
		!strings.ContainsAny(body, "0123456789;") && unicode.IsUpper([]rune(strings.TrimSpace(tail) + " ")[0])
}

// listHeading reports whether a lead with commas is a list of topics:
// every comma-separated item is one to three words and the last joins the
// list's final item with "and", "or" or "&" ("Fires, barbecues and gas",
// "Pets, bikes, and prams"). "Yes, we do" and "Sorry, closed" are not.
func listHeading(lead string) bool {
	items := strings.Split(lead, ",")
	for _, it := range items {
		if n := len(strings.Fields(it)); n == 0 || n > 3 {
			return false
		}
	}
	last := strings.Fields(items[len(items)-1])
	joins := func(w string) bool { return w == "and" || w == "or" || w == "&" }
	return len(items) > 1 && len(last) > 1 && slices.ContainsFunc(last[:len(last)-1], joins)
}

// answer is one generated answer: the content pieces to stream, split
// points already decided, and the record of injected faults.
type answer struct {
	pieces    []string // content deltas, in order
	toolName  string   // non-empty: answer with a tool call instead of content
	toolArgs  string
	rec       Record
	stallAt   int // index of the event before which to stall (-1 = none)
	badAt     int
	hugeAt    int
	cutAt     int // disconnect before this piece (-1 = none)
	slowFirst bool
}

// chatRequest is the part of the request the simulator reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// numberRe finds a standalone quantity: digits not glued to letters,
// dashes, dots or slashes ("30 minutes", "2.0", "1,000"), so that a changed
// number is a factual change, not a corrupted identifier ("s3://", "x86-64",
// "/api/v2", "reset-2fa"). Group 1 is the number.
var numberRe = regexp.MustCompile(`(?:^|[\s(])(\d+(?:[.,]\d+)?)(?:$|[\s),;:%]|\.(?:\s|$))`)

// generator builds answers deterministically from a seed.
type generator struct {
	cfg Config
}

func (g generator) seedFor(body []byte) *rand.Rand {
	h := fnv.New64a()
	h.Write(body)
	return rand.New(rand.NewPCG(g.cfg.Seed, h.Sum64()))
}

// firstSentence returns the note's first sentence, trimmed to a sane length.
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			// skip decimals like 2.5 and short abbreviations
			if s[i] == '.' && i > 0 && i+1 < len(s) && s[i-1] >= '0' && s[i-1] <= '9' && s[i+1] >= '0' && s[i+1] <= '9' {
				continue
			}
			if i >= 20 {
				s = s[:i]
				break
			}
		}
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > 240 {
		// a long sentence is cut where a clause ends, as a model quoting
		// part of it would, never inside a word or a list item
		s = string([]rune(s)[:240])
		if i := strings.LastIndex(s, "; "); i >= 120 {
			s = s[:i]
		} else if i := strings.LastIndex(s, ", "); i >= 120 {
			s = s[:i]
		} else if i := strings.LastIndexByte(s, ' '); i >= 120 {
			s = s[:i]
		}
	}
	return strings.TrimRight(s, ".!? ")
}

var leakShapes = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
	},
	func(r *rand.Rand) string { return fmt.Sprintf("doc_%012x", r.Uint64()&0xffffffffffff) },
	func(r *rand.Rand) string { return fmt.Sprintf("chunk_%010x", r.Uint64()&0xffffffffff) },
}

func (g generator) build(req *chatRequest, body []byte, id string) answer {
	r := g.seedFor(body)
	f := g.cfg.Faults
	a := answer{stallAt: -1, badAt: -1, hugeAt: -1, cutAt: -1}
	a.rec.ID = id

	var system, user string
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			system += contentText(m.Content) + "\n"
		case "user":
			user = contentText(m.Content)
		}
	}
	if js, ok := scriptedJudge(system, user); ok { // judge.go
		a.pieces = chunk(js, g.cfg.ChunkRunes, nil, r)
		return a
	}
	if js, ok := scriptedPlanner(system, user, g.cfg.MaxSentences); ok { // planner.go
		a.pieces = chunk(js, g.cfg.ChunkRunes, nil, r)
		a.rec.Planner = true
		return a
	}
	if len(req.Tools) > 0 && string(req.ToolChoice) != `"none"` {
		a.toolName = req.Tools[0].Function.Name
		args, _ := json.Marshal(map[string]string{"query": user})
		a.toolArgs = string(args)
		a.rec.ToolCall = true
		return a
	}
	notes := parseNotes(system)
	a.rec.Notes = len(notes)
	maxN := 0
	for _, n := range notes {
		maxN = max(maxN, n.n)
	}

	var text strings.Builder
	var splitMarkers []int // byte offsets in text where a marker starts and should be split
	mark := func(n int) {
		if r.Float64() < f.Split {
			splitMarkers = append(splitMarkers, text.Len())
			a.rec.Split++
		}
		fmt.Fprintf(&text, "[^%d]", n)
	}
	if len(notes) == 0 {
		// No grounding: a general, uncited answer (the guard adds any disclaimer).
		q := questionSentence(user)
		if q == "" {
			q = "your question"
		}
		text.WriteString("Here is a general answer about " + q + ". ")
		text.WriteString("It is based on general knowledge rather than on a specific source.")
	} else {
		text.WriteString("Based on the notes: ")
		// Up to max_sentences cited sentences: each note's sentence that
		// best fits the question, then (when there are fewer notes than
		// that) their next best ones (pick.go).
		type pick struct {
			nt   note
			sent string
			next string // the sentence after sent in the note, for the uncited fault
		}
		asked := askedWords(user)
		ranked := make([][]int, len(notes))
		sents := make([][]string, len(notes))
		for i, nt := range notes {
			sents[i] = noteSentences(nt.text, maxNoteSentences)
			ranked[i] = rankSentences(sents[i], asked)
		}
		var picks []pick
		for j := 0; len(picks) < g.cfg.MaxSentences && j < g.cfg.MaxSentences; j++ {
			for i, nt := range notes {
				if len(picks) == g.cfg.MaxSentences {
					break
				}
				if j < len(ranked[i]) {
					k := ranked[i][j]
					pk := pick{nt: nt, sent: sents[i][k]}
					if k+1 < len(sents[i]) {
						pk.next = sents[i][k+1]
					}
					picks = append(picks, pk)
				}
			}
		}
		for _, pk := range picks {
			nt := pk.nt
			sent := pk.sent
			if f.Paraphrase > 0 && r.Float64() < f.Paraphrase {
				p := paraphrase(sent, r.Float64() < f.Alter, r)
				p.Note = nt.n
				sent = p.Text
				a.rec.Sentences = append(a.rec.Sentences, p)
			} else if r.Float64() < f.Contradict {
				if m := numberRe.FindStringSubmatchIndex(sent); m != nil {
					loc := m[2:4]
					old := sent[loc[0]:loc[1]]
					v, _ := strconv.ParseFloat(strings.ReplaceAll(old, ",", ""), 64)
					nv := strconv.FormatFloat(v*2+7, 'f', -1, 64)
					sent = sent[:loc[0]] + nv + sent[loc[1]:]
					a.rec.Changed = append(a.rec.Changed, fmt.Sprintf("note %d: %s -> %s", nt.n, old, nv))
				}
			}
			if r.Float64() < f.Leak {
				leak := leakShapes[r.IntN(len(leakShapes))](r)
				sent += " (ref " + leak + ")"
				a.rec.Leaked = append(a.rec.Leaked, leak)
			}
			text.WriteString(sent)
			text.WriteString(" ")
			mark(nt.n)
			a.rec.ValidCites = append(a.rec.ValidCites, nt.n)
			if r.Float64() < f.Invent {
				text.WriteString(" ")
				mark(maxN + 1 + r.IntN(50))
				a.rec.Invented++
			}
			if r.Float64() < f.Repeat {
				text.WriteString(" ")
				mark(nt.n)
				a.rec.Repeated++
			}
			if r.Float64() < f.Malformed {
				bad := []string{"[^%d", "[^x%d]", "[^ %d]", "[^^%d]"}[r.IntN(4)]
				text.WriteString(" " + fmt.Sprintf(bad, nt.n))
				a.rec.Malformed++
			}
			text.WriteString(". ")
			if r.Float64() < f.Uncited {
				// half the time a filler the notes do not support (a gap),
				// half the time the note's sentence after the quoted one
				// without its citation (a missed citation)
				if r.IntN(2) == 0 && len(pk.next) > 20 {
					text.WriteString(pk.next + ". ")
					a.rec.UncitedFromNotes++
				} else {
					text.WriteString("Most teams also review this every 90 days. ")
				}
				a.rec.Uncited++
			}
		}
	}
	a.pieces = chunk(strings.TrimSpace(text.String()), g.cfg.ChunkRunes, splitMarkers, r)
	n := len(a.pieces)
	if r.Float64() < f.Disconnect && n > 1 {
		a.cutAt = 1 + r.IntN(n-1)
		a.rec.Disconnect = true
	}
	if r.Float64() < f.SlowFirst {
		a.slowFirst = true
		a.rec.SlowFirst = true
	}
	if r.Float64() < f.Stall && n > 1 {
		a.stallAt = 1 + r.IntN(n-1)
		a.rec.Stall = true
	}
	// Positions are piece indexes the stream loop reaches (0..n-1); a fault
	// drawn at or after a cut is never sent, so it is not recorded either,
	// and a non-stream answer (sent whole) carries no stream fault at all.
	if r.Float64() < f.BadJSON && n > 0 {
		a.badAt = r.IntN(n)
		a.rec.BadJSON = true
	}
	if r.Float64() < f.HugeEvent && n > 0 {
		a.hugeAt = r.IntN(n)
		a.rec.HugeEvent = true
	}
	unsent := func(at int) bool { return !req.Stream || (a.cutAt >= 0 && at >= a.cutAt) }
	if a.stallAt >= 0 && unsent(a.stallAt) {
		a.stallAt, a.rec.Stall = -1, false
	}
	if a.badAt >= 0 && unsent(a.badAt) {
		a.badAt, a.rec.BadJSON = -1, false
	}
	if a.hugeAt >= 0 && unsent(a.hugeAt) {
		a.hugeAt, a.rec.HugeEvent = -1, false
	}
	if a.cutAt >= 0 && !req.Stream {
		a.cutAt, a.rec.Disconnect = -1, false
	}
	return a
}

// chunk cuts text into pieces of at most maxRunes runes, always on rune
// boundaries, and additionally cuts inside each marker listed in splits.
func chunk(text string, maxRunes int, splits []int, r *rand.Rand) []string {
	cut := map[int]bool{}
	for _, off := range splits {
		// cut 1..3 bytes into the marker "[^n]"
		cut[off+1+r.IntN(3)] = true
	}
	var out []string
	start, runes := 0, 0
	limit := 1 + r.IntN(maxRunes)
	for i := range text {
		if i > start && (runes >= limit || cut[i]) {
			out = append(out, text[start:i])
			start, runes = i, 0
			limit = 1 + r.IntN(maxRunes)
		}
		runes++
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// Log keeps the records of the most recent answers.
type Log struct {
	mu   sync.Mutex
	ring [][]Record     // the last max records in blocks of logBlock; record seq is in slot seq%max
	max  int            // capacity; ring grows up to it, then wraps
	seq  int            // records added so far
	byID map[string]int // completion id -> its seq, for the kept records
}

func newLog(n int) *Log { return &Log{max: n, byID: map[string]int{}} }

// logBlock is the size of the log's blocks: the log grows a block at a
// time, so a long load run never copies the records it already holds.
const logBlock = 4096

// at is the record in slot i.
func (l *Log) at(i int) *Record { return &l.ring[i/logBlock][i%logBlock] }

// add keeps r, dropping the oldest record when the log is full: O(1), so a
// long load run does not slow the simulated upstream down. A log of size 0
// keeps nothing.
func (l *Log) add(r Record) {
	if l.max == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seq < l.max {
		if len(l.ring) == 0 || len(l.ring[len(l.ring)-1]) == logBlock {
			l.ring = append(l.ring, nil)
		}
		last := &l.ring[len(l.ring)-1]
		*last = append(*last, r)
	} else {
		slot := l.at(l.seq % l.max)
		if old := slot.ID; l.byID[old] == l.seq-l.max {
			delete(l.byID, old)
		}
		*slot = r
	}
	l.byID[r.ID] = l.seq
	l.seq++
}

// find returns the slot of id's record, or -1. l.mu must be held.
func (l *Log) find(id string) int {
	seq, ok := l.byID[id]
	if !ok {
		return -1
	}
	return seq % l.max
}

func (l *Log) update(id string, fn func(*Record)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := l.find(id); i >= 0 {
		fn(l.at(i))
	}
}

// Records returns a copy of the kept records, oldest first.
func (l *Log) Records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(l.seq, l.max) // records kept
	out := make([]Record, 0, n)
	for seq := l.seq - n; seq < l.seq; seq++ {
		out = append(out, *l.at(seq % l.max))
	}
	return out
}

// Get returns the record of one answer by its completion id.
func (l *Log) Get(id string) (Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := l.find(id); i >= 0 {
		return *l.at(i), true
	}
	return Record{}, false
}
