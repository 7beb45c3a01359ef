package launchplan

import (
	"cmp"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// a1NotOnAL2023Since is the first Karpenter minor whose instance-type compatibility checks
// leave a1 types out of an AL2023 class (AL2023 does not support them): from it on, Karpenter
// never offers them to such a class, so they are neither eligible nor launched.
const a1NotOnAL2023Since = "1.11"

// OfferedForFamily reports whether Karpenter karpenterVersion ("1.15"; "" is
// manifest.DefaultVersion) offers instance type name to a node class of AMI family family (as
// resolved: "AL2023", "AL2", ...). It is Karpenter's AMI-family compatibility check.
func OfferedForFamily(karpenterVersion, family, name string) bool {
	if family == capacity.FamilyAL2023 && strings.HasPrefix(name, "a1.") &&
		manifest.AtLeast(cmp.Or(karpenterVersion, manifest.DefaultVersion), a1NotOnAL2023Since) {
		return false
	}
	return true
}

// The first Karpenter minor whose instance-type compatibility checks apply each node class
// setting (the field itself first appears in that minor's EC2NodeClass): from it on, Karpenter
// offers a class that sets it only the types that support it, and the others are never launched.
const (
	placementGroupSince       = "1.11" // placementGroupSelector: the group's strategy
	nestedVirtualizationSince = "1.13" // cpuOptions.nestedVirtualization "enabled"
	connectionTrackingSince   = "1.13" // connectionTracking: Nitro types only
	nitroEnclavesSince        = "1.15" // enclaveOptions.enabled
)

// settingDrop is the drop reason for the first of class c's settings that Karpenter
// karpenterVersion ("" is manifest.DefaultVersion) does not offer instance type it to, in
// Karpenter's order of checks (nested virtualization, Nitro Enclaves, placement group,
// connection tracking); false when every setting admits it. The AMI family and network
// interfaces are judged elsewhere (OfferedForFamily, capacity.Compute).
func settingDrop(karpenterVersion string, c *Class, it *catalog.InstanceType) (int, bool) {
	if c.AutoMode != nil {
		return 0, false // an EKS Auto Mode NodeClass has none of these settings
	}
	v := cmp.Or(karpenterVersion, manifest.DefaultVersion)
	switch {
	case c.NestedVirtualization && manifest.AtLeast(v, nestedVirtualizationSince) && !it.NestedVirtualization():
		return dropNestedVirtualization, true
	case c.NitroEnclaves && manifest.AtLeast(v, nitroEnclavesSince) && !it.NitroEnclaves():
		return dropNitroEnclaves, true
	case c.PlacementGroupStrategy != "" && manifest.AtLeast(v, placementGroupSince) && !it.SupportsPlacementStrategy(c.PlacementGroupStrategy):
		return dropPlacementGroup, true
	case c.ConnectionTracking && manifest.AtLeast(v, connectionTrackingSince) && it.Hypervisor != catalog.HypervisorNitro:
		return dropConnectionTracking, true
	}
	return 0, false
}

// OfferedToClass reports whether Karpenter karpenterVersion ("" is manifest.DefaultVersion)
// offers instance type it to node class c by its AMI family and the settings its compatibility
// checks read (CPU options, enclave options, placement group strategy, connection tracking). A
// class's network interfaces are judged with the type's capacity (capacity.Compute).
func OfferedToClass(karpenterVersion string, c *Class, it *catalog.InstanceType) bool {
	if c.AutoMode == nil && !OfferedForFamily(karpenterVersion, capacity.ResolveFamily(cmp.Or(c.AMIFamily, c.CNI.AMIFamily)), it.Name) {
		return false
	}
	_, dropped := settingDrop(karpenterVersion, c, it)
	return !dropped
}
