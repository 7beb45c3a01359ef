package adopt

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// Class is a live EC2NodeClass read as a karpenter_node_class.
type Class struct {
	Config nodeclass.Config
	Adopted
}

// typedKubelet are the spec.kubelet fields with an attribute of their own; the others are
// v1.15's free-form KubeletConfiguration fields (kubelet.config).
var typedKubelet = map[string]bool{"clusterDNS": true, "maxPods": true, "podsPerCore": true, "systemReserved": true,
	"kubeReserved": true, "evictionHard": true, "evictionSoft": true, "evictionSoftGracePeriod": true,
	"evictionMaxPodGracePeriod": true, "imageGCHighThresholdPercent": true, "imageGCLowThresholdPercent": true, "cpuCFSQuota": true}

// ReadClass reads a live karpenter.k8s.aws/v1 EC2NodeClass.
func ReadClass(obj Object) (Class, error) {
	if err := checkKind(obj, manifest.EC2NodeClassAPIVersion, manifest.EC2NodeClassKind); err != nil {
		return Class{}, err
	}
	live := specOf(obj)
	typed := map[string]any{}
	for k, v := range live {
		if k != "kubelet" {
			typed[k] = v
		}
	}
	var spec manifest.EC2NodeClassSpec
	if err := decodeInto(typed, &spec, "spec"); err != nil {
		return Class{}, err
	}
	c := Class{Config: classConfig(nameOf(obj), spec)}
	kubelet, err := kubeletOf(live["kubelet"])
	if err != nil {
		return Class{}, err
	}
	c.Config.Kubelet = kubelet
	c.Config.Metadata = metadataOf(obj, &c.Adopted)
	s, findings := c.Config.Spec()
	if len(findings) > 0 {
		return Class{}, findings[0]
	}
	doc, err := nodeclass.Manifest(s)
	if err == nil {
		c.Unexpressed, err = unexpressed(live, doc)
	}
	return c, err
}

// classConfig is the inverse of nodeclass.Manifest for what the typed spec holds.
func classConfig(name string, s manifest.EC2NodeClassSpec) nodeclass.Config {
	c := nodeclass.Config{Name: name, AMIFamily: s.AMIFamily, Role: s.Role, InstanceProfile: s.InstanceProfile,
		AssociatePublicIPAddress: s.AssociatePublicIPAddress, IPPrefixCount: intPtr(s.IPPrefixCount), Tags: s.Tags,
		InstanceStorePolicy: s.InstanceStorePolicy, DetailedMonitoring: s.DetailedMonitoring, UserData: strPtr(s.UserData),
		Context: s.Context}
	for _, t := range s.SubnetSelectorTerms {
		c.SubnetSelectorTerms = append(c.SubnetSelectorTerms, discovery.SubnetTerm{Tags: t.Tags, ID: t.ID})
	}
	for _, t := range s.SecurityGroupSelectorTerms {
		c.SecurityGroupSelectorTerms = append(c.SecurityGroupSelectorTerms, discovery.SecurityGroupTerm{Tags: t.Tags, ID: t.ID, Name: t.Name})
	}
	for _, t := range s.AMISelectorTerms {
		c.AMISelectorTerms = append(c.AMISelectorTerms, nodeclass.AMITerm{Alias: t.Alias, ID: t.ID, Name: t.Name, Owner: t.Owner,
			SSMParameter: t.SSMParameter, Tags: t.Tags})
	}
	for _, t := range s.CapacityReservationSelectorTerms {
		c.CapacityReservationSelectorTerms = append(c.CapacityReservationSelectorTerms, discovery.CapacityReservationTerm{
			ID: t.ID, OwnerID: t.OwnerID, Tags: t.Tags, InstanceMatchCriteria: t.InstanceMatchCriteria})
	}
	for _, ni := range s.NetworkInterfaces {
		c.NetworkInterfaces = append(c.NetworkInterfaces, capacity.Interface{NetworkCardIndex: int(ni.NetworkCardIndex),
			DeviceIndex: int(ni.DeviceIndex), InterfaceType: ni.InterfaceType})
	}
	for _, b := range s.BlockDeviceMappings {
		c.BlockDeviceMappings = append(c.BlockDeviceMappings, blockDevice(b))
	}
	if m := s.MetadataOptions; m != (manifest.MetadataOptions{}) {
		c.MetadataOptions = &nodeclass.MetadataOptionsConfig{HTTPEndpoint: strPtr(m.HTTPEndpoint), HTTPProtocolIPv6: strPtr(m.HTTPProtocolIPv6),
			HTTPPutResponseHopLimit: intPtr(m.HTTPPutResponseHopLimit), HTTPTokens: strPtr(m.HTTPTokens)}
	}
	if pg := s.PlacementGroupSelector; pg != (manifest.PlacementGroupSelector{}) {
		c.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: pg.ID, Name: pg.Name}
	}
	if s.CPUOptions != (manifest.CPUOptions{}) {
		c.CPUOptions = &nodeclass.CPUOptions{NestedVirtualization: s.CPUOptions.NestedVirtualization}
	}
	if ct := s.ConnectionTracking; ct != (manifest.ConnectionTracking{}) {
		c.ConnectionTracking = &nodeclass.ConnectionTracking{TCPEstablishedTimeout: intPtr(ct.TCPEstablishedTimeout),
			UDPStreamTimeout: intPtr(ct.UDPStreamTimeout), UDPTimeout: intPtr(ct.UDPTimeout)}
	}
	if e := s.EnclaveOptions; e != nil {
		enabled := e.Enabled
		c.EnclaveOptions = &nodeclass.EnclaveOptionsConfig{Enabled: &enabled}
	}
	return c
}

// blockDevice is one blockDeviceMappings entry as the configuration holds it.
func blockDevice(b manifest.BlockDeviceMapping) nodeclass.BlockDeviceMapping {
	out := nodeclass.BlockDeviceMapping{DeviceName: b.DeviceName, RootVolume: b.RootVolume != nil && *b.RootVolume}
	if e := b.EBS; e != (manifest.BlockDevice{}) {
		out.EBS = &nodeclass.EBS{DeleteOnTermination: e.DeleteOnTermination, Encrypted: e.Encrypted, IOPS: intPtr(e.IOPS),
			KMSKeyID: e.KMSKeyID, SnapshotID: e.SnapshotID, Throughput: intPtr(e.Throughput), VolumeSize: e.VolumeSize,
			VolumeType: e.VolumeType, VolumeInitializationRate: intPtr(e.VolumeInitializationRate)}
	}
	return out
}

// kubeletOf is spec.kubelet as the `kubelet` attribute: the typed fields, a CEL maxPods (a
// string) as max_pods_expression, the other fields in `config`. Nil without spec.kubelet.
func kubeletOf(v any) (*nodeclass.KubeletConfig, error) {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil, nil
	}
	typed, extra := map[string]any{}, map[string]any{}
	out := &nodeclass.KubeletConfig{}
	for k, e := range m {
		switch expr, isString := e.(string); {
		case k == "maxPods" && isString:
			out.MaxPodsExpression = expr
		case typedKubelet[k]:
			typed[k] = e
		default:
			extra[k] = e
		}
	}
	var k manifest.KubeletConfiguration
	if err := decodeInto(typed, &k, "spec.kubelet"); err != nil {
		return nil, err
	}
	out.MaxPods, out.PodsPerCore, out.ClusterDNS = intPtr(k.MaxPods), intPtr(k.PodsPerCore), k.ClusterDNS
	out.SystemReserved, out.KubeReserved, out.EvictionHard = k.SystemReserved, k.KubeReserved, k.EvictionHard
	out.EvictionSoft, out.EvictionSoftGracePeriod = k.EvictionSoft, k.EvictionSoftGracePeriod
	out.EvictionMaxPodGracePeriod = intPtr(k.EvictionMaxPodGracePeriod)
	out.ImageGCHighThresholdPercent, out.ImageGCLowThresholdPercent = intPtr(k.ImageGCHighThresholdPercent), intPtr(k.ImageGCLowThresholdPercent)
	out.CPUCFSQuota = k.CPUCFSQuota
	if len(extra) > 0 {
		out.Config = extra
	}
	return out, nil
}
