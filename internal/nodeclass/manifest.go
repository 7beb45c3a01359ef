package nodeclass

import "github.com/nodeplane/terraform-provider-karpenter/internal/manifest"

// Manifest renders the class as Karpenter's EC2NodeClass. The selector terms are the effective ones
// (defaults included, since the CRD requires them); provider-only settings (networking, efa)
// have no place in it.
func Manifest(s Spec) (string, error) {
	spec := manifest.EC2NodeClassSpec{
		AMIFamily: s.AMIFamily, Role: s.Role, InstanceProfile: s.InstanceProfile,
		AssociatePublicIPAddress: s.AssociatePublicIPAddress, IPPrefixCount: manifest.Int32(s.IPPrefixCount),
		Tags: s.Tags, InstanceStorePolicy: s.InstanceStorePolicy, DetailedMonitoring: s.DetailedMonitoring,
		Kubelet: manifest.KubeletConfiguration{
			ClusterDNS: s.Kubelet.ClusterDNS, MaxPods: manifest.Int32(s.Kubelet.MaxPods), PodsPerCore: manifest.Int32(s.Kubelet.PodsPerCore),
			SystemReserved: s.Kubelet.SystemReserved, KubeReserved: s.Kubelet.KubeReserved, EvictionHard: s.Kubelet.EvictionHard,
			EvictionSoft: s.Kubelet.EvictionSoft, EvictionSoftGracePeriod: s.Kubelet.EvictionSoftGracePeriod,
			EvictionMaxPodGracePeriod:   manifest.Int32(s.Kubelet.EvictionMaxPodGracePeriod),
			ImageGCHighThresholdPercent: manifest.Int32(s.Kubelet.ImageGCHighThresholdPercent),
			ImageGCLowThresholdPercent:  manifest.Int32(s.Kubelet.ImageGCLowThresholdPercent), CPUCFSQuota: s.Kubelet.CPUCFSQuota,
			Extra: kubeletExtra(s.Kubelet),
		},
	}
	hop := int64(s.MetadataOptions.HTTPPutResponseHopLimit)
	spec.MetadataOptions = manifest.MetadataOptions{HTTPEndpoint: s.MetadataOptions.HTTPEndpoint, HTTPProtocolIPv6: s.MetadataOptions.HTTPProtocolIPv6,
		HTTPPutResponseHopLimit: &hop, HTTPTokens: s.MetadataOptions.HTTPTokens}
	if s.UserData != nil {
		spec.UserData = *s.UserData
	}
	for _, t := range s.SubnetTerms {
		spec.SubnetSelectorTerms = append(spec.SubnetSelectorTerms, manifest.SubnetSelectorTerm{Tags: t.Tags, ID: t.ID})
	}
	for _, t := range s.SecurityGroupTerms {
		spec.SecurityGroupSelectorTerms = append(spec.SecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{Tags: t.Tags, ID: t.ID, Name: t.Name})
	}
	for _, t := range s.AMISelectorTerms {
		spec.AMISelectorTerms = append(spec.AMISelectorTerms, manifest.AMISelectorTerm{Alias: t.Alias, ID: t.ID, Name: t.Name, Owner: t.Owner,
			Tags: t.Tags, SSMParameter: t.SSMParameter})
	}
	for _, ni := range s.NetworkInterfaces {
		spec.NetworkInterfaces = append(spec.NetworkInterfaces, manifest.NetworkInterface{NetworkCardIndex: int32(ni.NetworkCardIndex),
			DeviceIndex: int32(ni.DeviceIndex), InterfaceType: ni.InterfaceType})
	}
	for _, b := range s.BlockDeviceMappings {
		bd := manifest.BlockDeviceMapping{DeviceName: b.DeviceName}
		if b.RootVolume {
			root := true
			bd.RootVolume = &root
		}
		if e := b.EBS; e != nil {
			bd.EBS = manifest.BlockDevice{DeleteOnTermination: e.DeleteOnTermination, Encrypted: e.Encrypted, IOPS: manifest.Int64(e.IOPS),
				KMSKeyID: e.KMSKeyID, SnapshotID: e.SnapshotID, Throughput: manifest.Int64(e.Throughput), VolumeSize: e.VolumeSize, VolumeType: e.VolumeType,
				VolumeInitializationRate: manifest.Int32(e.VolumeInitializationRate)}
		}
		spec.BlockDeviceMappings = append(spec.BlockDeviceMappings, bd)
	}
	renderLaunchOptions(s, &spec)
	return manifest.RenderEC2NodeClass(manifest.EC2NodeClass{Name: s.Name, Labels: s.Object.Labels, Annotations: s.Object.Annotations, Spec: spec})
}

// renderLaunchOptions renders the capacity reservation terms, the placement group selector,
// context, cpuOptions and connectionTracking; unset ones are left out.
func renderLaunchOptions(s Spec, spec *manifest.EC2NodeClassSpec) {
	for _, t := range s.CapacityReservationTerms {
		spec.CapacityReservationSelectorTerms = append(spec.CapacityReservationSelectorTerms, manifest.CapacityReservationSelectorTerm{
			Tags: t.Tags, ID: t.ID, OwnerID: t.OwnerID, InstanceMatchCriteria: t.InstanceMatchCriteria})
	}
	if pg := s.PlacementGroupSelector; pg != nil {
		spec.PlacementGroupSelector = manifest.PlacementGroupSelector{ID: pg.ID, Name: pg.Name}
	}
	spec.Context = s.Context
	if c := s.CPUOptions; c != nil {
		spec.CPUOptions = manifest.CPUOptions{NestedVirtualization: c.NestedVirtualization}
	}
	if e := s.EnclaveOptions; e != nil {
		spec.EnclaveOptions = &manifest.EnclaveOptions{Enabled: *e}
	}
	if ct := s.ConnectionTracking; ct != nil {
		spec.ConnectionTracking = manifest.ConnectionTracking{TCPEstablishedTimeout: manifest.Int32(ct.TCPEstablishedTimeout),
			UDPStreamTimeout: manifest.Int32(ct.UDPStreamTimeout), UDPTimeout: manifest.Int32(ct.UDPTimeout)}
	}
}

// kubeletExtra is v1.15's free-form kubelet fields with the maxPods expression.
func kubeletExtra(k Kubelet) map[string]any {
	if k.MaxPodsExpression == "" {
		return k.Config
	}
	out := map[string]any{"maxPods": k.MaxPodsExpression}
	for key, v := range k.Config {
		out[key] = v
	}
	return out
}
