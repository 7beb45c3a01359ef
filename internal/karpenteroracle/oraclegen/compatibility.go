package oraclegen

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/typelimits"
)

// AMIFamilies are the node class AMI families Karpenter knows, as it spells them.
var AMIFamilies = []string{"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025", "Custom"}

// CompareAMIFamilyCompatibility compares, for every instance type of the provider's type table
// and every AMI family, whether Karpenter minor offers the type to a node class of that family
// (offered: the release's own instance-type compatibility check on a class of that family
// without network interfaces, placement group or CPU options) with the provider's
// launchplan.OfferedForFamily. It fails below floor cases, and when no case is refused: a
// check that refuses nothing would compare nothing of interest.
func CompareAMIFamilyCompatibility(t *testing.T, minor string, offered func(instanceType, family string) bool, floor int) {
	t.Helper()
	cases, refused, bad := 0, 0, 0
	for _, name := range typelimits.Names() {
		for _, family := range AMIFamilies {
			cases++
			want := offered(name, family)
			if !want {
				refused++
			}
			if got := launchplan.OfferedForFamily(minor, family, name); got != want {
				if bad++; bad <= maxReported {
					t.Errorf("Karpenter %s, %s class, %s: Karpenter offers it = %v, the provider = %v", minor, family, name, want, got)
				}
			}
		}
	}
	t.Logf("Karpenter %s: %d instance type × AMI family cases compared, %d refused by Karpenter, %d disagreements", minor, cases, refused, bad)
	if bad > 0 {
		t.Fatalf("%d of %d cases disagree", bad, cases)
	}
	if cases < floor {
		t.Fatalf("compared %d cases, under the floor of %d", cases, floor)
	}
	if refused == 0 {
		t.Fatal("Karpenter refused no case: nothing of the check was compared")
	}
}
