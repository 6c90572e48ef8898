package index

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/blevesearch/mmap-go"
)

// mappedF32 is a little-endian float32 vector file (local.f32, remote.f32)
// mapped read-only into memory: the vectors are served from the page cache
// instead of the Go heap, so a loaded snapshot's heap no longer grows with
// dims x chunks, and replicas on one host share one copy of the pages.
// Close unmaps it; no slice of it may be used after that, which the
// snapshot's reader count guarantees (retrieve closes a swapped-out
// snapshot only once its last query has returned).
type mappedF32 struct {
	m mmap.MMap
}

// nativeLittleEndian reports whether float32 values in memory have the
// file's byte order, so that the mapped bytes can be read as floats.
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// mapF32 maps path and returns its floats. On a big-endian host, or for
// an empty file, it falls back to a decoded heap copy (and a nil mapping).
func mapF32(path string) ([]float32, *mappedF32, error) {
	if !nativeLittleEndian {
		v, err := readF32(path)
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
	return v, &mappedF32{m: m}, nil
}

// Close unmaps the file; nil-safe.
func (m *mappedF32) Close() error {
	if m == nil || m.m == nil {
		return nil
	}
	err := m.m.Unmap()
	m.m = nil
	return err
}

var _ = binary.LittleEndian // the file format: see writeF32 / readF32
