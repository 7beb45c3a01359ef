package manifest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFieldPath(t *testing.T) {
	crds, err := CRDsFor(corpusVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind, in string
		want     Path
	}{
		{NodePoolKind, "spec.template.spec.taints[0].key", Path{{Name: "spec"}, {Name: "template"}, {Name: "spec"}, {Name: "taints"}, {Kind: IndexStep, Index: 0}, {Name: "key"}}},
		{NodePoolKind, "spec.limits[nvidia.com/gpu]", Path{{Name: "spec"}, {Name: "limits"}, {Kind: KeyStep, Name: "nvidia.com/gpu"}}},
		{NodePoolKind, "spec.limits.nvidia.com/gpu", Path{{Name: "spec"}, {Name: "limits"}, {Kind: KeyStep, Name: "nvidia.com/gpu"}}},
		{EC2NodeClassKind, "spec.kubelet.evictionHard.memory.available", Path{{Name: "spec"}, {Name: "kubelet"}, {Name: "evictionHard"}, {Kind: KeyStep, Name: "memory.available"}}},
		{EC2NodeClassKind, "spec.amiSelectorTerms[2].tags.kubernetes.io/role", Path{{Name: "spec"}, {Name: "amiSelectorTerms"}, {Kind: IndexStep, Index: 2}, {Name: "tags"}, {Kind: KeyStep, Name: "kubernetes.io/role"}}},
		{EC2NodeClassKind, "spec.tags[0]", Path{{Name: "spec"}, {Name: "tags"}, {Kind: KeyStep, Name: "0"}}},
		{EC2NodeClassKind, "spec.bogus.field", Path{{Name: "spec"}, {Name: "bogus"}, {Name: "field"}}},
		{EC2NodeClassKind, "metadata.name", Path{{Name: "metadata"}, {Name: "name"}}},
		{EC2NodeClassKind, "", nil},
	} {
		if got := crds[tc.kind].ParseFieldPath(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFieldPath(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"associatePublicIPAddress": "associate_public_ip_address", "kmsKeyID": "kms_key_id", "clusterDNS": "cluster_dns",
		"cpuCFSQuota": "cpu_cfs_quota", "imageGCHighThresholdPercent": "image_gc_high_threshold_percent",
		"httpProtocolIPv6": "http_protocol_ipv6", "ssmParameter": "ssm_parameter", "minValues": "min_values", "role": "role",
		"ownerID": "owner_id", "volumeInitializationRate": "volume_initialization_rate", "nodeClassRef": "node_class",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAttributePath(t *testing.T) {
	crds, err := CRDsFor(corpusVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ kind, field, want string }{
		{NodePoolKind, "spec.template.spec.taints[0].key", "template.taints[0].key"},
		{NodePoolKind, "spec.template.metadata.labels", "template.labels"},
		{NodePoolKind, "spec.template.spec.requirements[3].minValues", "template.requirements[3].min_values"},
		{NodePoolKind, "spec.template.spec.nodeClassRef.name", "node_class"},
		{NodePoolKind, "spec.disruption.budgets[0].schedule", "disruption.budgets[0].schedule"},
		{NodePoolKind, "spec.limits[cpu]", `limits["cpu"]`},
		{NodePoolKind, "metadata.name", "name"},
		{NodePoolKind, "spec", ""},
		{NodePoolKind, "status.conditions", ""},
		{EC2NodeClassKind, "spec.kubelet.evictionMaxPodGracePeriod", "kubelet.eviction_max_pod_grace_period"},
		{EC2NodeClassKind, "spec.amiSelectorTerms[0].tags", "ami_selector_terms[0].tags"},
		{EC2NodeClassKind, "spec.blockDeviceMappings[1].ebs.kmsKeyID", "block_device_mappings[1].ebs.kms_key_id"},
		{EC2NodeClassKind, "spec.metadataOptions.httpProtocolIPv6", "metadata_options.http_protocol_ipv6"},
		{EC2NodeClassKind, "spec.template.spec", "template.spec"}, // no template on a node class
	} {
		if got := AttributePath(tc.kind, crds[tc.kind].ParseFieldPath(tc.field)).String(); got != tc.want {
			t.Errorf("AttributePath(%s, %s) = %q, want %q", tc.kind, tc.field, got, tc.want)
		}
	}
}

func TestAdmitRefusesNonKarpenterDocuments(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata:\n  name: x\n",
		"- a\n- b\n",
		"key: [unclosed\n",
	} {
		if v, err := Admit(doc); err == nil {
			t.Errorf("Admit(%q) = %v, nil; want an error", doc, v)
		}
	}
}

// An unknown field fails as it does under kubectl's strict field validation, and CRD defaults
// are applied before the rules run (a NodePool without disruption gets consolidateAfter 0s
// and passes).
func TestAdmitUnknownFieldsAndDefaults(t *testing.T) {
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n"
	admitted(t, pool)
	err := refused(t, strings.Replace(pool, "  template:\n", "  weigth: 10\n  template:\n", 1))
	if !strings.Contains(err.Error(), `spec.weigth: unknown field "spec.weigth"`) {
		t.Errorf("unknown field not reported: %v", err)
	}
}

// The embedded data names its Karpenter release and carries no description prose.
func TestEmbeddedCRDs(t *testing.T) {
	crds, err := CRDsFor(corpusVersion)
	if err != nil {
		t.Fatal(err)
	}
	for kind, apiVersion := range map[string]string{EC2NodeClassKind: EC2NodeClassAPIVersion, NodePoolKind: NodePoolAPIVersion,
		NodeOverlayKind: NodeOverlayAPIVersion, NodeClaimKind: NodeClaimAPIVersion} {
		c := crds[kind]
		if c == nil || c.APIVersion() != apiVersion || !strings.HasPrefix(c.KarpenterVersion, "v1.14.") {
			t.Fatalf("%s: %+v", kind, c)
		}
	}
	for _, v := range Versions() {
		files, _ := crdFiles.ReadDir("crds/v" + v)
		if len(files) != 4 {
			t.Errorf("crds/v%s holds %d files, want 4", v, len(files))
		}
		for _, f := range files {
			raw, _ := crdFiles.ReadFile("crds/v" + v + "/" + f.Name())
			if strings.Contains(string(raw), `"description"`) {
				t.Errorf("%s carries description text", f.Name())
			}
			if !strings.Contains(string(raw), `"moduleSum": "h1:`) {
				t.Errorf("v%s/%s does not record its module hash", v, f.Name())
			}
		}
	}
}

// The NodeClaim CRD is embedded for the test API server only: Admit refuses a NodeClaim.
func TestAdmitRefusesNodeClaim(t *testing.T) {
	doc := "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: x\nspec:\n  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n  requirements: []\n"
	if v, err := Admit(doc); err == nil || !strings.Contains(err.Error(), "not a Karpenter EC2NodeClass, NodePool or NodeOverlay") {
		t.Errorf("Admit(NodeClaim) = %v, %v; want an error", v, err)
	}
}
