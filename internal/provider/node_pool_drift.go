package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// planDrift is a pool's planned `drift`: null for a static pool; unknown while the class's hash
// waits for a late value; the state's answer while neither the NodePool nor its node class
// changes (the answer is the last change's, and its pace is counted from the time of that
// plan); otherwise drift.PlanPool's answer for this change.
func (r *nodePoolResource) planDrift(ctx context.Context, planRaw tftypes.Value, plan, state *poolValue, doc string, class launchplan.Class,
	p launchplan.Plan, diags *diag.Diagnostics) any {
	switch {
	case plan.static():
		return nil
	case lateClassHash(plan.NodeClass):
		return unknownAttr(planRaw.Type(), "drift")
	case state != nil && !state.Drift.IsNull() && state.Drift.IsKnown() && state.Manifest.Equal(stringValue(doc)) &&
		state.NodeClass.Equal(plan.NodeClass):
		return state.Drift
	}
	cat, err := r.meta.Client.Catalog(ctx) // loaded by the plan already
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return nil
	}
	in := drift.PoolPlan{Manifest: doc, Class: class, Requirements: plan.Requirements(), Catalog: cat, Region: r.meta.Client.Region,
		Budgets: plan.Spec().Budgets, Nodes: p.MaxNodes(), Now: time.Now()}
	if state != nil && !state.NodeClass.IsNull() && state.NodeClass.IsKnown() { // null after an import
		_, prior, err := decodeClassValue(state.NodeClass)
		if err != nil {
			diags.AddError("Cannot read the recorded node class", err.Error())
			return nil
		}
		in.Prior = &drift.PriorPool{Output: decoded[drift.Output](state.Drift), Class: prior, Requirements: state.Requirements()}
	}
	if r.meta.Kube != nil { // with access to the cluster, the pool's running nodes are judged one by one
		in.Count = func(prior *drift.Side, planned drift.Side) *drift.Count {
			return r.countNodes(ctx, plan.Name, prior, planned, diags)
		}
	}
	out, warnings := drift.PlanPool(in)
	addFindings(diags, attrpath.Path{}, warnings, "", true)
	return out
}

// countNodes lists the pool's NodeClaims (and their instances' subnets) and judges each; nil,
// with a warning, when the cluster cannot be read: the verdict is then per pool.
func (r *nodePoolResource) countNodes(ctx context.Context, pool string, prior *drift.Side, planned drift.Side, diags *diag.Diagnostics) *drift.Count {
	claims, err := r.meta.Kube.NodeClaims(ctx, pool)
	if err != nil {
		diags.AddAttributeWarning(path.Root("drift"), "Cannot read the pool's NodeClaims",
			"The drift verdict is per pool: "+err.Error())
		return nil
	}
	var ids []string
	for _, c := range claims {
		if c.InstanceID != "" {
			ids = append(ids, c.InstanceID)
		}
	}
	subnets := map[string]string{}
	if len(ids) > 0 {
		found, err := awsclient.Instances{EC2: r.meta.Client.EC2}.Describe(ctx, ids)
		if err != nil {
			diags.AddAttributeWarning(path.Root("drift"), "Cannot read the nodes' instances",
				"Subnet drift is judged per pool: "+err.Error())
		}
		for _, in := range found {
			subnets[in.ID] = in.SubnetID
		}
	}
	nodes := make([]drift.Node, 0, len(claims))
	for _, c := range claims {
		if c.Deleting {
			continue // already on its way out
		}
		nodes = append(nodes, drift.Node{Name: c.Name, InstanceType: c.Labels["node.kubernetes.io/instance-type"],
			Zone: c.Labels["topology.kubernetes.io/zone"], CapacityType: c.Labels["karpenter.sh/capacity-type"],
			ImageID: c.ImageID, SubnetID: subnets[c.InstanceID], NodePoolHash: c.NodePoolHash,
			CapacityReservationID: c.Labels["karpenter.k8s.aws/capacity-reservation-id"]})
	}
	count := drift.CountNodes(nodes, prior, planned, drift.Compare(*prior, planned))
	return &count
}
