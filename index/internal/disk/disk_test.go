package disk

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestRoundTrips(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }

	vecs := []float32{0, 1, -1.5, 3.25e-7, 42}
	if err := WriteF32(path(LocalVectorsFile), vecs); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path(LocalVectorsFile)); len(b) != 4*len(vecs) || b[4*1+3] != 0x3f || b[4*1+2] != 0x80 {
		t.Errorf("local.f32 is not headerless little-endian float32: % x", b)
	}
	got, err := ReadF32(path(LocalVectorsFile))
	if err != nil || !slices.Equal(got, vecs) {
		t.Errorf("ReadF32 = %v, %v; want %v", got, err, vecs)
	}
	mapped, m, err := MapF32(path(LocalVectorsFile))
	if err != nil || !slices.Equal(mapped, vecs) {
		t.Errorf("MapF32 = %v, %v; want %v", mapped, err, vecs)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	terms := Terms{Offsets: []uint32{0, 2, 5}, IDs: []uint32{7, 8, 1, 2, 3}, TitleLen: []uint32{1, 0}, Norm: []float32{1.5, 2}}
	if err := WriteTerms(path(TermsFile), &terms); err != nil {
		t.Fatal(err)
	}
	var tr Terms
	if err := ReadTerms(path(TermsFile), &tr); err != nil || !reflect.DeepEqual(tr, terms) {
		t.Errorf("ReadTerms = %+v, %v; want %+v", tr, err, terms)
	}
	if got := tr.Chunk(1); !slices.Equal(got, []uint32{1, 2, 3}) {
		t.Errorf("Chunk(1) = %v, want [1 2 3]", got)
	}

	addr := Address{Aliases: map[string]string{"jn": "john"}, Table: map[string][]int32{"john 3:16": {4}, "doc": {1, 2}}}
	if err := WriteAddress(path(AddressFile), addr); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadAddress(path(AddressFile)); err != nil || !reflect.DeepEqual(got, addr) {
		t.Errorf("ReadAddress = %+v, %v; want %+v", got, err, addr)
	}

	if err := WriteCatalog(path(CatalogFile), []string{"b", "a#2", "a"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path(CatalogFile)); string(b) != "a\na#2\nb\n" {
		t.Errorf("catalog.txt = %q, want sorted ids one a line", b)
	}
	if got, err := ReadCatalog(path(CatalogFile)); err != nil || !slices.Equal(got, []string{"a", "a#2", "b"}) {
		t.Errorf("ReadCatalog = %v, %v", got, err)
	}
}
