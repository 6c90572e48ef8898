package index

import "testing"

// TestCheckUTF8 pins the bad line of a file that is not UTF-8, and that its
// command converts from Windows-1252: a Word export's curly apostrophe is the
// byte 0x92, which `iconv -f latin1` would turn into the control character
// U+0092 without complaint (operator trial 8).
func TestCheckUTF8(t *testing.T) {
	const cp1252 = "save the file as UTF-8 (from Windows-1252 or Latin-1, iconv -f cp1252 -t utf-8 converts it)"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"utf-8", "We don\u2019t take cheques \u2013 sorry, \u00a310.", ""},
		{"latin-1 letter", "Caf\xe9 mode", "not UTF-8 (byte 0xE9 at character 4): " + cp1252},
		{"windows-1252 apostrophe", "We don\x92t take cheques", "not UTF-8 (byte 0x92 at character 7): " + cp1252},
		{"windows-1252 dash after a letter", "Caf\xe9 \x96 open", "not UTF-8 (byte 0xE9 at character 4): " + cp1252},
		{"utf-16", "\xff\xfeW\x00", "UTF-16, not UTF-8: save the file as UTF-8 (iconv -f utf-16 -t utf-8 converts it)"},
	} {
		err := checkUTF8([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
