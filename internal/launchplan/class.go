package launchplan

import (
	"math"
	"regexp"
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// ClassOf is the node class → node pool contract: everything the planner needs from a node
// class, computed from the class as the user wrote it and what its selectors resolved to at
// plan (subnets, security groups, pod subnets, AMIs), with the instance profile its templates
// name (the configured one, or the one the class creates for its role). The node class resource
// publishes the result (its `resolved` attribute is a field-for-field mirror of it) and a node
// pool plans with it.
func ClassOf(s nodeclass.Spec, r nodeclass.Resolved, instanceProfile string) Class {
	c := Class{
		Name:                     s.Name,
		AMIFamily:                s.EffectiveAMIFamily(),
		AMIs:                     planAMIs(r.AMIs.AMIs),
		AMIUnresolved:            r.AMIs.Unresolved,
		SecurityGroupIDs:         r.SecurityGroupIDs(),
		AssociatePublicIPAddress: s.AssociatePublicIPAddress,
		IPPrefixCount:            s.IPPrefixCount,
		NetworkInterfaces:        s.NetworkInterfaces,
		EFA:                      s.EFA,
		Kubelet: Kubelet{ClusterDNS: s.Kubelet.ClusterDNS, SystemReserved: s.Kubelet.SystemReserved,
			KubeReserved: s.Kubelet.KubeReserved, EvictionHard: s.Kubelet.EvictionHard},
		MetadataOptions: MetadataOptions{HTTPEndpoint: s.MetadataOptions.HTTPEndpoint, HTTPProtocolIPv6: s.MetadataOptions.HTTPProtocolIPv6,
			HTTPTokens: s.MetadataOptions.HTTPTokens, HTTPPutResponseHopLimit: s.MetadataOptions.HTTPPutResponseHopLimit},
		DetailedMonitoring:   s.DetailedMonitoring != nil && *s.DetailedMonitoring,
		NestedVirtualization: s.CPUOptions != nil && s.CPUOptions.NestedVirtualization == "enabled",
		NitroEnclaves:        s.EnclaveOptions != nil && *s.EnclaveOptions,
		ConnectionTracking:   s.ConnectionTracking != nil && *s.ConnectionTracking != (nodeclass.ConnectionTracking{}),
		Tags:                 s.Tags,
		InstanceProfile:      instanceProfile,
	}
	if s.UserData != nil {
		c.UserData = *s.UserData
	}
	for _, sn := range r.Subnets {
		c.Subnets = append(c.Subnets, Subnet{ID: sn.ID, Zone: sn.Zone, ZoneID: sn.ZoneID, AvailableIPs: sn.AvailableIPAddressCount})
	}
	for _, p := range r.PodSubnets {
		c.PodSubnets = append(c.PodSubnets, PodSubnet{Zone: p.Zone, ID: p.Subnet.ID, AvailableIPs: p.Subnet.AvailableIPAddressCount})
	}
	for _, b := range s.BlockDeviceMappings {
		bd := BlockDevice{DeviceName: b.DeviceName, RootVolume: b.RootVolume}
		if e := b.EBS; e != nil {
			bd.DeleteOnTermination, bd.Encrypted, bd.IOPS = e.DeleteOnTermination, e.Encrypted, e.IOPS
			bd.KMSKeyID, bd.SnapshotID, bd.Throughput = e.KMSKeyID, e.SnapshotID, e.Throughput
			bd.VolumeSizeGiB, bd.VolumeType = VolumeGiB(e.VolumeSize), e.VolumeType
		}
		c.BlockDevices = append(c.BlockDevices, bd)
	}
	c.CNI = capacity.Settings{
		AMIFamily: c.AMIFamily, PrefixDelegation: s.Networking.PrefixDelegation, CustomNetworking: s.Networking.CustomNetworking,
		SecurityGroupsForPods: s.Networking.SecurityGroupsForPods, ReservedENIs: s.Networking.ReservedENIs, Warm: s.Networking.Warm,
		NetworkInterfaces: c.NetworkInterfaces, MaxPods: s.Kubelet.MaxPods, PodsPerCore: s.Kubelet.PodsPerCore,
		MaxPodsExpression: s.Kubelet.MaxPodsExpression, MaxPodsEval: nodeclass.EvaluatorFor(s.Kubelet.MaxPodsExpression),
	}
	return c
}

// planAMIs keeps what the planner reads of each image: its id, and the architecture and variant
// that decide which instance types it serves. Names, dates and deprecation are the node class's
// to show; a pool's plan does not change with them.
func planAMIs(amis []nodeclass.AMI) []nodeclass.AMI {
	if amis == nil {
		return nil
	}
	out := make([]nodeclass.AMI, len(amis))
	for i, a := range amis {
		out[i] = nodeclass.AMI{ID: a.ID, Architecture: a.Architecture, Variant: a.Variant}
	}
	return out
}

var volumeSizeRE = regexp.MustCompile(`^([0-9]+)(Gi|G|Ti|T)$`)

// VolumeGiB converts the CRD's volume-size quantity to whole GiB, rounding up; 0 when unset.
func VolumeGiB(q string) int {
	m := volumeSizeRE.FindStringSubmatch(q)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	switch m[2] {
	case "G":
		n = n * 1e9 / (1 << 30)
	case "Ti":
		n *= 1024
	case "T":
		n = n * 1e12 / (1 << 30)
	}
	return int(math.Ceil(n))
}
