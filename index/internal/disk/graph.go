package disk

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// GraphLayer is one layer of an HNSW graph as flat adjacency arrays;
// keys are chunk slots.
type GraphLayer struct {
	Offsets map[uint32][2]uint32 // key -> [start, end) into Adj (upper layers)
	Base    [][2]uint32          // key -> [start, end) into Adj (layer 0, slot-indexed)
	Adj     []uint32
	Entry   uint32   // the layer's first node
	Size    int      // nodes in the layer
	Nodes   []uint32 // the layer's node keys in file order (Size of them)
}

// Neighbors returns the neighbours of key k in the layer.
func (l *GraphLayer) Neighbors(k uint32) []uint32 {
	if l.Base != nil {
		if int(k) >= len(l.Base) {
			return nil
		}
		r := l.Base[k]
		return l.Adj[r[0]:r[1]]
	}
	r, ok := l.Offsets[k]
	if !ok {
		return nil
	}
	return l.Adj[r[0]:r[1]]
}

type byteReader struct {
	*bufio.Reader
}

func readVarint(r *byteReader) (int, error) {
	v, err := binary.ReadVarint(r)
	return int(v), err
}

// ReadGraph decodes hnsw.bin, in coder/hnsw's Export format (encoding
// version 1, uint32 keys; index's graphBuilder writes it), into its layers
// (0 = base), checking that its vectors have dims dimensions and its keys
// are below slots. The vectors themselves are skipped: the search reads
// the partition's vector file.
func ReadGraph(path string, dims, slots int) ([]GraphLayer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open graph: %w", err)
	}
	defer f.Close()
	r := &byteReader{bufio.NewReaderSize(f, 1<<20)}
	version, err := readVarint(r)
	if err != nil || version != 1 {
		return nil, fmt.Errorf("graph: unsupported encoding version %d (%v)", version, err)
	}
	// M, then Ml (float64), EfSearch, distance name.
	if _, err := readVarint(r); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	var ml float64
	if err := binary.Read(r, binary.LittleEndian, &ml); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	if _, err := readVarint(r); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	nameLen, err := readVarint(r)
	if err != nil || nameLen < 0 || nameLen > 64 {
		return nil, fmt.Errorf("graph header: distance name length %d (%v)", nameLen, err)
	}
	if _, err := r.Discard(nameLen); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	nLayers, err := readVarint(r)
	if err != nil || nLayers < 0 || nLayers > 64 {
		return nil, fmt.Errorf("graph: %d layers (%v)", nLayers, err)
	}
	layers := make([]GraphLayer, nLayers)
	var key uint32
	for li := 0; li < nLayers; li++ {
		nNodes, err := readVarint(r)
		if err != nil || nNodes < 0 || nNodes > slots {
			return nil, fmt.Errorf("graph layer %d: %d nodes (%v)", li, nNodes, err)
		}
		l := &layers[li]
		l.Size = nNodes
		if li == 0 {
			l.Base = make([][2]uint32, slots)
		} else {
			l.Offsets = make(map[uint32][2]uint32, nNodes)
		}
		for j := 0; j < nNodes; j++ {
			if err := binary.Read(r, binary.LittleEndian, &key); err != nil {
				return nil, fmt.Errorf("graph node: %w", err)
			}
			vl, err := readVarint(r)
			if err != nil || vl != dims {
				return nil, fmt.Errorf("graph node %d: %d dims, want %d (%v)", key, vl, dims, err)
			}
			if _, err := r.Discard(4 * vl); err != nil {
				return nil, fmt.Errorf("graph node vector: %w", err)
			}
			nn, err := readVarint(r)
			if err != nil || nn < 0 || nn > 4096 {
				return nil, fmt.Errorf("graph node %d: %d neighbors (%v)", key, nn, err)
			}
			if int(key) >= slots {
				return nil, fmt.Errorf("graph node %d beyond %d slots", key, slots)
			}
			start := uint32(len(l.Adj))
			for k := 0; k < nn; k++ {
				var nb uint32
				if err := binary.Read(r, binary.LittleEndian, &nb); err != nil {
					return nil, fmt.Errorf("graph neighbor: %w", err)
				}
				if int(nb) < slots {
					l.Adj = append(l.Adj, nb)
				}
			}
			span := [2]uint32{start, uint32(len(l.Adj))}
			if li == 0 {
				l.Base[key] = span
			} else {
				l.Offsets[key] = span
			}
			if j == 0 {
				l.Entry = key
				l.Nodes = make([]uint32, 0, nNodes)
			}
			l.Nodes = append(l.Nodes, key)
		}
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, errors.New("graph: trailing data")
	}
	return layers, nil
}
