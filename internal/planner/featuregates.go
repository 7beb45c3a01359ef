package planner

import (
	"cmp"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/featuregates"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

var pathFeatureGates = attrpath.Of("karpenter_feature_gates")

// CheckFeatureGates refuses each karpenter_feature_gates entry that names a gate the release
// karpenter_version names ("" is the default release) does not have, on that entry.
func CheckFeatureGates(karpenterVersion string, entries []string) []attrpath.Finding {
	var out []attrpath.Finding
	for _, p := range featuregates.CheckRelease(cmp.Or(karpenterVersion, manifest.DefaultVersion), entries) {
		out = append(out, attrpath.Finding{Path: pathFeatureGates.Index(p.Index), Summary: "Feature gate not in this Karpenter release",
			Message: p.Message})
	}
	return out
}
