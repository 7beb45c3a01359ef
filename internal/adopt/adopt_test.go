package adopt_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
)

func object(t *testing.T, doc string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

const livePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
  labels: {team: web}
  annotations:
    kubernetes.io/description: General purpose
    karpenter.sh/nodepool-hash: "123"
    karpenter.sh/nodepool-hash-version: v3
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x, uid: "1"}]
spec:
  replicas: 3
  limits: {nodes: 5, cpu: "1000"}
  template:
    metadata: {labels: {tier: web}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m], minValues: 2}
      taints: [{key: a, effect: NoSchedule, timeAdded: "2026-01-01T00:00:00Z"}]
      expireAfter: 720h
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 1m, budgets: [{nodes: "10%"}]}
status: {nodes: 3}
`

// TestReadPool: every field the configuration carries is read (quantities given as numbers
// too), Karpenter's hashes are left to the cluster, a static pool is Karpenter-launched, and a
// field the configuration cannot carry is named by its path.
func TestReadPool(t *testing.T) {
	p, err := adopt.ReadPool(object(t, livePool))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config
	if p.NodeClass != "default" || c.Name != "general" || *c.Replicas != 3 || c.Launcher == nil || *c.Launcher != "karpenter" {
		t.Errorf("read %+v, class %q", c, p.NodeClass)
	}
	if c.Limits["nodes"] != "5" || c.Limits["cpu"] != "1000" || *c.Template.Requirements[0].MinValues != 2 ||
		*c.Disruption.ConsolidateAfter != "1m" || c.Template.Labels["tier"] != "web" || c.Template.ExpireAfter != "720h" {
		t.Errorf("read %+v %+v %+v", c.Limits, c.Template, c.Disruption)
	}
	if c.Metadata == nil || c.Metadata.Labels["team"] != "web" || len(c.Metadata.Annotations) != 1 {
		t.Errorf("metadata %+v", c.Metadata)
	}
	if !slices.Equal(p.Unexpressed, []string{"spec.template.spec.taints[0].timeAdded"}) {
		t.Errorf("unexpressed %v", p.Unexpressed)
	}
	if !slices.Equal(p.LeftToCluster, []string{"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version"}) ||
		!slices.Equal(p.Ignored, []string{"metadata.ownerReferences"}) {
		t.Errorf("left %v, ignored %v", p.LeftToCluster, p.Ignored)
	}
}

const liveClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{id: sg-1}]
  metadataOptions: {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1, httpTokens: required}
  kubelet:
    maxPods: "self.vcpu * 8"
    imageMaximumGCAge: 48h
    systemReserved: {cpu: 100m}
  blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}]
  futureField: {enabled: true}
`

// TestReadClass: a v1.15 kubelet (a CEL maxPods, a free-form field) is read into its
// attributes, and a field no Karpenter release the provider knows has is named.
func TestReadClass(t *testing.T) {
	c, err := adopt.ReadClass(object(t, liveClass))
	if err != nil {
		t.Fatal(err)
	}
	k := c.Config.Kubelet
	if k == nil || k.MaxPodsExpression != "self.vcpu * 8" || k.SystemReserved["cpu"] != "100m" || k.Config.(map[string]any)["imageMaximumGCAge"] != "48h" {
		t.Errorf("kubelet %+v", k)
	}
	if b := c.Config.BlockDeviceMappings; len(b) != 1 || !b[0].RootVolume || b[0].EBS.VolumeSize != "100Gi" {
		t.Errorf("block devices %+v", b)
	}
	if !slices.Equal(c.Unexpressed, []string{"spec.futureField.enabled"}) {
		t.Errorf("unexpressed %v", c.Unexpressed)
	}
}

// TestReadRefusesOtherKinds: an object of another kind, or a pool of another node class, is
// refused naming what it is.
func TestReadRefusesOtherKinds(t *testing.T) {
	if _, err := adopt.ReadClass(object(t, livePool)); err == nil || !strings.Contains(err.Error(), "is karpenter.sh/v1 NodePool, not a karpenter.k8s.aws/v1 EC2NodeClass") {
		t.Errorf("ReadClass(NodePool) = %v", err)
	}
	other := strings.Replace(livePool, "group: karpenter.k8s.aws, kind: EC2NodeClass", "group: karpenter.azure.com, kind: AKSNodeClass", 1)
	if _, err := adopt.ReadPool(object(t, other)); err == nil || !strings.Contains(err.Error(), `kind "AKSNodeClass"`) {
		t.Errorf("ReadPool(AKS) = %v", err)
	}
}
