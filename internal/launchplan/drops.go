package launchplan

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Reasons an instance type that matched the requirements is not launched, in report order.
const (
	dropNoEFA = iota
	dropAutoMode
	dropAMIFamily
	dropNestedVirtualization
	dropNitroEnclaves
	dropPlacementGroup
	dropConnectionTracking
	dropNoAMI
	dropInterfaces
	dropNoPodENI
	dropNetworkData
	dropOther
	dropZones
	dropCapacityType
	dropNoPrice
	dropReasons
)

func (b *builder) dropMessage(reason, count int, names string) string {
	n := pluralTypes(count)
	switch reason {
	case dropNoEFA:
		return fmt.Sprintf("%s without EFA support, which node class %q requires (%s)", n, b.in.Class.Name, names)
	case dropAutoMode:
		return fmt.Sprintf("%s that EKS Auto Mode does not launch (%s): it launches the families the EKS user guide lists, in sizes above "+
			"small and with more than 1 vCPU (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html)", n, names)
	case dropAMIFamily:
		return fmt.Sprintf("%s that Karpenter %s does not offer to an %s node class (%s): AL2023 does not support a1 instances; an AL2 or "+
			"Bottlerocket class launches them", n, cmp.Or(b.in.KarpenterVersion, manifest.DefaultVersion), b.family, names)
	case dropNestedVirtualization, dropNitroEnclaves, dropPlacementGroup, dropConnectionTracking:
		return b.settingDropMessage(reason, n, names)
	case dropNoAMI:
		return fmt.Sprintf("%s of a kind no image of node class %q serves, %s (%s); its images serve %s", n, b.in.Class.Name,
			strings.Join(b.noImage, ", "), names, amiSummary(b.in.Class.AMIs))
	case dropInterfaces:
		return fmt.Sprintf("%s that cannot carry node class %q's network_interfaces layout (%s)", n, b.in.Class.Name, names)
	case dropNoPodENI:
		return fmt.Sprintf("%s with no ENI left for pods after reserved and efa-only ENIs (%s)", n, names)
	case dropNetworkData:
		return fmt.Sprintf("%s with incomplete network data in the catalog (%s)", n, names)
	case dropZones:
		return fmt.Sprintf("%s not offered in the pool's zones %s (%s)", n, strings.Join(b.zoneNames(), ", "), names)
	case dropCapacityType:
		return fmt.Sprintf("%s not offered as %s (%s)", n, strings.Join(b.capTypes, " or "), names)
	case dropNoPrice:
		return fmt.Sprintf("%s with no %s price in the pool's zones, which Karpenter treats as unavailable (%s; prices from %s)", n,
			strings.Join(b.capTypes, " or "), names, b.priceSource())
	default:
		return fmt.Sprintf("%s whose pod capacity could not be computed (%s)", n, names)
	}
}

// settingDropMessage says which setting of the class drops the types (settingDrop) and that
// Karpenter, from its version on, does not offer them to the class.
func (b *builder) settingDropMessage(reason int, n, names string) string {
	k := "Karpenter " + cmp.Or(b.in.KarpenterVersion, manifest.DefaultVersion)
	c := b.in.Class.Name
	switch reason {
	case dropNestedVirtualization:
		return fmt.Sprintf("%s without nested virtualization support, which %s does not offer to node class %q: its "+
			"cpu_options.nested_virtualization is \"enabled\" (%s)", n, k, c, names)
	case dropNitroEnclaves:
		return fmt.Sprintf("%s without Nitro Enclaves support, which %s does not offer to node class %q: its enclave_options.enabled "+
			"is true (%s)", n, k, c, names)
	case dropPlacementGroup:
		return fmt.Sprintf("%s that cannot launch into a %s placement group, which %s does not offer to node class %q: its "+
			"placement_group_selector selects one (%s)", n, b.in.Class.PlacementGroupStrategy, k, c, names)
	default:
		return fmt.Sprintf("%s not on the Nitro hypervisor (Xen and bare metal), which %s does not offer to node class %q: it sets "+
			"connection_tracking (%s)", n, k, c, names)
	}
}

func pluralTypes(n int) string {
	if n == 1 {
		return "1 instance type"
	}
	return fmt.Sprintf("%d instance types", n)
}

func dropReason(err error) int {
	switch {
	case errors.Is(err, capacity.ErrIncompatible):
		return dropInterfaces
	case errors.Is(err, capacity.ErrNoPodENI):
		return dropNoPodENI
	case errors.Is(err, capacity.ErrInvalidNetwork):
		return dropNetworkData
	case errors.Is(err, capacity.ErrAutoModeUnsupported):
		return dropAutoMode
	}
	return dropOther
}

// exampleNames lists up to three names and how many more there are.
func exampleNames(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
