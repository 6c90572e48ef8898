package disk

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/blevesearch/mmap-go"
)

// Vector files (local.f32, remote.f32) hold little-endian float32 values,
// slot after slot, with no header: slot i's vector is values
// [i*dims, (i+1)*dims), dims known from the manifest or the local model.

// WriteF32 writes v to path.
func WriteF32(path string, v []float32) error {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// ReadF32 reads the vector file at path onto the heap.
func ReadF32(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("read %s: size %d is not a multiple of 4", filepath.Base(path), len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Mapping is a vector file mapped read-only into memory: the vectors are
// served from the page cache instead of the Go heap, so a loaded snapshot's
// heap does not grow with dims x chunks, and replicas on one host share one
// copy of the pages. Close unmaps it; no slice of it may be used after
// that, which the snapshot's reader count guarantees (retrieve closes a
// swapped-out snapshot only once its last query has returned).
type Mapping struct {
	m mmap.MMap
}

// nativeLittleEndian reports whether float32 values in memory have the
// file's byte order, so that the mapped bytes can be read as floats.
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// MapF32 maps path and returns its floats. On a big-endian host, or for an
// empty file, it falls back to a decoded heap copy (and a nil mapping).
func MapF32(path string) ([]float32, *Mapping, error) {
	if !nativeLittleEndian {
		v, err := ReadF32(path)
		return v, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if fi.Size()%4 != 0 {
		return nil, nil, fmt.Errorf("read %s: size %d is not a multiple of 4", filepath.Base(path), fi.Size())
	}
	if fi.Size() == 0 {
		return nil, nil, nil
	}
	m, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", filepath.Base(path), err)
	}
	// mmap returns page-aligned memory, so the float32 view is aligned.
	v := unsafe.Slice((*float32)(unsafe.Pointer(&m[0])), len(m)/4)
	return v, &Mapping{m: m}, nil
}

// Close unmaps the file; nil-safe.
func (m *Mapping) Close() error {
	if m == nil || m.m == nil {
		return nil
	}
	err := m.m.Unmap()
	m.m = nil
	return err
}
