package manifest

import (
	"strings"
	"testing"
)

// TestCRDAcceptsValidVariants renders one valid change at a time of the minimal objects, at the
// boundaries the CRDs draw (each enum value, each alias family, limits of ranges and lengths), and
// requires Admit to accept each. In acceptance runs the differential check sends the same
// documents to the API server, so the accepted side of the comparison is as wide as the refused.
func TestCRDAcceptsValidVariants(t *testing.T) {
	class := func(name string, mutate func(*EC2NodeClass)) (string, func(*testing.T) string) {
		return name, func(t *testing.T) string {
			nc := minimalEC2NodeClass()
			mutate(&nc)
			return mustRenderEC2NodeClass(t, nc)
		}
	}
	pool := func(name string, mutate func(*NodePool)) (string, func(*testing.T) string) {
		return name, func(t *testing.T) string {
			np := minimalNodePool()
			mutate(&np)
			return mustRenderNodePool(t, np)
		}
	}
	type variant struct {
		name   string
		render func(*testing.T) string
	}
	var variants []variant
	add := func(name string, render func(*testing.T) string) { variants = append(variants, variant{name, render}) }

	for _, alias := range []string{"al2023@latest", "al2023@v20250101", "al2@latest", "bottlerocket@latest", "bottlerocket@v1.30.0",
		"windows2019@latest", "windows2022@latest", "windows2025@latest"} {
		add(class("alias "+alias, func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = alias }))
	}
	for _, family := range []string{"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"} {
		add(class("amiFamily "+family, func(nc *EC2NodeClass) {
			nc.Spec.AMIFamily = family
			nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}
		}))
	}
	add(class("ami by ssm parameter", func(nc *EC2NodeClass) {
		nc.Spec.AMIFamily = "AL2023"
		nc.Spec.AMISelectorTerms = []AMISelectorTerm{{SSMParameter: "/my/ami/id"}}
	}))
	add(class("ami by name and owner", func(nc *EC2NodeClass) {
		nc.Spec.AMIFamily = "Custom"
		nc.Spec.AMISelectorTerms = []AMISelectorTerm{{Name: "my-ami-*", Owner: "123456789012"}}
	}))
	add(class("subnet by id", func(nc *EC2NodeClass) {
		nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "subnet-0123456789abcdef0"}, {ID: "subnet-0abc"}}
	}))
	add(class("security group by name", func(nc *EC2NodeClass) {
		nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{Name: "eks-cluster-sg"}}
	}))
	add(class("instance profile", func(nc *EC2NodeClass) { nc.Spec.Role, nc.Spec.InstanceProfile = "", "KarpenterNodeInstanceProfile" }))
	add(class("metadata hop limit 64, IMDSv1 allowed, IPv6", func(nc *EC2NodeClass) {
		nc.Spec.MetadataOptions = MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "enabled",
			HTTPPutResponseHopLimit: new(int64(64)), HTTPTokens: "optional"}
	}))
	add(class("metadata endpoint disabled", func(nc *EC2NodeClass) {
		nc.Spec.MetadataOptions = MetadataOptions{HTTPEndpoint: "disabled", HTTPProtocolIPv6: "disabled",
			HTTPPutResponseHopLimit: new(int64(1)), HTTPTokens: "required"}
	}))
	for _, vt := range []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"} {
		add(class("volume type "+vt, func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: new(true),
				EBS: BlockDevice{VolumeSize: "20Gi", VolumeType: vt}}}
		}))
	}
	add(class("volume size in G", func(nc *EC2NodeClass) {
		nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: BlockDevice{VolumeSize: "64T"}}}
	}))
	add(class("kubelet image GC 100/0", func(nc *EC2NodeClass) {
		nc.Spec.Kubelet = KubeletConfiguration{ImageGCHighThresholdPercent: new(int32(100)), ImageGCLowThresholdPercent: new(int32(0))}
	}))
	add(class("kubelet eviction soft with grace", func(nc *EC2NodeClass) {
		nc.Spec.Kubelet = KubeletConfiguration{
			EvictionSoft:            map[string]string{"nodefs.available": "15%", "imagefs.inodesFree": "10%"},
			EvictionSoftGracePeriod: map[string]string{"nodefs.available": "2m", "imagefs.inodesFree": "90s"},
		}
	}))
	add(class("instance store policy", func(nc *EC2NodeClass) { nc.Spec.InstanceStorePolicy = "RAID0" }))
	add(class("tags at the length limits", func(nc *EC2NodeClass) {
		nc.Spec.Tags = map[string]string{strings.Repeat("k", 128): strings.Repeat("v", 256)}
	}))
	add(class("user data", func(nc *EC2NodeClass) { nc.Spec.UserData = "[settings.kubernetes]\nmax-pods = 110\n" }))

	for _, effect := range []string{"NoSchedule", "PreferNoSchedule", "NoExecute"} {
		add(pool("taint "+effect, func(np *NodePool) {
			np.Spec.Template.Spec.Taints = []Taint{{Key: "example.com/x", Value: "y", Effect: effect}}
		}))
	}
	for _, op := range []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"} {
		add(pool("requirement "+op, func(np *NodePool) {
			r := NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: op}
			switch op {
			case "In", "NotIn":
				r.Values = []string{"4", "8"}
			case "Gt", "Lt", "Gte", "Lte":
				r.Values = []string{"4"}
			}
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{r}
		}))
	}
	add(pool("minValues equal to the values", func(np *NodePool) {
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{
			{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5", "c5"}, MinValues: new(int32(2))}}
	}))
	for _, policy := range []string{"WhenEmpty", "WhenEmptyOrUnderutilized"} {
		add(pool("consolidation "+policy, func(np *NodePool) {
			np.Spec.Disruption = Disruption{ConsolidationPolicy: policy, ConsolidateAfter: "30s"}
		}))
	}
	add(pool("consolidateAfter Never", func(np *NodePool) {
		np.Spec.Disruption = Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "Never"}
	}))
	add(pool("budgets with reasons and schedule", func(np *NodePool) {
		np.Spec.Disruption = Disruption{ConsolidateAfter: "0s", Budgets: []Budget{
			{Nodes: "100%"}, {Nodes: "5", Reasons: []string{"Empty"}}, {Nodes: "0", Schedule: "@daily", Duration: "10h30m"}}}
	}))
	add(pool("expireAfter Never and terminationGracePeriod", func(np *NodePool) {
		np.Spec.Template.Spec.ExpireAfter, np.Spec.Template.Spec.TerminationGracePeriod = "Never", "1h"
	}))
	add(pool("weight 100", func(np *NodePool) { np.Spec.Weight = new(int32(100)) }))
	add(pool("weight 1", func(np *NodePool) { np.Spec.Weight = new(int32(1)) }))
	add(pool("limits of every kind", func(np *NodePool) {
		np.Spec.Limits = map[string]string{"cpu": "500m", "memory": "1.5Ti", "nodes": "10", "pods": "1k", "aws.amazon.com/neuron": "4"}
	}))
	add(pool("template labels and annotations", func(np *NodePool) {
		np.Spec.Template.Metadata = TemplateMetadata{Labels: map[string]string{"example.com/team": "a-b.c_d"},
			Annotations: map[string]string{"example.com/json": `{"a": [1, 2]}`}}
	}))
	add(pool("static replicas", func(np *NodePool) {
		np.Spec.Replicas = new(int64(3))
		np.Spec.Limits = map[string]string{"nodes": "3"}
	}))

	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) { admitted(t, v.render(t)) })
	}
	if len(variants) < 40 {
		t.Fatalf("only %d variants", len(variants))
	}
}
