package gauntlet

import (
	"unicode/utf8"

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
	// CatalogPrefix reports whether s and a real id are prefix-related:
	// s is a prefix of an id, or an id is a prefix of s (matching as
	// Catalog does, ids that no token can hold, such as ids with a space,
	// may be left out). With it, a token held at the end of a delta is
	// released at once up to where an id could still start in it; without
	// it, when Catalog is set, a held token waits for its end. It must not
	// retain its argument. A stream asks about a token's one- or two-byte
	// start before the token itself and remembers the answer until Reset:
	// it does not ask again for an s that starts with one reported false
	// (no id can be related to it).
	CatalogPrefix func(s string) bool
	Cards         map[string]bool // addresses in this turn's source map (card markers)
	Actions       map[string]bool // actions that fired this turn (action markers)
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

	noteSrc  []int32 // N -> source index + 1; 0 = never minted
	srcs     []source
	cites    []Citation
	addrs    []string         // this turn's note addresses
	exempt   map[string]bool  // addrs and their words, built on first use
	exemptOK bool             // exempt is built for addrs
	byID     map[string]int32 // Reset's scratch: note ID -> source index + 1

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
	brWord   bool   // the released text ends in '[' and token bytes
	open     byte   // a '(' or '[' held back (after the held space, if any)
	openDel  bool   // a drop happened after the held opener

	long bool       // the held token is the tail of a longer, partly released one
	relN int        // bytes of the held token released early (Flush)
	word bool       // the held token is known to be letters only
	ctx  []byte     // its last released bytes (3/4 max_marker_len)
	win  []byte     // scratch: ctx + the bytes about to be released
	dfas []tokenDFA // spec.dfas (one load less per Flush)
	aSts []uint16   // their states after the held token's first aPos bytes
	aPos int        // 0: not read yet by Flush
	fLen int        // len(hold) at the last Flush that read it (aPos > 0)
	// catAsked holds CatalogPrefix's answers about token starts (related):
	// a bit for each one-byte (bit b) and two-byte (bit 128+b0<<7+b1)
	// start it related to no id, and from bit catYes on the same bits for
	// those it related to one.
	catAsked [2 * catYes / 64]uint64
	// noEarly: Flush releases nothing early (no prefix automata, or a
	// catalog without CatalogPrefix).
	noEarly bool
	// p8: the state WriteFlush's one-pass path needs holds (prose8ok).
	// prose8 sets it; Write, early, Close and Reset, which can change
	// that state, clear it.
	p8 bool

	q, q2 []byte // re-feed queue (bytes to process before the next input byte)
	qh    int

	carry  [utf8.UTFMax]byte
	ncarry int

	// The normalising path (normalize.go): input held back (an extended
	// token the next delta may continue), and scratch for normal forms.
	npend, nbuf, nwin []byte
	// nTail: npend opens with the rest of an extended token whose start
	// normWrite already decided as longer than max_marker_len, so that rest
	// is no id of its own (one write would not have cut the token there).
	nTail bool

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
		dfas: s.dfas,
		aSts: make([]uint16, len(s.dfas)),
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

// Put returns st to the spec's pool, closed or not. st, and any slice it
// returned (Citations), must not be used after Put. A pooled stream keeps
// nothing of its last response: no note, citation or address (the next
// Get's Reset starts it as New does).
func (s *Spec) Put(st *Stream) {
	if st == nil || st.spec != s {
		return
	}
	st.Reset(Options{})
	clear(st.srcs[:cap(st.srcs)])
	clear(st.cites[:cap(st.cites)])
	clear(st.addrs[:cap(st.addrs)])
	clear(st.exempt)
	clear(st.byID)
	st.exemptOK = false
	s.pool.Put(st)
}

// Reset readies st for a new response with o, keeping its buffers (for use
// from a sync.Pool).
func (st *Stream) Reset(o Options) {
	st.opt, st.p8 = o, false
	st.noEarly = st.spec.pre == nil || o.Catalog != nil && o.CatalogPrefix == nil
	st.catAsked = [len(st.catAsked)]uint64{}
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
	// Sources by note ID: a linear scan for the usual handful of notes, a
	// reused map beyond that. The exemption set is built on first use.
	small := len(o.Notes) <= 16
	if !small {
		if st.byID == nil {
			st.byID = make(map[string]int32, len(o.Notes))
		} else {
			clear(st.byID)
		}
	}
	st.addrs, st.exemptOK = st.addrs[:0], false
	for _, n := range o.Notes {
		if n.N <= 0 || n.N > maxN || st.noteSrc[n.N] != 0 {
			continue
		}
		var si int32
		if n.ID != "" {
			if small {
				for j := range st.srcs {
					if st.srcs[j].note.ID == n.ID {
						si = int32(j + 1)
						break
					}
				}
			} else {
				si = st.byID[n.ID]
			}
		}
		if si == 0 {
			st.srcs = append(st.srcs, source{note: n})
			si = int32(len(st.srcs))
			if !small && n.ID != "" {
				st.byID[n.ID] = si
			}
		}
		st.noteSrc[n.N] = si
		if n.Address != "" {
			st.addrs = append(st.addrs, n.Address)
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
	st.space, st.spaceDel, st.last, st.glue, st.brWord = false, false, 0, false, false
	st.open, st.openDel = 0, false
	st.q, st.q2, st.qh = st.q[:0], st.q2[:0], 0
	st.long, st.ctx, st.word, st.relN, st.aPos = false, st.ctx[:0], false, 0, 0
	st.ncarry = 0
	st.npend, st.nbuf, st.nwin = st.npend[:0], st.nbuf[:0], st.nwin[:0]
	st.nTail = false
	st.counts = [7]int{}
	st.kept = 0
	st.closed = false
}

// nextField returns the first field of s[i:] (fields are separated by
// spaces, tabs and newlines) and the index after it; "" when there is none.
func nextField(s string, i int) (string, int) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
		j++
	}
	return s[i:j], j
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
	st.p8 = false
	if st.closed {
		return dst
	}
	if st.needNorm(delta) {
		return st.normWrite(dst, delta, (*Stream).feed)
	}
	return st.lexWrite(dst, delta)
}

// lexWrite is Write without the normalising path.
func (st *Stream) lexWrite(dst, delta []byte) []byte {
	start, i := len(dst), 0
	if st.ncarry > 0 {
		dst = append(dst, st.carry[:st.ncarry]...)
		st.ncarry = 0
	} else if len(delta) > 0 && st.qh == len(st.q) && st.prose() {
		if len(delta) <= 8 {
			dst, i = st.fastWords8(dst, delta)
		} else {
			dst, i = st.fastWords(dst, delta)
		}
		if i == len(delta) {
			return dst // ASCII only: no incomplete sequence
		}
	}
	return st.write(dst, delta, start, i)
}

// write is Write's general loop from delta[i] on, with dst[start:] the
// output of this Write so far.
func (st *Stream) write(dst, delta []byte, start, i int) []byte {
	for i < len(delta) {
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
			j, lim := i, min(len(delta), i+st.spec.maxLen-len(st.hold))
			for j < lim && tokTab[delta[j]] == 1 {
				j++
			}
			if j < len(delta) && tokTab[delta[j]] == 0 && !st.long && (st.word || !hasNonLetter(st.hold)) {
				// A word held from the previous delta ends here as a word:
				// release it whole.
				st.hk = hNone
				dst = st.rel(dst, st.hold[st.relN:])
				st.hold, st.relN = st.hold[:0], 0
				if j > i { // letters: brWord stays as it is
					dst = append(dst, delta[i:j]...)
					st.last = delta[j-1]
				}
				st.term, st.col = false, -1
				i = j
				continue
			}
			// bulk-extend a token held from the previous delta
			st.word = false
			j = i
			for j < lim && tokTab[delta[j]] != 0 {
				j++
			}
			st.hold = append(st.hold, delta[i:j]...)
			if i = j; i >= len(delta) {
				break
			}
			if tokTab[delta[i]] == 0 { // the token ends here: decide it, go on at delta[i]
				dst = st.endToken(dst)
				continue
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
	if st.qh < len(st.q) {
		dst = st.drain(dst)
	}
	if n := len(dst); n == start || dst[n-1] < utf8.RuneSelf {
		return dst // ends in ASCII: no incomplete sequence
	}
	return st.cutCarry(dst, start)
}

// Flush appends to dst the part of a held token that no continuation can
// make part of a leaked id: the bytes before the first place where an id
// could still start in it (a prefix analysis of the id patterns, and
// Options.CatalogPrefix for the catalog). Call it when the next delta is not
// already at hand, before flushing output to the client: a token that ends
// a delta (the first word of an answer, "Based") then need not wait for the
// next delta to show where it ends. "In" goes out whole, "the" as "th" ('e'
// can start a hex id), "doc" not at all. The output as a whole does not
// depend on when, or whether, Flush is called.
func (st *Stream) Flush(dst []byte) []byte {
	if st.hk != hToken { // small enough to inline: most calls hold nothing
		return dst
	}
	return st.early(dst)
}

// Close ends the stream: it resolves or drops whatever is held back and
// appends the rest of the output to dst.
func (st *Stream) Close(dst []byte) []byte {
	st.p8 = false
	if st.closed {
		return dst
	}
	dst = append(dst, st.carry[:st.ncarry]...)
	st.ncarry = 0
	dst = st.normClose(dst)
	for {
		dst = st.drain(dst)
		if st.hk == hNone || st.hk == hDropTok || st.hk == hSkip {
			break
		}
		dst = st.flushHold(dst)
	}
	st.hk = hNone
	dst = st.endRun(dst)
	switch {
	case st.open != 0: // nothing closed it: it stays, with its space
		if st.space {
			dst = append(dst, ' ')
		}
		dst = append(dst, st.open)
	case st.space && !st.spaceDel:
		dst = append(dst, ' ')
	}
	st.space, st.spaceDel, st.open, st.openDel = false, false, 0, false
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
