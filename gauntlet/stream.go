package gauntlet

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/answer-guard/guard/gate"
)

// Reason is why a marker or token was dropped. The values are stable
// snake_case keys for logs, metrics and guard.markers.by_reason.
type Reason string

// Drop reasons.
const (
	UnknownNumber    Reason = "unknown_number"     // [^n] / [n] with n never minted this turn
	Malformed        Reason = "malformed"          // broken footnote or card/action bracket
	RepeatInSentence Reason = "repeat_in_sentence" // the same source cited again in one sentence
	UnknownCard      Reason = "unknown_card"       // [card:A] with A not in this turn's source map
	UnknownAction    Reason = "unknown_action"     // [action:X] with X not fired this turn
	LeakedID         Reason = "leaked_id"          // an id-shaped token or a real catalog id
	Bailout          Reason = "bailout"            // any marker in fallback (bail-out) mode
)

// Reasons lists every Reason, in a stable order.
var Reasons = []Reason{UnknownNumber, Malformed, RepeatInSentence, UnknownCard, UnknownAction, LeakedID, Bailout}

func reasonIndex(r Reason) int {
	for i, x := range Reasons {
		if x == r {
			return i
		}
	}
	return 0
}

// Options configure one response's stream.
type Options struct {
	Notes   []gate.Note       // this turn's alias table (n -> real note)
	Bailout bool              // fallback mode: every marker is removed
	Catalog func(string) bool // true if a token is a real id of this tenant/kb; may be nil. It must not retain its argument.
	Cards   map[string]bool   // addresses in this turn's source map (card markers)
	Actions map[string]bool   // actions that fired this turn (action markers)
	// OnDrop, when set, is called for every drop with its reason and the
	// dropped bytes (valid only during the call), for the proxy's info log.
	OnDrop func(reason Reason, dropped []byte)
}

// Citation is one cited source, numbered by first appearance in the output.
type Citation struct {
	N       int    `json:"n"`
	ID      string `json:"id"`
	Title   string `json:"title"`
	Address string `json:"address"`
	URL     string `json:"url"`
}

// Counts are the marker counts of one response.
type Counts struct {
	Kept     int            `json:"kept"`
	Dropped  int            `json:"dropped"`
	ByReason map[string]int `json:"by_reason"`
}

type mode uint8

const (
	mText   mode = iota
	mInline      // inside an inline code span opened by codeN backticks
	mFence       // inside a fenced code block
)

type holdKind uint8

const (
	hNone    holdKind = iota
	hToken            // a token (possible id) is held
	hDropTok          // dropping the rest of a long token that held an id
	hMarker           // a possible marker "[..." is held
	hSkip             // dropping the tail of an overlong malformed marker
)

type mkState uint8

const (
	mkOpen   mkState = iota // "["
	mkPrefix                // a proper prefix of "[card:" / "[action:"
	mkCard                  // "[card:..." collecting the address
	mkAction                // "[action:..." collecting the name
	mkNum                   // "[", "[^", digits, list separators
	mkBad                   // broken footnote: waiting for ']'
)

// source is one cited-able source: notes sharing an ID are one source.
type source struct {
	note gate.Note
	out  int    // output number, 0 until first cited
	sent uint32 // sentence generation in which it was last cited
}

// Stream is the gauntlet for one response. It is not safe for concurrent use.
type Stream struct {
	spec *Spec
	opt  Options

	noteSrc []int32 // N -> source index + 1; 0 = never minted
	srcs    []source
	cites   []Citation
	exempt  map[string]bool // this turn's note addresses and their words

	// lexer state
	mode     mode
	hold     []byte
	hk       holdKind
	mk       mkState
	caret    bool // mkNum: a '^' was seen
	digits   int  // mkNum: digits of the current number
	needNum  bool // mkNum: a separator was seen, a number must follow
	btRun    int  // length of the current backtick run
	btLine   bool // the backtick run started at a line start
	tilde    int  // length of the current '~' run at a line start
	codeN    int  // backticks that opened the inline span
	fenceCh  byte
	fenceLen int
	fl       fenceLine
	col      int // spaces since line start; -1 after any other byte
	term     bool
	sentGen  uint32
	roll     uint32 // the last plain (non-ASCII) bytes, to see a CJK full stop
	space    bool   // a space is held back
	spaceDel bool   // a drop happened after the held space
	last     byte   // the last released text byte (0 at the start)
	glue     bool   // a drop happened right after a token byte or '['

	long bool   // the held token is the tail of a longer, partly released one
	ctx  []byte // its last released bytes (3/4 max_marker_len)
	win  []byte // scratch: ctx + the bytes about to be released

	q, q2 []byte // re-feed queue (bytes to process before the next input byte)
	qh    int

	carry  [utf8.UTFMax]byte
	ncarry int

	counts [7]int
	kept   int
	closed bool
}

type fenceLine struct {
	state  uint8 // 0 indent, 1 fence run, 2 trailing blanks, 3 not a closer
	indent int
	run    int
}

// New returns a stream for one response.
func (s *Spec) New(o Options) *Stream {
	st := &Stream{
		spec: s,
		hold: make([]byte, 0, s.maxLen+8),
		q:    make([]byte, 0, 2*s.maxLen+16),
		ctx:  make([]byte, 0, s.maxLen),
		win:  make([]byte, 0, 2*s.maxLen+8),
		q2:   make([]byte, 0, 2*s.maxLen+16),
	}
	st.Reset(o)
	return st
}

// Get returns a stream for o, reusing one from the spec's pool when it can.
// Give it back with Put once its output, Citations and Counts are consumed.
func (s *Spec) Get(o Options) *Stream {
	if st, ok := s.pool.Get().(*Stream); ok {
		st.Reset(o)
		return st
	}
	return s.New(o)
}

// Put returns st to the spec's pool. st, and any slice it returned
// (Citations), must not be used after Put.
func (s *Spec) Put(st *Stream) {
	if st == nil || st.spec != s {
		return
	}
	st.Reset(Options{})
	s.pool.Put(st)
}

// Reset readies st for a new response with o, keeping its buffers (for use
// from a sync.Pool).
func (st *Stream) Reset(o Options) {
	st.opt = o
	st.srcs = st.srcs[:0]
	st.cites = st.cites[:0]
	maxN := 0
	for _, n := range o.Notes {
		if n.N > maxN && n.N <= 1<<16 {
			maxN = n.N
		}
	}
	if cap(st.noteSrc) > maxN {
		st.noteSrc = st.noteSrc[:maxN+1]
		clear(st.noteSrc)
	} else {
		st.noteSrc = make([]int32, maxN+1)
	}
	if st.exempt == nil {
		st.exempt = make(map[string]bool, 2*len(o.Notes))
	} else {
		clear(st.exempt)
	}
	byID := make(map[string]int32, len(o.Notes))
	for _, n := range o.Notes {
		if n.N <= 0 || n.N > maxN || st.noteSrc[n.N] != 0 {
			continue
		}
		si, ok := byID[n.ID]
		if !ok || n.ID == "" {
			st.srcs = append(st.srcs, source{note: n})
			si = int32(len(st.srcs))
			byID[n.ID] = si
		}
		st.noteSrc[n.N] = si
		if n.Address != "" {
			st.exempt[n.Address] = true
			for _, f := range splitFields(n.Address) {
				st.exempt[f] = true
			}
		}
	}
	if cap(st.cites) < len(st.srcs) {
		st.cites = make([]Citation, 0, len(st.srcs))
	}
	st.mode, st.hk, st.mk = mText, hNone, mkOpen
	st.hold = st.hold[:0]
	st.caret, st.digits, st.needNum = false, 0, false
	st.btRun, st.btLine, st.tilde, st.codeN = 0, false, 0, 0
	st.fenceCh, st.fenceLen, st.fl = 0, 0, fenceLine{}
	st.col, st.term, st.sentGen, st.roll = 0, false, 1, 0
	st.space, st.spaceDel, st.last, st.glue = false, false, 0, false
	st.q, st.q2, st.qh = st.q[:0], st.q2[:0], 0
	st.long, st.ctx = false, st.ctx[:0]
	st.ncarry = 0
	st.counts = [7]int{}
	st.kept = 0
	st.closed = false
}

func splitFields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// Citations returns the cited sources in output order (N = 1..). The slice
// is owned by st and valid until Reset.
func (st *Stream) Citations() []Citation { return st.cites }

// Counts returns the marker counts so far; ByReason holds the non-zero
// reasons only.
func (st *Stream) Counts() Counts {
	c := Counts{Kept: st.kept, ByReason: map[string]int{}}
	for i, n := range st.counts {
		if n > 0 {
			c.Dropped += n
			c.ByReason[string(Reasons[i])] = n
		}
	}
	return c
}

// Write appends to dst the output releasable after the content delta and
// returns it. Output is split only on UTF-8 boundaries (an incomplete trailing
// sequence is held for the next call), so every returned piece is valid
// UTF-8 whenever the input as a whole is. Write after Close is a no-op.
func (st *Stream) Write(dst, delta []byte) []byte {
	if st.closed {
		return dst
	}
	start := len(dst)
	dst = append(dst, st.carry[:st.ncarry]...)
	st.ncarry = 0
	for i := 0; i < len(delta); {
		if st.qh < len(st.q) {
			dst = st.drain(dst)
		}
		if st.mode == mText && st.hk == hNone && st.btRun == 0 && st.tilde == 0 {
			var n int
			dst, n = st.fastText(dst, delta[i:])
			i += n
			if i >= len(delta) {
				break
			}
		} else if st.hk == hToken && st.mode == mText {
			// bulk-extend a token held from the previous delta
			j := i
			for j < len(delta) && class[delta[j]] == cTok && len(st.hold)+j-i < st.spec.maxLen {
				j++
			}
			st.hold = append(st.hold, delta[i:j]...)
			if i = j; i >= len(delta) {
				break
			}
		} else if st.mode != mText && st.btRun == 0 {
			var n int
			dst, n = st.fastCode(dst, delta[i:])
			i += n
			if i >= len(delta) {
				break
			}
		}
		dst = st.step(dst, delta[i])
		i++
	}
	dst = st.drain(dst)
	return st.cutCarry(dst, start)
}

// Close ends the stream: it resolves or drops whatever is held back and
// appends the rest of the output to dst.
func (st *Stream) Close(dst []byte) []byte {
	if st.closed {
		return dst
	}
	dst = append(dst, st.carry[:st.ncarry]...)
	st.ncarry = 0
	for {
		dst = st.drain(dst)
		if st.hk == hNone || st.hk == hDropTok || st.hk == hSkip {
			break
		}
		dst = st.flushHold(dst)
	}
	st.hk = hNone
	dst = st.endRun(dst)
	if st.space && !st.spaceDel {
		dst = append(dst, ' ')
	}
	st.space, st.spaceDel = false, false
	st.closed = true
	return dst
}

// cutCarry moves an incomplete UTF-8 sequence at the end of dst[start:] into
// the carry.
func (st *Stream) cutCarry(dst []byte, start int) []byte {
	out := dst[start:]
	n := len(out)
	for k := 1; k <= utf8.UTFMax-1 && k <= n; k++ {
		b := out[n-k]
		if b < 0x80 {
			return dst // ASCII: complete
		}
		if b >= 0xC0 { // a leading byte k bytes from the end
			need := 2
			if b >= 0xF0 {
				need = 4
			} else if b >= 0xE0 {
				need = 3
			}
			if need > k {
				st.ncarry = copy(st.carry[:], out[n-k:])
				return dst[:len(dst)-k]
			}
			return dst
		}
	}
	return dst
}

// push queues b to be processed before any remaining queued or input byte.
func (st *Stream) push(b ...byte) {
	rest := st.q[st.qh:]
	nq := append(st.q2[:0], b...)
	nq = append(nq, rest...)
	st.q2 = st.q[:0]
	st.q, st.qh = nq, 0
}

func (st *Stream) pushBytes(b []byte, c byte) {
	rest := st.q[st.qh:]
	nq := append(st.q2[:0], b...)
	nq = append(nq, c)
	nq = append(nq, rest...)
	st.q2 = st.q[:0]
	st.q, st.qh = nq, 0
}

func (st *Stream) drain(dst []byte) []byte {
	for st.qh < len(st.q) {
		c := st.q[st.qh]
		st.qh++
		dst = st.step(dst, c)
	}
	st.q, st.qh = st.q[:0], 0
	return dst
}

// closer reports whether a held space before a dropped item should go when
// c follows it.
func closer(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '.', ',', ';', ':', '!', '?', ')', ']':
		return true
	}
	return false
}

// glues reports whether c, released right after a drop that followed last,
// would join them into a new token, marker or fence.
func glues(last, c byte) bool {
	if last == '~' || last == '`' {
		return c == last
	}
	return (class[c] == cTok && c != '.' && c != ':') || c == '^' || c == ']'
}

// settle releases or discards the held space given the next output byte c.
// It also keeps a drop from gluing two tokens together: "ab[^9]cd" -> "ab cd".
func (st *Stream) settle(dst []byte, c byte) []byte {
	if st.space {
		if !st.spaceDel || !closer(c) || glues(st.last, c) {
			dst = append(dst, ' ')
			st.last = ' '
		} else if st.col > 0 {
			st.col-- // the line's indent is what the output shows
		}
		st.space, st.spaceDel = false, false
	} else if st.glue && glues(st.last, c) {
		dst = append(dst, ' ')
		st.last = ' '
	}
	st.glue = false
	return dst
}

func (st *Stream) rel(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	dst = st.settle(dst, b[0])
	st.last = b[len(b)-1]
	return append(dst, b...)
}

func (st *Stream) relByte(dst []byte, c byte) []byte {
	dst = st.settle(dst, c)
	st.last = c
	return append(dst, c)
}

func (st *Stream) drop(r Reason, b []byte) {
	if st.opt.Bailout && r != LeakedID {
		r = Bailout
	}
	st.counts[reasonIndex(r)]++
	if st.space {
		st.spaceDel = true
	} else if class[st.last] == cTok || st.last == '[' || st.last == '~' || st.last == '`' {
		st.glue = true
	}
	if st.opt.OnDrop != nil {
		st.opt.OnDrop(r, b)
	}
}

// Character classes of the text lexer.
const (
	cPlain   = iota // released at once
	cTok            // token byte: ASCII letter, digit, _ - . : / # @
	cSpace          // ' '
	cTerm           // '!' '?' (sentence end; '.' is a token byte)
	cSpecial        // '[' '`' '~' '\n' '\t' '\r': handled by step
)

var class [256]uint8

// tokTab is 0 for a non-token byte, 1 for a letter, 3 for another token byte.
var tokTab [256]uint8

func init() {
	for c := 'a'; c <= 'z'; c++ {
		class[c] = cTok
		class[c-'a'+'A'] = cTok
	}
	for c := '0'; c <= '9'; c++ {
		class[c] = cTok
	}
	for _, c := range "_-.:/#@" {
		class[c] = cTok
	}
	class[' '] = cSpace
	class['!'], class['?'] = cTerm, cTerm
	for _, c := range "[`~\n\t\r" {
		class[c] = cSpecial
	}
	for c := range 256 {
		if class[c] == cTok {
			tokTab[c] = 3
			if isLetter(byte(c)) {
				tokTab[c] = 1
			}
		}
	}
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// hasNonLetter reports whether a token holds a digit or punctuation: only
// such tokens are checked for ids (plain words never are).
func hasNonLetter(tok []byte) bool {
	for _, c := range tok {
		if !isLetter(c) {
			return true
		}
	}
	return false
}

// trailing reports how many trailing bytes of a token are punctuation that
// is not part of it.
func trailing(tok []byte) int {
	n := 0
	for i := len(tok) - 1; i >= 0; i-- {
		switch tok[i] {
		case '.', ':', '/', '#', '@', '-':
			n++
			continue
		}
		break
	}
	return n
}

// leaked reports whether the token core is a leaked id.
func (st *Stream) leaked(core []byte) bool {
	if len(core) == 0 || st.exempt[string(core)] {
		return false
	}
	if len(core) >= st.spec.minIDLen && st.spec.IDShaped(core) {
		return true
	}
	if st.opt.Catalog != nil && len(core) >= st.spec.catalogMinLen {
		if !st.spec.catalogNumbers {
			num := true
			for _, c := range core {
				if c < '0' || c > '9' {
					num = false
					break
				}
			}
			if num {
				return false
			}
		}
		return st.opt.Catalog(unsafe.String(&core[0], len(core)))
	}
	return false
}

// fastText processes p in plain text mode for as long as nothing needs the
// step machine; it returns how many bytes it consumed. Semantics are those
// of step, byte by byte.
func (st *Stream) fastText(dst, p []byte) ([]byte, int) {
	seg := 0 // start of the pending segment p[seg:i]
	i := 0
	term, col, gen, roll := st.term, st.col, st.sentGen, st.roll // kept in registers
	maxLen := st.spec.maxLen
loop:
	for i < len(p) {
		switch class[p[i]] {
		case cTok:
			j, nl := i, uint8(0)
			for j < len(p) {
				k := tokTab[p[j]]
				if k == 0 {
					break
				}
				nl |= k
				j++
			}
			if j == len(p) || j-i > maxLen {
				break loop // may continue in the next delta, or overlong: step handles it
			}
			if nl&2 != 0 { // not a plain word
				core := p[i : j-trailing(p[i:j])]
				if hasNonLetter(core) && st.leaked(core) {
					st.term, st.col, st.sentGen, st.roll = term, col, gen, 0
					dst = st.relSeg(dst, p[seg:i])
					st.drop(LeakedID, core)
					term, col, roll = st.term, st.col, 0
					seg = i + len(core)
					if seg == j { // nothing released: term and col stay
						i = j
						continue
					}
				}
			}
			term = p[j-1] == '.'
			col, roll = -1, 0
			i = j
		case cSpace:
			if term {
				gen++
			}
			term, roll = false, 0
			if col >= 0 {
				col++
			}
			i++
		case cPlain:
			term = false
			col = -1
			if roll = roll<<8 | uint32(p[i]); fullStop(roll) {
				gen++
			}
			i++
		case cTerm:
			term = true
			col, roll = -1, 0
			i++
		default:
			break loop
		}
	}
	st.term, st.col, st.sentGen, st.roll = term, col, gen, roll
	return st.relSeg(dst, p[seg:i]), i
}

// relSeg releases a segment of text, holding back a trailing space.
func (st *Stream) relSeg(dst, seg []byte) []byte {
	if len(seg) == 0 {
		return dst
	}
	if seg[len(seg)-1] == ' ' {
		dst = st.rel(dst, seg[:len(seg)-1])
		dst = st.settle(dst, ' ')
		st.space = true
		return dst
	}
	return st.rel(dst, seg)
}

// fastCode releases code bytes that cannot end the code region.
func (st *Stream) fastCode(dst, p []byte) ([]byte, int) {
	i := 0
	if st.mode == mInline {
		for i < len(p) && p[i] != '`' && p[i] != '\n' {
			i++
		}
	} else if st.fl.state == 3 {
		for i < len(p) && p[i] != '\n' {
			i++
		}
	}
	if i > 0 {
		st.last = p[i-1]
	}
	return append(dst, p[:i]...), i
}

// step processes one byte.
func (st *Stream) step(dst []byte, c byte) []byte {
	switch st.mode {
	case mInline:
		return st.stepInline(dst, c)
	case mFence:
		return st.stepFence(dst, c)
	}
	switch st.hk {
	case hToken:
		if class[c] == cTok {
			st.hold = append(st.hold, c)
			if len(st.hold) > st.spec.maxLen {
				dst = st.longToken(dst)
			}
			return dst
		}
		dst = st.endToken(dst)
		return st.step(dst, c)
	case hDropTok:
		if class[c] == cTok {
			return dst
		}
		st.hk = hNone
		return st.step(dst, c)
	case hMarker:
		return st.stepMarker(dst, c)
	case hSkip:
		switch c {
		case ']':
			st.hk = hNone
		case '\n':
			st.hk = hNone
			return st.step(dst, c)
		}
		return dst
	}
	// hNone, text mode.
	if st.btRun > 0 && c != '`' {
		dst = st.endRun(dst)
		return st.step(dst, c)
	}
	if st.tilde > 0 && c != '~' {
		dst = st.endRun(dst)
		return st.step(dst, c)
	}
	if class[c] != cPlain {
		st.roll = 0
	}
	switch c {
	case '`':
		if st.btRun == 0 {
			st.btLine = st.col >= 0 && st.col <= 3
		}
		st.btRun++
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	case '~':
		if st.tilde > 0 || (st.col >= 0 && st.col <= 3) {
			st.tilde++
		}
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	case '[':
		st.hk, st.mk = hMarker, mkOpen
		st.hold = append(st.hold[:0], c)
		return dst
	case ' ':
		dst = st.settle(dst, ' ')
		st.space = true
		if st.term {
			st.sentGen++
		}
		st.term = false
		if st.col >= 0 {
			st.col++
		}
		return dst
	case '\n':
		dst = st.relByte(dst, c)
		st.sentGen++
		st.term, st.col = false, 0
		return dst
	case '\t', '\r':
		if st.term {
			st.sentGen++
		}
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	}
	if class[c] == cTok {
		st.hk = hToken
		st.hold = append(st.hold[:0], c)
		st.long, st.ctx = false, st.ctx[:0]
		return dst
	}
	st.term = class[c] == cTerm
	st.col = -1
	if class[c] == cPlain {
		st.roll = st.roll<<8 | uint32(c)
		if fullStop(st.roll) {
			st.sentGen++
		}
	}
	return st.relByte(dst, c)
}

// fullStop reports whether the last plain bytes are a CJK sentence end
// (。！？), which ends a sentence without a following space.
func fullStop(roll uint32) bool {
	switch roll & 0xFFFFFF {
	case 0xE38082, 0xEFBC81, 0xEFBC9F:
		return true
	}
	return false
}

// endRun resolves a finished backtick or tilde run in text mode.
func (st *Stream) endRun(dst []byte) []byte {
	if st.btRun > 0 {
		if st.btLine && st.btRun >= 3 {
			st.mode, st.fenceCh, st.fenceLen = mFence, '`', st.btRun
			st.fl = fenceLine{state: 3}
		} else {
			st.mode, st.codeN = mInline, st.btRun
		}
		st.btRun = 0
	}
	if st.tilde > 0 {
		if st.tilde >= 3 {
			st.mode, st.fenceCh, st.fenceLen = mFence, '~', st.tilde
			st.fl = fenceLine{state: 3}
		}
		st.tilde = 0
	}
	return dst
}

// endToken decides a held token: release it or drop it as a leaked id.
func (st *Stream) endToken(dst []byte) []byte {
	tok := st.hold
	st.hk = hNone
	st.hold = st.hold[:0]
	core := tok[:len(tok)-trailing(tok)]
	if hasNonLetter(core) && st.leaked(core) || st.long && st.ctxLeaked(core) {
		st.drop(LeakedID, core)
		if len(core) == len(tok) {
			return dst // nothing released: term and col stay
		}
		dst = st.rel(dst, tok[len(core):])
	} else {
		dst = st.rel(dst, tok)
	}
	st.term = tok[len(tok)-1] == '.'
	st.col = -1
	return dst
}

// longToken handles a token that outgrew the hold-back: if the held window
// holds an id shape the whole token is dropped, else all but its last
// 3/4*max_marker_len bytes are released and the window slides on, so an id
// of up to that length inside a long token (a URL) is still caught.
//
// Every release is checked together with the token bytes released before it
// (ctx), so the released part is never id-shaped should the rest be dropped.
func (st *Stream) longToken(dst []byte) []byte {
	keep := st.spec.maxLen * 3 / 4
	n := len(st.hold) - keep
	if hasNonLetter(st.hold) && st.spec.IDShaped(st.hold) || st.ctxLeaked(st.hold[:n]) {
		st.drop(LeakedID, st.hold)
		st.hold = st.hold[:0]
		st.hk = hDropTok
		return dst
	}
	dst = st.rel(dst, st.hold[:n])
	st.ctx = append(st.ctx, st.hold[:n]...)
	if len(st.ctx) > keep {
		st.ctx = st.ctx[:copy(st.ctx, st.ctx[len(st.ctx)-keep:])]
	}
	st.hold = st.hold[:copy(st.hold, st.hold[n:])]
	st.long = true
	st.term, st.col = false, -1
	return dst
}

// ctxLeaked reports whether the last released bytes of a long token followed
// by b hold an id shape.
func (st *Stream) ctxLeaked(b []byte) bool {
	st.win = append(append(st.win[:0], st.ctx...), b...)
	return hasNonLetter(st.win) && st.spec.IDShaped(st.win)
}

func (st *Stream) stepInline(dst []byte, c byte) []byte {
	if c == '`' {
		st.btRun++
		st.last = c
		return append(dst, c)
	}
	if st.btRun > 0 {
		closed := st.btRun == st.codeN
		st.btRun = 0
		if closed {
			st.mode = mText
			st.term, st.col = false, -1
			return st.step(dst, c)
		}
	}
	if c == '\n' { // spans end at the end of the line
		st.mode = mText
		return st.step(dst, c)
	}
	st.last = c
	return append(dst, c)
}

func (st *Stream) stepFence(dst []byte, c byte) []byte {
	dst = append(dst, c)
	st.last = c
	fl := &st.fl
	if c == '\n' {
		if (fl.state == 1 || fl.state == 2) && fl.run >= st.fenceLen {
			st.mode = mText
			st.sentGen++
			st.term, st.col = false, 0
		}
		*fl = fenceLine{}
		return dst
	}
	switch fl.state {
	case 0:
		switch {
		case c == ' ' && fl.indent < 3:
			fl.indent++
		case c == st.fenceCh:
			fl.state, fl.run = 1, 1
		default:
			fl.state = 3
		}
	case 1:
		switch {
		case c == st.fenceCh:
			fl.run++
		case c == ' ' || c == '\t':
			fl.state = 2
		default:
			fl.state = 3
		}
	case 2:
		if c != ' ' && c != '\t' {
			fl.state = 3
		}
	}
	return dst
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// stepMarker advances a held "[..." by one byte.
func (st *Stream) stepMarker(dst []byte, c byte) []byte {
	s := st.spec
	switch st.mk {
	case mkOpen:
		switch {
		case c == '^' || isDigit(c):
			st.mk = mkNum
			st.caret, st.digits, st.needNum = c == '^', 0, c == '^'
			if isDigit(c) {
				st.digits = 1
			}
			st.hold = append(st.hold, c)
			return dst
		case c == s.card[1] || c == s.action[1]:
			st.mk = mkPrefix
			return st.stepMarker(dst, c)
		}
		return st.notMarker(dst, c)
	case mkPrefix:
		st.hold = append(st.hold, c)
		h := st.hold
		switch {
		case string(h) == s.card:
			st.mk = mkCard
		case string(h) == s.action:
			st.mk = mkAction
		case len(h) < len(s.card) && string(h) == s.card[:len(h)], len(h) < len(s.action) && string(h) == s.action[:len(h)]:
		default:
			st.hold = st.hold[:len(st.hold)-1]
			return st.notMarker(dst, c)
		}
		return dst
	case mkCard, mkAction:
		switch c {
		case ']':
			dst = st.resolveNamed(dst)
			return dst
		case '\n', '[', '`':
			st.malformed(st.hold)
			st.reset()
			return st.step(dst, c)
		}
		st.hold = append(st.hold, c)
		if len(st.hold) > s.maxLen {
			st.malformed(st.hold)
			st.reset()
			st.hk = hSkip
		}
		return dst
	case mkNum:
		switch {
		case len(st.hold) >= s.maxLen:
			return st.numBreak(dst, c)
		case isDigit(c) && st.digits < 6:
			st.digits++
			st.needNum = false
		case c == '^' && st.digits == 0 && st.hold[len(st.hold)-1] != '^':
			st.caret = true
			st.needNum = true
		case (c == ',' || c == ';') && st.digits > 0:
			st.digits = 0
			st.needNum = true
		case c == ' ' && st.needNum && st.digits == 0 && !st.caretLast():
		case c == ']' && st.digits > 0:
			st.hold = append(st.hold, c)
			return st.resolveNums(dst)
		default:
			return st.numBreak(dst, c)
		}
		st.hold = append(st.hold, c)
		return dst
	case mkBad:
		switch c {
		case ']':
			st.hold = append(st.hold, c)
			st.malformed(st.hold)
			st.reset()
			return dst
		case '[', '\n', '`':
			return st.badCut(dst, c, true)
		}
		st.hold = append(st.hold, c)
		if len(st.hold) > s.maxLen {
			return st.badCut(dst, 0, false)
		}
		return dst
	}
	return dst
}

// numBreak ends a footnote that c cannot continue: a broken footnote if it
// had a caret, plain text otherwise.
func (st *Stream) numBreak(dst []byte, c byte) []byte {
	if st.caret {
		st.mk = mkBad
		return st.stepMarker(dst, c)
	}
	return st.notMarker(dst, c)
}

func (st *Stream) caretLast() bool { return st.hold[len(st.hold)-1] == '^' }

func (st *Stream) reset() {
	st.hk = hNone
	st.hold = st.hold[:0]
}

// notMarker releases the held '[' as text and re-feeds the rest and c.
func (st *Stream) notMarker(dst []byte, c byte) []byte {
	dst = st.rel(dst, st.hold[:1])
	st.term, st.col = false, -1
	rest := st.hold[1:]
	st.hk = hNone
	st.pushBytes(rest, c)
	st.hold = st.hold[:0]
	return dst
}

// badCut ends a broken footnote that has no ']' in reach: it drops "[" plus
// the run of marker-ish bytes after it and re-feeds the rest (and c).
func (st *Stream) badCut(dst []byte, c byte, withC bool) []byte {
	h := st.hold
	n := 1
	for n < len(h) && (isDigit(h[n]) || isLetter(h[n]) || h[n] == '^' || h[n] == '_' || h[n] == '-') {
		n++
	}
	st.malformed(h[:n])
	st.hk = hNone
	if withC {
		st.pushBytes(h[n:], c)
	} else {
		st.push(h[n:]...)
	}
	st.hold = st.hold[:0]
	return dst
}

func (st *Stream) malformed(b []byte) { st.drop(Malformed, b) }

// resolveNamed decides a complete card or action marker.
func (st *Stream) resolveNamed(dst []byte) []byte {
	st.hold = append(st.hold, ']')
	m := st.hold
	var ok bool
	var r Reason
	if st.mk == mkCard {
		ok, r = st.opt.Cards[string(m[len(st.spec.card):len(m)-1])], UnknownCard
	} else {
		ok, r = st.opt.Actions[string(m[len(st.spec.action):len(m)-1])], UnknownAction
	}
	if ok && !st.opt.Bailout {
		st.kept++
		dst = st.rel(dst, m)
		st.term, st.col = false, -1
	} else {
		st.drop(r, m)
	}
	st.reset()
	return dst
}

// resolveNums decides a complete footnote marker or list "[^1][^2]",
// "[1, 2]", each number on its own.
func (st *Stream) resolveNums(dst []byte) []byte {
	m := st.hold
	for i := 1; i < len(m); {
		if !isDigit(m[i]) {
			i++
			continue
		}
		n, j := 0, i
		for j < len(m) && isDigit(m[j]) {
			n = n*10 + int(m[j]-'0')
			j++
		}
		dst = st.footnote(dst, n, m)
		i = j
	}
	st.reset()
	return dst
}

func (st *Stream) footnote(dst []byte, n int, m []byte) []byte {
	if n >= len(st.noteSrc) || st.noteSrc[n] == 0 {
		st.drop(UnknownNumber, m)
		return dst
	}
	if st.opt.Bailout {
		st.drop(Bailout, m)
		return dst
	}
	src := &st.srcs[st.noteSrc[n]-1]
	if src.sent == st.sentGen {
		st.drop(RepeatInSentence, m)
		return dst
	}
	src.sent = st.sentGen
	if src.out == 0 {
		src.out = len(st.cites) + 1
		nt := src.note
		st.cites = append(st.cites, Citation{N: src.out, ID: nt.ID, Title: nt.Title, Address: nt.Address, URL: nt.URL})
	}
	st.kept++
	dst = st.settle(dst, '[')
	st.last, st.term, st.col = ']', false, -1
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(src.out), 10)
	return append(dst, ']')
}

// flushHold ends whatever is held at the end of the stream.
func (st *Stream) flushHold(dst []byte) []byte {
	switch st.hk {
	case hToken:
		return st.endToken(dst)
	case hMarker:
		switch st.mk {
		case mkOpen, mkPrefix:
			dst = st.rel(dst, st.hold[:1])
			st.push(st.hold[1:]...)
			st.reset()
		case mkNum:
			if st.caret {
				return st.badCut(dst, 0, false)
			}
			dst = st.rel(dst, st.hold[:1])
			st.push(st.hold[1:]...)
			st.reset()
		case mkCard, mkAction:
			st.malformed(st.hold)
			st.reset()
		case mkBad:
			return st.badCut(dst, 0, false)
		}
	}
	return dst
}
