package encoder

import (
	"math"

	"github.com/answer-guard/guard/index/encoder/modelfile"
	"github.com/answer-guard/guard/internal/resident"
	"github.com/viterin/vek/vek32"
)

// linear is a dense layer y = x·W + b with W kept transposed (one
// contiguous row per output), so each output is a dot product and the
// weights stream through the cache once per call however many tokens are
// in the batch. Weights stay int8 (wq, one scale per output) where the
// SIMD kernels are available (AVX-512: eight tokens per converted weight
// vector; AVX2 and FMA: four), else fp32 (wt).
type linear struct {
	in, out int
	wt      []float32 // out x in
	wq      []int8    // out x in
	scale   []float32 // per output, with wq
	bias    []float32
	// wr is wq untransposed (in x out), kept for layers fed by a ReLU
	// (sparse inputs: applySparse); nil elsewhere.
	wr []int8
}

func newLinear(m *modelfile.Matrix, bias []float32, a *resident.Arena) linear {
	l := linear{in: m.Rows, out: m.Cols, bias: bias}
	if m.Q != nil && m.PerColumn && haveDot2x4 && m.Rows%8 == 0 && m.Cols%2 == 0 {
		l.wq, l.scale = resident.Make[int8](a, len(m.Q)), m.Scale
		for r := 0; r < m.Rows; r++ {
			for c := 0; c < m.Cols; c++ {
				l.wq[c*m.Rows+r] = m.Q[r*m.Cols+c]
			}
		}
		return l
	}
	data := m.Float()
	l.wt = make([]float32, len(data))
	for r := 0; r < m.Rows; r++ {
		for c := 0; c < m.Cols; c++ {
			l.wt[c*m.Rows+r] = data[r*m.Cols+c]
		}
	}
	return l
}

// apply writes x·W + b for n rows of x (n x in) into dst (n x out); pad
// is scratch for a last, zero-padded block of rows.
func (l *linear) apply(dst, x []float32, n int, pad *[]float32) {
	in, out := l.in, l.out
	if l.wq != nil {
		if haveDot8x2 && in%16 == 0 {
			l.apply8(dst, x, n, pad)
		} else {
			l.apply4(dst, x, n, pad)
		}
		return
	}
	c := 0
	if haveDot2x4 && in%8 == 0 && n >= 4 {
		var acc [8]float32
		for ; c+2 <= out; c += 2 {
			b0, b1 := l.bias[c], l.bias[c+1]
			t := 0
			for ; t+4 <= n; t += 4 {
				dot2x4(&x[t*in], in, &l.wt[c*in], in, in, &acc)
				for k := 0; k < 4; k++ {
					dst[(t+k)*out+c] = acc[2*k] + b0
					dst[(t+k)*out+c+1] = acc[2*k+1] + b1
				}
			}
			for ; t < n; t++ {
				xt := x[t*in : (t+1)*in]
				dst[t*out+c] = vek32.Dot(xt, l.wt[c*in:(c+1)*in]) + b0
				dst[t*out+c+1] = vek32.Dot(xt, l.wt[(c+1)*in:(c+2)*in]) + b1
			}
		}
	}
	for ; c < out; c++ {
		w := l.wt[c*in : (c+1)*in]
		b := l.bias[c]
		for t := 0; t < n; t++ {
			dst[t*out+c] = vek32.Dot(x[t*in:(t+1)*in], w) + b
		}
	}
}

// apply4 is apply with the AVX2 kernels over int8 weights: blocks of four
// rows, then one of two; a last odd row comes from a zero-padded copy.
func (l *linear) apply4(dst, x []float32, n int, pad *[]float32) {
	in, out := l.in, l.out
	full := n &^ 3
	pair := full + (n-full)&^1
	var xp []float32
	if pair < n {
		*pad = grow(*pad, 2*in)
		xp = *pad
		clear(xp)
		copy(xp, x[pair*in:n*in])
	}
	var acc [8]float32
	var acc2 [4]float32
	for c := 0; c+2 <= out; c += 2 {
		s0, s1 := l.scale[c], l.scale[c+1]
		b0, b1 := l.bias[c], l.bias[c+1]
		w := &l.wq[c*in]
		for t := 0; t < full; t += 4 {
			dot2x4q(&x[t*in], in, w, in, in, &acc)
			for k := 0; k < 4; k++ {
				dst[(t+k)*out+c] = acc[2*k]*s0 + b0
				dst[(t+k)*out+c+1] = acc[2*k+1]*s1 + b1
			}
		}
		for t := full; t < n; t += 2 {
			src, rows := &x[t*in], 2
			if t >= pair {
				src, rows = &xp[0], 1
			}
			dot2x2q(src, in, w, in, in, &acc2)
			for k := 0; k < rows; k++ {
				dst[(t+k)*out+c] = acc2[2*k]*s0 + b0
				dst[(t+k)*out+c+1] = acc2[2*k+1]*s1 + b1
			}
		}
	}
}

// tileRows bounds the rows apply8 multiplies per pass over the weights:
// the tile's activations (up to 32 x 1536 floats, 192 KB) stay in the
// core's L2 cache while the weights stream past once per tile.
const tileRows = 32

// apply8 is apply with the AVX-512 kernel: blocks of eight rows, the
// last one from a zero-padded copy, in tiles of tileRows.
func (l *linear) apply8(dst, x []float32, n int, pad *[]float32) {
	in, out := l.in, l.out
	full := n &^ 7
	var xp []float32
	if full < n {
		*pad = grow(*pad, 8*in)
		xp = *pad
		clear(xp)
		copy(xp, x[full*in:n*in])
	}
	var acc [16]float32
	for r0 := 0; r0 < n; r0 += tileRows {
		r1 := min(r0+tileRows, n)
		for c := 0; c+2 <= out; c += 2 {
			s0, s1 := l.scale[c], l.scale[c+1]
			b0, b1 := l.bias[c], l.bias[c+1]
			w := &l.wq[c*in]
			for t := r0; t < r1; t += 8 {
				rows := 8
				var src *float32
				if t < full {
					src = &x[t*in]
				} else {
					src, rows = &xp[0], n-full
				}
				dot8x2q(src, in, w, in, in, &acc)
				for k := 0; k < rows; k++ {
					dst[(t+k)*out+c] = acc[2*k]*s0 + b0
					dst[(t+k)*out+c+1] = acc[2*k+1]*s1 + b1
				}
			}
		}
	}
}

// keepRows keeps the untransposed int8 weights of m for applySparse
// where the AVX-512 kernels run.
func (l *linear) keepRows(m *modelfile.Matrix) {
	if l.wq != nil && haveDot8x2 && l.out%32 == 0 {
		l.wr = m.Q
	}
}

// applySparse is apply for inputs that are mostly exact zeros (the
// output of a ReLU; 93% zeros in this model's second feed-forward
// layer): each row of the output sums only the weight rows of its
// non-zero inputs, one AVX-512 axpy each. Skipping a zero term changes
// no sum, but the order of the additions differs from apply's, so the
// results differ from it in the last bits. Falls back to apply when the
// inputs are denser than a fifth, or without the rows.
func (l *linear) applySparse(dst, x []float32, n int, pad *[]float32) {
	in, out := l.in, l.out
	if l.wr == nil {
		l.apply(dst, x, n, pad)
		return
	}
	nz := 0
	for _, v := range x[:n*in] {
		if v != 0 {
			nz++
		}
	}
	if nz*5 > n*in {
		l.apply(dst, x, n, pad)
		return
	}
	for t := 0; t < n; t++ {
		acc := dst[t*out : (t+1)*out]
		clear(acc)
		for k, a := range x[t*in : (t+1)*in] {
			if a != 0 {
				axpyq(&acc[0], &l.wr[k*out], a, out)
			}
		}
		for c := range acc {
			acc[c] = acc[c]*l.scale[c] + l.bias[c]
		}
	}
}

type layer struct {
	in, out, heads int
	scale          float32
	ln1s, ln1b     []float32
	qkv, o         linear
	res            *linear
	ln2s, ln2b     []float32
	ffn1, ffn2     linear
}

type model struct {
	tok *tokenizer
	emb modelfile.Matrix
	inv []float32
	// timing is the timing signal of each position (maxLen x embDims:
	// sines, then cosines), computed once at load.
	timing  []float32
	eps     float32
	maxLen  int
	layers  [2]layer
	hidden  linear
	dims    int
	embDims int
}

func newModel(w *modelfile.Weights) *model {
	// The transposed int8 weights (about 5 MB) live outside the Go heap
	// where the system allows it, for the model's life: they hold no
	// pointers, and on the heap they would count five times in the
	// collector's goal under the proxy's server.gc.percent 400.
	var a resident.Arena
	m := &model{
		tok:     newTokenizer(w.Pieces, w.Scores),
		emb:     w.Embedding,
		inv:     w.InvTimescales,
		eps:     w.Epsilon,
		maxLen:  w.MaxLen,
		hidden:  newLinear(&w.Hidden, w.HiddenBias, &a),
		dims:    w.Hidden.Cols,
		embDims: w.Embedding.Cols,
	}
	half := m.embDims / 2
	m.timing = make([]float32, m.maxLen*m.embDims)
	for t := 0; t < m.maxLen; t++ {
		row := m.timing[t*m.embDims : (t+1)*m.embDims]
		for k := 0; k < half; k++ {
			ang := float64(float32(t) * m.inv[k])
			row[k] = float32(math.Sin(ang))
			row[half+k] = float32(math.Cos(ang))
		}
	}
	for i := range w.Layers {
		L := &w.Layers[i]
		l := layer{
			in: L.QKV.Rows, out: L.Out.Cols, heads: L.Heads, scale: L.AttnScale,
			ln1s: L.LN1Scale, ln1b: L.LN1Bias, ln2s: L.LN2Scale, ln2b: L.LN2Bias,
			qkv: newLinear(&L.QKV, L.QKVBias, &a), o: newLinear(&L.Out, L.OutBias, &a),
			ffn1: newLinear(&L.FFN1, L.FFN1Bias, &a), ffn2: newLinear(&L.FFN2, L.FFN2Bias, &a),
		}
		l.ffn2.keepRows(&L.FFN2)
		if L.Residual.Cols > 0 {
			r := newLinear(&L.Residual, L.ResidualBias, &a)
			l.res = &r
		}
		m.layers[i] = l
	}
	resident.ReleaseWith(&a, m)
	return m
}

// scratch holds one forward pass's buffers; grown on demand and reused.
// A layer's feed-forward activations (n x 1536) reuse qkv's buffer, dead
// once attention is done, and the residual projection reuses ctx's: 14 KB
// a token instead of 20.
type scratch struct {
	x, a, qkv, ctx, att []float32
	scores, pad, vt, ch []float32
	pooled, out         []float32
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// layerNorm normalises each of n rows of x (width d) into dst.
func layerNorm(dst, x []float32, n, d int, scale, bias []float32, eps float32) {
	for t := 0; t < n; t++ {
		row := x[t*d : (t+1)*d]
		out := dst[t*d : (t+1)*d]
		var mean float32
		for _, v := range row {
			mean += v
		}
		mean /= float32(d)
		var vr float32
		for _, v := range row {
			dv := v - mean
			vr += dv * dv
		}
		vr /= float32(d)
		r := float32(1 / math.Sqrt(float64(vr+eps)))
		for i, v := range row {
			out[i] = scale[i]*r*(v-mean) + bias[i]
		}
	}
}

// forward embeds token sequences into dsts (len dims each),
// L2-normalised. All their tokens go through each layer together: the
// weights stream through the cache once per call, not once per sequence.
func (m *model) forward(seqs [][]int32, s *scratch, dsts [][]float32) {
	for i, ids := range seqs {
		if len(ids) > m.maxLen {
			seqs[i] = ids[:m.maxLen]
		}
	}
	d := m.layers[len(m.layers)-1].out
	s.pooled = grow(s.pooled, len(seqs)*d)
	clear(s.pooled)
	m.encode(seqs, s)
	off := 0
	for i, ids := range seqs {
		n := len(ids)
		pooled := s.pooled[i*d : (i+1)*d]
		for t := off; t < off+n; t++ {
			vek32.Add_Inplace(pooled, s.x[t*d:(t+1)*d])
		}
		if n > 0 {
			vek32.MulNumber_Inplace(pooled, 1/float32(n))
		}
		off += n
	}
	s.out = grow(s.out, len(seqs)*m.dims)
	m.hidden.apply(s.out, s.pooled, len(seqs), &s.pad)
	for i, dst := range dsts {
		var ss float64
		for k, v := range s.out[i*m.dims : (i+1)*m.dims] {
			t := float32(math.Tanh(float64(v)))
			dst[k] = t
			ss += float64(t) * float64(t)
		}
		r := float32(1 / math.Sqrt(math.Max(ss, 1e-12)))
		vek32.MulNumber_Inplace(dst, r)
	}
}

// encode runs the embedding and both transformer layers over every token
// of seqs; the result is in s.x (tokens x out), the sequences one after
// another.
func (m *model) encode(seqs [][]int32, s *scratch) {
	n := 0
	for _, ids := range seqs {
		n += len(ids)
	}
	e := m.embDims
	s.x = grow(s.x, n*e)
	row := make([]float32, e)
	off := 0
	for _, ids := range seqs {
		for t, id := range ids {
			m.emb.Row(int(id), row)
			x := s.x[(off+t)*e : (off+t+1)*e]
			sig := m.timing[t*e : (t+1)*e]
			// The graph adds the token embedding twice: once as the
			// scattered lookup and once inside the timing-signal sum.
			for k := range x {
				x[k] = row[k] + (row[k] + sig[k])
			}
		}
		off += len(ids)
	}
	if n == 0 {
		return
	}
	for li := range m.layers {
		l := &m.layers[li]
		in, out := l.in, l.out
		s.a = grow(s.a, n*in)
		layerNorm(s.a, s.x, n, in, l.ln1s, l.ln1b, m.eps)
		s.qkv = grow(s.qkv, n*3*in)
		l.qkv.apply(s.qkv, s.a, n, &s.pad)
		s.ctx = grow(s.ctx, n*in)
		off := 0
		for _, ids := range seqs {
			k := len(ids)
			m.attention(l, s, s.qkv[off*3*in:(off+k)*3*in], s.ctx[off*in:(off+k)*in], k)
			off += k
		}
		s.att = grow(s.att, n*out)
		l.o.apply(s.att, s.ctx, n, &s.pad)
		if l.res != nil {
			s.ctx = grow(s.ctx, n*out) // ctx is read: reuse it
			h := s.ctx
			l.res.apply(h, s.x, n, &s.pad)
			vek32.Add_Inplace(s.att, h)
		} else {
			vek32.Add_Inplace(s.att, s.x[:n*out])
		}
		// s.att is now the layer's residual stream.
		s.a = grow(s.a, n*out)
		layerNorm(s.a, s.att, n, out, l.ln2s, l.ln2b, m.eps)
		hid := l.ffn1.out
		s.qkv = grow(s.qkv, n*hid) // q, k and v are used: reuse them
		f := s.qkv
		l.ffn1.apply(f, s.a, n, &s.pad)
		for i, v := range f {
			if v < 0 {
				f[i] = 0
			}
		}
		s.x = grow(s.x, n*out)
		l.ffn2.applySparse(s.x, f, n, &s.pad)
		vek32.Add_Inplace(s.x, s.att)
	}
}

// attention computes multi-head scaled dot-product attention of one
// sequence from qkv (n x 3*in: q, k, v) into ctx (n x in). Per head the
// softmaxed scores (n x n) multiply the head's values (n x depth, copied
// contiguous) in one matrix product.
func (m *model) attention(l *layer, s *scratch, qkv, ctx []float32, n int) {
	if n == 0 {
		return
	}
	in := l.in
	depth := in / l.heads
	s.scores = grow(s.scores, n*n)
	s.vt = grow(s.vt, n*depth)
	s.ch = grow(s.ch, n*depth)
	w := 3 * in
	for h := 0; h < l.heads; h++ {
		qo, ko, vo := h*depth, in+h*depth, 2*in+h*depth
		for j := 0; j < n; j++ {
			copy(s.vt[j*depth:(j+1)*depth], qkv[j*w+vo:j*w+vo+depth])
		}
		for i := 0; i < n; i++ {
			q := qkv[i*w+qo : i*w+qo+depth]
			p := s.scores[i*n : (i+1)*n]
			mx := float32(math.Inf(-1))
			for j := 0; j < n; j++ {
				sc := vek32.Dot(q, qkv[j*w+ko:j*w+ko+depth]) * l.scale
				p[j] = sc
				mx = max(mx, sc)
			}
			var sum float32
			for j := 0; j < n; j++ {
				e := float32(math.Exp(float64(p[j] - mx)))
				p[j] = e
				sum += e
			}
			vek32.MulNumber_Inplace(p, 1/sum)
		}
		vek32.MatMul_Into(s.ch, s.scores, s.vt, n)
		for i := 0; i < n; i++ {
			copy(ctx[i*in+qo:i*in+qo+depth], s.ch[i*depth:(i+1)*depth])
		}
	}
}
