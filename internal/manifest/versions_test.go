package manifest

import (
	"slices"
	"strings"
	"testing"
)

func TestVersions(t *testing.T) {
	want := []string{"1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15"}
	if got := Versions(); !slices.Equal(got, want) {
		t.Fatalf("Versions() = %v, want %v", got, want)
	}
	if DefaultVersion != want[len(want)-1] {
		t.Errorf("DefaultVersion = %s, want the newest embedded, %s", DefaultVersion, want[len(want)-1])
	}
	for _, v := range want {
		crds, err := CRDsFor(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := MinorOf(crds[EC2NodeClassKind].KarpenterVersion); got != "v"+v {
			t.Errorf("crds/v%s holds Karpenter %s", v, crds[EC2NodeClassKind].KarpenterVersion)
		}
		// Every file of the folder is one of the kinds compiled, and each kind's file is there.
		entries, err := crdFiles.ReadDir("crds/v" + v)
		if err != nil {
			t.Fatal(err)
		}
		var files, want []string
		for _, e := range entries {
			files = append(files, e.Name())
		}
		for _, f := range crdFileOf {
			want = append(want, f)
		}
		slices.Sort(want)
		if !slices.Equal(files, want) {
			t.Errorf("crds/v%s holds %v, want %v", v, files, want)
		}
	}
	if _, err := CRDsFor("1.8"); err == nil {
		t.Error("CRDsFor(1.8) succeeded")
	}
	if _, err := CRDFor("1.15", "Pod"); err == nil {
		t.Error("CRDFor(1.15, Pod) succeeded")
	}
	for kind := range crdFileOf {
		if _, err := loadCRD(DefaultVersion, kind, crdFileOf[NodePoolKind]); (err == nil) != (kind == NodePoolKind) {
			t.Errorf("loading %s as a %s: error %v", crdFileOf[NodePoolKind], kind, err)
		}
	}
	if CompareVersions("1.9", "1.10") >= 0 || !AtLeast("1.15", "1.11") || AtLeast("1.9", "1.11") {
		t.Error("version order is not numeric")
	}
}

const versionClassHead = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: versions
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

// A field is refused by the versions before it existed, naming the first one that has it, and
// accepted from that version on (measured on Karpenter's CRDs, v1.9.3 to v1.15.2).
func TestAdmitForRefusesFieldsOfLaterVersions(t *testing.T) {
	for _, tc := range []struct {
		name, extra, field, first string
	}{
		{"networkInterfaces", "  networkInterfaces:\n  - networkCardIndex: 0\n    deviceIndex: 0\n    interfaceType: interface\n", "spec.networkInterfaces", "1.11"},
		{"placementGroupSelector", "  placementGroupSelector:\n    name: pg\n", "spec.placementGroupSelector", "1.11"},
		{"cpuOptions", "  cpuOptions:\n    nestedVirtualization: enabled\n", "spec.cpuOptions", "1.13"},
		{"connectionTracking", "  connectionTracking:\n    tcpEstablishedTimeout: 3600\n", "spec.connectionTracking", "1.13"},
		{"enclaveOptions", "  enclaveOptions:\n    enabled: true\n", "spec.enclaveOptions", "1.15"},
		{"free-form kubelet", "  kubelet:\n    serializeImagePulls: false\n", "spec.kubelet.serializeImagePulls", "1.15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := versionClassHead + tc.extra
			for _, v := range Versions() {
				violations, err := AdmitFor(v, doc)
				if err != nil {
					t.Fatal(err)
				}
				if AtLeast(v, tc.first) {
					if len(violations) > 0 {
						t.Errorf("Karpenter %s refuses it: %v", v, violations)
					}
					continue
				}
				if len(violations) != 1 || violations[0].Field.String() != tc.field {
					t.Fatalf("Karpenter %s: %v, want one violation at %s", v, violations, tc.field)
				}
				if msg := violations[0].Message; !strings.Contains(msg, "first appears in Karpenter "+tc.first+" ") {
					t.Errorf("Karpenter %s: %q does not name %s", v, msg, tc.first)
				}
			}
		})
	}
}

// SchemasFor reads a version's schemas without compiling them, the same ones CRDsFor compiles.
func TestSchemasFor(t *testing.T) {
	for _, v := range Versions() {
		schemas, err := SchemasFor(v)
		if err != nil {
			t.Fatal(err)
		}
		crds, _ := CRDsFor(v)
		for kind, c := range crds {
			if schemas[kind] == nil || len(schemas[kind].Properties) != len(c.Schema.Properties) {
				t.Errorf("Karpenter %s %s: schema differs from the compiled CRD's", v, kind)
			}
		}
	}
	if _, err := SchemasFor("1.8"); err == nil {
		t.Error("SchemasFor(1.8) succeeded")
	}
}

func TestInDifferentialGroup(t *testing.T) {
	class := "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\n"
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
	if got := InDifferentialGroup(class, "1.9"); got != "apiVersion: v1-9.karpenter.k8s.aws/v1\nkind: EC2NodeClass\n" {
		t.Errorf("class: %q", got)
	}
	if got := InDifferentialGroup(pool, "1.15"); got != "apiVersion: v1-15.karpenter.sh/v1\nkind: NodePool\n" {
		t.Errorf("pool: %q", got)
	}
}
