package judge

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two sentences", "The sky is blue. Grass is green.", []string{"The sky is blue. ", "Grass is green."}},
		{"abbreviation", "Dr. Smith met Mr. Jones, e.g. at noon. They talked.", []string{"Dr. Smith met Mr. Jones, e.g. at noon. ", "They talked."}},
		{"decimal", "Pi is about 3.14 in value. It is irrational.", []string{"Pi is about 3.14 in value. ", "It is irrational."}},
		{"initial", "J. R. R. Tolkien wrote it. Yes.", []string{"J. R. R. Tolkien wrote it. ", "Yes."}},
		{"trailing citations", "Water boils at 100 degrees.[1][2] Ice melts at zero. [3] Done.", []string{"Water boils at 100 degrees.[1][2] ", "Ice melts at zero. [3] ", "Done."}},
		{"citation before dot", "Water boils at 100 C [1]. Next one.", []string{"Water boils at 100 C [1]. ", "Next one."}},
		{"list items", "Facts:\n1. The first item.\n2. The second item\n- a dash item\n", []string{"Facts:\n", "1. The first item.\n", "2. The second item\n", "- a dash item\n"}},
		{"lowercase after dot", "It costs approx. five dollars. Fine.", []string{"It costs approx. five dollars. ", "Fine."}},
		{"config key starts a sentence", "Backups are encrypted. backup.key_file names the key.", []string{"Backups are encrypted. ", "backup.key_file names the key."}},
		{"lowercase after a cited sentence", "Accounts lock after five attempts [1]. then an admin unlocks them [2].", []string{"Accounts lock after five attempts [1]. ", "then an admin unlocks them [2]."}},
		{"question and exclamation", "Is it? Yes! Indeed.", []string{"Is it? ", "Yes! Indeed."}},
		{"answer word opens the claim", "Yes! Dogs are welcome in the bar. They stay on a lead.", []string{"Yes! Dogs are welcome in the bar. ", "They stay on a lead."}},
		{"answer word alone", "No!", []string{"No!"}},
		{"answer word on its own line", "Yes!\nDogs are welcome.", []string{"Yes!\nDogs are welcome."}},
		{"answer word on its own line, blank line after", "No.\n\nDogs are not allowed in the bar. They stay outside.", []string{"No.\n\nDogs are not allowed in the bar. ", "They stay outside."}},
		{"yep on its own line", "Yep.\r\nThe pool opens at 7am.", []string{"Yep.\r\nThe pool opens at 7am."}},
		{"sure on its own line stays filler", "Sure!\nThe pool opens at 7am.", []string{"Sure!\n", "The pool opens at 7am."}},
		{"answer word ends a line of prose", "The answer is yes\nDogs are welcome.", []string{"The answer is yes\n", "Dogs are welcome."}},
		{"answer word mid-sentence ends nothing new", "The answer is yes. Dogs are welcome.", []string{"The answer is yes. ", "Dogs are welcome."}},
		{"quote close", "He said \"stop.\" Then left.", []string{"He said \"stop.\" ", "Then left."}},
		{"paragraphs", "One.\n\nTwo.", []string{"One.\n\n", "Two."}},
		{"section number after a colon", "Based on the notes: 6. Luggage, bicycles and animals. 6.1 You may take three items.", []string{"Based on the notes: 6. Luggage, bicycles and animals. ", "6.1 You may take three items."}},
		{"section number in a heading", "## 6. Luggage, bicycles and animals\nTwo dogs travel free.", []string{"## 6. Luggage, bicycles and animals\n", "Two dogs travel free."}},
		{"year after a colon ends", "Founded: 1998. We grew.", []string{"Founded: 1998. ", "We grew."}},
		{"number mid-line ends", "The total is 6. Then pay.", []string{"The total is 6. ", "Then pay."}},
		{"hashes mid-line", "Channel ## 6. Next one.", []string{"Channel ## 6. ", "Next one."}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitterStreamed feeds every test text in pieces of every size and
// checks the sentences are the same as when fed whole, and that no text is
// lost or duplicated.
func TestSplitterStreamed(t *testing.T) {
	texts := []string{
		"Water boils at 100 degrees.[1][2] Ice melts at zero. [3] Done.",
		"Dr. Smith met Mr. Jones, e.g. at noon. Pi is 3.14159 exactly [12]. The U.S. Army agreed.",
		"Facts:\n1. The first item [1].\n2. The second item\n- a dash item.\n\nEnd [2].",
		"Short. Another one! A third? \"Quoted.\" (Paren.) Last.",
		"Based on the notes: 6. Luggage, bicycles and animals.[1] ## 12. Fares\n### 3. Off-Peak [2]. Done: 1998. Yes.",
		"Yes!\nDogs are welcome [1]. No.\n\nCats are not. Yep,\r\nthe pool opens at 7am.",
	}
	for _, text := range texts {
		whole := Split(text)
		for size := 1; size <= 7; size++ {
			s := NewSplitter()
			var got []string
			for i := 0; i < len(text); i += size {
				got = append(got, s.Feed(text[i:min(len(text), i+size)])...)
			}
			got = append(got, s.Flush()...)
			if !reflect.DeepEqual(got, whole) {
				t.Errorf("pieces of %d of %q\n got %q\nwant %q", size, text, got, whole)
			}
			if j := strings.Join(got, ""); j != text {
				t.Errorf("pieces of %d: joined %q, want %q", size, j, text)
			}
			// FeedBytes, from a buffer reused for every piece (as the
			// proxy's), gives the same sentences
			sb, buf := NewSplitter(), make([]byte, 0, 8)
			var gotB []string
			for i := 0; i < len(text); i += size {
				buf = append(buf[:0], text[i:min(len(text), i+size)]...)
				gotB = append(gotB, sb.FeedBytes(buf)...)
				for k := range buf {
					buf[k] = '#'
				}
			}
			if gotB = append(gotB, sb.Flush()...); !reflect.DeepEqual(gotB, whole) {
				t.Errorf("FeedBytes, pieces of %d of %q\n got %q\nwant %q", size, text, gotB, whole)
			}
		}
	}
}

func TestSplitterEmitsEarly(t *testing.T) {
	s := NewSplitter()
	if got := s.Feed("First sentence here."); len(got) != 0 {
		t.Fatalf("Feed before lookahead = %q, want none", got)
	}
	if got := s.Feed(" [1]"); len(got) != 0 {
		t.Fatalf("Feed with pending citation = %q, want none", got)
	}
	got := s.Feed(" Second")
	if want := []string{"First sentence here. [1] "}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Feed = %q, want %q", got, want)
	}
	if got, want := s.Flush(), []string{"Second"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Flush = %q, want %q", got, want)
	}
	if got := s.Flush(); got != nil {
		t.Fatalf("second Flush = %q, want nil", got)
	}
}

func TestCitations(t *testing.T) {
	tests := []struct {
		in        string
		want      []int
		wantStrip string
	}{
		{"A fact [1][2].", []int{1, 2}, "A fact."},
		{"A fact [2] and [2] again [10].", []int{2, 10}, "A fact and again."},
		{"No cites.", nil, "No cites."},
	}
	for _, tt := range tests {
		if got := Citations(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Citations(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got := StripCitations(tt.in); got != tt.wantStrip {
			t.Errorf("StripCitations(%q) = %q, want %q", tt.in, got, tt.wantStrip)
		}
	}
}

func FuzzSplitter(f *testing.F) {
	for _, s := range []string{"A. B.", "Dr. X [1]. Y", "1. a\n2. b", "3.14 is pi. [2][3] ok", "\"q.\" x", "notes: 6. L", "## 6. H\nx", "Yes!\nx", "No.\n\nx. y"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, text string, size int) {
		if size < 1 || size > 64 {
			size = 1 + (size&63+64)%64
		}
		s := NewSplitter()
		var got []string
		for i := 0; i < len(text); i += size {
			got = append(got, s.Feed(text[i:min(len(text), i+size)])...)
		}
		got = append(got, s.Flush()...)
		if j := strings.Join(got, ""); j != text {
			t.Fatalf("joined %q, want %q", j, text)
		}
		whole := Split(text)
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("streamed %q != whole %q", got, whole)
		}
	})
}
