package gate

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// The gate section of configs/guard.yaml, the one place its defaults are
// documented, decodes strictly to exactly DefaultConfig().
func TestDefaultSectionYAML(t *testing.T) {
	b, err := os.ReadFile("../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]yaml.Node
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	sec, ok := file["gate"]
	if !ok {
		t.Fatal("configs/guard.yaml has no gate section")
	}
	sb, err := yaml.Marshal(&sec)
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	dec := yaml.NewDecoder(bytes.NewReader(sb))
	dec.KnownFields(true)
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if want := DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("configs/guard.yaml gate = %+v\nwant DefaultConfig() %+v", got, want)
	}
}
