package manifest

import (
	"strings"
	"testing"
)

// These cases prove that crdcheck can fail: each breaks exactly one CEL rule (Go version) or one
// schema constraint, and the error must name that rule.

func TestCRDRejectsEC2NodeClass(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*EC2NodeClass)
		want   string // substring of the expected error
	}{
		// CEL rules.
		{"role and instanceProfile", func(nc *EC2NodeClass) { nc.Spec.InstanceProfile = "KarpenterNodeInstanceProfile" },
			"exactly one of role and instanceProfile"},
		{"neither role nor instanceProfile", func(nc *EC2NodeClass) { nc.Spec.Role = "" },
			"exactly one of role and instanceProfile"},
		{"amiFamily required without alias", func(nc *EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}
		}, "spec.amiFamily: required"},
		{"amiFamily conflicts with alias", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = "Bottlerocket" },
			`conflicts with alias family "al2023"`},
		{"alias must be the only term", func(nc *EC2NodeClass) {
			nc.Spec.AMISelectorTerms = append(nc.Spec.AMISelectorTerms, AMISelectorTerm{ID: "ami-0123456789abcdef0"})
		}, "alias term must be the only term"},
		{"alias combined with owner", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Owner = "amazon" },
			"a term with alias cannot also set"},
		{"id combined with name", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0123456789abcdef0", Name: "my-ami"}}
		}, "a term with id cannot also set"},
		{"ami term without selector", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Owner: "self"}}
		}, "every term needs one of tags, id, name, alias or ssmParameter"},
		{"unsupported alias family", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "ubuntu@latest" },
			`unsupported family "ubuntu"`},
		{"windows alias pinned", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "windows2022@v20240101" },
			"windows families only accept version latest"},
		{"subnet id with tags", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms[0].ID = "subnet-0abc" },
			"id cannot be combined with tags"},
		{"subnet term without selector", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{}}
		}, "every term needs tags or id"},
		{"subnet tag value empty", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms[0].Tags = map[string]string{"Name": ""}
		}, "subnetSelectorTerms[0].tags: keys and values must not be empty"},
		{"security group id with name", func(nc *EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "sg-0abc", Name: "default"}}
		}, "id cannot be combined with tags or name"},
		{"security group name with tags", func(nc *EC2NodeClass) { nc.Spec.SecurityGroupSelectorTerms[0].Name = "default" },
			"name cannot be combined with tags or id"},
		{"network interfaces without primary", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "efa-only"}}
		}, "needs a primary entry"},
		{"network interfaces duplicate pair", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
			}
		}, "networkCardIndex 1 / deviceIndex 0 is used more than once"},
		{"two efa-only on one card", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
				{NetworkCardIndex: 0, DeviceIndex: 2, InterfaceType: "efa-only"},
			}
		}, "network card 0 has more than one efa-only interface"},
		{"two root volumes", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: new(true), EBS: BlockDevice{VolumeSize: "20Gi"}},
				{DeviceName: "/dev/xvdb", RootVolume: new(true), EBS: BlockDevice{VolumeSize: "100Gi"}},
			}
		}, "at most one mapping may set rootVolume"},
		{"ebs without size or snapshot", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeType: "gp3"}}}
		}, "snapshotID or volumeSize is required"},
		{"reserved tag key", func(nc *EC2NodeClass) { nc.Spec.Tags = map[string]string{"kubernetes.io/cluster/demo": "owned"} },
			`key "kubernetes.io/cluster/demo" is reserved`},
		{"kubelet systemReserved key", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.SystemReserved = map[string]string{"gpu": "1"}
		}, `spec.kubelet.systemReserved: key "gpu"`},
		{"kubelet negative kubeReserved", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.KubeReserved = map[string]string{"cpu": "-1"}
		}, "must not be negative"},
		{"kubelet evictionHard key", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionHard = map[string]string{"memory.free": "5%"}
		}, `spec.kubelet.evictionHard: key "memory.free"`},
		{"kubelet image GC thresholds", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.ImageGCHighThresholdPercent = new(int32(50))
			nc.Spec.Kubelet.ImageGCLowThresholdPercent = new(int32(50))
		}, "imageGCHighThresholdPercent (50) must be greater"},
		{"kubelet evictionSoft without grace period", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionSoft = map[string]string{"memory.available": "1Gi"}
		}, "needs a matching evictionSoftGracePeriod"},
		{"kubelet grace period without evictionSoft", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m"}
		}, "needs a matching evictionSoft"},

		// Schema constraints (JSON Schema converted from openAPIV3Schema).
		{"httpTokens enum", func(nc *EC2NodeClass) { nc.Spec.MetadataOptions.HTTPTokens = "sometimes" },
			"/spec/metadataOptions/httpTokens"},
		{"hop limit maximum", func(nc *EC2NodeClass) { nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = new(int64(65)) },
			"/spec/metadataOptions/httpPutResponseHopLimit"},
		{"subnet id pattern", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "sn-0123"}}
		}, "/spec/subnetSelectorTerms/0/id"},
		{"security group id pattern", func(nc *EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "group-1"}}
		}, "/spec/securityGroupSelectorTerms/0/id"},
		{"ami id pattern", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "image-1"}}
		}, "/spec/amiSelectorTerms/0/id"},
		{"amiFamily enum", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "Ubuntu"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Name: "ubuntu-*"}}
		}, "/spec/amiFamily"},
		{"alias too long", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "al2023@v" + strings.Repeat("1", 30) },
			"/spec/amiSelectorTerms/0/alias"},
		{"volumeSize pattern", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeSize: "100Mi"}}}
		}, "/spec/blockDeviceMappings/0/ebs/volumeSize"},
		{"volumeType enum", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeSize: "20Gi", VolumeType: "gp9"}}}
		}, "/spec/blockDeviceMappings/0/ebs/volumeType"},
		{"interfaceType enum", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{{InterfaceType: "interface"}, {DeviceIndex: 1, InterfaceType: "efa"}}
		}, "/spec/networkInterfaces/1/interfaceType"},
		{"negative ipPrefixCount", func(nc *EC2NodeClass) { nc.Spec.IPPrefixCount = new(int32(-1)) },
			"/spec/ipPrefixCount"},
		{"image GC over 100", func(nc *EC2NodeClass) { nc.Spec.Kubelet.ImageGCHighThresholdPercent = new(int32(101)) },
			"/spec/kubelet/imageGCHighThresholdPercent"},
		{"instanceStorePolicy enum", func(nc *EC2NodeClass) { nc.Spec.InstanceStorePolicy = "RAID1" },
			"/spec/instanceStorePolicy"},
		{"subnet selector terms missing", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms = nil },
			"subnetSelectorTerms"},
		{"too many tags in a term", func(nc *EC2NodeClass) {
			tags := map[string]string{}
			for i := range 21 {
				tags[strings.Repeat("k", i+1)] = "v"
			}
			nc.Spec.SubnetSelectorTerms[0].Tags = tags
		}, "/spec/subnetSelectorTerms/0/tags"},
		{"metadata name not DNS", func(nc *EC2NodeClass) { nc.Name = "My_Class" },
			"metadata.name"},
		{"metadata label value", func(nc *EC2NodeClass) { nc.Labels = map[string]string{"team": "a/b"} },
			`metadata.labels["team"]`},
		{"metadata annotation key", func(nc *EC2NodeClass) { nc.Annotations = map[string]string{"Example.com/x": "y"} },
			`metadata.annotations: key "Example.com/x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nc := minimalEC2NodeClass()
			tc.mutate(&nc)
			err := rejectedByCRD(t, ec2NodeClassCRD, mustRenderEC2NodeClass(t, nc))
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
		})
	}
}

func TestCRDRejectsNodePool(t *testing.T) {
	req := func(key, op string, values ...string) NodeSelectorRequirement {
		return NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name   string
		mutate func(*NodePool)
		want   string
	}{
		// CEL rules.
		{"In without values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("kubernetes.io/arch", "In")}
		}, "operator In needs at least one value"},
		{"Gt with two values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-cpu", "Gt", "2", "4")}
		}, "operator Gt needs exactly one value"},
		{"Lt without values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-cpu", "Lt")}
		}, "operator Lt needs exactly one value"},
		{"Gte not an integer", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-memory", "Gte", "4Gi")}
		}, "operator Gte needs a non-negative integer"},
		{"Lte negative", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-memory", "Lte", "-1")}
		}, "operator Lte needs a non-negative integer"},
		{"minValues above value count", func(np *NodePool) {
			r := req("karpenter.k8s.aws/instance-family", "In", "m5", "c5")
			r.MinValues = new(int32(3))
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{r}
		}, "minValues 3 exceeds the 2 values given"},
		{"budget schedule without duration", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Schedule: "@daily"}}}
		}, "budgets[0]: schedule and duration must be set together"},
		{"budget duration without schedule", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1"}, {Nodes: "0", Duration: "1h"}}}
		}, "budgets[1]: schedule and duration must be set together"},
		{"replicas with cpu limit", func(np *NodePool) {
			np.Spec.Replicas = new(int64(2))
			np.Spec.Limits = map[string]string{"nodes": "3", "cpu": "100"}
		}, "only limits.nodes is allowed"},
		{"replicas with weight", func(np *NodePool) {
			np.Spec.Replicas = new(int64(2))
			np.Spec.Weight = new(int32(5))
		}, "spec.weight: not allowed when replicas is set"},
		{"restricted karpenter.sh label", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"karpenter.sh/custom": "x"}
		}, "restricted karpenter.sh domain"},
		{"nodepool label", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"karpenter.sh/nodepool": "x"}
		}, "is set by Karpenter"},
		{"hostname requirement", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("kubernetes.io/hostname", "Exists")}
		}, `"kubernetes.io/hostname" is restricted`},
		{"unknown karpenter.k8s.aws requirement", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-colour", "Exists")}
		}, "restricted karpenter.k8s.aws domain"},
		{"empty nodeClassRef name", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "" },
			"nodeClassRef.name: must not be empty"},

		// Schema constraints.
		{"weight above 100", func(np *NodePool) { np.Spec.Weight = new(int32(101)) }, "/spec/weight"},
		{"weight zero", func(np *NodePool) { np.Spec.Weight = new(int32(0)) }, "/spec/weight"},
		{"negative replicas", func(np *NodePool) { np.Spec.Replicas = new(int64(-1)) }, "/spec/replicas"},
		{"consolidationPolicy enum", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidationPolicy: "WhenUnderutilized", ConsolidateAfter: "0s"}
		}, "/spec/disruption/consolidationPolicy"},
		{"disruption without consolidateAfter", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidationPolicy: "WhenEmpty"}
		}, "consolidateAfter"},
		{"expireAfter in days", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = "30d" },
			"/spec/template/spec/expireAfter"},
		{"terminationGracePeriod Never", func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = "Never" },
			"/spec/template/spec/terminationGracePeriod"},
		{"budget nodes over 100%", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "110%"}}}
		}, "/spec/disruption/budgets/0/nodes"},
		{"budget duration in seconds", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Schedule: "@daily", Duration: "30s"}}}
		}, "/spec/disruption/budgets/0/duration"},
		{"budget reasons duplicated", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Reasons: []string{"Empty", "Empty"}}}}
		}, "/spec/disruption/budgets/0/reasons"},
		{"budget without nodes", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{}}}
		}, "/spec/disruption/budgets/0/nodes"},
		{"taint effect enum", func(np *NodePool) {
			np.Spec.Template.Spec.Taints = []Taint{{Key: "dedicated", Effect: "NoWay"}}
		}, "/spec/template/spec/taints/0/effect"},
		{"taint key pattern", func(np *NodePool) {
			np.Spec.Template.Spec.StartupTaints = []Taint{{Key: "bad key", Effect: "NoSchedule"}}
		}, "/spec/template/spec/startupTaints/0/key"},
		{"label value too long", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"team": strings.Repeat("a", 64)}
		}, "/spec/template/metadata/labels/team"},
		{"label value pattern", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"team": "a b"}
		}, "/spec/template/metadata/labels/team"},
		{"operator enum", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("kubernetes.io/arch", "Equals", "amd64")}
		}, "/spec/template/spec/requirements/0/operator"},
		{"minValues above 50", func(np *NodePool) {
			r := req("karpenter.k8s.aws/instance-family", "In", "m5")
			r.MinValues = new(int32(51))
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{r}
		}, "/spec/template/spec/requirements/0/minValues"},
		{"limit not a quantity", func(np *NodePool) { np.Spec.Limits = map[string]string{"cpu": "lots"} },
			"/spec/limits/cpu"},
		{"nodeClassRef group with slash", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Group = "karpenter.k8s.aws/v1" },
			"/spec/template/spec/nodeClassRef/group"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			np := minimalNodePool()
			tc.mutate(&np)
			err := rejectedByCRD(t, nodePoolCRD, mustRenderNodePool(t, np))
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
		})
	}
}

// TestCRDAcceptsEdgeCases pins behaviour that looks wrong but is what the CRDs do, so that the
// provider's own validation can be compared with it.
func TestCRDAcceptsEdgeCases(t *testing.T) {
	t.Run("subnet id+tags term is allowed when another term is clean", func(t *testing.T) {
		nc := minimalEC2NodeClass()
		nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{
			{ID: "subnet-0abc", Tags: map[string]string{"a": "b"}},
			{Tags: map[string]string{"c": "d"}},
		}
		validateAgainstCRD(t, ec2NodeClassCRD, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("Custom amiFamily with an alias", func(t *testing.T) {
		nc := minimalEC2NodeClass()
		nc.Spec.AMIFamily = "Custom"
		validateAgainstCRD(t, ec2NodeClassCRD, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("instanceProfile instead of role", func(t *testing.T) {
		nc := minimalEC2NodeClass()
		nc.Spec.Role = ""
		nc.Spec.InstanceProfile = "KarpenterNodeInstanceProfile"
		validateAgainstCRD(t, ec2NodeClassCRD, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("NotIn without values and Exists with values", func(t *testing.T) {
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{
			{Key: "kubernetes.io/arch", Operator: "NotIn"},
			{Key: "example.com/x", Operator: "Exists", Values: []string{"ignored"}},
		}
		validateAgainstCRD(t, nodePoolCRD, mustRenderNodePool(t, np))
	})
	t.Run("requirement values are not pattern checked", func(t *testing.T) {
		// The CRD puts maxLength/pattern on the values array, where they do not apply to items.
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{
			{Key: "example.com/x", Operator: "In", Values: []string{"not a label value!", strings.Repeat("v", 100)}},
		}
		validateAgainstCRD(t, nodePoolCRD, mustRenderNodePool(t, np))
	})
	t.Run("Gt with a plus sign", func(t *testing.T) {
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gt", Values: []string{"+4"}}}
		validateAgainstCRD(t, nodePoolCRD, mustRenderNodePool(t, np))
	})
	t.Run("static NodePool with only nodes limit", func(t *testing.T) {
		np := staticNodePool()
		np.Spec.Replicas = new(int64(3))
		validateAgainstCRD(t, nodePoolCRD, mustRenderNodePool(t, np))
	})
}
