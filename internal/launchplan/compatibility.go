package launchplan

import (
	"cmp"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
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
