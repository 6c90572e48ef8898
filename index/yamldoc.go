package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A static site keeps its FAQ as a YAML data file (Jekyll's _data/faq.yml,
// Hugo's data/faq.yaml): a list of items with a question and an answer,
// often grouped in sections ({section: Permits, items: [{q: ..., a: ...}]}).
// An operator pointed the build at it and was told a .yml file is not read
// (operator trial 33's skip hire firm).

// yamlTextKeys are the keys that make a YAML mapping a document: it holds
// a passage's text (or a FAQ's answer).
var yamlTextKeys = []string{"text", "answer", "body", "content", "a"}

// yamlSectionKeys name a group of documents ({section: Permits, items:
// [...]}): kept in each document's meta as "section".
var yamlSectionKeys = []string{"section", "category", "group", "heading", "title", "name"}

// yamlLineRE finds the line yaml.v3 names in its errors.
var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// readYAML reads a YAML corpus file: every mapping in it that holds a
// passage's text (text, answer, body, content, or a FAQ's "a") is one
// document, read as a JSON line of the same fields is ("q" is read as
// "question", "a" as "answer"), wherever it stands: at the top, in a list,
// or in a section's list. A document without an id is named stem-N, N
// counting the file's documents from 1. A file of several YAML documents
// ("---") is read whole. A document that is not one (no text, a field of
// the wrong type) is a bad line at the line it starts on; YAML that does
// not parse stops the file at the line of the fault.
func readYAML(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	b, report, err := wholeFile(r, path, strict, bad)
	if b == nil {
		return err
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	n := 0
	var topKeys []string
	var walk func(node *yaml.Node, section string) error
	walk = func(node *yaml.Node, section string) error {
		switch node.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range node.Content {
				if err := walk(c, section); err != nil {
					return err
				}
			}
		case yaml.AliasNode:
			return nil // an anchor's copy: its original is read where it stands
		case yaml.MappingNode:
			keys := map[string]*yaml.Node{}
			for i := 0; i+1 < len(node.Content); i += 2 {
				keys[node.Content[i].Value] = node.Content[i+1]
			}
			if yamlDocument(keys) {
				n++
				d, err := yamlDoc(node, keys, section, fmt.Sprintf("%s-%d", stem, n), part)
				if err != nil {
					return report(node.Line, err)
				}
				return keep(d, node.Line)
			}
			for _, k := range []string{"q", "question"} {
				if v := keys[k]; v != nil && v.Kind == yaml.ScalarNode {
					n++ // a FAQ item whose answer is missing
					return report(node.Line, fmt.Errorf("item %q has a question and no answer (\"a\" or \"answer\")", v.Value))
				}
			}
			for _, k := range yamlSectionKeys {
				if v := keys[k]; v != nil && v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) != "" {
					section = strings.TrimSpace(v.Value)
					break
				}
			}
			for i := 0; i+1 < len(node.Content); i += 2 {
				if err := walk(node.Content[i+1], section); err != nil {
					return err
				}
			}
		}
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var root yaml.Node
		err := yamlDecode(dec, &root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 1
			if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
			msg := yamlLineRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
			return report(line, fmt.Errorf("%s (the rest of the file is not read)", strings.TrimLeft(msg, ": ")))
		}
		if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
			for i := 0; i < len(root.Content[0].Content); i += 2 {
				topKeys = append(topKeys, root.Content[0].Content[i].Value)
			}
		}
		if err := walk(&root, ""); err != nil {
			return err
		}
	}
	if n == 0 {
		has := "no mapping"
		if len(topKeys) > 0 {
			has = "the keys " + strings.Join(topKeys, ", ")
		}
		return report(1, fmt.Errorf("no document in the file (it has %s): a YAML corpus lists items with a passage's text in \"text\", \"body\" or \"content\", a FAQ's in \"answer\" or \"a\" with \"question\" or \"q\"", has))
	}
	return nil
}

// yamlDocument reports a mapping that holds a passage's text: a scalar
// under one of yamlTextKeys.
func yamlDocument(keys map[string]*yaml.Node) bool {
	for _, k := range yamlTextKeys {
		if v := keys[k]; v != nil && v.Kind == yaml.ScalarNode {
			return true
		}
	}
	return false
}

// yamlDoc reads one document mapping as parseDocLineIn reads a JSON line
// of the same fields, "q" and "a" read as "question" and "answer"; id is
// its id when it gives none, section its group's name (kept in meta).
func yamlDoc(node *yaml.Node, keys map[string]*yaml.Node, section, id string, part DocRef) (Doc, error) {
	var m map[string]any
	if err := node.Decode(&m); err != nil {
		return Doc{}, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// a scalar read as a number, a date or a boolean is text here
	scalar := func(k string) (string, bool) {
		if v := keys[k]; v != nil && v.Kind == yaml.ScalarNode {
			return v.Value, true
		}
		return "", false
	}
	for _, k := range []string{"id", "_id", "text", "title", "question", "answer", "body", "content", "kind", "address", "url", "tenant", "kb"} {
		if v, ok := scalar(k); ok {
			m[k] = v
		}
	}
	for short, long := range map[string]string{"q": "question", "a": "answer"} {
		if _, taken := keys[long]; taken {
			continue
		}
		if v, ok := scalar(short); ok {
			m[long] = v
			delete(m, short)
		}
	}
	if _, ok := m["id"]; !ok {
		if _, ok := m["_id"]; !ok {
			m["id"] = id
		}
	}
	if section != "" {
		if _, ok := m["section"]; !ok {
			m["section"] = section
		}
	}
	raw, err := json.Marshal(yamlJSON(m))
	if err != nil {
		return Doc{}, err
	}
	return parseDocLineIn(raw, part)
}

// yamlJSON makes a decoded YAML value JSON-encodable: maps with keys
// other than strings get their keys printed.
func yamlJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = yamlJSON(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = yamlJSON(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = yamlJSON(e)
		}
		return x
	}
	return v
}

// yamlDecode decodes the next YAML document; a panic in the parser (a
// file it cannot handle) is an error, not a crash of the build.
func yamlDecode(dec *yaml.Decoder, root *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on the file (%v)", r)
		}
	}()
	return dec.Decode(root)
}
