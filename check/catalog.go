package check

import (
	"regexp"
	"sort"
	"strings"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
)

// catalog resolves what a document cites (an id, an address, a URL, a
// title) to live chunk slots of one partition.
type catalog struct {
	p        *index.Partition
	byURL    map[string][]int // normalised URL -> slots
	byPage   map[string][]int // normalised URL without fragment -> slots
	byTitle  map[string][]int // lower-case title -> slots
	titles   []string         // lower-case titles of at least minTitle chars, longest first
	patterns []*regexp.Regexp // address shapes (retrieve.address_patterns)
	maxChars int
}

func newCatalog(p *index.Partition, patterns []*regexp.Regexp, minTitle, maxChars int) *catalog {
	c := &catalog{p: p, byURL: map[string][]int{}, byPage: map[string][]int{}, byTitle: map[string][]int{},
		patterns: patterns, maxChars: maxChars}
	if p == nil {
		return c
	}
	for i, ch := range p.Chunks() {
		if ch.URL != "" {
			u := normURL(ch.URL)
			c.byURL[u] = append(c.byURL[u], i)
			if page, _, ok := strings.Cut(u, "#"); ok {
				c.byPage[page] = append(c.byPage[page], i)
			}
		}
		if t := strings.ToLower(strings.TrimSpace(ch.Title)); t != "" {
			if len(c.byTitle[t]) == 0 && len(t) >= minTitle {
				c.titles = append(c.titles, t)
			}
			c.byTitle[t] = append(c.byTitle[t], i)
		}
	}
	sort.SliceStable(c.titles, func(a, b int) bool { return len(c.titles[a]) > len(c.titles[b]) })
	return c
}

// normURL lower-cases scheme and host and drops a trailing slash.
func normURL(u string) string {
	u = strings.TrimSpace(u)
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		host, path, _ := strings.Cut(rest, "/")
		u = strings.ToLower(scheme) + "://" + strings.ToLower(host)
		if path != "" {
			u += "/" + path
		}
	}
	return strings.TrimSuffix(strings.Replace(u, "/#", "#", 1), "/")
}

// contains reports whether id is a citable id of the partition.
func (c *catalog) contains(id string) bool {
	return c.p != nil && c.p.Contains(id)
}

// byURLOrID resolves a link destination: the exact URL, the page (URL
// without fragment), the destination as an id, or its last path segment
// or fragment as an id.
func (c *catalog) byURLOrID(u string) ([]int, string) {
	if u == "" || c.p == nil {
		return nil, ""
	}
	n := normURL(u)
	if s := c.byURL[n]; len(s) > 0 {
		return s, "url"
	}
	if s := c.byPage[strings.SplitN(n, "#", 2)[0]]; len(s) > 0 && !strings.Contains(n, "#") {
		return s, "page"
	}
	if s := c.p.Resolve(u); len(s) > 0 {
		return s, "id"
	}
	_, rest, _ := strings.Cut(u, "://")
	if rest != "" {
		if s := c.p.Resolve(rest); len(s) > 0 { // corpus://hb-1-1
			return s, "id"
		}
	}
	seg := u
	if i := strings.LastIndexAny(strings.TrimRight(seg, "/"), "/#"); i >= 0 {
		seg = strings.TrimRight(seg, "/")[i+1:]
	}
	if seg != "" && seg != u {
		if s := c.p.Resolve(seg); len(s) > 0 {
			return s, "id"
		}
	}
	return nil, ""
}

var idTokenRE = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_\-.:/#@]*[A-Za-z0-9]`)

// resolve finds the slots a citation names: its URL, then its text taken
// as an id, an address or a title, then ids, URLs and addresses inside the
// text, then a title the text contains.
func (c *catalog) resolve(text, url string) ([]int, string) {
	if c.p == nil {
		return nil, ""
	}
	if s, how := c.byURLOrID(url); len(s) > 0 {
		return s, how
	}
	t := strings.TrimSpace(strings.Trim(plainText(text), "*_\"'.;, "))
	if t == "" {
		return nil, ""
	}
	if s := c.p.Resolve(t); len(s) > 0 {
		return s, "id"
	}
	if s := c.p.Address(t); len(s) > 0 {
		return s, "address"
	}
	lt := strings.ToLower(t)
	if s := c.byTitle[lt]; len(s) > 0 {
		return s, "title"
	}
	for _, u := range urlRE.FindAllString(t, 4) {
		if s, how := c.byURLOrID(strings.TrimRight(u, ".,;")); len(s) > 0 {
			return s, how
		}
	}
	for _, tok := range idTokenRE.FindAllString(t, 64) {
		if len(tok) >= 3 {
			if s := c.p.Resolve(tok); len(s) > 0 {
				return s, "id"
			}
		}
	}
	for _, re := range c.patterns {
		for _, m := range re.FindAllString(t, 8) {
			if s := c.p.Address(m); len(s) > 0 {
				return s, "address"
			}
		}
	}
	for _, title := range c.titles {
		if i := strings.Index(lt, title); i >= 0 && wordEdge(lt, i, i+len(title)) {
			return c.byTitle[title], "title"
		}
	}
	return nil, ""
}

func wordEdge(s string, i, j int) bool {
	alnum := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }
	return (i == 0 || !alnum(s[i-1])) && (j == len(s) || !alnum(s[j]))
}

// passage joins the chunks of slots into one passage (capped at maxChars),
// named by the document when all slots share one, and titled by what
// their titles share: a Markdown page's sections ("Page: Section") by the
// page, never by its first section (evidenceTitle names the section a
// verdict's evidence is in).
func (c *catalog) passage(slots []int) judge.Passage {
	var p judge.Passage
	var b strings.Builder
	doc := ""
	for i, s := range slots {
		ch := c.p.Chunk(s)
		if i == 0 {
			p.ID, p.Title, doc = ch.ID, ch.Title, ch.DocID
		} else {
			if ch.DocID != doc {
				doc = ""
			}
			if ch.Title != p.Title {
				p.Title = sharedTitle(p.Title, ch.Title)
			}
		}
		if b.Len() >= c.maxChars {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(ch.Text)
	}
	if len(slots) > 1 && doc != "" {
		p.ID = doc
	} else if len(slots) > 1 {
		p.ID += " (+" + itoa(len(slots)-1) + " more)"
	}
	p.Text = b.String()
	if len(p.Text) > c.maxChars {
		p.Text = p.Text[:c.maxChars]
	}
	return p
}

// sharedTitle is the page title two section titles ("Page: Section")
// share, or "".
func sharedTitle(a, b string) string {
	pa, _, oka := strings.Cut(a, ": ")
	pb, _, okb := strings.Cut(b, ": ")
	switch {
	case pa == pb && (oka || okb):
		return pa
	case !oka && a == pb:
		return a
	case !okb && b == pa:
		return b
	}
	return ""
}

// evidenceTitle returns the title of the chunk of slots whose text holds
// evidence (a span a verifier quoted from the passage of slots, perhaps
// clipped with "…"), and whether one does.
func (c *catalog) evidenceTitle(slots []int, evidence string) (string, bool) {
	probe := strings.TrimSpace(strings.TrimSuffix(evidence, "…"))
	if len(probe) > 80 {
		probe = probe[:80]
	}
	if probe == "" || len(slots) < 2 {
		return "", false
	}
	for _, s := range slots {
		if ch := c.p.Chunk(s); strings.Contains(ch.Text, probe) {
			return ch.Title, true
		}
	}
	return "", false
}
