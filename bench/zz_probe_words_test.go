package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/wordvec"
)

func TestZZProbeWords(t *testing.T) {
	if os.Getenv("F4PROBE") == "" {
		t.Skip("a probe: F4PROBE=1")
	}
	e, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	pairs := [][2]string{{"pensioner", "senior"}, {"pensioners", "seniors"}, {"tyre", "puncture"}, {"flat tyre", "puncture"}, {"grandkids", "grandchildren"}, {"goldfish", "fish"}, {"refund", "money back"}, {"tune-up", "service"},
		{"rabbit", "dog"}, {"rabbits", "cats"}, {"samsung", "iphone"}, {"duck", "hen"}, {"ducks", "chickens"}, {"cafe", "library"}, {"dye", "clean"}, {"cafe", "coffee"}, {"price", "cost"}, {"car", "vehicle"}, {"car", "bicycle"}, {"parking", "car park"}}
	for _, p := range pairs {
		a, b := e.Embed(p[0]), e.Embed(p[1])
		fmt.Printf("%-12s %-14s use %.3f glove %.3f\n", p[0], p[1], encoder.Cosine(a, b), wv.Similarity(p[0], p[1]))
	}
}
