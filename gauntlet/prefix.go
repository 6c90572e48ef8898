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

// tokenDFA answers earliest(t, 0) for the first lim bytes of a held token
// read from its start, one table step per byte, so that a Flush after each
// delta only reads the token's new bytes. newPrefixDFA builds one for a
// pattern, newProductDFA one for several patterns at once; both have this
// encoding, so Flush reads either with the same loop.
//
// A state of a pattern's DFA is what earliest would find about the bytes
// read so far: the match starts still possible (each with the automaton's
// positions after it; of two with the same positions only the earlier
// counts) up to the first one whose match is complete, and whether the last
// byte read was a word byte. A state of the product is a tuple of those.
// age[s] is how many bytes back the earliest start is (0: none), so
// earliest is the bytes read less age. States are stored premultiplied
// (state<<shift), which bounds a table to 1<<16 entries.
type tokenDFA struct {
	class [256]uint8 // byte -> class; 0 for a byte no token holds
	shift uint       // 1<<shift >= classes; at most 8 (classes are bytes)
	next  []uint16   // state<<shift + class -> next state<<shift; state 0 is the start
	age   []uint8    // by state
	// pair[class<<shift + class]: the state after two bytes read from the
	// start, one lookup where the first two steps would be two in a row.
	pair []uint16
}

// maxDFAStates bounds a pattern's DFA; a pattern that needs more keeps the
// prefixNFA scan.
const maxDFAStates = 4096

// step returns the state after reading c in state s (both premultiplied).
func (d *tokenDFA) step(s uint16, c byte) uint16 { return d.next[int(s)+int(d.class[c])] }

// run returns the state after reading b in state s.
func (d *tokenDFA) run(s uint16, b []byte) uint16 {
	if s == 0 && len(b) >= 2 {
		s, b = d.pair[int(d.class[b[0]])<<(d.shift&15)+int(d.class[b[1]])], b[2:]
	}
	next := d.next
	for _, c := range b {
		s = next[int(s)+int(d.class[c])]
	}
	return s
}

// ageOf returns how many bytes back from the last byte read in state s an
// id could start (0: nowhere).
func (d *tokenDFA) ageOf(s uint16) int { return int(d.age[s>>(d.shift&15)]) }

// dfaBuilder numbers the states of a tokenDFA by key as they are found and
// lays out their rows.
type dfaBuilder struct {
	d     *tokenDFA
	reps  []byte // a representative byte per class
	index map[string]int
	n     int // states found
}

// newDFABuilder sets the table's classes by sig (token bytes with equal
// signatures share a class) and returns a builder for its states.
func newDFABuilder(sig func(c byte) string) *dfaBuilder {
	b := &dfaBuilder{d: &tokenDFA{}, reps: []byte{0}, index: map[string]int{}}
	seen := map[string]uint8{}
	for c := range 256 {
		if class[c] != cTok {
			continue
		}
		key := sig(byte(c))
		k, ok := seen[key]
		if !ok {
			k = uint8(len(b.reps))
			seen[key] = k
			b.reps = append(b.reps, byte(c))
		}
		b.d.class[c] = k
	}
	for 1<<b.d.shift < len(b.reps) {
		b.d.shift++
	}
	return b
}

// state returns the number of the state with key, and whether it is new;
// it reports false when the table would outgrow max states or 16-bit
// premultiplied entries.
func (b *dfaBuilder) state(key string, max int) (n int, isNew, ok bool) {
	if n, found := b.index[key]; found {
		return n, false, true
	}
	if b.n == max || (b.n+1)<<b.d.shift > 1<<16 {
		return 0, false, false
	}
	b.index[key] = b.n
	b.n++
	return b.n - 1, true, true
}

// done fills in the pair table and returns the DFA.
func (b *dfaBuilder) done() *tokenDFA {
	d := b.d
	stride := 1 << d.shift
	d.pair = make([]uint16, stride*stride)
	for k := range stride {
		s := d.next[k]
		for j := range stride {
			d.pair[k*stride+j] = d.next[int(s)+j]
		}
	}
	return d
}

// row appends a state's row (by class, state numbers) and its age.
func (b *dfaBuilder) row(next []int, age int) {
	row := make([]uint16, 1<<b.d.shift)
	for k, n := range next {
		row[k] = uint16(n << b.d.shift)
	}
	b.d.next = append(b.d.next, row...)
	b.d.age = append(b.d.age, uint8(age))
}

type dfaCand struct {
	age  int
	set  uint64 // positions after the bytes read; 0 once the match is complete
	done bool
}

type dfaState struct {
	start, word bool // nothing read yet; the last byte read is a word byte
	cands       []dfaCand
}

func (s *dfaState) key() string {
	b := make([]byte, 0, 2+len(s.cands)*10)
	b = append(b, boolByte(s.start), boolByte(s.word))
	for _, c := range s.cands {
		b = append(b, byte(c.age), boolByte(c.done))
		for i := range 8 {
			b = append(b, byte(c.set>>(8*i)))
		}
	}
	return string(b)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// newPrefixDFA builds the DFA of a for tokens of up to lim bytes, or
// reports false when it would need more than maxDFAStates states.
func newPrefixDFA(a *prefixNFA, lim int) (*tokenDFA, bool) {
	// Token bytes fall into classes by the positions they match and
	// whether they are word bytes.
	b := newDFABuilder(func(c byte) string {
		return string(u64key(a.cls[c], uint64(boolByte(isWordByte(c)))))
	})
	states := []dfaState{{start: true}}
	depth := []int{0}
	b.state(states[0].key(), maxDFAStates)
	next := make([]int, len(b.reps))
	for i := 0; i < len(states); i++ {
		clear(next)
		if depth[i] < lim {
			for k := 1; k < len(b.reps); k++ {
				ns := a.dfaStep(states[i], b.reps[k])
				j, isNew, ok := b.state(ns.key(), maxDFAStates)
				if !ok {
					return nil, false
				}
				if isNew {
					states = append(states, ns)
					depth = append(depth, depth[i]+1)
				}
				next[k] = j
			}
		}
		age := 0
		if len(states[i].cands) > 0 {
			age = states[i].cands[0].age
		}
		b.row(next, age)
	}
	return b.done(), true
}

// dfaStep is the state after reading byte c in state s.
func (a *prefixNFA) dfaStep(s dfaState, c byte) dfaState {
	w := isWordByte(c)
	ns := dfaState{word: w}
	done := false
	for _, cd := range s.cands {
		if cd.done {
			ns.cands = append(ns.cands, dfaCand{age: cd.age + 1, done: true})
			done = true
			break
		}
		set := a.step(cd.set) & a.cls[c]
		if set == 0 {
			continue
		}
		if set&a.last != 0 {
			ns.cands = append(ns.cands, dfaCand{age: cd.age + 1, done: true})
			done = true
			break
		}
		ns.cands = append(ns.cands, dfaCand{age: cd.age + 1, set: set})
	}
	if !done && a.start[c] && (!a.leadB || s.start && w || !s.start && s.word != w) {
		set := a.cls[c] & a.first
		if set&a.last != 0 {
			ns.cands = append(ns.cands, dfaCand{age: 1, done: true})
		} else {
			ns.cands = append(ns.cands, dfaCand{age: 1, set: set})
		}
	}
	// Of two starts with the same positions only the earlier counts.
	out := ns.cands[:0]
	for i, cd := range ns.cands {
		dup := false
		for _, o := range ns.cands[:i] {
			if !cd.done && !o.done && o.set == cd.set {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, cd)
		}
	}
	ns.cands = out
	return ns
}

// newProductDFA builds the product of ds, one table step per byte for all
// their patterns at once, or reports false when its table would not fit
// 16-bit entries.
func newProductDFA(ds []tokenDFA) (*tokenDFA, bool) {
	b := newDFABuilder(func(c byte) string {
		sig := make([]byte, len(ds))
		for i := range ds {
			sig[i] = ds[i].class[c]
		}
		return string(sig)
	})
	states := [][]uint16{make([]uint16, len(ds))} // each DFA's premultiplied state
	b.state(string(u16key(states[0])), 1<<16)
	next := make([]int, len(b.reps))
	for i := 0; i < len(states); i++ {
		for k := 1; k < len(b.reps); k++ {
			ns := make([]uint16, len(ds))
			for j := range ds {
				ns[j] = ds[j].step(states[i][j], b.reps[k])
			}
			n, isNew, ok := b.state(string(u16key(ns)), 1<<16)
			if !ok {
				return nil, false
			}
			if isNew {
				states = append(states, ns)
			}
			next[k] = n
		}
		age := 0
		for j := range ds {
			age = max(age, ds[j].ageOf(states[i][j]))
		}
		b.row(next, age)
	}
	return b.done(), true
}

func u16key(s []uint16) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}

func u64key(vs ...uint64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		for i := range 8 {
			b = append(b, byte(v>>(8*i)))
		}
	}
	return b
}

// exactNFA reports whether re's prefixNFA decides its matches inside a
// token exactly: re has no empty-width assertion but a \b that starts it
// (which the automaton checks). A token holds ASCII bytes only, where the
// automaton's byte classes and re's rune classes agree.
func exactNFA(re *syntax.Regexp) bool {
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
		for _, sub := range re.Sub[1:] {
			if hasAssertion(sub) {
				return false
			}
		}
		return true
	}
	return !hasAssertion(re)
}

func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if hasAssertion(sub) {
			return true
		}
	}
	return false
}

// firstMatch returns where the leftmost match in t starting before lim
// starts, for an automaton that decides matches exactly (exactNFA); t
// starts the text.
func (a *prefixNFA) firstMatch(t []byte, lim int) (int, bool) {
	for q := range t[:lim] {
		if !a.start[t[q]] || a.leadB && !boundaryAt(t, q) {
			continue
		}
		d := a.cls[t[q]] & a.first
		for j := q + 1; d != 0 && d&a.last == 0 && j < len(t); j++ {
			d = a.step(d) & a.cls[t[j]]
		}
		if d&a.last != 0 {
			return q, true
		}
	}
	return 0, false
}
