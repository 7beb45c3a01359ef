package crdcheck

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const crdDir = "../../../../shared/reference/crds"

var (
	ec2NodeClassCRD = filepath.Join(crdDir, "karpenter.k8s.aws_ec2nodeclasses.yaml")
	nodePoolCRD     = filepath.Join(crdDir, "karpenter.sh_nodepools.yaml")
)

func requireCRD(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("CRD %s not available (%v): skipping", path, err)
	}
}

func TestToJSONSchema(t *testing.T) {
	in := map[string]any{
		"type":        "object",
		"description": "dropped",
		"required":    []any{"a"},
		"x-kubernetes-validations": []any{
			map[string]any{"rule": "self.a != ''"},
		},
		"properties": map[string]any{
			"a":    map[string]any{"type": "string", "pattern": "^a", "default": "a", "maxLength": 3},
			"n":    map[string]any{"type": "integer", "format": "int32", "minimum": 0},
			"big":  map[string]any{"type": "integer", "format": "int64"},
			"ios":  map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}, "pattern": "^[0-9]+$"},
			"t":    map[string]any{"type": "string", "format": "date-time"},
			"f":    map[string]any{"type": "string", "format": "quantity"},
			"null": map[string]any{"type": "string", "nullable": true},
			"set":  map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string", "enum": []any{"x"}}},
			"open": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": map[string]any{}},
			"m":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string", "description": "x"}},
			"excl": map[string]any{"type": "number", "minimum": 1, "exclusiveMinimum": true},
		},
	}
	want := map[string]any{
		"type":                 "object",
		"required":             []any{"a"},
		"additionalProperties": false,
		"properties": map[string]any{
			"a":    map[string]any{"type": "string", "pattern": "^a", "maxLength": 3},
			"n":    map[string]any{"type": "integer", "minimum": 0, "maximum": math.MaxInt32},
			"big":  map[string]any{"type": "integer", "minimum": math.MinInt64, "maximum": math.MaxInt64},
			"ios":  map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}, "pattern": "^[0-9]+$"},
			"t":    map[string]any{"type": "string", "format": "date-time"},
			"f":    map[string]any{"type": "string"},
			"null": map[string]any{"type": []any{"string", "null"}},
			"set":  map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{"type": "string", "enum": []any{"x"}}},
			"open": map[string]any{"type": "object", "properties": map[string]any{}},
			"m":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"excl": map[string]any{"type": "number", "exclusiveMinimum": 1},
		},
	}
	if got := toJSONSchema(in); !reflect.DeepEqual(got, want) {
		t.Errorf("toJSONSchema:\n got %#v\nwant %#v", got, want)
	}
}

func TestLoadCachesAndReadsAllowlist(t *testing.T) {
	requireCRD(t, nodePoolCRD)
	a, err := load(nodePoolCRD)
	if err != nil {
		t.Fatal(err)
	}
	b, err := load(filepath.Join(crdDir, ".", "karpenter.sh_nodepools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("second load of the same CRD was not served from the cache")
	}
	if a.group != "karpenter.sh" || a.kind != "NodePool" {
		t.Errorf("group/kind = %s/%s", a.group, a.kind)
	}
	for _, k := range []string{"karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/ec2nodeclass"} {
		if !a.allowedAWSLabels[k] {
			t.Errorf("allowlist lacks %s", k)
		}
	}
	if len(a.allowedAWSLabels) < 20 {
		t.Errorf("allowlist has only %d keys", len(a.allowedAWSLabels))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	notCRD := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(notCRD, []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.yaml"): "reading CRD",
		notCRD:                             "no CustomResourceDefinition",
	} {
		if err := Validate(path, "kind: X\n"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%s): error %v, want %q", path, err, want)
		}
	}
}

const ec2Base = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: base
spec:
  role: r
  amiSelectorTerms:
    - alias: bottlerocket@latest
  subnetSelectorTerms:
    - id: subnet-1
  securityGroupSelectorTerms:
    - id: sg-1
`

const npBase = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: base
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: base
      requirements: []
`

// TestValidateRawDocuments covers rules and checks that the manifest structs cannot express.
func TestValidateRawDocuments(t *testing.T) {
	requireCRD(t, ec2NodeClassCRD)
	requireCRD(t, nodePoolCRD)
	tests := []struct {
		name string
		crd  string
		doc  string
		want string // "" means the document must be accepted
	}{
		{"ec2 base", ec2NodeClassCRD, ec2Base, ""},
		{"nodepool base", nodePoolCRD, npBase, ""},
		{"integer limit is allowed (int-or-string)", nodePoolCRD, npBase + "  limits:\n    cpu: 1000\n", ""},
		{"boolean limit is not", nodePoolCRD, npBase + "  limits:\n    cpu: true\n", "/spec/limits/cpu"},
		{"unquoted numeric label value", nodePoolCRD, strings.Replace(npBase, "  template:\n", "  template:\n    metadata:\n      labels:\n        tier: 1\n", 1), "/spec/template/metadata/labels/tier"},
		{"unknown spec field", ec2NodeClassCRD, ec2Base + "  subnetSelector:\n    a: b\n", "additional properties 'subnetSelector'"},
		{"wrong kind", ec2NodeClassCRD, strings.Replace(ec2Base, "kind: EC2NodeClass", "kind: NodePool", 1), "kind: got NodePool"},
		{"wrong apiVersion", ec2NodeClassCRD, strings.Replace(ec2Base, "karpenter.k8s.aws/v1", "karpenter.k8s.aws/v1beta1", 1), "apiVersion: got karpenter.k8s.aws/v1beta1"},
		{"missing name", ec2NodeClassCRD, strings.Replace(ec2Base, "  name: base\n", "  labels:\n    a: b\n", 1), "metadata.name: required"},
		{"two documents", ec2NodeClassCRD, ec2Base + "---\n" + ec2Base, "more than one document"},
		{"not a mapping", ec2NodeClassCRD, "- a\n", "not a YAML mapping"},
		{"integer map key", ec2NodeClassCRD, ec2Base + "  tags:\n    1: a\n", "is not a string"},
		{"invalid YAML", ec2NodeClassCRD, "a: [\n", "parsing YAML"},
		{"capacity reservation id with ownerID", ec2NodeClassCRD, ec2Base + "  capacityReservationSelectorTerms:\n    - id: cr-1\n      ownerID: \"123456789012\"\n", "capacityReservationSelectorTerms: id cannot be combined"},
		{"capacity reservation empty term", ec2NodeClassCRD, ec2Base + "  capacityReservationSelectorTerms:\n    - ownerID: \"123456789012\"\n", "every term needs tags, id or instanceMatchCriteria"},
		{"capacity reservation ok", ec2NodeClassCRD, ec2Base + "  capacityReservationSelectorTerms:\n    - instanceMatchCriteria: open\n      ownerID: \"123456789012\"\n", ""},
		{"placement group name and id", ec2NodeClassCRD, ec2Base + "  placementGroupSelector:\n    name: pg\n    id: pg-1\n", "name and id cannot both be set"},
		{"connection tracking empty", ec2NodeClassCRD, ec2Base + "  connectionTracking:\n    {}\n", "at least one timeout"},
		{"connection tracking range", ec2NodeClassCRD, ec2Base + "  connectionTracking:\n    udpTimeout: 10\n", "/spec/connectionTracking/udpTimeout"},
		{"volumeInitializationRate without snapshot", ec2NodeClassCRD, ec2Base + "  blockDeviceMappings:\n    - ebs:\n        volumeSize: 20Gi\n        volumeInitializationRate: 150\n", "volumeInitializationRate needs a non-empty snapshotID"},
		{"empty role", ec2NodeClassCRD, strings.Replace(ec2Base, "role: r", "role: \"\"", 1), "spec.role: must not be empty"},
		{"int32 overflow", ec2NodeClassCRD, ec2Base + "  ipPrefixCount: 4294967296\n", "/spec/ipPrefixCount"},
		{"taint timeAdded format", nodePoolCRD, strings.Replace(npBase, "      requirements: []\n", "      requirements: []\n      taints:\n        - key: a\n          effect: NoSchedule\n          timeAdded: yesterday\n", 1), "/spec/template/spec/taints/0/timeAdded"},
		{"Gt without values key", nodePoolCRD, strings.Replace(npBase, "requirements: []", "requirements:\n        - key: karpenter.k8s.aws/instance-cpu\n          operator: Gt", 1), "operator Gt needs exactly one value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.crd, tc.doc)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v\n%s", err, tc.doc)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want error containing %q\n%s", tc.want, tc.doc)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error does not contain %q:\n%v", tc.want, err)
			}
		})
	}
}
