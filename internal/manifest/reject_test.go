package manifest

import (
	"strings"
	"testing"
)

// These cases prove that Admit can fail: each breaks exactly one CEL rule or one schema
// constraint of the embedded CRDs, and the violation must name that field with the API server's
// message.

func TestCRDRejectsEC2NodeClass(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*EC2NodeClass)
		want   string // substring of the expected error
	}{
		// CEL rules.
		{"role and instanceProfile", func(nc *EC2NodeClass) { nc.Spec.InstanceProfile = "KarpenterNodeInstanceProfile" },
			`spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`},
		{"neither role nor instanceProfile", func(nc *EC2NodeClass) { nc.Spec.Role = "" },
			`spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`},
		{"amiFamily required without alias", func(nc *EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}
		}, `spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms does not`},
		{"amiFamily conflicts with alias", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = "Bottlerocket" },
			`spec: Invalid value: "object": if set, amiFamily must be 'AL2023' or 'Custom' when using`},
		{"alias must be the only term", func(nc *EC2NodeClass) {
			nc.Spec.AMISelectorTerms = append(nc.Spec.AMISelectorTerms, AMISelectorTerm{ID: "ami-0123456789abcdef0"})
		}, `spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually exclusive, cannot be`},
		{"alias combined with owner", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Owner = "amazon" },
			`spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually exclusive, cannot be`},
		{"id combined with name", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0123456789abcdef0", Name: "my-ami"}}
		}, `spec.amiSelectorTerms: Invalid value: "array": 'id' is mutually exclusive, cannot be set`},
		{"ami term without selector", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Owner: "self"}}
		}, `spec.amiSelectorTerms: Invalid value: "array": expected at least one, got none, ['tags',`},
		{"unsupported alias family", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "ubuntu@latest" },
			`spec.amiSelectorTerms[0].alias: Invalid value: "string": family is not supported, must be`},
		{"windows alias pinned", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "windows2022@v20240101" },
			`spec.amiSelectorTerms[0].alias: Invalid value: "string": windows families may only`},
		{"subnet id with tags", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms[0].ID = "subnet-0abc" },
			`spec.subnetSelectorTerms: Invalid value: "array": 'id' is mutually exclusive, cannot be`},
		{"subnet term without selector", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{}}
		}, `spec.subnetSelectorTerms: Invalid value: "array": expected at least one, got none,`},
		{"subnet tag value empty", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms[0].Tags = map[string]string{"Name": ""}
		}, `spec.subnetSelectorTerms[0].tags: Invalid value: "object": empty tag keys or values`},
		{"security group id with name", func(nc *EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "sg-0abc", Name: "default"}}
		}, `spec.securityGroupSelectorTerms: Invalid value: "array": 'id' is mutually exclusive,`},
		{"security group name with tags", func(nc *EC2NodeClass) { nc.Spec.SecurityGroupSelectorTerms[0].Name = "default" },
			`spec.securityGroupSelectorTerms: Invalid value: "array": 'name' is mutually exclusive,`},
		{"network interfaces without primary", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "efa-only"}}
		}, `spec.networkInterfaces: Invalid value: "array": networkInterfaces must include a primary`},
		{"network interfaces duplicate pair", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
			}
		}, `spec.networkInterfaces: Invalid value: "array": networkInterfaces must not have duplicate`},
		{"two efa-only on one card", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
				{NetworkCardIndex: 0, DeviceIndex: 2, InterfaceType: "efa-only"},
			}
		}, `spec.networkInterfaces: Invalid value: "array": networkInterfaces must not have duplicate`},
		{"two root volumes", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: new(true), EBS: BlockDevice{VolumeSize: "20Gi"}},
				{DeviceName: "/dev/xvdb", RootVolume: new(true), EBS: BlockDevice{VolumeSize: "100Gi"}},
			}
		}, `spec.blockDeviceMappings: Invalid value: "array": must have only one blockDeviceMappings`},
		{"ebs without size or snapshot", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeType: "gp3"}}}
		}, `spec.blockDeviceMappings[0].ebs: Invalid value: "object": snapshotID or volumeSize must`},
		{"reserved tag key", func(nc *EC2NodeClass) { nc.Spec.Tags = map[string]string{"kubernetes.io/cluster/demo": "owned"} },
			`spec.tags: Invalid value: "object": tag contains a restricted tag matching`},
		{"kubelet systemReserved key", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.SystemReserved = map[string]string{"gpu": "1"}
		}, `spec.kubelet.systemReserved: Invalid value: "object": valid keys for systemReserved are`},
		{"kubelet negative kubeReserved", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.KubeReserved = map[string]string{"cpu": "-1"}
		}, `spec.kubelet.kubeReserved: Invalid value: "object": kubeReserved value cannot be a`},
		{"kubelet evictionHard key", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionHard = map[string]string{"memory.free": "5%"}
		}, `spec.kubelet.evictionHard: Invalid value: "object": valid keys for evictionHard are`},
		{"kubelet image GC thresholds", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.ImageGCHighThresholdPercent = new(int32(50))
			nc.Spec.Kubelet.ImageGCLowThresholdPercent = new(int32(50))
		}, `spec.kubelet: Invalid value: "object": imageGCHighThresholdPercent must be greater than`},
		{"kubelet evictionSoft without grace period", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionSoft = map[string]string{"memory.available": "1Gi"}
		}, `spec.kubelet: Invalid value: "object": no such key: evictionSoftGracePeriod evaluating`},
		{"kubelet grace period without evictionSoft", func(nc *EC2NodeClass) {
			nc.Spec.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m"}
		}, `spec.kubelet: Invalid value: "object": no such key: evictionSoft evaluating rule:`},

		// Schema constraints (JSON Schema converted from openAPIV3Schema).
		{"httpTokens enum", func(nc *EC2NodeClass) { nc.Spec.MetadataOptions.HTTPTokens = "sometimes" },
			`spec.metadataOptions.httpTokens: Unsupported value: "sometimes": supported values:`},
		{"hop limit maximum", func(nc *EC2NodeClass) { nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = new(int64(65)) },
			`spec.metadataOptions.httpPutResponseHopLimit: Invalid value: 65:`},
		{"subnet id pattern", func(nc *EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "sn-0123"}}
		}, `spec.subnetSelectorTerms[0].id: Invalid value: "sn-0123": spec.subnetSelectorTerms[0].id`},
		{"security group id pattern", func(nc *EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "group-1"}}
		}, `spec.securityGroupSelectorTerms[0].id: Invalid value: "group-1":`},
		{"ami id pattern", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "AL2023"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "image-1"}}
		}, `spec.amiSelectorTerms[0].id: Invalid value: "image-1": spec.amiSelectorTerms[0].id in`},
		{"amiFamily enum", func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = "Ubuntu"
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Name: "ubuntu-*"}}
		}, `spec.amiFamily: Unsupported value: "Ubuntu": supported values: "AL2", "AL2023",`},
		{"alias too long", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "al2023@v" + strings.Repeat("1", 30) },
			`spec.amiSelectorTerms[0].alias: Too long: may not be more than 30 bytes`},
		{"volumeSize pattern", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeSize: "100Mi"}}}
		}, `spec.blockDeviceMappings[0].ebs.volumeSize: Invalid value: "100Mi":`},
		{"volumeType enum", func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeSize: "20Gi", VolumeType: "gp9"}}}
		}, `spec.blockDeviceMappings[0].ebs.volumeType: Unsupported value: "gp9": supported values:`},
		{"interfaceType enum", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []NetworkInterface{{InterfaceType: "interface"}, {DeviceIndex: 1, InterfaceType: "efa"}}
		}, `spec.networkInterfaces[1].interfaceType: Unsupported value: "efa": supported values:`},
		{"negative ipPrefixCount", func(nc *EC2NodeClass) { nc.Spec.IPPrefixCount = new(int32(-1)) },
			`spec.ipPrefixCount: Invalid value: -1: spec.ipPrefixCount in body should be greater than`},
		{"image GC over 100", func(nc *EC2NodeClass) { nc.Spec.Kubelet.ImageGCHighThresholdPercent = new(int32(101)) },
			`spec.kubelet.imageGCHighThresholdPercent: Invalid value: 101:`},
		{"instanceStorePolicy enum", func(nc *EC2NodeClass) { nc.Spec.InstanceStorePolicy = "RAID1" },
			`spec.instanceStorePolicy: Unsupported value: "RAID1": supported values: "RAID0"`},
		{"subnet selector terms missing", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms = nil },
			"subnetSelectorTerms"},
		{"too many tags in a term", func(nc *EC2NodeClass) {
			tags := map[string]string{}
			for i := range 21 {
				tags[strings.Repeat("k", i+1)] = "v"
			}
			nc.Spec.SubnetSelectorTerms[0].Tags = tags
		}, `spec.subnetSelectorTerms[0].tags: Too many: 21: must have at most 20 items`},
		{"metadata name not DNS", func(nc *EC2NodeClass) { nc.Name = "My_Class" },
			"metadata.name"},
		{"metadata label value", func(nc *EC2NodeClass) { nc.Labels = map[string]string{"team": "a/b"} },
			`metadata.labels: Invalid value: "a/b": a valid label must be an empty string or consist`},
		// The API server lower-cases annotation keys before checking them: Example.com/x passes.
		{"metadata annotation key", func(nc *EC2NodeClass) { nc.Annotations = map[string]string{"example.com/x y": "z"} },
			`metadata.annotations: Invalid value: "example.com/x y": name part must consist of alphanumeric characters`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nc := minimalEC2NodeClass()
			tc.mutate(&nc)
			err := refused(t, mustRenderEC2NodeClass(t, nc))
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
		}, `spec.template.spec.requirements: Invalid value: "array": no such key: values evaluating`},
		{"Gt with two values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-cpu", "Gt", "2", "4")}
		}, `spec.template.spec.requirements: Invalid value: "array": requirements operator 'Gt',`},
		{"Lt without values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-cpu", "Lt")}
		}, `spec.template.spec.requirements: Invalid value: "array": no such key: values evaluating`},
		{"Gte not an integer", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-memory", "Gte", "4Gi")}
		}, `spec.template.spec.requirements: Invalid value: "array": type conversion error from`},
		{"Lte negative", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-memory", "Lte", "-1")}
		}, `spec.template.spec.requirements: Invalid value: "array": requirements operator 'Gt',`},
		{"minValues above value count", func(np *NodePool) {
			r := req("karpenter.k8s.aws/instance-family", "In", "m5", "c5")
			r.MinValues = new(int32(3))
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{r}
		}, `spec.template.spec.requirements: Invalid value: "array": requirements with 'minValues'`},
		{"budget schedule without duration", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Schedule: "@daily"}}}
		}, `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`},
		{"budget duration without schedule", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1"}, {Nodes: "0", Duration: "1h"}}}
		}, `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`},
		{"replicas with cpu limit", func(np *NodePool) {
			np.Spec.Replicas = new(int64(2))
			np.Spec.Limits = map[string]string{"nodes": "3", "cpu": "100"}
		}, `spec: Invalid value: "object": only 'limits.nodes' is supported on static NodePools`},
		{"replicas with weight", func(np *NodePool) {
			np.Spec.Replicas = new(int64(2))
			np.Spec.Weight = new(int32(5))
		}, `spec: Invalid value: "object": 'weight' is not supported on static NodePools`},
		{"restricted karpenter.sh label", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"karpenter.sh/custom": "x"}
		}, `spec.template.metadata.labels: Invalid value: "object": label domain "karpenter.sh" is`},
		{"nodepool label", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"karpenter.sh/nodepool": "x"}
		}, `spec.template.metadata.labels: Invalid value: "object": label "karpenter.sh/nodepool" is`},
		{"hostname requirement", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("kubernetes.io/hostname", "Exists")}
		}, `"kubernetes.io/hostname" is restricted`},
		{"unknown karpenter.k8s.aws requirement", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("karpenter.k8s.aws/instance-colour", "Exists")}
		}, `spec.template.spec.requirements[0].key: Invalid value: "string": label domain`},
		{"empty nodeClassRef name", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "" },
			`spec.template.spec.nodeClassRef.name: Invalid value: "string": name may not be empty`},

		// Schema constraints.
		{"weight above 100", func(np *NodePool) { np.Spec.Weight = new(int32(101)) }, `spec.weight: Invalid value: 101: spec.weight in body should be less than or equal to 100`},
		{"weight zero", func(np *NodePool) { np.Spec.Weight = new(int32(0)) }, `spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1`},
		{"negative replicas", func(np *NodePool) { np.Spec.Replicas = new(int64(-1)) }, `spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal`},
		{"consolidationPolicy enum", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidationPolicy: "WhenUnderutilized", ConsolidateAfter: "0s"}
		}, `spec.disruption.consolidationPolicy: Unsupported value: "WhenUnderutilized": supported`},
		{"disruption without consolidateAfter", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidationPolicy: "WhenEmpty"}
		}, "consolidateAfter"},
		{"expireAfter in days", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = "30d" },
			`spec.template.spec.expireAfter: Invalid value: "30d": spec.template.spec.expireAfter in`},
		{"terminationGracePeriod Never", func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = "Never" },
			`spec.template.spec.terminationGracePeriod: Invalid value: "Never":`},
		{"budget nodes over 100%", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "110%"}}}
		}, `spec.disruption.budgets[0].nodes: Invalid value: "110%": spec.disruption.budgets[0].nodes`},
		{"budget duration in seconds", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Schedule: "@daily", Duration: "30s"}}}
		}, `spec.disruption.budgets[0].duration: Invalid value: "30s":`},
		{"budget reasons duplicated", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{Nodes: "1", Reasons: []string{"Empty", "Empty"}}}}
		}, `spec.disruption.budgets[0].reasons[1]: Duplicate value: "Empty"`},
		{"budget without nodes", func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{{}}}
		}, `spec.disruption.budgets[0].nodes: Invalid value: "": spec.disruption.budgets[0].nodes in`},
		{"taint effect enum", func(np *NodePool) {
			np.Spec.Template.Spec.Taints = []Taint{{Key: "dedicated", Effect: "NoWay"}}
		}, `spec.template.spec.taints[0].effect: Unsupported value: "NoWay": supported values:`},
		{"taint key pattern", func(np *NodePool) {
			np.Spec.Template.Spec.StartupTaints = []Taint{{Key: "bad key", Effect: "NoSchedule"}}
		}, `spec.template.spec.startupTaints[0].key: Invalid value: "bad key":`},
		{"label value too long", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"team": strings.Repeat("a", 64)}
		}, `spec.template.metadata.labels[team]: Too long: may not be more than 63 bytes`},
		{"label value pattern", func(np *NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"team": "a b"}
		}, `spec.template.metadata.labels[team]: Invalid value: "a b":`},
		{"operator enum", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{req("kubernetes.io/arch", "Equals", "amd64")}
		}, `spec.template.spec.requirements[0].operator: Unsupported value: "Equals": supported`},
		{"minValues above 50", func(np *NodePool) {
			r := req("karpenter.k8s.aws/instance-family", "In", "m5")
			r.MinValues = new(int32(51))
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{r}
		}, `spec.template.spec.requirements: Invalid value: "array": requirements with 'minValues'`},
		{"limit not a quantity", func(np *NodePool) { np.Spec.Limits = map[string]string{"cpu": "lots"} },
			`spec.limits[cpu]: Invalid value: "lots": spec.limits.cpu in body should match`},
		{"nodeClassRef group with slash", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Group = "karpenter.k8s.aws/v1" },
			`spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			np := minimalNodePool()
			tc.mutate(&np)
			err := refused(t, mustRenderNodePool(t, np))
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
		admitted(t, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("Custom amiFamily with an alias", func(t *testing.T) {
		nc := minimalEC2NodeClass()
		nc.Spec.AMIFamily = "Custom"
		admitted(t, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("instanceProfile instead of role", func(t *testing.T) {
		nc := minimalEC2NodeClass()
		nc.Spec.Role = ""
		nc.Spec.InstanceProfile = "KarpenterNodeInstanceProfile"
		admitted(t, mustRenderEC2NodeClass(t, nc))
	})
	t.Run("NotIn without values and Exists with values", func(t *testing.T) {
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{
			{Key: "kubernetes.io/arch", Operator: "NotIn"},
			{Key: "example.com/x", Operator: "Exists", Values: []string{"ignored"}},
		}
		admitted(t, mustRenderNodePool(t, np))
	})
	t.Run("requirement values are not pattern checked", func(t *testing.T) {
		// The CRD puts maxLength/pattern on the values array, where they do not apply to items.
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{
			{Key: "example.com/x", Operator: "In", Values: []string{"not a label value!", strings.Repeat("v", 100)}},
		}
		admitted(t, mustRenderNodePool(t, np))
	})
	t.Run("Gt with a plus sign", func(t *testing.T) {
		np := minimalNodePool()
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gt", Values: []string{"+4"}}}
		admitted(t, mustRenderNodePool(t, np))
	})
	t.Run("static NodePool with only nodes limit", func(t *testing.T) {
		np := staticNodePool()
		np.Spec.Replicas = new(int64(3))
		admitted(t, mustRenderNodePool(t, np))
	})
}
