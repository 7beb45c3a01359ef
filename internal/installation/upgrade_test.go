package installation

import (
	"strings"
	"testing"
)

// TestUpgradePreview: from a running 1.9.3 to 1.15 the preview names the hash version change and
// what Karpenter does about it, the EC2NodeClass fields gained (a new parent once, not its
// children) and spec.kubelet opening to any field (not its typed fields as lost), the NodePool
// default that differs, and the order to upgrade in; nothing to preview for the same minor, a
// newer controller or one older than every embedded release.
func TestUpgradePreview(t *testing.T) {
	f, ok := UpgradePreview(Controller{Version: "1.9.3"}, "1.15")
	if !ok || f.Path.String() != "karpenter_version" || f.Summary != "Upgrade preview: Karpenter 1.9.3 → 1.15" {
		t.Fatalf("preview %v %+v", ok, f)
	}
	for _, want := range []string{"hash version goes v4 → v6: Karpenter re-annotates", "EC2NodeClass gains spec.connectionTracking, spec.cpuOptions",
		"spec.networkInterfaces, spec.placementGroupSelector", "opens spec.kubelet (any field)",
		`NodePool defaults differently spec.disruption.consolidateAfter (none → "0s")`, "Install the CRDs of 1.15 before the controller",
		"new IAM actions (by Karpenter 1.14's published policy): arc-zonal-shift:GetManagedResource, ec2:DescribeInstanceStatus, " +
			"ec2:DescribePlacementGroups", "1.15's own policy is not published",
		`a rule for each new event: "EC2 Capacity Reservation Instance Interruption Warning"`} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("preview lacks %q:\n%s", want, f.Message)
		}
	}
	for _, unwanted := range []string{"networkInterfaces[].deviceIndex", "loses spec.kubelet"} {
		if strings.Contains(f.Message, unwanted) {
			t.Errorf("preview names %q:\n%s", unwanted, f.Message)
		}
	}
	if f, _ := UpgradePreview(Controller{Version: "1.12.0"}, "1.14"); !strings.Contains(f.Message, "hash version stays v5") ||
		!strings.Contains(f.Message, "needs no new IAM action (by Karpenter 1.14's published policy); its interruption queue needs no new rule") {
		t.Errorf("1.12 → 1.14: %s", f.Message)
	}
	for _, c := range []Controller{{Version: "1.15.2"}, {Version: "1.15.0"}, {Version: "1.8.0"}, {}} {
		if _, ok := UpgradePreview(c, "1.15"); ok {
			t.Errorf("controller %q: a preview", c.Version)
		}
	}
}
