// Package releasezip reads the module zip of the Karpenter release each embedded minor's CRDs
// were generated from (hash checked against the one the CRD generator recorded), for the tests
// that compare with Karpenter's own files: its examples, its code. Test support: the provider
// binary does not link it.
package releasezip

import (
	"bytes"
	"errors"
	"io"
	"path"
	"slices"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

// Files are the files of minor's release zip that keep takes, by path inside the module; module
// is the release's module@version.
func Files(minor string, keep func(path string) bool) (module string, files map[string][]byte, err error) {
	crds, err := manifest.CRDsFor(minor)
	if err != nil {
		return "", nil, err
	}
	src := crds[manifest.EC2NodeClassKind].Source
	mod, version, _ := strings.Cut(src.Module, "@")
	z, err := modzip.Fetch(mod, version, src.ModuleSum)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = z.Close() }()
	files = map[string][]byte{}
	for name, f := range z.Files {
		p := strings.TrimPrefix(name, src.Module+"/")
		if !keep(p) {
			continue
		}
		if files[p], err = modzip.ReadFile(f); err != nil {
			return "", nil, err
		}
	}
	return src.Module, files, nil
}

// File is one YAML file of the examples: its base name and content.
type File struct {
	Name string
	Data []byte
}

// Examples are the YAML files of examples/v1 in the release zip of manifest.DefaultVersion, in
// name order; module is that release's module@version.
func Examples() (module string, files []File, err error) {
	module, byPath, err := Files(manifest.DefaultVersion, func(p string) bool {
		return path.Dir(p) == "examples/v1" && path.Ext(p) == ".yaml"
	})
	for p, b := range byPath {
		files = append(files, File{Name: path.Base(p), Data: b})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return module, files, err
}

// Documents are the YAML documents of data, JSON decoded; empty documents are left out.
func Documents(data []byte) ([]map[string]any, error) {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var out []map[string]any
	for {
		var node yamlv3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		doc, err := yamlv3.Marshal(&node)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, err
		}
		if obj != nil {
			out = append(out, obj)
		}
	}
}
