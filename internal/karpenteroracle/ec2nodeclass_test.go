package karpenteroracle

import (
	"encoding/base64"
	"fmt"
	"testing"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// karpenterMinor is the Karpenter minor this module's karpenter-provider-aws (v1.15.2) and
// sigs.k8s.io/karpenter (v1.15.0) belong to, as the provider spells it.
const karpenterMinor = "1.15"

// ec2NodeClassCases is the number of random EC2NodeClasses compared; minEC2NodeClassCases is
// the floor below which the test fails (a differential test that compares nothing passes
// vacuously).
const (
	ec2NodeClassCases    = 3000
	minEC2NodeClassCases = 2500
)

// TestEC2NodeClassHashMatchesKarpenter renders random EC2NodeClasses with the provider's
// renderer and compares the hash and hash version the provider computes for the document
// (karpenterhash.EC2NodeClassHashFor, its CRD defaults included) with those Karpenter's own
// code computes on the object the API server would store: the document pruned and defaulted
// with Karpenter's CRD (metadataOptions and its four sub-fields are the defaults that apply to
// the fields drawn here), decoded into Karpenter's EC2NodeClass, hashed by its Hash method.
func TestEC2NodeClassHashMatchesKarpenter(t *testing.T) {
	g := newGen(20261203)
	compared, disagree, distinct := 0, 0, map[string]bool{}
	for i := range ec2NodeClassCases {
		nc := manifest.EC2NodeClass{Name: fmt.Sprintf("oracle-%d", i), Spec: g.ec2NodeClassSpec()}
		caBundle := g.caBundle()
		doc, err := manifest.RenderEC2NodeClass(nc)
		if err != nil {
			t.Fatalf("case %d: render: %v", i, err)
		}

		var k awsv1.EC2NodeClass
		decodeInto(t, stored(t, manifest.EC2NodeClassKind, doc), &k)
		want := k.Hash(&caBundle)

		got, version, err := karpenterhash.EC2NodeClassHashFor(karpenterMinor, doc, caBundle)
		if err != nil {
			t.Fatalf("case %d: provider: %v\n%s", i, err, doc)
		}
		if version != awsv1.EC2NodeClassHashVersion {
			t.Fatalf("hash version: provider %q, Karpenter %q", version, awsv1.EC2NodeClassHashVersion)
		}
		if got != want {
			disagree++
			if disagree <= 5 {
				t.Errorf("case %d: EC2NodeClass hash: provider %s, Karpenter %s (caBundle %q)\n%s", i, got, want, caBundle, doc)
			}
		}
		compared++
		distinct[want] = true
	}
	t.Logf("compared %d EC2NodeClasses (Karpenter %s, hash %s): %d distinct hashes, %d disagreements",
		compared, karpenterMinor, awsv1.EC2NodeClassHashVersion, len(distinct), disagree)
	if compared < minEC2NodeClassCases {
		t.Fatalf("compared %d EC2NodeClasses, want at least %d", compared, minEC2NodeClassCases)
	}
	// A generator that produced the same spec again and again would compare little.
	if len(distinct) < compared*9/10 {
		t.Fatalf("only %d distinct Karpenter hashes in %d cases: the generator is too narrow", len(distinct), compared)
	}
}

// caBundle is the cluster CA bundle Karpenter runs with: none, or base64 PEM-ish bytes.
func (g gen) caBundle() string {
	if g.maybe(0.3) {
		return ""
	}
	b := make([]byte, 16+g.r.Intn(64))
	g.r.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

var amiFamilies = []string{
	karpenterhash.AMIFamilyAL2, karpenterhash.AMIFamilyAL2023, karpenterhash.AMIFamilyBottlerocket,
	karpenterhash.AMIFamilyWindows2019, karpenterhash.AMIFamilyWindows2022, karpenterhash.AMIFamilyWindows2025,
}

// ec2NodeClassSpec draws a spec with every field Karpenter 1.15 declares, each present or not.
func (g gen) ec2NodeClassSpec() manifest.EC2NodeClassSpec {
	var s manifest.EC2NodeClassSpec
	for range 1 + g.r.Intn(3) {
		switch {
		case g.maybe(0.5):
			s.SubnetSelectorTerms = append(s.SubnetSelectorTerms, manifest.SubnetSelectorTerm{Tags: g.strMap(3)})
		default:
			s.SubnetSelectorTerms = append(s.SubnetSelectorTerms, manifest.SubnetSelectorTerm{ID: "subnet-" + g.str()})
		}
	}
	for range 1 + g.r.Intn(3) {
		switch g.r.Intn(3) {
		case 0:
			s.SecurityGroupSelectorTerms = append(s.SecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{Tags: g.strMap(3)})
		case 1:
			s.SecurityGroupSelectorTerms = append(s.SecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{ID: "sg-" + g.str()})
		default:
			s.SecurityGroupSelectorTerms = append(s.SecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{Name: g.str()})
		}
	}
	if g.maybe(0.2) {
		for range 1 + g.r.Intn(2) {
			s.CapacityReservationSelectorTerms = append(s.CapacityReservationSelectorTerms, manifest.CapacityReservationSelectorTerm{
				Tags: g.strMap(2), ID: g.pick("", "cr-0123456789abcdef0"), OwnerID: g.pick("", "123456789012"),
				InstanceMatchCriteria: g.pick("", "open", "targeted"),
			})
		}
	}
	// AMI selection: an alias (the family comes from it, amiFamily sometimes repeats it), or
	// other terms with amiFamily, or other terms without it (Custom).
	switch g.r.Intn(3) {
	case 0:
		fam := amiFamilies[g.r.Intn(len(amiFamilies))]
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: lower(fam) + "@" + g.pick("latest", "v20240807", "v1.20.0", "2022.0.1")}}
		if g.maybe(0.2) {
			s.AMIFamily = fam
		}
	default:
		for range 1 + g.r.Intn(3) {
			switch g.r.Intn(4) {
			case 0:
				s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{ID: "ami-" + g.str()})
			case 1:
				s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{Name: g.str(), Owner: g.pick("", "self", "amazon", "123456789012")})
			case 2:
				s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{Tags: g.strMap(2)})
			default:
				s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{SSMParameter: "/aws/service/" + g.str()})
			}
		}
		if g.maybe(0.6) {
			s.AMIFamily = g.pick(append(amiFamilies, karpenterhash.AMIFamilyCustom, karpenterhash.AMIFamilyUbuntu)...)
		}
	}
	if g.maybe(0.8) {
		s.Role = g.pick("KarpenterNodeRole-my-cluster", "arn:aws:iam::123456789012:role/"+g.str(), g.str())
	} else {
		s.InstanceProfile = g.pick("KarpenterNodeInstanceProfile", g.str())
	}
	s.AssociatePublicIPAddress = g.boolPtr(0.3)
	s.IPPrefixCount = g.int32Ptr(0.1, 0, 15)
	if g.maybe(0.4) {
		s.UserData = g.userData()
	}
	s.Tags = g.strMap(5)
	if g.maybe(0.6) {
		s.Kubelet = g.kubelet()
	}
	for range g.r.Intn(4) {
		s.BlockDeviceMappings = append(s.BlockDeviceMappings, g.blockDeviceMapping())
	}
	if g.maybe(0.2) {
		s.InstanceStorePolicy = "RAID0"
	}
	for range g.r.Intn(3) {
		s.NetworkInterfaces = append(s.NetworkInterfaces, manifest.NetworkInterface{
			NetworkCardIndex: g.r.Int31n(4), DeviceIndex: g.r.Int31n(4), InterfaceType: g.pick("interface", "efa-only"),
		})
	}
	s.DetailedMonitoring = g.boolPtr(0.3)
	if g.maybe(0.5) {
		s.MetadataOptions = manifest.MetadataOptions{
			HTTPEndpoint:            g.pick("", "enabled", "disabled"),
			HTTPProtocolIPv6:        g.pick("", "enabled", "disabled"),
			HTTPPutResponseHopLimit: g.int64Ptr(0.5, 1, 64),
			HTTPTokens:              g.pick("", "required", "optional"),
		}
	}
	if g.maybe(0.2) {
		s.Context = g.pick("cr-"+g.str(), g.str())
	}
	if g.maybe(0.2) {
		s.CPUOptions.NestedVirtualization = g.pick("enabled", "disabled")
	}
	if g.maybe(0.2) {
		s.ConnectionTracking = manifest.ConnectionTracking{
			TCPEstablishedTimeout: g.int32Ptr(0.6, 60, 432000),
			UDPStreamTimeout:      g.int32Ptr(0.6, 60, 180),
			UDPTimeout:            g.int32Ptr(0.6, 30, 60),
		}
	}
	if g.maybe(0.15) {
		if g.maybe(0.5) {
			s.PlacementGroupSelector.ID = "pg-" + g.str()
		} else {
			s.PlacementGroupSelector.Name = g.str()
		}
	}
	if g.maybe(0.2) {
		s.EnclaveOptions = &manifest.EnclaveOptions{Enabled: g.maybe(0.5)}
	}
	return s
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (g gen) blockDeviceMapping() manifest.BlockDeviceMapping {
	m := manifest.BlockDeviceMapping{
		DeviceName: g.pick("", "/dev/xvda", "/dev/xvdb", "/dev/sda1"),
		RootVolume: g.boolPtr(0.4),
	}
	if g.maybe(0.9) {
		m.EBS = manifest.BlockDevice{
			DeleteOnTermination:      g.boolPtr(0.5),
			Encrypted:                g.boolPtr(0.5),
			IOPS:                     g.int64Ptr(0.3, 3000, 64000),
			Throughput:               g.int64Ptr(0.3, 125, 1000),
			VolumeInitializationRate: g.int32Ptr(0.2, 100, 300),
			VolumeType:               g.pick("", "gp3", "gp2", "io1", "io2", "st1"),
		}
		if g.maybe(0.8) {
			m.EBS.VolumeSize = g.quantity()
		}
		if g.maybe(0.2) {
			m.EBS.KMSKeyID = "arn:aws:kms:us-west-2:111122223333:key/" + g.str()
		}
		if g.maybe(0.2) {
			m.EBS.SnapshotID = "snap-" + g.str()
		}
	}
	return m
}

// kubelet draws spec.kubelet: some of the typed fields and, Karpenter 1.15's KubeletConfiguration
// being free-form, other kubelet configuration fields of every JSON kind (nested objects,
// lists, floats, a CEL maxPods expression).
func (g gen) kubelet() manifest.KubeletConfiguration {
	var k manifest.KubeletConfiguration
	if g.maybe(0.3) {
		for range 1 + g.r.Intn(2) {
			k.ClusterDNS = append(k.ClusterDNS, fmt.Sprintf("10.%d.0.10", g.r.Intn(256)))
		}
	}
	k.MaxPods = g.int32Ptr(0.3, 1, 737)
	k.PodsPerCore = g.int32Ptr(0.2, 1, 110)
	resources := func() map[string]string {
		if !g.maybe(0.3) {
			return nil
		}
		m := map[string]string{}
		for range 1 + g.r.Intn(3) {
			m[g.pick("cpu", "memory", "ephemeral-storage", "pid")] = g.pick("100m", "1", g.quantity(), "1000")
		}
		return m
	}
	k.SystemReserved = resources()
	k.KubeReserved = resources()
	signals := func(f func() string) map[string]string {
		if !g.maybe(0.3) {
			return nil
		}
		m := map[string]string{}
		for range 1 + g.r.Intn(3) {
			m[g.pick("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "pid.available")] = f()
		}
		return m
	}
	k.EvictionHard = signals(func() string { return g.pick("5%", "10%", "100Mi", g.quantity()) })
	k.EvictionSoft = signals(func() string { return g.pick("15%", "500Mi") })
	k.EvictionSoftGracePeriod = signals(g.duration)
	k.EvictionMaxPodGracePeriod = g.int32Ptr(0.2, 0, 600)
	k.ImageGCHighThresholdPercent = g.int32Ptr(0.2, 50, 100)
	k.ImageGCLowThresholdPercent = g.int32Ptr(0.2, 0, 49)
	k.CPUCFSQuota = g.boolPtr(0.2)
	if g.maybe(0.5) {
		k.Extra = map[string]any{}
		for range 1 + g.r.Intn(4) {
			switch g.r.Intn(9) {
			case 0:
				k.Extra["registryPullQPS"] = g.r.Intn(50)
			case 1:
				k.Extra["serializeImagePulls"] = g.maybe(0.5)
			case 2:
				k.Extra["containerLogMaxSize"] = g.pick("10Mi", "50Mi", "1Gi")
			case 3:
				k.Extra["featureGates"] = map[string]any{g.pick("InPlacePodVerticalScaling", "KubeletTracing", "b", "A"): g.maybe(0.5), "Z": true}
			case 4:
				k.Extra["allowedUnsafeSysctls"] = []any{"net.core.somaxconn", g.str()}
			case 5:
				k.Extra["kubeAPIQPS"] = []float64{5.5, 0.25, 100, 1e-3}[g.r.Intn(4)]
			case 6:
				k.Extra["shutdownGracePeriod"] = g.duration()
			case 7:
				k.Extra["topologyManagerPolicy"] = g.pick("none", "best-effort", "restricted", "single-numa-node")
			default:
				if k.MaxPods == nil {
					k.Extra["maxPods"] = g.pick("self.podsPerCore * 2", "min(110, self.cpu * 10)")
				} else {
					k.Extra["cpuManagerPolicy"] = g.pick("static", "none")
				}
			}
		}
	}
	return k
}
