package gate

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// testdata/gate.yaml is the section as documented for configs/guard.yaml: it
// must decode strictly to exactly DefaultConfig().
func TestDefaultSectionYAML(t *testing.T) {
	b, err := os.ReadFile("testdata/gate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if want := DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("testdata/gate.yaml = %+v\nwant DefaultConfig() %+v", got, want)
	}
}
