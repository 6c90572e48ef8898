package gauntlet

import (
	"math/bits"
	"regexp/syntax"
)

// prefixNFA is the position (Glushkov) automaton of one id pattern, used to
// find where in a held token an id could still start, whatever bytes follow.
//
// Its language is the pattern's with every empty-width assertion taken as
// true, except a \b that starts every match, which is kept exactly (the
// bytes on both sides of a match start inside a held token are known). So
// it accepts every real match, and a position it rules out can start no
// match in any continuation of the token: the bytes before it can be
// released at once.
type prefixNFA struct {
	cls   [256]uint64 // positions whose class holds the byte
	first uint64      // positions a match can start with
	last  uint64      // positions a match can end with
	succ  [8][256]uint64
	alpha [256]bool // bytes a match can hold
	start [256]bool // bytes a match can start with
	min   int       // the fewest bytes of a match
	leadB bool      // every match starts at a word boundary
}

// maxPositions bounds the automaton to one machine word of positions.
const maxPositions = 64

// newPrefixNFA builds the automaton of re, or reports false when re has
// more than maxPositions positions (after expanding counted repeats) or
// matches the empty string; the stream then holds every token whole.
func newPrefixNFA(re *syntax.Regexp) (*prefixNFA, bool) {
	re = re.Simplify()
	b := glushkov{}
	nullable, first, last := b.walk(re)
	if b.over || nullable || first == 0 {
		return nil, false
	}
	a := &prefixNFA{first: first, last: last, leadB: leadsWithBoundary(re)}
	for p, set := range b.cls {
		for c := range 256 {
			if set[c] {
				a.cls[c] |= 1 << p
			}
		}
	}
	// succ[k][v]: the followers of the positions at the bits v of byte k.
	for p, f := range b.follow {
		for v := range 256 {
			if v&(1<<(p%8)) != 0 {
				a.succ[p/8][v] |= f
			}
		}
	}
	for c := range 256 {
		a.alpha[c] = a.cls[c] != 0
		a.start[c] = a.cls[c]&first != 0
	}
	// min: the shortest path from a first to a last position.
	a.min = 1
	for d := first; d&last == 0; a.min++ {
		next := a.step(d) | d
		if next == d {
			return nil, false // no last position is reachable: matches nothing
		}
		d = next
	}
	return a, true
}

// step returns the positions that follow one in d.
func (a *prefixNFA) step(d uint64) uint64 {
	var n uint64
	for i := 0; d != 0; i, d = i+1, d>>8 {
		n |= a.succ[i][d&0xff]
	}
	return n
}

// leadsWithBoundary reports whether every match of re starts with \b.
func leadsWithBoundary(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpWordBoundary:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && leadsWithBoundary(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !leadsWithBoundary(s) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// glushkov collects the positions of a simplified regexp: each a byte
// class (ASCII only: a token holds no other byte) and its followers.
type glushkov struct {
	cls    [][256]bool
	follow []uint64
	over   bool
}

func (g *glushkov) pos(set [256]bool) uint64 {
	if len(g.cls) == maxPositions {
		g.over = true
		return 0
	}
	g.cls = append(g.cls, set)
	g.follow = append(g.follow, 0)
	return 1 << (len(g.cls) - 1)
}

func (g *glushkov) link(from, to uint64) {
	for from != 0 {
		p := bits.TrailingZeros64(from)
		from &= from - 1
		g.follow[p] |= to
	}
}

// walk returns whether re matches the empty string and its first and last
// positions, adding its positions and follow links.
func (g *glushkov) walk(re *syntax.Regexp) (nullable bool, first, last uint64) {
	if g.over {
		return false, 0, 0
	}
	switch re.Op {
	case syntax.OpLiteral:
		var prev uint64
		for i, r := range re.Rune {
			var set [256]bool
			markRune(&set, r, re.Flags&syntax.FoldCase != 0)
			p := g.pos(set)
			if i == 0 {
				first = p
			} else {
				g.link(prev, p)
			}
			prev = p
		}
		return len(re.Rune) == 0, first, prev
	case syntax.OpCharClass:
		var set [256]bool
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < 0x80; r++ {
				set[r] = true
			}
		}
		p := g.pos(set)
		return false, p, p
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		var set [256]bool
		for c := range 256 {
			set[c] = c != '\n' || re.Op == syntax.OpAnyChar
		}
		p := g.pos(set)
		return false, p, p
	case syntax.OpCapture:
		return g.walk(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		n, f, l := g.walk(re.Sub[0])
		if re.Op != syntax.OpQuest {
			g.link(l, f)
		}
		return n || re.Op != syntax.OpPlus, f, l
	case syntax.OpConcat:
		nullable = true
		for _, sub := range re.Sub {
			n, f, l := g.walk(sub)
			g.link(last, f)
			if nullable {
				first |= f
			}
			if n {
				last |= l
			} else {
				last = l
			}
			nullable = nullable && n
		}
		return nullable, first, last
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			n, f, l := g.walk(sub)
			nullable, first, last = nullable || n, first|f, last|l
		}
		return nullable, first, last
	case syntax.OpNoMatch:
		return false, 0, 0
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true, 0, 0 // assertions are taken as true
	}
	g.over = true // OpRepeat survives Simplify only when it cannot be expanded
	return false, 0, 0
}

// markRune marks the ASCII bytes rune r matches (with its case folds).
func markRune(set *[256]bool, r rune, fold bool) {
	if r < 0x80 {
		set[r] = true
	}
	if fold && r < 0x80 && isLetter(byte(r)) {
		set[r^0x20] = true
	}
	// Folds such as 'k' -> U+212A are not token bytes.
}

// boundaryAt reports whether \b holds before t[j] (t starts the text).
func boundaryAt(t []byte, j int) bool {
	if j == 0 {
		return isWordByte(t[0])
	}
	return isWordByte(t[j-1]) != isWordByte(t[j])
}

func isWordByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_'
}

// earliest returns the smallest q >= from such that a match of the pattern
// can start at t[q] in t followed by any continuation: t[q:] is a prefix of
// a match, or a match starts at q and ends inside t. It returns len(t) when
// there is none. t[:from] gives the context of a word boundary at from.
//
// A match is a run of alpha bytes: one still open at the end of t starts in
// t's trailing run of them, and one that ends inside t needs a run of at
// least min of them; only a start byte (at a word boundary for a pattern
// that starts with \b) is followed forward through the automaton.
func (a *prefixNFA) earliest(t []byte, from int) int {
	r := len(t)
	for r > from && a.alpha[t[r-1]] {
		r--
	}
	lo := r
	if r-from > a.min { // t[r-1] is not alpha: a run before it is shorter than r-from
		for q, run := from, 0; q < r; q++ {
			if run++; !a.alpha[t[q]] {
				run = 0
			} else if run >= a.min {
				lo = from
				break
			}
		}
	}
	for q := lo; q < len(t); q++ {
		if a.start[t[q]] && (!a.leadB || boundaryAt(t, q)) && a.viable(t, q) {
			return q
		}
	}
	return len(t)
}

// viable reports whether a match can start at t[q]: the automaton, read
// from q, reaches a last position or the end of t.
func (a *prefixNFA) viable(t []byte, q int) bool {
	d := a.cls[t[q]] & a.first
	for j := q + 1; d != 0 && d&a.last == 0 && j < len(t); j++ {
		d = a.step(d) & a.cls[t[j]]
	}
	return d != 0
}
