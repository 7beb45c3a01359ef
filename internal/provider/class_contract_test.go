package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// TestResolvedMirrorsTheContract: the `resolved` value carries launchplan.ClassOf field for
// field. A class goes through Class.Value, its reference (ClassValue.Ref), a Terraform object value
// (what the pool reads from configuration), ClassRef.Value and ClassValue.Class, and comes back
// equal: nothing is lost, added or recomputed on the way.
func TestResolvedMirrorsTheContract(t *testing.T) {
	ctx := context.Background()
	i := func(v int) *int { return &v }
	b := func(v bool) *bool { return &v }
	ud := "[settings.kubernetes]\nmax-pods = 10\n"
	full := nodeclass.Spec{
		Name: "full", AMIFamily: capacity.FamilyBottlerocket, AMISelectorTerms: []nodeclass.AMITerm{{Name: "br-*"}},
		AssociatePublicIPAddress: b(false), IPPrefixCount: i(1), EFA: true,
		NetworkInterfaces: []capacity.Interface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"}, {NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"}},
		Networking:        nodeclass.Networking{PrefixDelegation: true, CustomNetworking: true, SecurityGroupsForPods: true, ReservedENIs: 1},
		Kubelet: nodeclass.Kubelet{MaxPods: i(110), PodsPerCore: i(4), ClusterDNS: []string{"10.100.0.10"}, SystemReserved: map[string]string{"cpu": "100m"},
			KubeReserved: map[string]string{"memory": "1Gi"}, EvictionHard: map[string]string{"memory.available": "5%"}},
		MetadataOptions: nodeclass.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "enabled", HTTPPutResponseHopLimit: 2, HTTPTokens: "optional"},
		BlockDeviceMappings: []nodeclass.BlockDeviceMapping{
			{DeviceName: "/dev/xvda", RootVolume: true, EBS: &nodeclass.EBS{DeleteOnTermination: b(true), Encrypted: b(true), IOPS: i(3000),
				KMSKeyID: "arn:aws:kms:us-west-2:111122223333:key/k", SnapshotID: "snap-1", Throughput: i(125), VolumeSize: "100Gi", VolumeType: "gp3"}},
			{DeviceName: "/dev/xvdb"},
		},
		DetailedMonitoring: b(true), UserData: &ud, Tags: map[string]string{"team": "hpc"},
	}
	resolved := nodeclass.Resolved{
		VPCID: "vpc-1",
		Subnets: []discovery.Subnet{{ID: "subnet-b", Zone: "us-west-2a", ZoneID: "usw2-az1", CIDRBlock: "10.0.16.0/20", AvailableIPAddressCount: 4000},
			{ID: "subnet-a", Zone: "us-west-2a", ZoneID: "usw2-az1", CIDRBlock: "10.0.0.0/20", AvailableIPAddressCount: 100}},
		SecurityGroups: []discovery.SecurityGroup{{ID: "sg-1", Name: "nodes"}, {ID: "sg-2"}}, Zones: []string{"us-west-2a"},
		PodSubnets: []nodeclass.PodSubnet{{Zone: "us-west-2a", Subnet: discovery.Subnet{ID: "subnet-p", CIDRBlock: "100.64.0.0/16", AvailableIPAddressCount: 65000}}},
		AMIs: nodeclass.AMIResolution{AMIs: []nodeclass.AMI{
			{ID: "ami-2", Name: "br-2", Architecture: "arm64", CreationDate: "2026-02-01T00:00:00Z", Variant: nodeclass.AMIVariantNvidia},
			{ID: "ami-1", Name: "br-1", Architecture: "amd64", CreationDate: "2026-01-01T00:00:00Z", Deprecated: true},
		}},
	}
	minimal := nodeclass.Spec{Name: "minimal", AMISelectorTerms: []nodeclass.AMITerm{{Alias: "al2023@latest"}}, MetadataOptions: nodeclass.DefaultMetadataOptions()}
	unresolved := nodeclass.Resolved{AMIs: nodeclass.AMIResolution{Unresolved: "alias left to Karpenter"}}

	for name, c := range map[string]launchplan.Class{
		"full":    launchplan.ClassOf(full, resolved, "nodeplane-c-full-0123456789"),
		"minimal": launchplan.ClassOf(minimal, unresolved, ""),
	} {
		obj, d := types.ObjectValueFrom(ctx, attrTypesOf(launchplan.ClassRef{}), c.Value().Ref())
		if d.HasError() {
			t.Fatalf("%s: %v", name, d)
		}
		var ref launchplan.ClassRef
		if d := obj.As(ctx, &ref, basetypes.ObjectAsOptions{}); d.HasError() {
			t.Fatalf("%s: %v", name, d)
		}
		rc, err := ref.Value()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := rc.Class(); !reflect.DeepEqual(normalizeClass(got), normalizeClass(c)) {
			t.Errorf("%s: the class does not survive the `resolved` value:\n got  %+v\n want %+v", name, normalizeClass(got), normalizeClass(c))
		}
	}
}

// normalizeClass makes nil and empty lists and maps equal (`resolved` leaves empty ones null),
// except NetworkInterfaces, whose nil means "not configured", and sorts subnets by id (a map in
// `resolved`; the planner picks per zone by free IPs, not by position).
func normalizeClass(c launchplan.Class) launchplan.Class {
	if len(c.SecurityGroupIDs) == 0 {
		c.SecurityGroupIDs = nil
	}
	if len(c.AMIs) == 0 {
		c.AMIs = nil
	}
	if len(c.PodSubnets) == 0 {
		c.PodSubnets = nil
	}
	if len(c.BlockDevices) == 0 {
		c.BlockDevices = nil
	}
	if len(c.Tags) == 0 {
		c.Tags = nil
	}
	c.Subnets = slices.Clone(c.Subnets)
	slices.SortFunc(c.Subnets, func(a, b launchplan.Subnet) int { return strings.Compare(a.ID, b.ID) })
	if len(c.Subnets) == 0 {
		c.Subnets = nil
	}
	return c
}

// resolutionCheck is a plan check of a `resolved` (or `node_class`) value: its reference decodes
// (the fingerprint matches the resolution) and check accepts the class it carries.
type resolutionCheck struct {
	what  string
	check func(launchplan.ClassValue) error
}

// resolutionOf checks the class a `resolved` value carries.
func resolutionOf(what string, check func(launchplan.ClassValue) error) knownvalue.Check {
	return resolutionCheck{what, check}
}

func (c resolutionCheck) CheckValue(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected the reference object, got %T", v)
	}
	fp, _ := m["fingerprint"].(string)
	res, _ := m["resolution"].(string)
	if m["group"] != launchplan.EC2NodeClassGroup || m["kind"] != launchplan.EC2NodeClassKind {
		return fmt.Errorf("reference to %v/%v, want %s/%s", m["group"], m["kind"], launchplan.EC2NodeClassGroup, launchplan.EC2NodeClassKind)
	}
	class, err := launchplan.ClassRef{Fingerprint: fp, Resolution: res}.Value()
	if err != nil {
		return err
	}
	return c.check(class)
}

func (c resolutionCheck) String() string { return "resolution: " + c.what }
