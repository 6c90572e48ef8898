package index

import (
	"regexp"
	"strings"
)

// bookAliases maps squashed (lower-case, no spaces or dots) book names and
// common abbreviations to one canonical squashed name. The corpus may add
// more (a KJV line's book / book_abbr fields) at build time.
var bookAliases = func() map[string]string {
	m := map[string]string{}
	table := `genesis:ge,gen,gn|exodus:ex,exo,exod|leviticus:lev,lv,le|numbers:num,nu,nm,nb|deuteronomy:deut,deu,dt,de|
joshua:josh,jos,jsh|judges:judg,jdg,jdgs,jg|ruth:ru,rth|1samuel:1sam,1sm,1sa,1s|2samuel:2sam,2sm,2sa,2s|1kings:1kgs,1ki,1k|
2kings:2kgs,2ki,2k|1chronicles:1chr,1chron,1ch|2chronicles:2chr,2chron,2ch|ezra:ezr|nehemiah:neh,ne|esther:est,esth|job:jb|
psalms:ps,psa,psalm,pss,psm|proverbs:prov,prv,pr,pro|ecclesiastes:eccl,ecc,eccles,qoh|songofsolomon:song,sos,ssol,sg,songofsongs,canticles|
isaiah:isa,is|jeremiah:jer,je,jr|lamentations:lam,la|ezekiel:ezek,eze,ezk|daniel:dan,da,dn|hosea:hos,ho|joel:jl|amos:am|
obadiah:obad,ob|jonah:jon,jnh|micah:mic,mc|nahum:nah,na|habakkuk:hab,hb|zephaniah:zeph,zep,zp|haggai:hag,hg|zechariah:zech,zec,zc|
malachi:mal,ml|matthew:matt,mat,mt|mark:mrk,mk,mr|luke:luk,lk|john:jn,jhn,joh|acts:ac,act|romans:rom,ro,rm|
1corinthians:1cor,1co|2corinthians:2cor,2co|galatians:gal,ga|ephesians:eph,ephes|philippians:phil,php,phi,pp|colossians:col,co|
1thessalonians:1thess,1thes,1th|2thessalonians:2thess,2thes,2th|1timothy:1tim,1ti|2timothy:2tim,2ti|titus:tit,ti|
philemon:philem,phm,phmn|hebrews:heb|james:jas,jm|1peter:1pet,1pe,1pt,1p|2peter:2pet,2pe,2pt,2p|1john:1jn,1jhn,1jo|
2john:2jn,2jhn,2jo|3john:3jn,3jhn,3jo|jude:jud,jd|revelation:rev,re,rv,revelations`
	for _, entry := range strings.Split(strings.ReplaceAll(table, "\n", ""), "|") {
		name, abbrs, _ := strings.Cut(entry, ":")
		m[name] = name
		for _, a := range strings.Split(abbrs, ",") {
			m[a] = name
		}
	}
	// "hb" would shadow structural handbook addresses such as "HB 2.3";
	// Habakkuk keeps "hab".
	delete(m, "hb")
	return m
}()

var (
	addrRE = regexp.MustCompile(`^((?:[1-3]\s*)?[a-z][a-z .]*?)\s*\.?\s*(\d+(?:[:.]\d+)*)$`)
	// numSepRE finds a separator with loose spacing between two numbers
	// ("3 : 16", "5 .3"); dashRE a dash between a name and a number
	// ("LF-4002", "hb-5.3").
	numSepRE = regexp.MustCompile(`(\d)\s*([:.])\s*(\d)`)
	dashRE   = regexp.MustCompile(`([a-z.])\s*[-_/]\s*(\d)`)
)

// squash lower-cases s and drops spaces and dots: "1 Cor." -> "1cor".
func squash(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer(" ", "", ".", "", "\t", "").Replace(s)
}

// normalizeAddress maps an address ("John 3:16", "Jn 3:16", "1 Cor 13:4",
// "HB 2.3") to its lookup key ("john 3:16", "1corinthians 13:4", "hb 2.3"),
// the same way at index time and at query time, so case, spacing, a dot
// after the name and a dash before the number do not matter: "hb 5.3",
// "HB5.3", "Hb. 5.3" and "HB-5.3" are one key, as are "LF-4002", "lf 4002"
// and "LF4002", and "JOHN 3 : 16" and "jn 3:16";
// resolving book names through the built-in table and extra (squashed
// alias -> squashed canonical name, may be nil). Text that is not shaped
// like "<name> <numbers>" normalises to its lower-cased, space-collapsed
// form.
func normalizeAddress(s string, extra map[string]string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = numSepRE.ReplaceAllString(s, "$1$2$3")
	s = dashRE.ReplaceAllString(s, "$1 $2")
	m := addrRE.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	book := squash(m[1])
	if c, ok := extra[book]; ok {
		book = c
	} else if c, ok := bookAliases[book]; ok {
		book = c
	}
	return book + " " + m[2]
}
