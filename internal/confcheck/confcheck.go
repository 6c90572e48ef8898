// Package confcheck implements the one-pass reading of guard's YAML
// configuration: it decodes a file onto a config struct and finds every
// problem at once (unknown keys with a did-you-mean, values of the wrong
// type, and, through Attach, what the sections' Validate methods report),
// each with its file, line and dotted key path, in plain words: no YAML
// tags or Go type names reach the operator.
//
// A key or list item with a problem is left out of the decode, so the rest
// of the file still decodes and validates and its problems are reported in
// the same run.
//
// A field tagged `confcheck:"unique"` is a list of single values (or a map
// of such lists) whose items must differ: an item listed twice (kbs: [a, a])
// is a problem at its line.
package confcheck

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Problem is one mistake in a configuration file.
type Problem struct {
	File string // "" when the text came from no file
	Line int    // 0 when the key is not in the file (a default, or a flag)
	Path string // dotted key path, e.g. gate.prefloor or auth.keys[0].tenant
	Msg  string // what is wrong, in plain words
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem of one file, in line order; as an error it is
// one problem per line.
type Problems []Problem

func (ps Problems) Error() string { return strings.Join(ps.Lines(), "\n") }

// Lines returns each problem as one line of text.
func (ps Problems) Lines() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// Err returns ps as an error, nil when there is no problem.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Sort orders ps by line (problems with no line last), then path.
func (ps Problems) Sort() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if (a.Line == 0) != (b.Line == 0) {
			return b.Line == 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Path < b.Path
	})
}

// File is a decoded configuration file: where each key path stands, for
// Attach.
type File struct {
	name  string
	lines map[string]int
	// moot holds the key paths whose value the file gave wrongly (left
	// out of the decode) or under a misspelt name (an unknown key with
	// one suggestion, the suggested key not set): what Validate says of
	// such a key, or of anything under it, is about the default left in
	// its place, a second report of the same mistake, and Attach drops it.
	moot map[string]bool
	// filled holds the lists with an item left out, decoded with a zero
	// value in its place (to keep the later items' indexes): what
	// Validate says of the list as a whole is about the filler.
	filled map[string]bool
	// bad holds the key paths the decode found a problem at.
	bad map[string]bool
}

// Decode decodes the YAML text b onto dst (a pointer to a struct already
// holding the defaults) and returns every problem it finds in one pass.
// name is the file's name for the messages. An empty file (or one of
// comments only) is a problem: on a reload it would silently reset every
// setting to its default.
func Decode(name string, b []byte, dst any) (*File, Problems) {
	f := &File{name: name, lines: map[string]int{}, moot: map[string]bool{}, filled: map[string]bool{}, bad: map[string]bool{}}
	var root yaml.Node
	if len(bytes.TrimSpace(b)) > 0 {
		if err := yaml.Unmarshal(b, &root); err != nil {
			return f, Problems{syntaxProblem(name, err)}
		}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode || len(root.Content[0].Content) == 0 {
		if len(root.Content) > 0 && root.Content[0].Kind != yaml.MappingNode && root.Content[0].Tag != "!!null" {
			return f, Problems{{File: name, Line: root.Content[0].Line, Msg: "the file must be a list of sections (key: value), not a single value or a list"}}
		}
		return f, Problems{{File: name, Msg: "empty: the file sets no keys (run without --config for the built-in defaults)"}}
	}
	w := walker{file: f}
	w.walk(root.Content[0], reflect.TypeOf(dst), "")
	if err := root.Content[0].Decode(dst); err != nil {
		// The walk removed every value it saw would not decode; whatever
		// is left is reported without the decoder's vocabulary.
		w.probs = append(w.probs, decodeProblems(name, err)...)
	}
	w.probs.Sort()
	return f, w.probs
}

// Attach turns what Validate methods returned (errors.Join of messages
// that start with a key path, "gate.prefloor: must be in [0,1], got 2")
// into problems placed at the key's line in the file (or its nearest
// enclosing key's). One mistake is one problem: the messages of one key
// are joined on one line ("must be in [0,1], got 2; must not exceed
// good_enough_max"); and left out are what is said of a value the decode
// already reported (or of a list that held one), and of a key the file
// does not set when the message names a key beside it that the file sets
// wrongly (top_k's default against a pool_cap of -7).
func (f *File) Attach(err error) Problems {
	var out Problems
	at := map[string]int{} // key path -> its problem in out
	for _, e := range unjoin(err) {
		msg := e.Error()
		p := Problem{File: f.name, Msg: msg}
		if path, rest, ok := strings.Cut(msg, ": "); ok && pathRE.MatchString(path) {
			if f.mooted(path) || f.filled[path] {
				continue
			}
			if i, dup := at[path]; dup {
				out[i].Msg += "; " + rest
				continue
			}
			at[path] = len(out)
			p.Path, p.Msg = path, rest
			p.Line = f.line(path)
		}
		out = append(out, p)
	}
	set := func(path string) bool { _, ok := f.lines[path]; return ok }
	kept := out[:0]
	for _, p := range out {
		if p.Path == "" || set(p.Path) || !f.namesCulprit(p, at, set) {
			kept = append(kept, p)
		}
	}
	return kept
}

var wordRE = regexp.MustCompile(`[a-z][a-z0-9_]*`)

// namesCulprit reports whether p's message names a key beside p's that
// the file sets and that has a problem of its own.
func (f *File) namesCulprit(p Problem, at map[string]int, set func(string) bool) bool {
	parent := ""
	if i := strings.LastIndexAny(p.Path, ".["); i >= 0 {
		parent = p.Path[:i]
	}
	for _, w := range wordRE.FindAllString(p.Msg, -1) {
		sib := joinPath(parent, w)
		if _, validated := at[sib]; sib != p.Path && set(sib) && (f.bad[sib] || validated) {
			return true
		}
	}
	return false
}

// mooted reports whether path, or a key path enclosing it, is in f.moot.
func (f *File) mooted(path string) bool {
	for path != "" {
		if f.moot[path] {
			return true
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return false
		}
		path = path[:i]
	}
	return false
}

// line returns the line of path in the file, or of its nearest enclosing
// key that is there; 0 when none is.
func (f *File) line(path string) int {
	for path != "" {
		if l, ok := f.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

var pathRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\]|\.[A-Za-z0-9_-]+)*$`)

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	return []error{err}
}

type walker struct {
	file  *File
	probs Problems
}

func (w *walker) add(n *yaml.Node, path, format string, args ...any) {
	w.file.bad[path] = true
	w.probs = append(w.probs, Problem{File: w.file.name, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

var durationType = reflect.TypeOf(time.Duration(0))

// walk checks n against t, records each key's line, reports what would
// not decode and removes it from n. It returns false when n itself must
// be left out by its parent.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return true // null leaves the default
	}
	switch {
	case t.Kind() == reflect.Struct && t != durationType:
		if n.Kind != yaml.MappingNode {
			w.add(n, path, "must be a section of keys (key: value), got %s", describe(n))
			return false
		}
		fields := map[string]reflect.Type{}
		unique := map[string]bool{}
		collectFields(t, fields, unique)
		kept := n.Content[:0]
		seen := map[string]int{}
		var misnamed []string // keys suggested for unknown ones
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				// <<: *anchor (or a list of them) sets the anchored
				// section's keys here, under the keys given beside it.
				w.walkMerge(v, t, path)
				kept = append(kept, k, v)
				continue
			}
			p := joinPath(path, k.Value)
			if first, dup := seen[k.Value]; dup {
				w.add(k, p, "set twice (first at line %d); give each key once", first)
				continue
			}
			seen[k.Value] = k.Line
			ft, ok := fields[k.Value]
			if !ok {
				msg := "unknown key"
				if s := suggest(k.Value, fields); len(s) > 0 {
					for i := range s {
						s[i] = joinPath(path, s[i])
					}
					msg += fmt.Sprintf(" (did you mean %s?)", orList(s))
					if len(s) == 1 {
						misnamed = append(misnamed, s[0])
					}
				}
				w.add(k, p, "%s", msg)
				continue
			}
			w.file.lines[p] = k.Line
			if w.walk(v, ft, p) {
				if unique[k.Value] {
					w.distinct(v, p)
				}
				kept = append(kept, k, v)
			} else {
				w.file.moot[p] = true
			}
		}
		for _, p := range misnamed {
			if _, set := seen[p[strings.LastIndexByte(p, '.')+1:]]; !set {
				w.file.moot[p] = true
			}
		}
		n.Content = kept
		return true
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			w.add(n, path, "must be a map of name: value, got %s", describe(n))
			return false
		}
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := joinPath(path, k.Value)
			w.file.lines[p] = k.Line
			if w.walk(k, t.Key(), p) && w.walk(v, t.Elem(), p) {
				kept = append(kept, k, v)
			} else {
				w.file.moot[p] = true
			}
		}
		n.Content = kept
		return true
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if n.Kind != yaml.SequenceNode {
			w.add(n, path, "must be a list, got %s", describe(n))
			return false
		}
		if t.Kind() == reflect.Array && len(n.Content) != t.Len() {
			w.add(n, path, "must be a list of exactly %d values, got %d", t.Len(), len(n.Content))
			return false
		}
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			w.file.lines[p] = c.Line
			if !w.walk(c, t.Elem(), p) {
				// A zero value in its place keeps the items after it
				// at their index, the one Validate names them by (the
				// decoder drops a null item of a struct type).
				n.Content[i] = zeroNode(t.Elem(), c)
				w.file.moot[p] = true
				w.file.filled[path] = true
			}
		}
		return true
	case t.Kind() == reflect.Interface:
		return true
	}
	// A single value.
	if n.Kind != yaml.ScalarNode {
		w.add(n, path, "must be a single value, got %s", describe(n))
		return false
	}
	if t == durationType && (n.Tag == "!!int" || n.Tag == "!!float") && n.Value != "0" {
		// The decoder would read 30 as 30 nanoseconds.
		w.add(n, path, "%s has no unit (write it like 500ms, 30s, 5m or 2h)", strconv.Quote(n.Value))
		return false
	}
	whole := t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr && t != durationType
	if err := n.Decode(reflect.New(t).Interface()); err != nil || whole && n.Tag == "!!float" {
		// (The decoder would cut 1.5 to 1 in a whole-number field.)
		w.add(n, path, "%s", scalarMessage(n.Value, t))
		return false
	}
	return true
}

// zeroNode is the zero value of t as a node, at c's place.
func zeroNode(t reflect.Type, c *yaml.Node) *yaml.Node {
	z := &yaml.Node{}
	if err := z.Encode(reflect.Zero(t).Interface()); err != nil {
		z = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	z.Line, z.Column = c.Line, c.Column
	return z
}

// walkMerge walks the sections a merge key (<<) brings into a section of
// type t at path: one, through an alias, or a list of them.
func (w *walker) walkMerge(v *yaml.Node, t reflect.Type, path string) {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		for _, c := range v.Content {
			w.walkMerge(c, t, path)
		}
		return
	}
	w.walk(v, t, path)
}

// describe names what a node is, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a section of keys"
	}
	return strconv.Quote(n.Value)
}

// scalarMessage says in plain words why v is not a value of type t.
func scalarMessage(v string, t reflect.Type) string {
	q := strconv.Quote(v)
	switch {
	case t == durationType:
		return q + " is not a duration (write it like 500ms, 30s, 5m or 2h)"
	case t.Kind() == reflect.Bool:
		return q + " is not true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return q + " is not a whole number (or is too large)"
		}
		return q + " is not a number"
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr:
		return q + " is not a whole number of zero or more"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return q + " is not a number"
	}
	return q + " is not a valid value here"
}

var lineRE = regexp.MustCompile(`line (\d+): `)

// syntaxProblem reports a file that is not YAML at all, with its line.
func syntaxProblem(name string, err error) Problem {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	p := Problem{File: name}
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
		p.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	p.Msg = "not valid YAML: " + msg
	return p
}

// decodeProblems reports what the decoder still refused after the walk
// (it should be nothing), with its lines and without its type names.
func decodeProblems(name string, err error) Problems {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return Problems{{File: name, Msg: "cannot be read: " + err.Error()}}
	}
	var out Problems
	for _, e := range te.Errors {
		p := Problem{File: name, Msg: "a value of the wrong kind"}
		if m := lineRE.FindStringSubmatch(e); m != nil {
			p.Line, _ = strconv.Atoi(m[1])
		}
		out = append(out, p)
	}
	return out
}

// collectFields records the YAML keys of struct t (inlined structs'
// included) with their types in out, and in unique those tagged
// confcheck:"unique".
func collectFields(t reflect.Type, out map[string]reflect.Type, unique map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			collectFields(f.Type, out, unique)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
		unique[name] = f.Tag.Get("confcheck") == "unique"
	}
}

// distinct reports each item of the list n (or of each list in the map n)
// at path that repeats an earlier one, at the repeat's line.
func (w *walker) distinct(n *yaml.Node, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.distinct(n.Content[i+1], joinPath(path, n.Content[i].Value))
		}
	case yaml.SequenceNode:
		first := map[string]int{}
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				continue
			}
			if at, dup := first[c.Value]; dup {
				w.add(c, fmt.Sprintf("%s[%d]", path, i), "%s is listed twice (first at line %d); list each once", strconv.Quote(c.Value), at)
				continue
			}
			first[c.Value] = c.Line
		}
	}
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// suggest returns the field names k likely meant, sorted: the one
// spelt alike but for case, _ and - (maxBodyBytes, max-body-bytes); else
// the closest by Damerau-Levenshtein distance when close enough to be a
// typo (typoBound: 1 for k of up to 4 bytes, 2 up to 8, 3 from 9, so a
// short word names no unrelated key: url is not dir); else the names
// that k begins (sha for sha256, reask for reask_limit), or that begin a
// one-word k, spelt right or within one edit (address and adress for
// addr), or that begin k at a word (similarity_threshold for
// similarity), or that end in _k (timeout for read_timeout), when there
// are at most three. None when nothing fits.
func suggest(k string, fields map[string]reflect.Type) []string {
	nk := normName(k)
	limit := typoBound(len(k))
	var best []string // the closest names within the limit
	bestD := limit + 1
	for name := range fields {
		if normName(name) == nk {
			return []string{name}
		}
		d := distance(k, name)
		if d > limit || d >= min(len(k), len(name)) {
			continue // (too far, or every letter changed)
		}
		switch {
		case d < bestD:
			best, bestD = []string{name}, d
		case d == bestD:
			best = append(best, name)
		}
	}
	if len(best) > 0 && len(best) <= 3 {
		sort.Strings(best)
		return best
	}
	var out []string
	if len(k) >= 3 {
		for name := range fields {
			if strings.HasPrefix(name, k) || len(name) >= 3 && strings.HasPrefix(k, name) && (len(name) == 3 || k[len(name)] == '_') ||
				len(name) >= 4 && !strings.Contains(k, "_") && beginsWithin(k, name, 1) || // address, adress for addr
				strings.HasSuffix(name, "_"+k) {
				out = append(out, name)
			}
		}
	}
	if len(out) > 3 {
		return nil
	}
	sort.Strings(out)
	return out
}

// typoBound is the largest edit distance suggest takes for a typo of a
// key of n bytes: it grows with the length, as a longer word has room
// for more slips.
func typoBound(n int) int { return min(3, (n+3)/4) }

// beginsWithin reports whether k begins with name misspelt by at most d
// edits: some prefix of k within d of name (adr... for addr).
func beginsWithin(k, name string, d int) bool {
	for n := max(1, len(name)-d); n <= min(len(k), len(name)+d); n++ {
		if distance(k[:n], name) <= d {
			return true
		}
	}
	return false
}

// normName folds a key name's case and drops its _ and - (suggest).
func normName(s string) string { return nameFolder.Replace(strings.ToLower(s)) }

var nameFolder = strings.NewReplacer("_", "", "-", "")

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// distance is the edit distance between a and b (bytes): insertions,
// deletions, substitutions and swaps of two neighbours (satte, state),
// each one edit.
func distance(a, b string) int {
	pp := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}
