package disk

import (
	"bufio"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteGob writes v to path as one gob value.
func WriteGob(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", filepath.Base(path), err)
	}
	bw := bufio.NewWriter(f)
	err = gob.NewEncoder(bw).Encode(v)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// ReadGob decodes the gob value at path into v.
func ReadGob(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", filepath.Base(path), err)
	}
	return nil
}

// writeJSON writes v to path as compact JSON.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// Address is address.json: the partition's address aliases and its table
// from normalised address (or document id) to chunk slots.
type Address struct {
	Aliases map[string]string  `json:"aliases"`
	Table   map[string][]int32 `json:"table"`
}

// WriteAddress writes a to path.
func WriteAddress(path string, a Address) error { return writeJSON(path, a) }

// ReadAddress reads the address file at path.
func ReadAddress(path string) (Address, error) {
	var a Address
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	return a, err
}

// WriteCatalog writes ids to path sorted, one a line. ids is sorted in place.
func WriteCatalog(path string, ids []string) error {
	sort.Strings(ids)
	if err := os.WriteFile(path, []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	return nil
}

// ReadCatalog returns the ids of the catalog at path.
func ReadCatalog(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range strings.Split(string(b), "\n") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// CopyTree copies the directory tree src to dst (a partition or a whole
// snapshot; Add extends a copy of its base).
func CopyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
