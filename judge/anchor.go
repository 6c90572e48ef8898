package judge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// squash returns the words of t as " w1 w2 ... ": lowercase letters and
// digits, with hyphens, slashes, whitespace, commas, semicolons and colons
// separating words and any other punctuation dropped, so that "T(H)2"
// reads "th2". It also returns the initials of those words, so that an
// acronym ("iPSC") can be found in its expansion ("induced pluripotent stem
// cells").
func squash(t string) (words, initials string) {
	b := make([]byte, 1, len(t)+2)
	b[0] = ' '
	in := make([]byte, 0, len(t)/4+1)
	start := true
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c >= 'A' && c <= 'Z':
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				if start && c >= 'a' {
					in = append(in, c)
				}
				start = false
				b = append(b, c)
			case c == '-' || c == '/' || c == ',' || c == ';' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if !start {
					b = append(b, ' ')
					start = true
				}
			}
			continue
		}
		r, sz := utf8.DecodeRuneInString(t[i:])
		i += sz
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			r = unicode.ToLower(r)
			if start && unicode.IsLetter(r) {
				in = utf8.AppendRune(in, r)
			}
			start = false
			b = utf8.AppendRune(b, r)
		case unicode.IsSpace(r):
			if !start {
				b = append(b, ' ')
				start = true
			}
		}
	}
	if !start {
		b = append(b, ' ')
	}
	return string(b), string(in)
}

// entityForms are the forms under which a claim entity is looked up in an
// evidence sentence besides its stem.
type entityForms struct {
	word    string // " th2 ": the squashed entity, padded
	plural  string // " th2s "
	acronym string // "ipsc": letters only, 3 to 6, plural s removed; "" if none
}

func formsOf(raw string) entityForms {
	if len(raw) < 3 {
		return entityForms{}
	}
	w, _ := squash(raw)
	f := entityForms{word: w, plural: strings.TrimSuffix(w, " ") + "s "}
	acr := strings.TrimSuffix(strings.TrimSpace(w), "s")
	if len(acr) < 3 || len(acr) > 6 {
		return f
	}
	for i := 0; i < len(acr); i++ {
		if acr[i] < 'a' || acr[i] > 'z' {
			return f
		}
	}
	f.acronym = acr
	return f
}

// in reports whether the entity occurs in s as a squashed word (plural
// allowed) or as the initials of consecutive words.
func (f entityForms) in(s *evSent) bool { return f.inWords(s.words, s.initials) }

// inWords reports whether the entity occurs in squashed words or as a run
// of initials (see squash).
func (f entityForms) inWords(words, initials string) bool {
	if f.word == "" {
		return false
	}
	if strings.Contains(words, f.word) || strings.Contains(words, f.plural) {
		return true
	}
	return f.acronym != "" && strings.Contains(initials, f.acronym)
}

// aliases returns the stems of the entities written alone in brackets in a
// claim ("dendritic cells (DCs)"): they name what precedes them.
func aliases(text string) map[string]bool {
	var m map[string]bool
	for {
		i := strings.IndexByte(text, '(')
		if i < 0 {
			return m
		}
		j := strings.IndexByte(text[i:], ')')
		if j < 0 {
			return m
		}
		if ts := analyse(text[i+1 : i+j]); len(ts) == 1 && ts[0].entity {
			if m == nil {
				m = map[string]bool{}
			}
			m[ts[0].stem] = true
		}
		text = text[i+j:]
	}
}
