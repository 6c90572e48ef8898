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
// The proxy applies it to note texts before they reach the model, so one
// passage cannot put another passage's real id into the prompt.
func (s *Spec) ScrubCatalog(text string, isID func(string) bool, keep func(string) bool) string {
	if isID == nil {
		return text
	}
	var b strings.Builder
	last := 0
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
		if k, ok := s.catalogCut(text, i, core, isID, keep); ok {
			b.WriteString(text[last : i+k])
			last = i + len(core)
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// catalogCut reports whether core (the token at text[i:]) holds a catalog
// id and where the cut starts in it.
func (s *Spec) catalogCut(text string, i int, core string, isID, keep func(string) bool) (int, bool) {
	if len(core) < s.catalogMinLen || keep != nil && keep(core) {
		return 0, false
	}
	if !s.catalogNumbers && strings.Trim(core, "0123456789") == "" {
		return 0, false
	}
	if !hasNonLetter([]byte(core)) {
		j := i + len(core)
		wrapped := i > 0 && j < len(text) && strings.IndexByte("[<{`", text[i-1]) >= 0 && strings.IndexByte("]>}`", text[j]) >= 0
		return 0, wrapped && isID(core)
	}
	if isID(core) {
		return 0, true
	}
	start, split := 0, false
	for k := 0; k <= len(core); k++ {
		if k < len(core) && !isURLSep(core[k]) {
			continue
		}
		if k < len(core) {
			split = true
		}
		if seg := core[start:k]; split && len(seg) >= s.catalogMinLen && isID(seg) {
			return start, true
		}
		start = k + 1
	}
	return 0, false
}
