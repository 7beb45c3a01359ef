// Command gen-crd-schema turns Karpenter CustomResourceDefinition YAML files into the validation
// data the provider embeds (internal/manifest/crds/v<minor>): for each CRD, the group, version,
// kind and the version's openAPIV3Schema with every description removed. Patterns, enums,
// formats, defaults, list types and x-kubernetes-validations rules (with their messages) are
// kept: they are what the API server enforces.
//
// From a release's Go module zip (what `make generate-crds` runs for every supported minor;
// the zip is fetched with `go mod download` and its hash recorded in each file):
//
//	go run ./cmd/gen-crd-schema -module-version v1.15.2 -out internal/manifest/crds
//
// Or from CRD files at hand (pkg/apis/crds in aws/karpenter-provider-aws, or the chart's crds/
// folder), recording only the release name:
//
//	go run ./cmd/gen-crd-schema -karpenter-version v1.14.3 -out internal/manifest/crds \
//	    path/to/karpenter.k8s.aws_ec2nodeclasses.yaml path/to/karpenter.sh_nodepools.yaml ...
//
// See internal/manifest/crds/README.md.
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
	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

// karpenterModule is the Go module whose release zips hold Karpenter's CRDs (pkg/apis/crds).
const karpenterModule = "github.com/aws/karpenter-provider-aws"

// crdFiles are the CRDs taken from a release: the three the provider renders and the NodeClaim
// (installed on the test API server).
var crdFiles = []string{"karpenter.k8s.aws_ec2nodeclasses.yaml", "karpenter.sh_nodepools.yaml", "karpenter.sh_nodeoverlays.yaml",
	"karpenter.sh_nodeclaims.yaml"}

func main() {
	version := flag.String("karpenter-version", "", "Karpenter release the CRD files given as arguments belong to, e.g. v1.14.3")
	moduleVersion := flag.String("module-version", "", "Karpenter release to take the CRDs from, out of its Go module zip, e.g. v1.15.2")
	zipPath := flag.String("zip", "", "with -module-version: the release's module zip, instead of go mod download")
	out := flag.String("out", "internal/manifest/crds", "folder holding one v<major>.<minor> folder per release")
	flag.Parse()
	var err error
	switch {
	case *moduleVersion != "" && *version == "" && flag.NArg() == 0:
		err = fromModule(*moduleVersion, *zipPath, *out)
	case *version != "" && *moduleVersion == "" && flag.NArg() > 0:
		err = fromFiles(*version, flag.Args(), *out)
	default:
		fmt.Fprintln(os.Stderr, "usage: gen-crd-schema -module-version vX.Y.Z [-zip FILE] [-out DIR]\n"+
			"       gen-crd-schema -karpenter-version vX.Y.Z [-out DIR] CRD.yaml...")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-crd-schema:", err)
		os.Exit(1)
	}
}

// fromModule writes the release's CRDs, read from its module zip, into out/v<minor>.
func fromModule(version, zipPath, out string) error {
	wantSum := ""
	if zipPath == "" {
		var err error
		if zipPath, wantSum, err = modzip.Download(karpenterModule, version); err != nil {
			return err
		}
	}
	z, err := modzip.Open(zipPath, wantSum)
	if err != nil {
		return err
	}
	defer func() { _ = z.Close() }()
	src := manifest.GeneratedSource{KarpenterVersion: version, Module: karpenterModule + "@" + version, ModuleSum: z.Sum}
	for _, f := range crdFiles {
		raw, err := z.Read(karpenterModule + "@" + version + "/pkg/apis/crds/" + f)
		if err != nil {
			return err
		}
		src.File = "pkg/apis/crds/" + f
		if err := write(out, version, raw, src); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	fmt.Printf("%s: %d CRDs of %s (%s)\n", filepath.Join(out, manifest.MinorOf(version)), len(crdFiles), src.Module, z.Sum)
	return nil
}

// fromFiles writes CRD files at hand, of the Karpenter release version, into out/v<minor>.
func fromFiles(version string, paths []string, out string) error {
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err == nil {
			err = write(out, version, raw, manifest.GeneratedSource{File: filepath.Base(p), KarpenterVersion: version})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

func write(out, version string, raw []byte, src manifest.GeneratedSource) error {
	name, data, err := generate(raw, src)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, manifest.MinorOf(version))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "zz_generated."+name+".json"), data, 0o644)
}

// generate reads one CRD document and returns its name and the generated JSON.
func generate(raw []byte, src manifest.GeneratedSource) (string, []byte, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return "", nil, err
	}
	if crd.Kind != "CustomResourceDefinition" {
		return "", nil, fmt.Errorf("kind %q is not CustomResourceDefinition", crd.Kind)
	}
	var version *apiextensionsv1.CustomResourceDefinitionVersion
	for i, v := range crd.Spec.Versions {
		if v.Storage {
			version = &crd.Spec.Versions[i]
		}
	}
	if version == nil || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
		return "", nil, errors.New("no storage version with an openAPIV3Schema")
	}
	schema := version.Schema.OpenAPIV3Schema
	stripDescriptions(schema)
	src.ControllerGen = crd.Annotations["controller-gen.kubebuilder.io/version"]
	doc := manifest.GeneratedFile{
		Source: src,
		Group:  crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind, Scope: string(crd.Spec.Scope), Schema: schema,
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
		return "", nil, errors.New("a description survived stripping")
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
