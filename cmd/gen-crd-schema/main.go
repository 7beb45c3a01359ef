// Command gen-crd-schema turns Karpenter CustomResourceDefinition YAML files into the validation
// data the provider embeds (internal/manifest/crds): for each CRD, the group, version, kind and
// the version's openAPIV3Schema with every description removed. Patterns, enums, formats,
// defaults, list types and x-kubernetes-validations rules (with their messages) are kept: they
// are what the API server enforces.
//
//	go run ./cmd/gen-crd-schema -karpenter-version v1.14.1 -out internal/manifest/crds \
//	    path/to/karpenter.k8s.aws_ec2nodeclasses.yaml path/to/karpenter.sh_nodepools.yaml
//
// The CRD files come from a Karpenter release (pkg/apis/crds in aws/karpenter-provider-aws, or
// the chart's crds/ folder). See internal/manifest/crds/README.md for refreshing.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

func main() {
	version := flag.String("karpenter-version", "", "Karpenter release the CRD files belong to, e.g. v1.14.1 (required)")
	out := flag.String("out", "internal/manifest/crds", "folder to write zz_generated.<crd name>.json into")
	flag.Parse()
	if *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-crd-schema -karpenter-version vX.Y.Z [-out DIR] CRD.yaml...")
		os.Exit(2)
	}
	for _, in := range flag.Args() {
		name, data, err := generate(in, *version)
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, "zz_generated."+name+".json"), data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen-crd-schema:", err)
			os.Exit(1)
		}
	}
}

// generate reads one CRD file and returns its name and the generated JSON.
func generate(path, karpenterVersion string) (string, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if crd.Kind != "CustomResourceDefinition" {
		return "", nil, fmt.Errorf("%s: kind %q is not CustomResourceDefinition", path, crd.Kind)
	}
	var version *apiextensionsv1.CustomResourceDefinitionVersion
	for i, v := range crd.Spec.Versions {
		if v.Storage {
			version = &crd.Spec.Versions[i]
		}
	}
	if version == nil || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
		return "", nil, fmt.Errorf("%s: no storage version with an openAPIV3Schema", path)
	}
	schema := version.Schema.OpenAPIV3Schema
	stripDescriptions(schema)
	doc := manifest.GeneratedFile{
		Source: manifest.GeneratedSource{File: filepath.Base(path), KarpenterVersion: karpenterVersion,
			ControllerGen: crd.Annotations["controller-gen.kubebuilder.io/version"]},
		Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind, Scope: string(crd.Spec.Scope), Schema: schema,
	}
	for _, c := range version.AdditionalPrinterColumns {
		c.Description = ""
		doc.PrinterColumns = append(doc.PrinterColumns, c)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return "", nil, err
	}
	if bytes.Contains(buf.Bytes(), []byte(`"description"`)) && strings.Contains(string(raw), "description:") {
		// A property literally named "description" would be legitimate; Karpenter has none.
		return "", nil, errors.New(path + ": a description survived stripping")
	}
	return crd.Name, buf.Bytes(), nil
}

// stripDescriptions removes the prose from s and every schema below it.
func stripDescriptions(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	s.Description = ""
	for k, p := range s.Properties {
		stripDescriptions(&p)
		s.Properties[k] = p
	}
	for k, p := range s.PatternProperties {
		stripDescriptions(&p)
		s.PatternProperties[k] = p
	}
	for k, p := range s.Definitions {
		stripDescriptions(&p)
		s.Definitions[k] = p
	}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			stripDescriptions(&list[i])
		}
	}
	stripDescriptions(s.Not)
	if s.Items != nil {
		stripDescriptions(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			stripDescriptions(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		stripDescriptions(s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		stripDescriptions(s.AdditionalItems.Schema)
	}
	for k, d := range s.Dependencies {
		stripDescriptions(d.Schema)
		s.Dependencies[k] = d
	}
}
