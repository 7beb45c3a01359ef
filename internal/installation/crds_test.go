package installation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// servedSchema is an embedded CRD's schema as a cluster would serve it: JSON, with the
// descriptions the embedded copies lack put back (the check must look past them), edited by
// each edit.
func servedSchema(t *testing.T, version, kind string, edits ...func(schema map[string]any)) []byte {
	t.Helper()
	schemas, err := manifest.SchemasFor(version)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(schemas[kind])
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	tree["description"] = kind + " is the Schema for the API"
	spec := tree["properties"].(map[string]any)["spec"].(map[string]any)
	spec["description"] = "spec is the desired state"
	for _, edit := range edits {
		edit(tree)
	}
	out, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func served(kind string, schema []byte) ServedCRD {
	return ServedCRD{Kind: kind, Name: CRDNames[kind], Schemas: map[string][]byte{servedVersion(kind): schema}}
}

func servedVersion(kind string) string {
	if kind == manifest.NodeOverlayKind {
		return "v1alpha1"
	}
	return "v1"
}

const classDoc = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: served
spec:
  role: KarpenterNodeRole
  amiSelectorTerms:
  - alias: al2023@latest
  subnetSelectorTerms:
  - tags:
      karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
  - tags:
      karpenter.sh/discovery: demo
`

// A cluster still serving Karpenter 1.9's EC2NodeClass CRD under karpenter_version 1.15: one
// warning naming the CRD's version and what it lacks; a class using cpuOptions (Karpenter 1.13)
// is an error on cpu_options naming the dropped field and the fix; a class without it passes.
func TestCheckOlderCRDNamesTheDroppedField(t *testing.T) {
	check, warnings := CompareCRDs("1.15", []ServedCRD{served(manifest.EC2NodeClassKind, servedSchema(t, "1.9", manifest.EC2NodeClassKind))})
	if len(warnings) != 1 || warnings[0].Path.String() != "karpenter_version" ||
		!strings.Contains(warnings[0].Message, "ec2nodeclasses.karpenter.k8s.aws") || !strings.Contains(warnings[0].Message, "spec.cpuOptions") ||
		!strings.Contains(warnings[0].Message, `older than karpenter_version "1.15"`) {
		t.Fatalf("warnings %v", warnings)
	}
	if k := check.kinds[manifest.EC2NodeClassKind]; len(k.guesses) == 0 || k.guesses[0] != "1.9" {
		t.Errorf("the 1.9 CRD, descriptions and all, guessed as %v", k.guesses)
	}
	findings, err := check.Check(manifest.EC2NodeClassKind, classDoc+"  cpuOptions:\n    nestedVirtualization: enabled\n", true)
	if err != nil || len(findings) != 1 {
		t.Fatalf("findings %v, %v; want one", findings, err)
	}
	f := findings[0]
	for _, want := range []string{"and has no spec.cpuOptions: the API server would drop it", "Karpenter 1.9's", "karpenter-crd --version 1.15.2",
		`karpenter_version = "1.9"`} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f.Message)
		}
	}
	if f.Path.String() != "cpu_options" {
		t.Errorf("finding on %q, want cpu_options", f.Path)
	}
	if findings, err := check.Check(manifest.EC2NodeClassKind, classDoc, true); err != nil || len(findings) != 0 {
		t.Errorf("a class the old CRD holds: %v, %v", findings, err)
	}
}

// NodePool's schema declares the same fields in 1.9 and 1.15, but 1.9's requires
// disruption.consolidateAfter, which 1.15 defaults: the served CRD's validation refuses what the
// plan's admission let through, and says so only when that admission found nothing.
func TestCheckOlderCRDRunsItsValidation(t *testing.T) {
	check, warnings := CompareCRDs("1.15", []ServedCRD{served(manifest.NodePoolKind, servedSchema(t, "1.9", manifest.NodePoolKind))})
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "NodePool CRD (nodepools.karpenter.sh) is Karpenter 1.") {
		t.Fatalf("warnings %v", warnings)
	}
	doc := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: served
spec:
  disruption:
    consolidationPolicy: WhenEmpty
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["spot"]
`
	if v, _, err := manifest.AdmitAll("1.15", doc); err != nil || len(v) != 0 {
		t.Fatalf("Karpenter 1.15's CRD refuses the pool: %v %v", v, err)
	}
	findings, err := check.Check(manifest.NodePoolKind, doc, true)
	if err != nil || len(findings) != 1 || findings[0].Path.String() != "disruption.consolidate_after" ||
		!strings.Contains(findings[0].Message, "Required value") || !strings.Contains(findings[0].Message, "which Karpenter 1.15's CRD admits") {
		t.Fatalf("findings %v, %v; want consolidateAfter required", findings, err)
	}
	if findings, _ := check.Check(manifest.NodePoolKind, doc, false); len(findings) != 0 {
		t.Errorf("refusals repeated after the plan's own: %v", findings)
	}
	// NodeOverlay's CRD did not change from 1.9 to 1.12: the message names all four.
	_, warnings = CompareCRDs("1.15", []ServedCRD{served(manifest.NodeOverlayKind, servedSchema(t, "1.9", manifest.NodeOverlayKind))})
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "has the schema of Karpenter 1.9, 1.10, 1.11 and 1.12, older than") ||
		!strings.Contains(warnings[0].Message, `set karpenter_version = "1.12"`) {
		t.Errorf("warnings %v", warnings)
	}
}

// No CRD is an error only for a manifest of its kind, and only from Check; a CRD that does not
// serve the manifest's version is as good as none.
func TestCheckMissingCRD(t *testing.T) {
	check, warnings := CompareCRDs("1.15", []ServedCRD{
		{Kind: manifest.NodeOverlayKind, Name: CRDNames[manifest.NodeOverlayKind], Missing: true},
		{Kind: manifest.EC2NodeClassKind, Name: CRDNames[manifest.EC2NodeClassKind], Schemas: map[string][]byte{"v1beta1": []byte(`{}`)}},
	})
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	overlay := "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: x\nspec:\n  weight: 10\n"
	findings, err := check.Check(manifest.NodeOverlayKind, overlay, true)
	if err != nil || len(findings) != 1 || !findings[0].Path.IsEmpty() ||
		!strings.Contains(findings[0].Message, "the cluster has no CustomResourceDefinition nodeoverlays.karpenter.sh") ||
		!strings.Contains(findings[0].Message, "helm upgrade --install karpenter-crd") {
		t.Fatalf("findings %v, %v", findings, err)
	}
	findings, _ = check.Check(manifest.EC2NodeClassKind, classDoc, false)
	if len(findings) != 1 || !strings.Contains(findings[0].Message, "does not serve karpenter.k8s.aws/v1 (it serves v1beta1)") {
		t.Errorf("findings %v", findings)
	}
	if findings, _ := check.Check(manifest.NodePoolKind, "not read", true); len(findings) != 0 {
		t.Errorf("a kind whose CRD was not read: %v", findings)
	}
	var none *CRDCheck
	if findings, err := none.Check(manifest.NodePoolKind, "", true); findings != nil || err != nil {
		t.Errorf("no check: %v %v", findings, err)
	}
}

// The CRDs of karpenter_version check nothing more than the plan's admission did.
func TestCheckSameCRD(t *testing.T) {
	var all []ServedCRD
	for _, kind := range []string{manifest.EC2NodeClassKind, manifest.NodePoolKind, manifest.NodeOverlayKind} {
		all = append(all, served(kind, servedSchema(t, "1.15", kind)))
	}
	check, warnings := CompareCRDs("1.15", all)
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	for kind, k := range check.kinds {
		if !k.same {
			t.Errorf("%s: Karpenter 1.15's CRD not recognised (guesses %v)", kind, k.guesses)
		}
	}
	if findings, err := check.Check(manifest.EC2NodeClassKind, classDoc+"  enclaveOptions:\n    enabled: true\n", true); err != nil || len(findings) != 0 {
		t.Errorf("findings %v, %v", findings, err)
	}
	// A newer CRD than karpenter_version's is no warning: it declares every field.
	if _, warnings := CompareCRDs("1.14", all); len(warnings) != 0 {
		t.Errorf("1.15's CRDs under karpenter_version 1.14: %v", warnings)
	}
}

// A served schema that is no embedded release's (here 1.15's without cpuOptions) is compiled and
// judged as it is, and the message says it matches none.
func TestCheckUnknownCRD(t *testing.T) {
	edited := servedSchema(t, "1.15", manifest.EC2NodeClassKind, func(schema map[string]any) {
		spec := schema["properties"].(map[string]any)["spec"].(map[string]any)
		delete(spec["properties"].(map[string]any), "cpuOptions")
	})
	check, warnings := CompareCRDs("1.15", []ServedCRD{served(manifest.EC2NodeClassKind, edited)})
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "matches no Karpenter release this provider knows") ||
		!strings.Contains(warnings[0].Message, "it has no spec.cpuOptions, which Karpenter 1.15's declares") {
		t.Fatalf("warnings %v", warnings)
	}
	findings, err := check.Check(manifest.EC2NodeClassKind, classDoc+"  cpuOptions:\n    nestedVirtualization: enabled\n  enclaveOptions:\n    enabled: true\n", true)
	if err != nil || len(findings) != 1 || findings[0].Path.String() != "cpu_options" || strings.Contains(findings[0].Message, "set karpenter_version") {
		t.Fatalf("findings %v, %v", findings, err)
	}
	if _, warnings := CompareCRDs("1.15", []ServedCRD{served(manifest.EC2NodeClassKind, []byte(`{"type": 7}`))}); len(warnings) != 1 ||
		!strings.Contains(warnings[0].Message, "cannot be read as a schema") {
		t.Errorf("an unreadable schema: %v", warnings)
	}
}
