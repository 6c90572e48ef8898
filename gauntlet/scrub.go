package gauntlet

import "strings"

// ScrubCatalog removes from text every token that isID reports as a real id
// of the tenant, by the stream's token rules (see "Leaked ids" in the
// package doc): a token holding a non-letter whole, or without the
// wrappers around it, or as a URL or path segment (then from the segment's
// start); a token of letters only (a slug id such as "lockers" is also a
// word) only where it stands as a reference, inside [..], <..>, {..} or
// `..`, so prose keeps its words. Tokens shorter than catalog_min_len, and
// all-digit tokens unless catalog_numbers, are not looked up; keep (may be
// nil) exempts a core, as a turn's addresses are exempt in the stream.
// The proxy applies it (through ScrubNote) to note texts before they reach
// the model, so one passage cannot put another passage's real id into the
// prompt.
func (s *Spec) ScrubCatalog(text string, isID func(string) bool, keep func(string) bool) string {
	if isID == nil {
		return text
	}
	n := NoteScrub{text: text}
	s.lookups(&n)
	return n.Apply(isID, keep)
}

// NoteScrub is a note text prepared for the model by one spec: Scrub
// applied, and the places in the result that ScrubCatalog would look up in
// a catalog (tokens and URL segments long enough, in the order it looks
// them up). It depends on the text and the spec only, never on a catalog
// or a turn, so it may be kept across turns, tenants and snapshots; Apply
// does the catalog lookups of one turn. Immutable once made.
type NoteScrub struct {
	src  string // the text it was made from (a cache hit is checked against it)
	text string // Scrub(src)
	toks []lookupTok
	segs []int32 // pairs of offsets into a token's core: segment start, end
}

// lookupTok is one token of NoteScrub.text that may hold a catalog id: its
// core is text[i:i+n], looked up whole first, then its URL segments
// segs[s0:s1].
type lookupTok struct {
	i, n, s0, s1 int32
}

// PrepareNote returns text prepared for ScrubNote.
func (s *Spec) PrepareNote(text string) *NoteScrub {
	n := &NoteScrub{src: text, text: s.Scrub(text)}
	s.lookups(n)
	return n
}

// Source is the text n was made from (the note cache checks a hit
// against it).
func (n *NoteScrub) Source() string { return n.src }

// Size is roughly the bytes n keeps, for the note cache's bound.
func (n *NoteScrub) Size() int {
	sz := 64 + len(n.src) + 16*len(n.toks) + 4*len(n.segs)
	if n.text != n.src {
		sz += len(n.text)
	}
	return sz
}

// lookups fills n.toks and n.segs from n.text: the token rules of
// ScrubCatalog without the catalog.
func (s *Spec) lookups(n *NoteScrub) {
	text := n.text
	for i := 0; i < len(text); {
		if class[text[i]] != cTok {
			i++
			continue
		}
		j := i
		for j < len(text) && class[text[j]] == cTok {
			j++
		}
		core := text[i : j-trailing([]byte(text[i:j]))]
		s.lookupTok(n, text, i, core)
		i = j
	}
}

// lookupTok appends core (the token at text[i:]) to n.toks when it may
// hold a catalog id.
func (s *Spec) lookupTok(n *NoteScrub, text string, i int, core string) {
	if len(core) < s.catalogMinLen {
		return
	}
	if !s.catalogNumbers && strings.Trim(core, "0123456789") == "" {
		return
	}
	t := lookupTok{i: int32(i), n: int32(len(core)), s0: int32(len(n.segs))}
	if !hasNonLetter([]byte(core)) {
		j := i + len(core)
		wrapped := i > 0 && j < len(text) && strings.IndexByte("[<{`", text[i-1]) >= 0 && strings.IndexByte("]>}`", text[j]) >= 0
		if wrapped {
			t.s1 = t.s0
			n.toks = append(n.toks, t)
		}
		return
	}
	start, split := 0, false
	for k := 0; k <= len(core); k++ {
		if k < len(core) && !isURLSep(core[k]) {
			continue
		}
		if k < len(core) {
			split = true
		}
		if split && k-start >= s.catalogMinLen {
			n.segs = append(n.segs, int32(start), int32(k))
		}
		start = k + 1
	}
	t.s1 = int32(len(n.segs))
	n.toks = append(n.toks, t)
}

// Apply returns the prepared text without the catalog ids isID reports,
// as ScrubCatalog would cut them (keep, may be nil, exempts a core); with
// a nil isID, the text as Scrub left it.
func (n *NoteScrub) Apply(isID, keep func(string) bool) string {
	if isID == nil {
		return n.text
	}
	text := n.text
	var b strings.Builder
	last := 0
	for _, t := range n.toks {
		i := int(t.i)
		core := text[i : i+int(t.n)]
		if keep != nil && keep(core) {
			continue
		}
		k, ok := 0, isID(core)
		for g := t.s0; !ok && g < t.s1; g += 2 {
			k, ok = int(n.segs[g]), isID(core[n.segs[g]:n.segs[g+1]])
		}
		if ok {
			b.WriteString(text[last : i+k])
			last = i + len(core)
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
