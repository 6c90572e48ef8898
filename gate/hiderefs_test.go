package gate

// The reference forms of the prompt's ref hiding, which the prompt now
// calls as hideGuardedSet with the bigram set of its note-text cache: the
// tests hold hideGuardedSet to them.

// hideRefs removes each of refs (ids and URLs) from s where it stands as a
// whole token: not glued to a letter, digit, '-', '_' or '.' before it, nor
// to a letter, digit, '-' or '_' after it (a trailing '.', ':', '/', '@' or
// '#' that ends the token may follow). A ref made of letters only (a slug
// such as "lockers") is an ordinary word as well: it is removed only where
// it stands as a reference (refContext), never from prose.
func hideRefs(s string, refs []string) string {
	return hideGuardedBy(s, refs, nil, false)
}

// hideGuarded is hideRefs, skipping the refs whose guard (refGuards; nil
// for none) s does not contain, and, when there are several refs, those
// with a pair of adjacent bytes s lacks (bigramSet).
func hideGuarded(s string, refs, guards []string) string {
	return hideGuardedBy(s, refs, guards, len(refs) >= bigramRefs)
}

func hideGuardedBy(s string, refs, guards []string, bigrams bool) string {
	var bs *bigramSet
	if bigrams {
		bs = newBigramSet(s)
	}
	return hideGuardedSet(s, refs, guards, bs)
}
