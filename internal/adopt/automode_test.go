package adopt_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// guideNodeClass is the EKS user guide's full "Node Class Specification" example
// (create-node-class.html, #auto-node-class-spec), {arn-aws} expanded, with status as an API
// server returns it. placementGroupSelector and networkInterfaces are newer than the provider's
// schema.
const guideNodeClass = `apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: my-node-class
spec:
  role: MyNodeRole
  subnetSelectorTerms:
    - tags:
        Name: "private-subnet"
        kubernetes.io/role/internal-elb: "1"
  securityGroupSelectorTerms:
    - tags:
        Name: "eks-cluster-sg"
  podSubnetSelectorTerms:
    - tags:
        Name: "pod-subnet"
        kubernetes.io/role/pod: "1"
  podSecurityGroupSelectorTerms:
    - tags:
        Name: "eks-pod-sg"
  capacityReservationSelectorTerms:
    - id: cr-56fac701cc1951b03
    - tags:
        Name: "targeted-odcr"
      owner: "012345678901"
  snatPolicy: Random
  networkPolicy: DefaultAllow
  networkPolicyEventLogs: Disabled
  ephemeralStorage:
    size: "80Gi"
    iops: 3000
    throughput: 125
    kmsKeyID: "arn:aws:kms:region:account:key/key-id"
  advancedNetworking:
    associatePublicIPAddress: false
    httpsProxy: http://192.0.2.4:3128
    noProxy:
        - localhost
        - 127.0.0.1
        - 169.254.169.254
        - .internal
        - .eks.amazonaws.com
    ipv4PrefixSize: Auto
    enableV4Egress: false
    networkInterfaces:
    - deviceIndex: 0
      interfaceType: interface
      networkCardIndex: 0
      secondaryIPv4Count: 10
  advancedSecurity:
    fips: false
  certificateBundles:
    - name: "custom-cert"
      data: "base64-encoded-cert-data"
  placementGroupSelector:
    name: "targeted-pg"
  tags:
    Environment: "production"
    Team: "platform"
status:
  conditions: [{type: Ready, status: "True"}]
  subnets: [{id: subnet-1, zone: us-west-2a}]
`

// TestReadAutoModeClassGuide: every field of the guide's example the configuration models is
// read, and the status is named.
func TestReadAutoModeClassGuide(t *testing.T) {
	c, err := adopt.ReadAutoModeClass(object(t, guideNodeClass))
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Config
	if cfg.Name != "my-node-class" || cfg.Role != "MyNodeRole" || cfg.SubnetSelectorTerms[0].Tags["kubernetes.io/role/internal-elb"] != "1" ||
		cfg.PodSecurityGroupSelectorTerms[0].Tags["Name"] != "eks-pod-sg" || cfg.CapacityReservationSelectorTerms[1].Owner != "012345678901" ||
		cfg.SNATPolicy != "Random" || *cfg.EphemeralStorage.IOPS != 3000 || cfg.AdvancedNetworking.NoProxy[4] != ".eks.amazonaws.com" ||
		*cfg.AdvancedNetworking.EnableV4Egress || cfg.AdvancedSecurity.FIPS == nil || cfg.CertificateBundles[0].Data != "base64-encoded-cert-data" ||
		cfg.Tags["Team"] != "platform" {
		t.Errorf("read %+v", cfg)
	}
	// The static interface layout and the placement group are read too: nothing is left out.
	if ni := cfg.AdvancedNetworking.NetworkInterfaces; len(ni) == 0 || ni[0].InterfaceType != "interface" || cfg.PlacementGroupSelector == nil ||
		cfg.PlacementGroupSelector.Name == "" {
		t.Errorf("interfaces %+v, placement group %+v", cfg.AdvancedNetworking.NetworkInterfaces, cfg.PlacementGroupSelector)
	}
	if len(c.Unexpressed) != 0 || !c.Status {
		t.Errorf("unexpressed %v, status %v; want nothing and the status", c.Unexpressed, c.Status)
	}
}

// TestReadAutoModeClassMetadata: the resource renders no object labels or annotations, so each
// is unexpressed by path; kubectl's annotation is left to the cluster, owner references ignored.
func TestReadAutoModeClassMetadata(t *testing.T) {
	c, err := adopt.ReadAutoModeClass(object(t, `apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: private
  uid: 0b5c
  resourceVersion: "42"
  labels: {team: web}
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", example.com/owner: platform}
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x, uid: "1"}]
spec:
  instanceProfile: eks-nodes
  subnetSelectorTerms: [{id: subnet-1}]
  securityGroupSelectorTerms: [{name: nodes}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`metadata.labels.team`, `metadata.annotations["example.com/owner"]`}; !slices.Equal(c.Unexpressed, want) {
		t.Errorf("unexpressed %v, want %v", c.Unexpressed, want)
	}
	if !slices.Equal(c.LeftToCluster, []string{"kubectl.kubernetes.io/last-applied-configuration"}) ||
		!slices.Equal(c.Ignored, []string{"metadata.ownerReferences"}) || c.Status {
		t.Errorf("left %v, ignored %v, status %v", c.LeftToCluster, c.Ignored, c.Status)
	}
	if c.Config.InstanceProfile != "eks-nodes" || c.Config.SecurityGroupSelectorTerms[0].Name != "nodes" {
		t.Errorf("read %+v", c.Config)
	}
}

// TestReadAutoModeClassRefusesOtherKinds: an EC2NodeClass, or a NodeClass of another group, is
// refused naming what it is; so is a field of the wrong type.
func TestReadAutoModeClassRefusesOtherKinds(t *testing.T) {
	for doc, want := range map[string]string{
		liveClass: "is karpenter.k8s.aws/v1 EC2NodeClass, not a eks.amazonaws.com/v1 NodeClass",
		strings.Replace(guideNodeClass, "eks.amazonaws.com/v1", "karpenter.example.com/v1", 1): "is karpenter.example.com/v1 NodeClass",
		strings.Replace(guideNodeClass, "iops: 3000", "iops: fast", 1):                         "cannot read spec",
	} {
		if _, err := adopt.ReadAutoModeClass(object(t, doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadAutoModeClass = %v, want %q", err, want)
		}
	}
}

// TestAutoModeRoundTrip: for the guide's example and a range of generated configurations,
// Manifest → adopt → Manifest is the same document, the configuration read is the one rendered
// and nothing is unexpressed.
func TestAutoModeRoundTrip(t *testing.T) {
	guide, err := adopt.ReadAutoModeClass(object(t, guideNodeClass))
	if err != nil {
		t.Fatal(err)
	}
	configs := []automode.Config{guide.Config, {Name: "minimal", Role: "r", SubnetSelectorTerms: []discovery.SubnetTerm{{ID: "subnet-1"}},
		SecurityGroupSelectorTerms: []discovery.SecurityGroupTerm{{ID: "sg-1"}}}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		configs = append(configs, randomAutoModeConfig(rng, i))
	}
	for i, cfg := range configs {
		doc, err := cfg.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		got, err := adopt.ReadAutoModeClass(object(t, doc))
		if err != nil {
			t.Fatalf("config %d: %v\n%s", i, err, doc)
		}
		again, err := got.Config.Manifest()
		if err != nil || again != doc || len(got.Unexpressed)+len(got.LeftToCluster)+len(got.Ignored) > 0 {
			t.Fatalf("config %d: %v, unexpressed %v; rendered\n%s\nadopted and rendered again\n%s", i, err, got.Unexpressed, doc, again)
		}
		if !reflect.DeepEqual(normalized(got.Config), normalized(cfg)) {
			t.Errorf("config %d: read %+v, want %+v", i, got.Config, cfg)
		}
	}
}

// normalized is c with its empty lists and maps nil: the manifest renders both alike.
func normalized(c automode.Config) automode.Config {
	if len(c.Tags) == 0 {
		c.Tags = nil
	}
	if len(c.PodSubnetSelectorTerms) == 0 {
		c.PodSubnetSelectorTerms = nil
	}
	return c
}

// randomAutoModeConfig sets each optional field of the class with probability one half.
func randomAutoModeConfig(rng *rand.Rand, i int) automode.Config {
	coin := func() bool { return rng.IntN(2) == 0 }
	tags := func() map[string]string {
		m := map[string]string{}
		for j := range 1 + rng.IntN(3) {
			m[fmt.Sprintf("k%d/x.%d", j, rng.IntN(9))] = fmt.Sprint("v", rng.IntN(99))
		}
		return m
	}
	ptr := func(v int64) *int64 { return &v }
	flag := func() *bool { b := coin(); return &b }
	c := automode.Config{Name: fmt.Sprint("class-", i),
		SubnetSelectorTerms:        []discovery.SubnetTerm{{Tags: tags()}, {ID: fmt.Sprint("subnet-", i)}}[rng.IntN(2):],
		SecurityGroupSelectorTerms: []discovery.SecurityGroupTerm{{Tags: tags()}, {ID: "sg-1"}, {Name: "nodes"}}[rng.IntN(3):]}
	if coin() {
		c.Role = "MyNodeRole"
	} else {
		c.InstanceProfile = "eks-profile"
	}
	if coin() {
		c.PodSubnetSelectorTerms = []discovery.SubnetTerm{{Tags: tags()}}
		c.PodSecurityGroupSelectorTerms = []automode.PodSecurityGroupTerm{{ID: "sg-pod"}, {Tags: tags()}}[rng.IntN(2):]
	}
	if coin() {
		c.CapacityReservationSelectorTerms = []automode.ReservationTerm{{ID: "cr-1"}, {Tags: tags(), Owner: "012345678901"}, {Tags: tags()}}[rng.IntN(3):]
	}
	if coin() {
		c.SNATPolicy, c.NetworkPolicy, c.NetworkPolicyEventLogs = "Disabled", "DefaultDeny", "Enabled"
	}
	if coin() {
		c.EphemeralStorage = &automode.EphemeralStorage{Size: fmt.Sprint(1+rng.IntN(500), "Gi")}
		if coin() {
			c.EphemeralStorage.IOPS, c.EphemeralStorage.Throughput, c.EphemeralStorage.KMSKeyID = ptr(3000+rng.Int64N(13000)), ptr(125), "alias/nodes"
		}
	}
	if coin() {
		c.Tags = tags()
	}
	if coin() {
		c.AdvancedNetworking = &automode.AdvancedNetworking{}
		if coin() {
			c.AdvancedNetworking = &automode.AdvancedNetworking{AssociatePublicIPAddress: flag(), HTTPSProxy: "http://192.0.2.4:3128",
				NoProxy: []string{"localhost", ".internal"}, IPv4PrefixSize: []string{"Auto", "32"}[rng.IntN(2)], EnableV4Egress: flag()}
		}
	}
	if coin() {
		c.AdvancedSecurity = &automode.AdvancedSecurity{FIPS: flag(), KernelLockdown: []string{"", "integrity", "none"}[rng.IntN(3)]}
	}
	if coin() {
		c.CertificateBundles = []automode.CertificateBundle{{Name: "corp", Data: "LS0tLS1CRUdJTg=="}}
	}
	return c
}
