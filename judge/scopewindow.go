package judge

import "sync"

// scopeWindow is what readScope reads from an evidence window, kept across
// claims and turns: the window's clauses and their analyses depend on the
// window's text alone, and the same passage sentences are windows for many
// claims, while re-analysing them for each was most of the scope check's
// CPU. The analyses a claim needs only of the clause that carries it are
// made on first use. Shared read-only once made.
type scopeWindow struct {
	sents   []string // Split(window), for quotes
	folded  string   // the window lower-cased, each run of spaces one ' ' (quotesPart)
	lineAt  []bool   // lineAt[i]: folded[i] is a space that held a line break
	clauses []string
	terms   [][]term // analyse(clause)
	after   bool     // some clause opens with "after that", "otherwise" ...
	carry   []carried
}

// carried is one clause's analyses as the clause carrying a claim.
type carried struct {
	once    sync.Once
	ev      scopeInfo       // analyseScope(unbracket(clause))
	cond    map[string]bool // the stems of ev's conditions and exclusive words
	content []term          // analyse(normPhrases(clause))
}

func newScopeWindow(window string) *scopeWindow {
	w := &scopeWindow{sents: Split(window), clauses: scopeClauses(window)}
	w.folded, w.lineAt = foldLines(window)
	w.terms = make([][]term, len(w.clauses))
	for i, c := range w.clauses {
		w.terms[i] = analyse(c)
		w.after = w.after || analyseScope(c).after
	}
	w.carry = make([]carried, len(w.clauses))
	return w
}

// carrier returns clause i's analyses as the clause carrying a claim.
func (w *scopeWindow) carrier(i int) *carried {
	c := &w.carry[i]
	c.once.Do(func() {
		c.ev = analyseScope(unbracket(w.clauses[i]))
		c.cond = map[string]bool{}
		for _, k := range c.ev.conds {
			for _, t := range analyse(k.text) {
				c.cond[t.stem] = true
			}
		}
		for _, x := range c.ev.words {
			for _, t := range analyse(x.cue) {
				c.cond[t.stem] = true
			}
			for _, st := range x.stems {
				c.cond[st] = true
			}
		}
		c.content = analyse(normPhrases(w.clauses[i]))
	})
	return c
}

// scopeWindows keeps the windows readScope has read, keyed by their text;
// bounded: emptied when full.
var scopeWindows windowCache

type windowCache struct {
	m boundedMap[string, *scopeWindow]
}

const windowCacheMax = 2048

func (wc *windowCache) get(window string) *scopeWindow {
	return wc.m.get(window, windowCacheMax, func() *scopeWindow { return newScopeWindow(window) })
}
