package capacity

// Input is the VPC CNI and kubelet input block that karpenter_pod_capacity and
// karpenter_instance_types share, as their schema shapes it: the provider decodes the
// configuration into it by the tfsdk tags (null and not yet known values read as unset) and
// marks network_interfaces when any of it is not known yet.
type Input struct {
	AMIFamily             string      `tfsdk:"ami_family"`
	PrefixDelegation      bool        `tfsdk:"prefix_delegation"`
	CustomNetworking      bool        `tfsdk:"custom_networking"`
	SecurityGroupsForPods bool        `tfsdk:"security_groups_for_pods"`
	ReservedENIs          int         `tfsdk:"reserved_enis"`
	NetworkInterfaces     []Interface `tfsdk:"network_interfaces"`
	KubeletMaxPods        *int        `tfsdk:"kubelet_max_pods"`
	KubeletPodsPerCore    *int        `tfsdk:"kubelet_pods_per_core"`
	BranchInterfaces      *int        `tfsdk:"branch_interfaces"`
	WarmTargets
	// AutoMode is karpenter_pod_capacity's `auto_mode` (null: a self-managed node class on the
	// VPC CNI); karpenter_instance_types has no such attribute and leaves it nil.
	AutoMode *AutoMode `tfsdk:"auto_mode"`
	// NetworkInterfacesUnknown: some of network_interfaces is known only after apply, so the
	// list counts as unset until it is known (and is validated then).
	NetworkInterfacesUnknown bool
}

// Settings are the input's capacity settings. A nil NetworkInterfaces (the attribute is null)
// stays nil: the instance type's EFA maximum applies and all default-card ENIs serve pods. An
// empty, non-nil list stays empty: an explicit "no interfaces". A list not known yet is nil.
func (in Input) Settings() Settings {
	if in.NetworkInterfacesUnknown {
		in.NetworkInterfaces = nil
	}
	return Settings{
		AMIFamily:             in.AMIFamily,
		PrefixDelegation:      in.PrefixDelegation,
		CustomNetworking:      in.CustomNetworking,
		SecurityGroupsForPods: in.SecurityGroupsForPods,
		ReservedENIs:          in.ReservedENIs,
		NetworkInterfaces:     in.NetworkInterfaces,
		MaxPods:               in.KubeletMaxPods,
		PodsPerCore:           in.KubeletPodsPerCore,
		BranchInterfaces:      in.BranchInterfaces,
		Warm:                  in.WarmTargets,
		AutoMode:              in.AutoMode,
	}
}
