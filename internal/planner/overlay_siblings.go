package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// summaryOverlayPools is the warning of a NodePool listing that failed: the overlays' conflicts
// are then judged on the pool's own types.
const summaryOverlayPools = "Cannot list the cluster's NodePools"

// siblingPools are the cluster's other NodePools on the pool's EC2NodeClass, over whose types
// Karpenter also judges the overlays' conflicts (launchplan.Input.SiblingPools): nil when there
// is nothing to judge (no overlays, the NodeOverlay gate off, an Auto Mode pool, a class not
// known yet) or no view of the cluster; a failed listing is a warning, and nil. The pool's own
// NodePools (its name, and its zones' NodePools when it spreads) are not siblings.
func (res *PoolResult) siblingPools(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) []launchplan.SiblingPool {
	if ports.NodePools == nil || len(launchOverlays(in)) == 0 || in.ClassName == "" || in.autoMode() ||
		!reservations.GateOn(facts.FeatureGates, nodeoverlay.FeatureGate, reservations.GateDefaultOf(nodeoverlay.FeatureGate)) {
		return nil
	}
	objs, err := ports.NodePools(ctx)
	if err != nil {
		res.Warnings = append(res.Warnings, attrpath.Finding{Summary: summaryOverlayPools, Path: pathNodeOverlays,
			Message: "the overlays' conflicts are judged on this pool's types alone, where Karpenter judges them over every NodePool " +
				"(give the provider's kubernetes token list on nodepools.karpenter.sh): " + err.Error()})
		return nil
	}
	out := []launchplan.SiblingPool{}
	for _, obj := range objs {
		name, class := nodePoolClass(obj)
		if class != in.ClassName || name == "" || name == in.Name || (in.Spread != nil && strings.HasPrefix(name, in.Name+"-")) {
			continue
		}
		p, err := adopt.ReadPool(obj)
		if err != nil {
			res.Warnings = append(res.Warnings, attrpath.Finding{Summary: summaryClusterPool, Path: pathNodeOverlays,
				Message: fmt.Sprintf("NodePool %q is on class %q but does not read (%v): the overlays' conflicts are judged without it", name,
					class, err)})
			continue
		}
		var labels map[string]string
		if p.Config.Template != nil {
			labels = p.Config.Template.Labels
		}
		out = append(out, launchplan.SiblingPool{Name: name, TemplateLabels: labels})
	}
	slices.SortFunc(out, func(a, b launchplan.SiblingPool) int { return strings.Compare(a.Name, b.Name) })
	return out
}
