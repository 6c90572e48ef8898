package index

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"sync"
)

// demoVectorsFile holds the encoder vectors of the demo corpus's chunks,
// computed once by TestDemoVectors -update-demo-vectors, so that guard
// serve on the demo corpus (and every test that starts one) does not spend
// seconds of CPU encoding the same 200 passages at each start. The file
// names the encoder checksum it was computed with: with another encoder
// model it is ignored and the demo is encoded afresh, as any corpus is.
//
// Layout: "agdv1\n", the encoder checksum (64 hex bytes) and "\n", then
// uint32 count and uint32 dims (little endian), then count entries of the
// first 16 bytes of sha256(EncoderText) and dims little-endian float32s,
// sorted by key.
//
//go:embed demo/vectors.bin
var demoVectorsFile []byte

const demoVectorsMagic = "agdv1\n"

type demoKey [16]byte

func demoKeyOf(text string) demoKey {
	s := sha256.Sum256([]byte(text))
	return demoKey(s[:16])
}

// demoSeed is demoVectorsFile, checked and read in place: a vector is
// found by binary search over the sorted keys and decoded on each look-up,
// so the 2 MB of decoded floats are not held on the heap for the process's
// life (under the proxy's server.gc.percent 400 they were about 10 MB of
// heap at the peak).
type demoSeed struct {
	checksum string
	dims     int
	n        int
	entries  []byte // n entries of a 16-byte key and dims float32s
}

var loadDemoSeed = sync.OnceValues(func() (*demoSeed, error) { return decodeDemoVectors(demoVectorsFile) })

func decodeDemoVectors(b []byte) (*demoSeed, error) {
	if !bytes.HasPrefix(b, []byte(demoVectorsMagic)) || len(b) < len(demoVectorsMagic)+65+8 {
		return nil, errors.New("demo vectors: not a vectors file")
	}
	b = b[len(demoVectorsMagic):]
	s := &demoSeed{checksum: string(b[:64])}
	b = b[65:]
	n, d := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
	b = b[8:]
	if d <= 0 || d > 4096 || len(b) != n*(16+4*d) {
		return nil, fmt.Errorf("demo vectors: %d entries of %d dims do not fit %d bytes", n, d, len(b))
	}
	s.n, s.dims, s.entries = n, d, b
	return s, nil
}

// vec returns a fresh copy of the vector stored under k, or nil.
func (s *demoSeed) vec(k demoKey) []float32 {
	size := 16 + 4*s.dims
	i := sort.Search(s.n, func(i int) bool { return bytes.Compare(s.entries[i*size:i*size+16], k[:]) >= 0 })
	if i == s.n || !bytes.Equal(s.entries[i*size:i*size+16], k[:]) {
		return nil
	}
	e := s.entries[i*size+16 : (i+1)*size]
	v := make([]float32, s.dims)
	for j := range v {
		v[j] = math.Float32frombits(binary.LittleEndian.Uint32(e[4*j:]))
	}
	return v
}

// writeDemoVectors writes vecs (by EncoderText) computed with the encoder
// whose checksum is checksum in demoVectorsFile's layout.
func writeDemoVectors(w io.Writer, checksum string, vecs map[string][]float32) error {
	if len(checksum) != 64 {
		return fmt.Errorf("demo vectors: checksum %q is not 64 hex digits", checksum)
	}
	type entry struct {
		k demoKey
		v []float32
	}
	var es []entry
	d := 0
	for text, v := range vecs {
		if d == 0 {
			d = len(v)
		}
		if len(v) != d {
			return fmt.Errorf("demo vectors: %d dims after %d", len(v), d)
		}
		es = append(es, entry{demoKeyOf(text), v})
	}
	slices.SortFunc(es, func(a, b entry) int { return bytes.Compare(a.k[:], b.k[:]) })
	var buf bytes.Buffer
	buf.WriteString(demoVectorsMagic + checksum + "\n")
	buf.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(len(es))), uint32(d)))
	for _, e := range es {
		buf.Write(e.k[:])
		for _, x := range e.v {
			buf.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x)))
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}
