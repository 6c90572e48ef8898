package gauntlet

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// normOptions is a catalog holding hb-0402 and doc-style ids.
func normOptions() Options {
	ids := []string{"hb-0402", "pool-guide"}
	return Options{
		Notes:         testNotes,
		Catalog:       func(id string) bool { return id == "hb-0402" || id == "pool-guide" },
		CatalogPrefix: prefixOf(ids...),
	}
}

// splits feeds s whole, byte by byte, and in 8-byte deltas, through Write
// and through WriteFlush, and returns each output.
func splits(t *testing.T, s *Spec, o Options, in string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, size := range []int{len(in), 1, 3, 8} {
		for _, wf := range []bool{false, true} {
			st := s.New(o)
			var b []byte
			for i := 0; i < len(in); i += size {
				d := []byte(in[i:min(len(in), i+size)])
				if wf {
					b = st.WriteFlush(b, d)
				} else {
					b = st.Write(b, d)
				}
			}
			b = st.Close(b)
			if !utf8.Valid(b) {
				t.Errorf("%q: invalid UTF-8 out %q", in, b)
			}
			key := map[bool]string{false: "Write", true: "WriteFlush"}[wf] + "/" + map[bool]string{true: "whole", false: "cut"}[size == len(in)]
			if prev, ok := out[key]; ok && prev != string(b) {
				t.Errorf("%q: output depends on the cut: %q vs %q", in, prev, b)
			}
			out[key] = string(b)
		}
	}
	return out
}

// Obfuscated ids are caught after normalising; the counts say leaked_id.
func TestNormalizedLeaks(t *testing.T) {
	s := testSpec(t)
	for _, in := range []string{
		"See hb\u200b-0402 now.",
		"See hb-04\u200d02 now.",
		"See hb\u20110402 now.",
		"See hb\u20130402 now.",
		"See \uff48\uff42\uff0d\uff10\uff14\uff10\uff12 now.",
		"See \u04bbb-0402 now.",
		"See h\u0432-0402 now.",
		"See hb%2D0402 now.",
		"See hb%2d0402 now.",
		"See **hb**-0402 now.",
		"See hb-04<!-- -->02 now.",
		"See hb-04<!---->02 now.",
		"See `hb-0402` now.",
		"See `` x hb-0402 `` now.",
		"Text\n```\ncode hb-0402 here\n```\nafter.",
		"Text\n~~~\nhb-0402\n~~~\n",
		"See pool\u2011guide now.",
		"See ~~hb~~-0402 now.",
	} {
		for key, got := range splits(t, s, normOptions(), in) {
			if strings.Contains(got, "0402") || strings.Contains(got, "02 now") && !strings.Contains(in, "pool") || strings.Contains(got, "guide") {
				t.Errorf("%s %q -> %q: the id got through", key, in, got)
			}
		}
		st := s.New(normOptions())
		st.Close(st.Write(nil, []byte(in)))
		if st.Counts().ByReason[string(LeakedID)] == 0 {
			t.Errorf("%q: no leaked_id counted: %+v", in, st.Counts())
		}
	}
}

// Ordinary prose in any script, markdown and code pass unchanged: the
// normalising path feeds the original bytes unless the normal form is a
// leaked id.
func TestNormalizedProseUnchanged(t *testing.T) {
	s := testSpec(t)
	for _, in := range []string{
		"Хорошо, бассейн открыт с 7 до 22 часов — каждый день.",
		"Η πισίνα είναι ανοιχτή — κάθε μέρα.",
		"The pool—open daily—has six lanes; see **lockers** and *sauna*.",
		"Prices: 50% off, 100%25 sure, a%2Dz is fine <b>bold</b> and <!-- note --> text.",
		"Fullwidth ＡＢＣ１２３ and ｈｂ－９９９９ stay.",
		"Use `pool-hours` and `x := y[2]` in code.\n```go\nfmt.Println(\"hb-9999\")\n```\nDone.",
		"Zero\u200bwidth joiner and soft\u00adhyphen stay.",
		"Mixed 日本語のテキスト。終わり。",
		"~~struck~~ text and ***strong*** words**",
	} {
		for key, got := range splits(t, s, normOptions(), in) {
			if got != in {
				t.Errorf("%s: %q -> %q, want it unchanged", key, in, got)
			}
		}
	}
}
