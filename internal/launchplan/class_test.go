package launchplan

import (
	"reflect"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

func TestVolumeGiB(t *testing.T) {
	for q, want := range map[string]int{"": 0, "100Gi": 100, "100G": 94, "1Ti": 1024, "1T": 932, "20Mi": 0, "1.5Gi": 0} {
		if got := VolumeGiB(q); got != want {
			t.Errorf("VolumeGiB(%q) = %d, want %d", q, got, want)
		}
	}
}

// TestClassOf: the contract carries the resolution (subnets, groups, pod subnets, images) and the
// spec's launch settings, with the CNI settings assembled once for the capacity engine.
func TestClassOf(t *testing.T) {
	maxPods, prefixes := 58, 2
	ud := "#!/bin/bash\necho hi\n"
	s := nodeclass.Spec{
		Name: "gpu", AMISelectorTerms: []nodeclass.AMITerm{{Alias: "al2023@latest"}}, IPPrefixCount: &prefixes,
		NetworkInterfaces: []capacity.Interface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"}},
		Networking:        nodeclass.Networking{PrefixDelegation: true, ReservedENIs: 1},
		Kubelet:           nodeclass.Kubelet{MaxPods: &maxPods, ClusterDNS: []string{"10.100.0.10"}},
		MetadataOptions:   nodeclass.DefaultMetadataOptions(),
		BlockDeviceMappings: []nodeclass.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true,
			EBS: &nodeclass.EBS{VolumeSize: "1Ti", VolumeType: "gp3"}}},
		UserData: &ud, Tags: map[string]string{"team": "ml"},
	}
	r := nodeclass.Resolved{
		Subnets:        []discovery.Subnet{{ID: "subnet-a", Zone: "us-west-2a", ZoneID: "usw2-az1", CIDRBlock: "10.0.0.0/20", AvailableIPAddressCount: 4000}},
		SecurityGroups: []discovery.SecurityGroup{{ID: "sg-1"}}, Zones: []string{"us-west-2a"},
		AMIs: nodeclass.AMIResolution{AMIs: []nodeclass.AMI{{ID: "ami-1", Architecture: "amd64", Variant: nodeclass.AMIVariantNvidia}}},
	}
	c := ClassOf(s, r, "nodeplane-demo-gpu-0123456789")
	if c.AMIFamily != capacity.FamilyAL2023 || c.CNI.AMIFamily != capacity.FamilyAL2023 {
		t.Errorf("family %q / CNI %q, want the alias's AL2023", c.AMIFamily, c.CNI.AMIFamily)
	}
	if c.CNI.MaxPods == nil || *c.CNI.MaxPods != 58 || !c.CNI.PrefixDelegation || c.CNI.ReservedENIs != 1 || !reflect.DeepEqual(c.CNI.NetworkInterfaces, s.NetworkInterfaces) {
		t.Errorf("CNI settings %+v", c.CNI)
	}
	if len(c.BlockDevices) != 1 || c.BlockDevices[0].VolumeSizeGiB != 1024 || c.BlockDevices[0].VolumeType != "gp3" {
		t.Errorf("block devices %+v", c.BlockDevices)
	}
	if c.UserData != ud || c.InstanceProfile != "nodeplane-demo-gpu-0123456789" || c.AMIs[0].ID != "ami-1" || c.Subnets[0].AvailableIPs != 4000 ||
		!reflect.DeepEqual(c.SecurityGroupIDs, []string{"sg-1"}) || c.MetadataOptions.HTTPTokens != "required" || c.Kubelet.ClusterDNS[0] != "10.100.0.10" {
		t.Errorf("class %+v", c)
	}
}
