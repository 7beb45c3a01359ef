package oraclegen

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// CABundle is the cluster CA bundle Karpenter runs with: none, or base64 PEM-ish bytes.
func (g *Gen) CABundle() string {
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

// EC2NodeClassSpec draws a spec with every field Karpenter 1.15 declares, each present or not.
func (g *Gen) EC2NodeClassSpec() manifest.EC2NodeClassSpec {
	var s manifest.EC2NodeClassSpec
	// One draw order for every seed: the helpers run in the order the fields were drawn in.
	g.selectorTerms(&s)
	g.amiSelection(&s)
	g.launchSettings(&s)
	g.instanceOptions(&s)
	return s
}

// selectorTerms draws the subnet, security group and capacity reservation selector terms.
func (g *Gen) selectorTerms(s *manifest.EC2NodeClassSpec) {
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
}

// amiSelection draws the AMI selector terms and amiFamily.
func (g *Gen) amiSelection(s *manifest.EC2NodeClassSpec) {
	// AMI selection: an alias (the family comes from it, amiFamily sometimes repeats it), or
	// other terms with amiFamily, or other terms without it (Custom).
	switch g.r.Intn(3) {
	case 0:
		fam := amiFamilies[g.r.Intn(len(amiFamilies))]
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: strings.ToLower(fam) + "@" + g.pick("latest", "v20240807", "v1.20.0", "2022.0.1")}}
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
			s.AMIFamily = g.pick(slices.Concat(amiFamilies, []string{karpenterhash.AMIFamilyCustom, karpenterhash.AMIFamilyUbuntu})...)
		}
	}
}

// launchSettings draws the role or instance profile, addresses, user data, tags, kubelet,
// block devices and network interfaces.
func (g *Gen) launchSettings(s *manifest.EC2NodeClassSpec) {
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
}

// instanceOptions draws monitoring, metadata options, context, CPU options, connection
// tracking, the placement group and enclave options.
func (g *Gen) instanceOptions(s *manifest.EC2NodeClassSpec) {
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
}

func (g *Gen) blockDeviceMapping() manifest.BlockDeviceMapping {
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
func (g *Gen) kubelet() manifest.KubeletConfiguration {
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
				if k.MaxPods == nil && g.freeFormKubelet {
					k.Extra["maxPods"] = g.pick("self.podsPerCore * 2", "min(110, self.cpu * 10)")
				} else {
					k.Extra["cpuManagerPolicy"] = g.pick("static", "none")
				}
			}
		}
	}
	return k
}
