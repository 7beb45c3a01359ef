package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Version-0 states, as earlier builds wrote them (abridged to the attributes that changed
// shape, plus some that did not).
const (
	v0NodeClass = `{"id":"default","name":"default","role":"KarpenterNodeRole","owner_id":"0123456789abcdef",
"vpc_id":"vpc-1","zones":["ap-southeast-1a"],
"subnets":[{"id":"subnet-a","zone":"ap-southeast-1a","zone_id":"apse1-az1","cidr_block":"10.0.0.0/20","available_ip_address_count":4091}],
"manifest":"kind: EC2NodeClass\n",
"resolved":{"name":"default","zones":["ap-southeast-1a"],"subnets":[{"id":"subnet-a","zone":"ap-southeast-1a","zone_id":"apse1-az1","cidr_block":"10.0.0.0/20","available_ip_address_count":4091}],"pod_subnets":[],"efa":false}}`
	v0NodePool = `{"id":"general","name":"general","owner_id":"0123456789abcdef","replicas":2,"limits":{"nodes":"5"},
"node_class":{"name":"default","zones":["ap-southeast-1a"],"subnets":[]},
"zones":[{"zone":"ap-southeast-1a","zone_id":"apse1-az1","subnet_id":"subnet-a","available_ip_address_count":4091,"pod_subnet_id":null}],
"capacity":[{"zone":"ap-southeast-1a","available_ip_address_count":4091,"nodes_by_ips":51,"nodes_by_limits":5}],
"instance_types":["m5.large"],"max_pods":{"m5.large":29},
"launch_templates":[{"name":"my-cluster/general/abc","id":"lt-1","default_version":1,"max_pods":29,"instance_types":["m5.large"],"user_data":"x","fingerprint":"f"}],
"nodes":[{"instance_id":"i-1","instance_type":"m5.large","zone":"ap-southeast-1a","subnet_id":"subnet-a","private_ip":"10.0.0.5","capacity_type":"on-demand","launch_template":"my-cluster/general/abc","template_fingerprint":"f","state":"running","in_planned_subnet":true}],
"manifest":null,"warnings":[]}`
)

// v1NodeClass is a version-1 state of a class: `resolved` without the hash.
const v1NodeClass = `{"id":"default","name":"default","role":"KarpenterNodeRole","owner_id":"0123456789abcdef",
"vpc_id":"vpc-1","zones":["ap-southeast-1a"],"manifest":"kind: EC2NodeClass\n",
"resolved":{"name":"default","ami_family":"AL2023","subnets":{"subnet-a":{"zone":"ap-southeast-1a","zone_id":"apse1-az1","available_ip_address_count":4091}}}}`

// v1NodePool is a version-1 state of a static pool: summary without cost and prices.
const v1NodePool = `{"id":"general","name":"general","replicas":2,"owner_id":"0123456789abcdef","details":null,
"summary":{"instance_types":1,"first_instance_types":"m5.large","max_pods_min":29,"max_pods_max":29,"karpenter_disagrees":0,"launch_templates":1,"nodes_by_ips":100,"nodes_by_limits":null},
"zones":{"ap-southeast-1a":{"subnet_id":"subnet-1","nodes_by_ips":100,"pod_subnet_id":null}}}`

// v2NodePool is a version-2 pool: the version-1 one with a summary of version 2's shape (null
// here) and a node_class without the placement group id.
var v2NodePool = strings.Replace(v1NodePool, `"summary":`, `"summary":null,"x_summary_v1":`, 1)

// v3Resolved is a version-3 `resolved` (and `node_class`): the ClassValue object.
const v3Resolved = `{"name":"default","ami_family":"AL2023","subnets":{"subnet-a":{"zone":"ap-southeast-1a","zone_id":"apse1-az1","available_ip_address_count":4091}},"security_group_ids":["sg-1"],"instance_profile":"nodeplane-c-default-01","hash":"123","hash_version":"v6"}`

// Version-3 states of a class and a pool on it.
var (
	v3NodeClass = strings.Replace(v1NodeClass, `"resolved":{"name":"default","ami_family":"AL2023","subnets":{"subnet-a":{"zone":"ap-southeast-1a","zone_id":"apse1-az1","available_ip_address_count":4091}}}`,
		`"resolved":`+v3Resolved, 1)
	v3NodePool = strings.Replace(v1NodePool, `"details":null`, `"node_class":`+v3Resolved, 1)
	// v3Fingerprint is the fingerprint of v3Resolved's resolution, as the class's next plan writes it.
	v3Fingerprint = func() string {
		s := func(v string) *string { return &v }
		return launchplan.ClassValue{Name: "default", AMIFamily: "AL2023", Subnets: map[string]launchplan.ClassSubnet{
			"subnet-a": {Zone: "ap-southeast-1a", ZoneID: "apse1-az1", AvailableIPAddressCount: 4091}}, SecurityGroupIDs: []string{"sg-1"},
			InstanceProfile: s("nodeplane-c-default-01"), Hash: s("123"), HashVersion: s("v6")}.Ref().Fingerprint
	}()
)

// A state written before the reshaped attributes upgrades: what kept its type is kept, the
// reshaped attributes are null (the next plan computes them, configuration sets node_class), and
// the result decodes with the current schema.
func TestStateUpgradeFromVersion0(t *testing.T) {
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typeName      string
		from, version int64
		state         string
		kept          map[string]string // attribute -> a substring of its upgraded value
		null          []string
	}{
		{"karpenter_node_class", 0, 4, v0NodeClass, map[string]string{"owner_id": "0123456789abcdef", "vpc_id": "vpc-1", "zones": "ap-southeast-1a"},
			[]string{"resolved", "subnets", "manifest_object"}},
		{"karpenter_node_pool", 0, 4, v0NodePool, map[string]string{"owner_id": "0123456789abcdef", "nodes": "i-1", "replicas": "2", "max_pods": "29"},
			[]string{"node_class", "zones", "launch_templates", "summary", "details"}},
		// Version 2 added cost and prices to summary: a version-1 summary is dropped, the rest kept.
		{"karpenter_node_pool", 1, 4, v1NodePool, map[string]string{"owner_id": "0123456789abcdef", "zones": "subnet-1", "replicas": "2"},
			[]string{"summary", "workload_fit", "prices", "min_values_policy", "drift", "node_class"}},
		// Version 2 added the class hash to `resolved`: a version-1 resolved is dropped, the rest kept.
		{"karpenter_node_class", 1, 4, v1NodeClass, map[string]string{"owner_id": "0123456789abcdef", "vpc_id": "vpc-1", "zones": "ap-southeast-1a"},
			[]string{"resolved"}},
		// Version 3 added the placement group id to `resolved` and so to `node_class`: those are
		// dropped (the next plan fills them), the rest kept.
		{"karpenter_node_class", 2, 4, v1NodeClass, map[string]string{"owner_id": "0123456789abcdef", "vpc_id": "vpc-1", "zones": "ap-southeast-1a"},
			[]string{"resolved"}},
		{"karpenter_node_pool", 2, 4, v2NodePool, map[string]string{"owner_id": "0123456789abcdef", "zones": "subnet-1", "replicas": "2"},
			[]string{"node_class"}},
		// Version 4 made `resolved` and `node_class` a reference carrying the resolution: a version-3
		// object becomes its reference (the fingerprint of that resolution), the rest is kept.
		{"karpenter_node_class", 3, 4, v3NodeClass, map[string]string{"owner_id": "0123456789abcdef", "vpc_id": "vpc-1",
			"resolved": v3Fingerprint}, nil},
		{"karpenter_node_pool", 3, 4, v3NodePool, map[string]string{"owner_id": "0123456789abcdef", "zones": "subnet-1",
			"node_class": v3Fingerprint}, nil},
	} {
		t.Run(fmt.Sprintf("%s/v%d", tc.typeName, tc.from), func(t *testing.T) {
			if v := schemas.ResourceSchemas[tc.typeName].Version; v != tc.version {
				t.Fatalf("schema version %d, want %d", v, tc.version)
			}
			resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: tc.typeName, Version: tc.from, RawState: &tfprotov6.RawState{JSON: []byte(tc.state)},
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Fatalf("%s: %s", d.Summary, d.Detail)
			}
			typ := schemas.ResourceSchemas[tc.typeName].ValueType()
			v, err := resp.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.kept {
				if got := attrs[name].String(); attrs[name].IsNull() || !strings.Contains(got, want) {
					t.Errorf("%s = %s, want it kept (with %q)", name, got, want)
				}
			}
			for _, name := range tc.null {
				if !attrs[name].IsNull() {
					t.Errorf("%s = %s, want null after the upgrade", name, attrs[name])
				}
			}
		})
	}
}
