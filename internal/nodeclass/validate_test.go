package nodeclass

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

func TestValidateBaseSpecIsValid(t *testing.T) {
	if errs := Validate(baseSpec()); len(errs) != 0 {
		t.Fatalf("base spec: unexpected errors:\n%s", dumpErrs(errs))
	}
}

// TestValidateValid holds specs that exercise a rule's edge without breaking it.
func TestValidateValid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Spec)
	}{
		{"dotted name", func(s *Spec) { s.Name = "team-a.gpu-1" }},
		{"name of 253 characters", func(s *Spec) { s.Name = strings.Repeat("a", 253) }},
		{"ami_family equal to alias family", func(s *Spec) { s.AMIFamily = capacity.FamilyAL2023 }},
		{"ami_family Custom with alias", func(s *Spec) { s.AMIFamily = capacity.FamilyCustom }},
		{"windows alias at latest", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "windows2025@latest"}} }},
		{"bottlerocket pinned alias", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "bottlerocket@v1.20.3"}} }},
		{"non-alias terms with ami_family", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0abc123"}, {Name: "my-ami-*", Owner: "self"}, {SSMParameter: "/my/ami"}, {Tags: map[string]string{"team": "a"}}}
		}},
		{"instance_profile instead of role", func(s *Spec) { s.Role, s.InstanceProfile = "", "KarpenterNodeInstanceProfile" }},
		{"id and name security group terms", func(s *Spec) {
			s.SecurityGroupTerms = []discovery.SecurityGroupTerm{{ID: "sg-0123abc"}, {Name: "eks-cluster-sg"}}
		}},
		{"subnet id term", func(s *Spec) { s.SubnetTerms = []discovery.SubnetTerm{{ID: "subnet-0123abc"}} }},
		{"ip_prefix_count 0", func(s *Spec) { s.IPPrefixCount = ptr(0) }},
		{"empty network_interfaces list", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{} }},
		{"efa without network_interfaces", func(s *Spec) { s.EFA = true }},
		{"efa-only interfaces on two cards", func(s *Spec) {
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(0, 1, efa), iface(1, 0, efa), iface(1, 1, ifc)}
		}},
		{"public IP with one interface", func(s *Spec) {
			s.AssociatePublicIPAddress = ptr(true)
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc)}
		}},
		{"no public IP with two interfaces", func(s *Spec) {
			s.AssociatePublicIPAddress = ptr(false)
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, 0, efa)}
		}},
		{"custom networking with pod terms", func(s *Spec) {
			s.Networking = Networking{CustomNetworking: true, ReservedENIs: 1, PodSubnetTerms: []discovery.SubnetTerm{{Tags: map[string]string{"cni": "pods"}}}}
		}},
		{"full valid kubelet", func(s *Spec) {
			s.Kubelet = Kubelet{
				MaxPods: ptr(110), PodsPerCore: ptr(10),
				SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi", "pid": "1000"},
				KubeReserved:                map[string]string{"cpu": "0.5", "memory": "1e3"},
				EvictionHard:                map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "pid.available": "100.0%"},
				EvictionSoft:                map[string]string{"imagefs.available": "15.5%", "nodefs.inodesFree": "5%"},
				EvictionSoftGracePeriod:     map[string]string{"imagefs.available": "1m30s", "nodefs.inodesFree": "500ms"},
				ImageGCHighThresholdPercent: ptr(85), ImageGCLowThresholdPercent: ptr(80),
			}
		}},
		{"pods_per_core above max_pods 0 (no limit)", func(s *Spec) { s.Kubelet.MaxPods, s.Kubelet.PodsPerCore = ptr(0), ptr(20) }},
		{"gc thresholds at bounds", func(s *Spec) {
			s.Kubelet.ImageGCHighThresholdPercent, s.Kubelet.ImageGCLowThresholdPercent = ptr(100), ptr(0)
		}},
		{"metadata at other enum values", func(s *Spec) {
			s.MetadataOptions = MetadataOptions{HTTPEndpoint: "disabled", HTTPProtocolIPv6: "enabled", HTTPPutResponseHopLimit: 64, HTTPTokens: "optional"}
		}},
		{"block devices", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: true, EBS: &EBS{VolumeSize: "100Gi", VolumeType: "gp3", IOPS: ptr(3000), Throughput: ptr(125), Encrypted: ptr(true)}},
				{DeviceName: "/dev/xvdb", EBS: &EBS{SnapshotID: "snap-0123"}},
				{DeviceName: "/dev/xvdc"},
			}
		}},
		{"exactly 50 block devices", func(s *Spec) { s.BlockDeviceMappings = make([]BlockDeviceMapping, MaxBlockDeviceMappings) }},
		{"user data of exactly 16 KB", func(s *Spec) { s.UserData = ptr(strings.Repeat("x", MaxUserDataBytes)) }},
		{"empty user data", func(s *Spec) { s.UserData = ptr("") }},
		{"ami tags with wildcard value and 20 tags", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			tags := map[string]string{"team": "*"}
			for i := range 19 {
				tags[fmt.Sprintf("k%d", i)] = "v"
			}
			s.AMISelectorTerms = []AMITerm{{Tags: tags, Owner: "self"}}
		}},
		{"instance_store_policy RAID0", func(s *Spec) { s.InstanceStorePolicy = "RAID0" }},
		{"ordinary tags", func(s *Spec) {
			s.Tags = map[string]string{"team": "a", "karpenter.sh/discovery": "x", "Name": "", "kubernetes.io/role": "node", "awsome": "yes"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.mutate(&s)
			if errs := Validate(s); len(errs) != 0 {
				t.Fatalf("unexpected errors:\n%s", dumpErrs(errs))
			}
		})
	}
}

// TestValidateRules has one case per rule (per `add(` site in validate.go, and per discovery
// term rule as mapped to a Terraform path). Each asserts every error exactly, in order.
func TestValidateRules(t *testing.T) {
	manyIfaces := []capacity.Interface{iface(0, 0, ifc)}
	for i := 1; i <= MaxNetworkInterfaces; i++ {
		manyIfaces = append(manyIfaces, iface(i, 0, ifc))
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
		want   []wantErr
	}{
		// name
		{"name upper-case", func(s *Spec) { s.Name = "Default" },
			[]wantErr{{"name", `"Default" is not a valid Kubernetes object name`}}},
		{"name empty", func(s *Spec) { s.Name = "" },
			[]wantErr{{"name", "not a valid Kubernetes object name"}}},
		{"name ends with dash", func(s *Spec) { s.Name = "gpu-" },
			[]wantErr{{"name", "not a valid Kubernetes object name"}}},
		{"name too long", func(s *Spec) { s.Name = strings.Repeat("a", 254) },
			[]wantErr{{"name", "at most 253 characters): must be no more than 253 characters"}}},

		// AMI
		{"unknown ami_family", func(s *Spec) {
			s.AMIFamily = "Ubuntu"
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0123"}}
		}, []wantErr{{"ami_family", `unknown AMI family "Ubuntu"; expected one of AL2, AL2023, Bottlerocket, Custom`}}},
		{"no ami terms", func(s *Spec) { s.AMISelectorTerms = nil },
			[]wantErr{{"ami_selector_terms", "at least one AMI selector term is required"}}},
		{"empty ami term (owner alone)", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{Name: "x"}, {Owner: "self"}}
		}, []wantErr{{"ami_selector_terms[1]", "a term needs one of `alias`, `id`, `name`, `ssm_parameter` or `tags`"}}},
		{"id combined with owner", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0123", Owner: "self"}}
		}, []wantErr{{"ami_selector_terms[0].id", "`id` cannot be combined with"}}},
		{"id combined with tags", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0123", Tags: map[string]string{"a": "b"}}}
		}, []wantErr{{"ami_selector_terms[0].id", "`id` cannot be combined with"}}},
		{"bad ami id", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0ABC"}}
		}, []wantErr{{"ami_selector_terms[0].id", `"ami-0ABC" is not an AMI id`}}},
		{"alias combined with owner", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "al2023@latest", Owner: "amazon"}} },
			[]wantErr{{"ami_selector_terms[0].alias", "`alias` cannot be combined with other fields"}}},
		{"alias combined with ssm_parameter", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "al2023@latest", SSMParameter: "/x"}} },
			[]wantErr{{"ami_selector_terms[0].alias", "`alias` cannot be combined with other fields"}}},
		{"alias combined with id", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "al2023@latest", ID: "ami-0123"}} },
			[]wantErr{
				{"ami_selector_terms[0].id", "`id` cannot be combined with"},
				{"ami_selector_terms[0].alias", "`alias` cannot be combined with other fields"},
			}},
		{"alias not the only term", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Name: "my-ami"}, {Alias: "al2023@latest"}} },
			[]wantErr{{"ami_selector_terms[1].alias", "an `alias` term must be the only AMI selector term"}}},
		{"alias unknown family", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "ubuntu@latest"}} },
			[]wantErr{{"ami_selector_terms[0].alias", `"ubuntu@latest" is not a valid alias`}}},
		{"alias without version", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "al2023"}} },
			[]wantErr{{"ami_selector_terms[0].alias", "is not a valid alias"}}},
		{"alias family is case-sensitive", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "AL2023@latest"}} },
			[]wantErr{{"ami_selector_terms[0].alias", `"AL2023@latest" is not a valid alias`}}},
		{"alias longer than 30", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "al2023@" + strings.Repeat("1", 24)}} },
			[]wantErr{{"ami_selector_terms[0].alias", "is not a valid alias"}}},
		{"windows alias not latest", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Alias: "windows2022@v20240101"}} },
			[]wantErr{{"ami_selector_terms[0].alias", `Windows aliases only support @latest, got "windows2022@v20240101"`}}},
		{"ami tag with empty value", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{Tags: map[string]string{"team": ""}}}
		}, []wantErr{{`ami_selector_terms[0].tags["team"]`, `tag "team" has an empty value; use "*" to match any value`}}},
		{"ami tag with empty key", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{Tags: map[string]string{"": "x"}}}
		}, []wantErr{{"ami_selector_terms[0].tags", "tag keys must not be empty"}}},
		{"ami empty tags", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0abc123"}, {Tags: map[string]string{}}}
		}, []wantErr{{"ami_selector_terms[1].tags", "tags must not be empty; omit the attribute or add at least one tag"}}},
		{"ami too many tags", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			tags := map[string]string{}
			for i := range 21 {
				tags[fmt.Sprintf("k%d", i)] = "v"
			}
			s.AMISelectorTerms = []AMITerm{{Name: "my-ami-*", Owner: "self"}, {Tags: tags}}
		}, []wantErr{{"ami_selector_terms[1].tags", "at most 20 tags per term, got 21"}}},
		{"ami empty tags beside an id", func(s *Spec) {
			s.AMIFamily = capacity.FamilyAL2023
			s.AMISelectorTerms = []AMITerm{{ID: "ami-0abc123", Tags: map[string]string{}}}
		}, []wantErr{
			{"ami_selector_terms[0].id", "`id` cannot be combined with `alias`, `name`, `owner` or `tags`"},
			{"ami_selector_terms[0].tags", "tags must not be empty"},
		}},
		{"ami_family required without alias", func(s *Spec) { s.AMISelectorTerms = []AMITerm{{Name: "my-ami-*"}} },
			[]wantErr{{"ami_family", "`ami_family` is required when no AMI selector term is an alias"}}},
		{"ami_family contradicts alias", func(s *Spec) { s.AMIFamily = capacity.FamilyBottlerocket },
			[]wantErr{{"ami_family", `"Bottlerocket" contradicts the alias family "AL2023"`}}},

		// role / instance profile
		{"neither role nor instance_profile", func(s *Spec) { s.Role = "" },
			[]wantErr{{"role", "exactly one of `role` and `instance_profile` must be set"}}},
		{"both role and instance_profile", func(s *Spec) { s.InstanceProfile = "profile" },
			[]wantErr{{"instance_profile", "`role` and `instance_profile` are mutually exclusive"}}},

		// subnet selector terms
		{"subnet term empty", func(s *Spec) { s.SubnetTerms = append(s.SubnetTerms, discovery.SubnetTerm{}) },
			[]wantErr{{"subnet_selector_terms[1]", "needs `tags` or `id`"}}},
		{"subnet term id and tags", func(s *Spec) { s.SubnetTerms[0].ID = "subnet-0123" },
			[]wantErr{{"subnet_selector_terms[0].id", "`id` is mutually exclusive with `tags`"}}},
		{"subnet bad id", func(s *Spec) { s.SubnetTerms = []discovery.SubnetTerm{{ID: "sn-0123"}} },
			[]wantErr{{"subnet_selector_terms[0].id", `"sn-0123" is not a subnet id`}}},
		{"subnet empty tags", func(s *Spec) { s.SubnetTerms = []discovery.SubnetTerm{{Tags: map[string]string{}}} },
			[]wantErr{{"subnet_selector_terms[0].tags", "tags must not be empty"}}},
		{"subnet empty tag key", func(s *Spec) { s.SubnetTerms[0].Tags[""] = "x" },
			[]wantErr{{"subnet_selector_terms[0].tags", "tag keys must not be empty"}}},
		{"subnet empty tag value", func(s *Spec) {
			s.SubnetTerms = append(s.SubnetTerms, discovery.SubnetTerm{Tags: map[string]string{"kubernetes.io/role/internal-elb": ""}})
		}, []wantErr{{`subnet_selector_terms[1].tags["kubernetes.io/role/internal-elb"]`, `use "*" to match any value`}}},
		{"subnet too many tags", func(s *Spec) {
			for i := 0; i < discovery.MaxTagsPerTerm; i++ {
				s.SubnetTerms[0].Tags[strings.Repeat("k", i+1)] = "v"
			}
		}, []wantErr{{"subnet_selector_terms[0].tags", "at most 20 tags per term, got 21"}}},

		// security group selector terms
		{"sg term empty", func(s *Spec) { s.SecurityGroupTerms = []discovery.SecurityGroupTerm{{}} },
			[]wantErr{{"security_group_selector_terms[0]", "needs one of `tags`, `id` or `name`"}}},
		{"sg id and name", func(s *Spec) { s.SecurityGroupTerms = []discovery.SecurityGroupTerm{{ID: "sg-1", Name: "x"}} },
			[]wantErr{{"security_group_selector_terms[0].id", "`id` is mutually exclusive with `tags` and `name`"}}},
		{"sg name and tags", func(s *Spec) { s.SecurityGroupTerms[0].Name = "eks-cluster-sg" },
			[]wantErr{{"security_group_selector_terms[0].name", "`name` is mutually exclusive with `tags`"}}},
		{"sg bad id", func(s *Spec) { s.SecurityGroupTerms = []discovery.SecurityGroupTerm{{ID: "sg_1"}} },
			[]wantErr{{"security_group_selector_terms[0].id", `"sg_1" is not a security group id`}}},
		{"sg empty tag value", func(s *Spec) { s.SecurityGroupTerms[0].Tags["Name"] = "" },
			[]wantErr{{`security_group_selector_terms[0].tags["Name"]`, "has an empty value"}}},

		// ip prefixes and network interfaces
		{"negative ip_prefix_count", func(s *Spec) { s.IPPrefixCount = ptr(-1) },
			[]wantErr{{"ip_prefix_count", "must be 0 or more, got -1"}}},
		{"too many network interfaces", func(s *Spec) { s.NetworkInterfaces = manyIfaces },
			[]wantErr{{"network_interfaces", "at most 150 network interfaces, got 151"}}},
		{"negative network_card_index", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(-1, 1, ifc)} },
			[]wantErr{{"network_interfaces[1].network_card_index", "must be 0 or more, got -1"}}},
		{"negative device_index", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, -2, efa)} },
			[]wantErr{{"network_interfaces[1].device_index", "must be 0 or more"}}},
		{"bad interface_type", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, 0, "efa")} },
			[]wantErr{{"network_interfaces[1].interface_type", `must be "interface" or "efa-only", got "efa"`}}},
		{"duplicate card/device pair", func(s *Spec) {
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, 0, ifc), iface(1, 0, efa)}
		}, []wantErr{{"network_interfaces[2]", "duplicates network_interfaces[1]: network card 1, device 0"}}},
		{"two efa-only on one card", func(s *Spec) {
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, 0, efa), iface(2, 0, efa), iface(1, 1, efa)}
		}, []wantErr{{"network_interfaces[3].interface_type", "network card 1 already has an efa-only interface"}}},
		{"missing primary interface", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 1, ifc), iface(1, 0, ifc)} },
			[]wantErr{{"network_interfaces", "must include the primary interface"}}},
		{"primary is efa-only", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 0, efa)} },
			[]wantErr{{"network_interfaces", "must include the primary interface"}}},
		{"efa with network_interfaces", func(s *Spec) {
			s.EFA = true
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc)}
		}, []wantErr{{"efa", "cannot be combined with `network_interfaces`"}}},
		{"public IP with two interfaces", func(s *Spec) {
			s.AssociatePublicIPAddress = ptr(true)
			s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(1, 0, efa)}
		}, []wantErr{{"associate_public_ip_address", "more than one network interface"}}},

		// networking
		{"negative reserved_enis", func(s *Spec) { s.Networking.ReservedENIs = -1 },
			[]wantErr{{"networking.reserved_enis", "must be 0 or more, got -1"}}},
		{"custom networking without pod terms", func(s *Spec) { s.Networking.CustomNetworking = true },
			[]wantErr{{"networking.custom_networking.pod_subnet_selector_terms", "at least one pod subnet selector term"}}},
		{"bad pod subnet id", func(s *Spec) {
			s.Networking.CustomNetworking = true
			s.Networking.PodSubnetTerms = []discovery.SubnetTerm{{Tags: map[string]string{"cni": "pods"}}, {ID: "sn-1"}}
		}, []wantErr{{"networking.custom_networking.pod_subnet_selector_terms[1].id", `"sn-1" is not a subnet id`}}},
		{"pod subnet empty tag value", func(s *Spec) {
			s.Networking.CustomNetworking = true
			s.Networking.PodSubnetTerms = []discovery.SubnetTerm{{Tags: map[string]string{"cni": ""}}}
		}, []wantErr{{`networking.custom_networking.pod_subnet_selector_terms[0].tags["cni"]`, "has an empty value"}}},
		{"pod subnet empty term", func(s *Spec) {
			s.Networking.CustomNetworking = true
			s.Networking.PodSubnetTerms = []discovery.SubnetTerm{{}}
		}, []wantErr{{"networking.custom_networking.pod_subnet_selector_terms[0]", "needs `tags` or `id`"}}},

		// kubelet
		{"negative max_pods", func(s *Spec) { s.Kubelet.MaxPods = ptr(-1) },
			[]wantErr{{"kubelet.max_pods", "must be 0 or more, got -1"}}},
		{"negative pods_per_core", func(s *Spec) { s.Kubelet.PodsPerCore = ptr(-3) },
			[]wantErr{{"kubelet.pods_per_core", "must be 0 or more, got -3"}}},
		{"negative eviction_max_pod_grace_period", func(s *Spec) { s.Kubelet.EvictionMaxPodGracePeriod = ptr(-1) },
			[]wantErr{{"kubelet.eviction_max_pod_grace_period", "must be 0 or more, got -1"}}},
		// The API server stores 3000000000 in an int32 field; Karpenter then cannot decode it.
		{"max_pods beyond int32", func(s *Spec) { s.Kubelet.MaxPods = ptr(3000000000) },
			[]wantErr{{"kubelet.max_pods", "must be at most 2147483647 (a 32-bit integer in the CRD), got 3000000000"}}},
		{"ip_prefix_count beyond int32", func(s *Spec) { s.IPPrefixCount = ptr(1 << 31) },
			[]wantErr{{"ip_prefix_count", "must be at most 2147483647"}}},
		{"device_index beyond int32", func(s *Spec) { s.NetworkInterfaces = []capacity.Interface{iface(0, 0, ifc), iface(0, 1<<32, efa)} },
			[]wantErr{{"network_interfaces[1].device_index", "must be at most 2147483647"}}},
		{"pods_per_core above max_pods", func(s *Spec) { s.Kubelet.MaxPods, s.Kubelet.PodsPerCore = ptr(10), ptr(20) },
			[]wantErr{{"kubelet.pods_per_core", "pods_per_core (20) cannot exceed max_pods (10)"}}},
		{"unknown reserved resource", func(s *Spec) { s.Kubelet.SystemReserved = map[string]string{"nvidia.com/gpu": "1"} },
			[]wantErr{{`kubelet.system_reserved["nvidia.com/gpu"]`, `unknown resource "nvidia.com/gpu"; expected one of cpu, memory, ephemeral-storage, pid`}}},
		{"bad reserved quantity", func(s *Spec) { s.Kubelet.KubeReserved = map[string]string{"memory": "1 GB"} },
			[]wantErr{{`kubelet.kube_reserved["memory"]`, `"1 GB" is not a non-negative resource quantity`}}},
		{"negative reserved quantity", func(s *Spec) { s.Kubelet.SystemReserved = map[string]string{"cpu": "-100m"} },
			[]wantErr{{`kubelet.system_reserved["cpu"]`, `"-100m" is not a non-negative resource quantity`}}},
		{"reserved errors in fixed order", func(s *Spec) {
			s.Kubelet.KubeReserved = map[string]string{"memory": "x", "cpu": "y"}
			s.Kubelet.SystemReserved = map[string]string{"gpu": "1"}
		}, []wantErr{
			{`kubelet.system_reserved["gpu"]`, "unknown resource"},
			{`kubelet.kube_reserved["cpu"]`, `"y"`},
			{`kubelet.kube_reserved["memory"]`, `"x"`},
		}},
		{"unknown eviction signal", func(s *Spec) { s.Kubelet.EvictionHard = map[string]string{"memory.free": "100Mi"} },
			[]wantErr{{`kubelet.eviction_hard["memory.free"]`, `unknown eviction signal "memory.free"; expected one of memory.available`}}},
		{"eviction percentage above 100", func(s *Spec) { s.Kubelet.EvictionHard = map[string]string{"memory.available": "110%"} },
			[]wantErr{{`kubelet.eviction_hard["memory.available"]`, `"110%" is not a percentage or a quantity`}}},
		{"negative eviction quantity", func(s *Spec) { s.Kubelet.EvictionHard = map[string]string{"nodefs.available": "-1Gi"} },
			[]wantErr{{`kubelet.eviction_hard["nodefs.available"]`, `"-1Gi" is not a percentage or a quantity`}}},
		{"bad eviction_soft value", func(s *Spec) {
			s.Kubelet.EvictionSoft = map[string]string{"memory.available": "lots"}
			s.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m"}
		}, []wantErr{{`kubelet.eviction_soft["memory.available"]`, `"lots" is not a percentage or a quantity`}}},
		{"grace period without eviction_soft", func(s *Spec) { s.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m"} },
			[]wantErr{{`kubelet.eviction_soft_grace_period["memory.available"]`, `has no matching eviction_soft["memory.available"]`}}},
		{"eviction_soft without grace period", func(s *Spec) { s.Kubelet.EvictionSoft = map[string]string{"memory.available": "5%"} },
			[]wantErr{{`kubelet.eviction_soft["memory.available"]`, `needs a matching eviction_soft_grace_period["memory.available"]`}}},
		{"bad grace period duration", func(s *Spec) {
			s.Kubelet.EvictionSoft = map[string]string{"memory.available": "5%"}
			s.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1 minute"}
		}, []wantErr{{`kubelet.eviction_soft_grace_period["memory.available"]`, `"1 minute" is not a duration`}}},
		{"unknown signal in soft and grace period", func(s *Spec) {
			s.Kubelet.EvictionSoft = map[string]string{"disk.free": "5%"}
			s.Kubelet.EvictionSoftGracePeriod = map[string]string{"disk.free": "1m"}
		}, []wantErr{
			{`kubelet.eviction_soft["disk.free"]`, `unknown eviction signal "disk.free"`},
			{`kubelet.eviction_soft_grace_period["disk.free"]`, `unknown eviction signal "disk.free"`},
		}},
		{"eviction errors in fixed order", func(s *Spec) {
			s.Kubelet.EvictionSoft = map[string]string{"memory.available": "x"}
			s.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m"}
			s.Kubelet.EvictionHard = map[string]string{"memory.available": "y"}
		}, []wantErr{
			{`kubelet.eviction_hard["memory.available"]`, `"y"`},
			{`kubelet.eviction_soft["memory.available"]`, `"x"`},
		}},
		{"gc high above 100", func(s *Spec) { s.Kubelet.ImageGCHighThresholdPercent = ptr(101) },
			[]wantErr{{"kubelet.image_gc_high_threshold_percent", "must be between 0 and 100, got 101"}}},
		{"gc low negative", func(s *Spec) { s.Kubelet.ImageGCLowThresholdPercent = ptr(-1) },
			[]wantErr{{"kubelet.image_gc_low_threshold_percent", "must be between 0 and 100, got -1"}}},
		{"gc high equal to low", func(s *Spec) {
			s.Kubelet.ImageGCHighThresholdPercent, s.Kubelet.ImageGCLowThresholdPercent = ptr(80), ptr(80)
		}, []wantErr{{"kubelet.image_gc_high_threshold_percent", "must be greater than image_gc_low_threshold_percent (80 <= 80)"}}},
		{"gc high below low", func(s *Spec) {
			s.Kubelet.ImageGCHighThresholdPercent, s.Kubelet.ImageGCLowThresholdPercent = ptr(50), ptr(80)
		}, []wantErr{{"kubelet.image_gc_high_threshold_percent", "(50 <= 80)"}}},

		// metadata options
		{"bad http_endpoint", func(s *Spec) { s.MetadataOptions.HTTPEndpoint = "on" },
			[]wantErr{{"metadata_options.http_endpoint", `must be one of enabled, disabled, got "on"`}}},
		{"bad http_protocol_ipv6", func(s *Spec) { s.MetadataOptions.HTTPProtocolIPv6 = "Enabled" },
			[]wantErr{{"metadata_options.http_protocol_ipv6", `must be one of enabled, disabled, got "Enabled"`}}},
		{"bad http_tokens", func(s *Spec) { s.MetadataOptions.HTTPTokens = "v2" },
			[]wantErr{{"metadata_options.http_tokens", `must be one of required, optional, got "v2"`}}},
		{"hop limit 0", func(s *Spec) { s.MetadataOptions.HTTPPutResponseHopLimit = 0 },
			[]wantErr{{"metadata_options.http_put_response_hop_limit", "must be between 1 and 64, got 0"}}},
		{"hop limit 65", func(s *Spec) { s.MetadataOptions.HTTPPutResponseHopLimit = 65 },
			[]wantErr{{"metadata_options.http_put_response_hop_limit", "got 65"}}},
		{"zero metadata options (defaults not applied)", func(s *Spec) { s.MetadataOptions = MetadataOptions{} },
			[]wantErr{
				{"metadata_options.http_endpoint", `got ""`},
				{"metadata_options.http_protocol_ipv6", `got ""`},
				{"metadata_options.http_tokens", `got ""`},
				{"metadata_options.http_put_response_hop_limit", "got 0"},
			}},

		// block device mappings
		{"too many block devices", func(s *Spec) { s.BlockDeviceMappings = make([]BlockDeviceMapping, MaxBlockDeviceMappings+1) },
			[]wantErr{{"block_device_mappings", "at most 50 block device mappings, got 51"}}},
		{"two root volumes", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{RootVolume: true}, {}, {RootVolume: true}, {RootVolume: true}}
		}, []wantErr{{"block_device_mappings[2].root_volume", "at most one block device mapping can be the root volume"}}},
		{"ebs without size or snapshot", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &EBS{VolumeType: "gp3"}}}
		}, []wantErr{{"block_device_mappings[0].ebs", "needs `volume_size` or `snapshot_id`"}}},
		{"bad volume_size unit", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{EBS: &EBS{VolumeSize: "100GB"}}}
		}, []wantErr{{"block_device_mappings[0].ebs.volume_size", `"100GB" is not a volume size`}}},
		{"bad volume_type", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{}, {EBS: &EBS{VolumeSize: "20Gi", VolumeType: "gp4"}}}
		}, []wantErr{{"block_device_mappings[1].ebs.volume_type", `must be one of standard, io1, io2, gp2, sc1, st1, gp3, got "gp4"`}}},
		{"negative iops", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{EBS: &EBS{VolumeSize: "20Gi", IOPS: ptr(-1)}}}
		}, []wantErr{{"block_device_mappings[0].ebs.iops", "must be 0 or more"}}},
		{"negative throughput", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{EBS: &EBS{VolumeSize: "20Gi", Throughput: ptr(-1)}}}
		}, []wantErr{{"block_device_mappings[0].ebs.throughput", "must be 0 or more"}}},
		{"negative iops and throughput in fixed order", func(s *Spec) {
			s.BlockDeviceMappings = []BlockDeviceMapping{{EBS: &EBS{SnapshotID: "snap-1", IOPS: ptr(-1), Throughput: ptr(-1)}}}
		}, []wantErr{
			{"block_device_mappings[0].ebs.iops", "must be 0 or more"},
			{"block_device_mappings[0].ebs.throughput", "must be 0 or more"},
		}},

		// user data
		{"user data over 16 KB", func(s *Spec) { s.UserData = ptr(strings.Repeat("x", 20000)) },
			[]wantErr{{"user_data", "user data is 20000 bytes; EC2 accepts at most 16384 bytes (16 KB) before base64 encoding"}}},
		{"user data one byte over", func(s *Spec) { s.UserData = ptr(strings.Repeat("x", MaxUserDataBytes+1)) },
			[]wantErr{{"user_data", "user data is 16385 bytes"}}},
		{"user data counted in bytes, not characters", func(s *Spec) { s.UserData = ptr(strings.Repeat("é", MaxUserDataBytes/2+1)) },
			[]wantErr{{"user_data", "user data is 16386 bytes"}}},

		// instance store policy
		{"bad instance_store_policy", func(s *Spec) { s.InstanceStorePolicy = "RAID1" },
			[]wantErr{{"instance_store_policy", `must be "RAID0" (or unset), got "RAID1"`}}},

		// tags
		{"empty tag key", func(s *Spec) { s.Tags = map[string]string{"": "x", "team": "a"} },
			[]wantErr{{"tags", "tag keys must not be empty"}}},
		{"aws: prefix", func(s *Spec) { s.Tags = map[string]string{"aws:x": "1"} },
			[]wantErr{{`tags["aws:x"]`, `starting with "aws:" are reserved by AWS`}}},
		{"AWS: prefix any case", func(s *Spec) { s.Tags = map[string]string{"AWS:cloudformation:stack": "1"} },
			[]wantErr{{`tags["AWS:cloudformation:stack"]`, "reserved by AWS"}}},
		{"kubernetes.io/cluster prefix", func(s *Spec) { s.Tags = map[string]string{"kubernetes.io/cluster/my-cluster": "owned"} },
			[]wantErr{{`tags["kubernetes.io/cluster/my-cluster"]`, `starting with "kubernetes.io/cluster" are managed by Karpenter`}}},
		{"eks:eks-cluster-name", func(s *Spec) { s.Tags = map[string]string{"eks:eks-cluster-name": "x"} },
			[]wantErr{{`tags["eks:eks-cluster-name"]`, `tag key "eks:eks-cluster-name" is set by Karpenter`}}},
		{"karpenter reserved keys, sorted", func(s *Spec) {
			s.Tags = map[string]string{"karpenter.sh/nodepool": "a", "karpenter.sh/nodeclaim": "b", "karpenter.k8s.aws/ec2nodeclass": "c", "team": "d"}
		}, []wantErr{
			{`tags["karpenter.k8s.aws/ec2nodeclass"]`, "cannot be overridden"},
			{`tags["karpenter.sh/nodeclaim"]`, "cannot be overridden"},
			{`tags["karpenter.sh/nodepool"]`, "cannot be overridden"},
		}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.mutate(&s)
			checkErrs(t, Validate(s), tc.want)
		})
	}
}

// TestValidateBadAliasDoesNotRequireAMIFamily: the CRD only requires amiFamily when no term
// has an alias, so a malformed alias yields one error, not a second, misleading one.
func TestValidateBadAliasDoesNotRequireAMIFamily(t *testing.T) {
	for _, alias := range []string{"ubuntu@latest", "windows2019@v1", "AL2@latest", "al2023"} {
		s := baseSpec()
		s.AMISelectorTerms = []AMITerm{{Alias: alias}}
		for _, e := range Validate(s) {
			if e.Path.String() == "ami_family" {
				t.Errorf("alias %q: unexpected %v", alias, e)
			}
		}
	}
}

func TestValidateVolumeSize(t *testing.T) {
	tests := []struct {
		size string
		ok   bool
	}{
		{"1Gi", true}, {"20Gi", true}, {"9999Gi", true}, {"49999Gi", true}, {"58999Gi", true}, {"59000Gi", true},
		{"1G", true}, {"64000G", true}, {"63999G", true},
		{"1Ti", true}, {"16Ti", true}, {"57Ti", true}, {"58Ti", true},
		{"1T", true}, {"59T", true}, {"64T", true},
		{"0Gi", false}, {"59001Gi", false}, {"60000Gi", false}, {"64001G", false},
		{"59Ti", false}, {"100Ti", false}, {"7000Ti", false}, {"65T", false}, {"100T", false}, {"7000T", false},
		{"Ti", false}, {"T", false}, {"100", false}, {"100GB", false}, {"100Mi", false}, {"01Gi", false}, {"1.5Ti", false},
	}
	for _, tc := range tests {
		t.Run(tc.size, func(t *testing.T) {
			s := baseSpec()
			s.BlockDeviceMappings = []BlockDeviceMapping{{EBS: &EBS{VolumeSize: tc.size}}}
			errs := Validate(s)
			if tc.ok {
				checkErrs(t, errs, nil)
			} else {
				checkErrs(t, errs, []wantErr{{"block_device_mappings[0].ebs.volume_size", "is not a volume size"}})
			}
		})
	}
}

func TestValidateQuantitiesAndDurations(t *testing.T) {
	reserved := []struct {
		v  string
		ok bool
	}{
		{"100m", true}, {"1Gi", true}, {"1.5", true}, {".5", true}, {"1e3", true}, {"+1Gi", true}, {"0", true},
		{"-1", false}, {"1 Gi", false}, {"1GB", false}, {"", false}, {"Gi", false},
	}
	for _, tc := range reserved {
		s := baseSpec()
		s.Kubelet.SystemReserved = map[string]string{"memory": tc.v}
		if got := len(Validate(s)) == 0; got != tc.ok {
			t.Errorf("system_reserved memory %q: valid=%v, want %v", tc.v, got, tc.ok)
		}
	}
	eviction := []struct {
		v  string
		ok bool
	}{
		{"10%", true}, {"0%", true}, {"99.99%", true}, {"100%", true}, {"100.00%", true}, {"500Mi", true},
		{"100.5%", false}, {"101%", false}, {"1.234%", false}, {"%", false}, {"-5%", false}, {"-500Mi", false}, {"", false},
	}
	for _, tc := range eviction {
		s := baseSpec()
		s.Kubelet.EvictionHard = map[string]string{"memory.available": tc.v}
		if got := len(Validate(s)) == 0; got != tc.ok {
			t.Errorf("eviction_hard %q: valid=%v, want %v", tc.v, got, tc.ok)
		}
	}
	durations := []struct {
		v  string
		ok bool
	}{
		{"1m", true}, {"1m30s", true}, {"1.5h", true}, {"500ms", true}, {"10us", true}, {"10µs", true}, {"1h2m3s4ms", true},
		{"", false}, {"1", false}, {"1d", false}, {"-1m", false}, {"1 m", false}, {"m", false},
	}
	for _, tc := range durations {
		s := baseSpec()
		s.Kubelet.EvictionSoft = map[string]string{"memory.available": "5%"}
		s.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": tc.v}
		if got := len(Validate(s)) == 0; got != tc.ok {
			t.Errorf("grace period %q: valid=%v, want %v", tc.v, got, tc.ok)
		}
	}
}

// TestValidateAccumulates: independent problems are all reported, in the order of the spec.
func TestValidateAccumulates(t *testing.T) {
	s := baseSpec()
	s.Name = "Bad_Name"
	s.InstanceProfile = "p"
	s.IPPrefixCount = ptr(-1)
	s.MetadataOptions.HTTPTokens = "no"
	s.InstanceStorePolicy = "raid0"
	s.Tags = map[string]string{"aws:x": "y"}
	checkErrs(t, Validate(s), []wantErr{
		{"name", "not a valid Kubernetes object name"},
		{"instance_profile", "mutually exclusive"},
		{"ip_prefix_count", "got -1"},
		{"metadata_options.http_tokens", `got "no"`},
		{"instance_store_policy", `got "raid0"`},
		{`tags["aws:x"]`, "reserved by AWS"},
	})
}

func TestFieldErrorError(t *testing.T) {
	e := FieldError{Path: attrpath.Of("tags").Key("aws:x"), Message: "reserved"}
	if got, want := e.Error(), `tags["aws:x"]: reserved`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
