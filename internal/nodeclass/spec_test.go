package nodeclass

import (
	"reflect"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

func TestDefaultMetadataOptions(t *testing.T) {
	want := MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 1, HTTPTokens: "required"}
	if got := DefaultMetadataOptions(); got != want {
		t.Errorf("DefaultMetadataOptions() = %+v, want %+v", got, want)
	}
}

func TestEffectiveAMIFamily(t *testing.T) {
	tests := []struct {
		name   string
		family string
		terms  []AMITerm
		want   string
	}{
		{"alias al2023", "", []AMITerm{{Alias: "al2023@latest"}}, capacity.FamilyAL2023},
		{"alias al2", "", []AMITerm{{Alias: "al2@v20240807"}}, capacity.FamilyAL2},
		{"alias bottlerocket", "", []AMITerm{{Alias: "bottlerocket@v1.20.3"}}, capacity.FamilyBottlerocket},
		{"alias windows2019", "", []AMITerm{{Alias: "windows2019@latest"}}, capacity.FamilyWindows2019},
		{"alias windows2022", "", []AMITerm{{Alias: "windows2022@latest"}}, capacity.FamilyWindows2022},
		{"alias windows2025", "", []AMITerm{{Alias: "windows2025@latest"}}, capacity.FamilyWindows2025},
		{"ami_family equal to alias", capacity.FamilyBottlerocket, []AMITerm{{Alias: "bottlerocket@latest"}}, capacity.FamilyBottlerocket},
		{"ami_family without alias", capacity.FamilyAL2, []AMITerm{{Name: "my-ami"}}, capacity.FamilyAL2},
		{"ami_family wins over a contradicting alias", capacity.FamilyAL2, []AMITerm{{Alias: "bottlerocket@latest"}}, capacity.FamilyAL2},
		// As Karpenter's AMIFamily(): an explicit Custom wins over the alias.
		{"Custom with alias stays Custom", capacity.FamilyCustom, []AMITerm{{Alias: "bottlerocket@latest"}}, capacity.FamilyCustom},
		{"Custom without alias", capacity.FamilyCustom, []AMITerm{{ID: "ami-0123"}}, capacity.FamilyCustom},
		{"Custom with invalid alias", capacity.FamilyCustom, []AMITerm{{Alias: "ubuntu@latest"}}, capacity.FamilyCustom},
		{"nothing set", "", nil, capacity.DefaultFamily},
		{"unknown alias family", "", []AMITerm{{Alias: "ubuntu@latest"}}, capacity.DefaultFamily},
		{"alias family is case-sensitive", "", []AMITerm{{Alias: "Bottlerocket@latest"}}, capacity.DefaultFamily},
		{"alias in a later term", "", []AMITerm{{Name: "x"}, {Alias: "al2@latest"}}, capacity.FamilyAL2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Spec{AMIFamily: tc.family, AMISelectorTerms: tc.terms}
			if got := s.EffectiveAMIFamily(); got != tc.want {
				t.Errorf("EffectiveAMIFamily() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCapacitySettings(t *testing.T) {
	ifaces := []capacity.Interface{iface(0, 0, ifc), iface(1, 0, efa)}
	tests := []struct {
		name   string
		mutate func(*Spec)
		want   capacity.Settings
	}{
		{"base", func(*Spec) {}, capacity.Settings{AMIFamily: capacity.FamilyAL2023}},
		{"everything", func(s *Spec) {
			s.AMISelectorTerms = []AMITerm{{Alias: "bottlerocket@latest"}}
			s.NetworkInterfaces = ifaces
			s.Networking = Networking{
				PrefixDelegation: true, CustomNetworking: true, SecurityGroupsForPods: true, ReservedENIs: 2,
				PodSubnetTerms: []discovery.SubnetTerm{{ID: "subnet-1"}},
			}
			s.Kubelet = Kubelet{MaxPods: ptr(58), PodsPerCore: ptr(4), ClusterDNS: []string{"10.0.0.10"}}
			s.EFA = true // not a capacity setting
		}, capacity.Settings{
			AMIFamily: capacity.FamilyBottlerocket, PrefixDelegation: true, CustomNetworking: true,
			SecurityGroupsForPods: true, ReservedENIs: 2, NetworkInterfaces: ifaces,
			MaxPods: ptr(58), PodsPerCore: ptr(4),
		}},
		{"explicit family", func(s *Spec) {
			s.AMIFamily = capacity.FamilyWindows2022
			s.AMISelectorTerms = []AMITerm{{SSMParameter: "/aws/service/ami-windows-latest/x"}}
		}, capacity.Settings{AMIFamily: capacity.FamilyWindows2022}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.mutate(&s)
			got := s.CapacitySettings()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CapacitySettings() =\n %+v\nwant\n %+v", got, tc.want)
			}
			if got.BranchInterfaces != nil {
				t.Errorf("BranchInterfaces should be left to the caller, got %v", *got.BranchInterfaces)
			}
		})
	}
}

func TestDefaultTerms(t *testing.T) {
	wantTags := map[string]string{"karpenter.sh/discovery": testCluster}
	if got, want := DefaultSubnetTerms(testCluster), []discovery.SubnetTerm{{Tags: wantTags}}; !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultSubnetTerms = %+v, want %+v", got, want)
	}
	if got, want := DefaultSecurityGroupTerms(testCluster), []discovery.SecurityGroupTerm{{Tags: wantTags}}; !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultSecurityGroupTerms = %+v, want %+v", got, want)
	}
	// Each call returns fresh maps.
	a := DefaultSubnetTerms(testCluster)
	a[0].Tags["x"] = "y"
	if b := DefaultSubnetTerms(testCluster); len(b[0].Tags) != 1 {
		t.Errorf("DefaultSubnetTerms shares its map between calls")
	}
	// The defaults are valid terms.
	s := baseSpec()
	s.SubnetTerms, s.SecurityGroupTerms = DefaultSubnetTerms("c"), DefaultSecurityGroupTerms("c")
	checkErrs(t, Validate(s), nil)
}

func TestApplyDefaultTerms(t *testing.T) {
	s := Spec{SecurityGroupTerms: []discovery.SecurityGroupTerm{{ID: "sg-1"}}}
	if f := ApplyDefaultTerms(&s, "c1"); len(f) != 0 || len(s.SubnetTerms) != 1 || s.SubnetTerms[0].Tags[DiscoveryTagKey] != "c1" ||
		s.SecurityGroupTerms[0].ID != "sg-1" {
		t.Errorf("with a cluster: findings %v, spec %+v", f, s)
	}
	s = Spec{}
	f := ApplyDefaultTerms(&s, "")
	if len(f) != 2 || f[0].Path.String() != "subnet_selector_terms" || f[1].Path.String() != "security_group_selector_terms" ||
		s.SubnetTerms != nil || s.SecurityGroupTerms != nil {
		t.Errorf("without a cluster: findings %v, spec %+v", f, s)
	}
}
