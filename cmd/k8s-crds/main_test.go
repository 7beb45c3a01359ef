package main

import (
	"cmp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// The rendered CRDs carry the names the API server and kubernetes_manifest look the kinds up
// by, the embedded schema, and nothing a client does not set.
func TestRender(t *testing.T) {
	out, err := render("1.14", false)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(out), "\n---\n")
	if len(docs) != 5 || !strings.Contains(docs[0], "nestedVirtualization") || strings.Contains(string(out), "enclaveOptions") {
		t.Fatalf("want 5 documents, got %d:\n%s", len(docs), out)
	}
	want := []struct{ name, plural, singular, kind, listKind, group string }{
		{"ec2nodeclasses.karpenter.k8s.aws", "ec2nodeclasses", "ec2nodeclass", "EC2NodeClass", "EC2NodeClassList", "karpenter.k8s.aws"},
		{"nodeclaims.karpenter.sh", "nodeclaims", "nodeclaim", "NodeClaim", "NodeClaimList", "karpenter.sh"},
		// EKS Auto Mode's, from the schema the provider writes from the EKS user guide.
		{"nodeclasses.eks.amazonaws.com", "nodeclasses", "nodeclass", "NodeClass", "NodeClassList", "eks.amazonaws.com"},
		{"nodeoverlays.karpenter.sh", "nodeoverlays", "nodeoverlay", "NodeOverlay", "NodeOverlayList", "karpenter.sh"},
		{"nodepools.karpenter.sh", "nodepools", "nodepool", "NodePool", "NodePoolList", "karpenter.sh"},
	}
	for i, d := range docs {
		if strings.Contains(d, "status:\n  acceptedNames") || strings.Contains(d, "\n  creationTimestamp:") {
			t.Errorf("%s: carries server-set fields:\n%.300s", want[i].name, d)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict([]byte(d), &crd); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		w, n := want[i], crd.Spec.Names
		if crd.Name != w.name || n.Plural != w.plural || n.Singular != w.singular || n.Kind != w.kind || n.ListKind != w.listKind || crd.Spec.Group != w.group {
			t.Errorf("document %d: name %q, names %+v, group %q; want %+v", i, crd.Name, n, crd.Spec.Group, w)
		}
		if cols := crd.Spec.Versions[0].AdditionalPrinterColumns; w.group != manifest.AutoModeNodeClassGroup && (len(cols) < 2 || cols[0].JSONPath == "") {
			t.Errorf("%s: printer columns %+v, want Karpenter's", w.name, cols)
		}
		if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Spec.Scope != apiextensionsv1.ClusterScoped {
			t.Errorf("%s: %s %s, scope %s", w.name, crd.APIVersion, crd.Kind, crd.Spec.Scope)
		}
		if len(crd.Spec.Versions) != 1 {
			t.Fatalf("%s: %d versions", w.name, len(crd.Spec.Versions))
		}
		v := crd.Spec.Versions[0]
		if wantVersion := map[string]string{"NodeOverlay": "v1alpha1"}[w.kind]; v.Name != cmp.Or(wantVersion, "v1") || !v.Served || !v.Storage || v.Subresources == nil || v.Subresources.Status == nil {
			t.Errorf("%s: version %s served %v storage %v subresources %+v", w.name, v.Name, v.Served, v.Storage, v.Subresources)
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil || v.Schema.OpenAPIV3Schema.Properties["spec"].Type != "object" {
			t.Errorf("%s: no spec in the schema", w.name)
		}
	}
}

// With -differential every embedded minor's EC2NodeClass, NodePool and NodeOverlay is installed too, under a
// group of its own, with the minor's schema.
func TestRenderDifferential(t *testing.T) {
	out, err := render(manifest.DefaultVersion, true)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(out), "\n---\n")
	if want := 5 + 3*len(manifest.Versions()); len(docs) != want {
		t.Fatalf("want %d documents, got %d", want, len(docs))
	}
	byName := map[string]string{}
	for _, d := range docs {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict([]byte(d), &crd); err != nil {
			t.Fatal(err)
		}
		byName[crd.Name] = d
		if crd.Name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			t.Errorf("%s: group %s", crd.Name, crd.Spec.Group)
		}
	}
	v19, v115 := byName["ec2nodeclasses.v1-9.karpenter.k8s.aws"], byName["ec2nodeclasses.v1-15.karpenter.k8s.aws"]
	if v19 == "" || v115 == "" || byName["nodepools.v1-12.karpenter.sh"] == "" {
		t.Fatalf("differential groups missing: %v", len(byName))
	}
	if strings.Contains(v19, "networkInterfaces") || !strings.Contains(v115, "enclaveOptions") || strings.Contains(v19, "shortNames") {
		t.Error("a differential copy does not carry its own minor's schema, or carries short names")
	}
}
