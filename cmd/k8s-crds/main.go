// Command k8s-crds writes the Karpenter CustomResourceDefinitions the provider validates against
// (internal/manifest/crds), and the EKS Auto Mode NodeClass schema it writes from the EKS user guide
// (internal/manifest/automode), as CRD objects for a real API server, one YAML document each.
// scripts/k8s.sh (make k8s-up) applies them to the test API server, so that kubernetes_manifest
// there accepts exactly what the provider's plan accepts.
//
//	go run ./cmd/k8s-crds [-karpenter-version 1.15] [-differential] > crds.yaml
//
// -karpenter-version (default $K8S_KARPENTER_VERSION, else the newest embedded) picks the
// Karpenter minor installed under Karpenter's own groups. -differential adds every embedded
// minor's EC2NodeClass and NodePool under a group of its own (v1-9.karpenter.sh …, see
// manifest.DifferentialGroup), so the validator differential can judge every version against one
// API server at once without touching the CRDs other tests use.
//
// The embedded data carries group, version, kind, scope and the openAPIV3Schema (descriptions
// removed); the names are those of Karpenter's own CRDs, and like them every CRD (EC2NodeClass,
// NodeClaim, NodePool) serves a status subresource.
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// shortNames are the short names Karpenter's CRD files declare, by kind; every kind the CRDs
// hold needs an entry.
var shortNames = map[string][]string{
	manifest.EC2NodeClassKind: {"ec2nc", "ec2ncs"},
	manifest.NodePoolKind:     nil,
	manifest.NodeOverlayKind:  {"overlays"},
	manifest.NodeClaimKind:    nil,
	// EKS Auto Mode's NodeClass: no CRD is published; the schema the provider writes from the
	// EKS user guide (manifest.AutoModeSchemaFile) is installed in its place.
	manifest.AutoModeNodeClassKind: nil,
}

func main() {
	version := flag.String("karpenter-version", cmp.Or(os.Getenv("K8S_KARPENTER_VERSION"), manifest.DefaultVersion),
		"Karpenter minor to install under Karpenter's groups: "+strings.Join(manifest.Versions(), ", "))
	differential := flag.Bool("differential", false, "also install every minor's EC2NodeClass, NodePool and NodeOverlay under its own group")
	flag.Parse()
	out, err := render(*version, *differential)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-crds:", err)
		os.Exit(1)
	}
	_, _ = os.Stdout.Write(out)
}

// render is the CRDs of version (and with differential every version's, under their own
// groups) as YAML, in name order, separated by "---".
func render(version string, differential bool) ([]byte, error) {
	crds, err := manifest.CRDsFor(version)
	if err != nil {
		return nil, err
	}
	objs := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(crds))
	auto, err := manifest.AutoModeNodeClassCRD()
	if err != nil {
		return nil, err
	}
	for _, c := range append(slices.Collect(maps.Values(crds)), auto) {
		o, err := definition(c, c.Group)
		if err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
	for _, v := range manifest.Versions() {
		if !differential {
			break
		}
		crds, err := manifest.CRDsFor(v)
		if err != nil {
			return nil, err
		}
		for _, kind := range []string{manifest.EC2NodeClassKind, manifest.NodePoolKind, manifest.NodeOverlayKind} {
			o, err := definition(crds[kind], manifest.DifferentialGroup(crds[kind].Group, v))
			if err != nil {
				return nil, err
			}
			objs = append(objs, o)
		}
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
	var b bytes.Buffer
	for i, o := range objs {
		y, err := toYAML(o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// definition is the CustomResourceDefinition of one embedded CRD version: served and stored,
// with the status subresource.
func definition(c *manifest.CRD, group string) (*apiextensionsv1.CustomResourceDefinition, error) {
	short, ok := shortNames[c.Kind]
	if !ok {
		return nil, fmt.Errorf("no CRD names for kind %s", c.Kind)
	}
	if c.Scope != string(apiextensionsv1.ClusterScoped) && c.Scope != string(apiextensionsv1.NamespaceScoped) {
		return nil, fmt.Errorf("%s: scope %q is neither Cluster nor Namespaced", c.Kind, c.Scope)
	}
	if c.Schema == nil {
		return nil, errors.New(c.Kind + ": no openAPIV3Schema")
	}
	categories := []string{"karpenter"}
	if group != c.Group || c.Group == manifest.AutoModeNodeClassGroup { // a differential copy, or Auto Mode's: not Karpenter's own
		short, categories = nil, nil
	}
	singular := strings.ToLower(c.Kind)
	plural := singular + "s"
	if strings.HasSuffix(singular, "s") {
		plural = singular + "es"
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:     plural,
				Singular:   singular,
				Kind:       c.Kind,
				ListKind:   c.Kind + "List",
				ShortNames: short,
				Categories: categories,
			},
			Scope: apiextensionsv1.ResourceScope(c.Scope),
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:                     c.Version,
				Served:                   true,
				Storage:                  true,
				Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: c.Schema},
				Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: c.PrinterColumns,
			}},
		},
	}, nil
}

// toYAML writes o without the fields a client does not set (status, a null creation time).
func toYAML(o *apiextensionsv1.CustomResourceDefinition) ([]byte, error) {
	y, err := yaml.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(y, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return yaml.Marshal(m)
}
