// Package karpenterexamples reads Karpenter's own examples (examples/v1 of the release the
// newest embedded CRDs were generated from, out of its module zip, hash checked) for the tests
// that adopt or mutate them. Test support: the provider binary does not link it.
package karpenterexamples

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

// File is one YAML file of the examples: its base name and content.
type File struct {
	Name string
	Data []byte
}

// Files are the YAML files of examples/v1 in the module zip of manifest.DefaultVersion's CRDs
// (fetched into the module cache, its hash the one the CRD generator recorded), in name order;
// Module is that module@version.
func Files() (module string, files []File, err error) {
	crds, err := manifest.CRDsFor(manifest.DefaultVersion)
	if err != nil {
		return "", nil, err
	}
	src := crds[manifest.NodePoolKind].Source
	mod, version, _ := strings.Cut(src.Module, "@")
	zipPath, sum, err := modzip.Download(mod, version)
	if err == nil && sum != src.ModuleSum {
		err = fmt.Errorf("%s hashes to %s; the CRDs were generated from %s", src.Module, sum, src.ModuleSum)
	}
	if err != nil {
		return "", nil, err
	}
	z, err := modzip.Open(zipPath, src.ModuleSum)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = z.Close() }()
	for name, f := range z.Files {
		if path.Dir(name) != src.Module+"/examples/v1" || path.Ext(name) != ".yaml" {
			continue
		}
		b, err := modzip.ReadFile(f)
		if err != nil {
			return "", nil, err
		}
		files = append(files, File{Name: path.Base(name), Data: b})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return src.Module, files, nil
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
