package provider

import (
	"context"
	"fmt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/budgets"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// planDrift fills a pool's `drift`: null for a static pool; the state's answer while neither
// the NodePool nor its node class changes (the answer is the last change's, and its pace is
// counted from the time of that plan); otherwise Karpenter's verdict for this change, with
// warnings when it replaces nodes.
func (r *nodePoolResource) planDrift(ctx context.Context, plan, state *nodePoolModel, doc string, class launchplan.Class,
	p launchplan.Plan, diags *diag.Diagnostics) {
	switch {
	case !plan.Replicas.IsNull():
		plan.Drift = types.ObjectNull(driftAttrTypes)
		return
	case lateClassHash(plan.NodeClass): // a late value of the class: its hash waits too
		plan.Drift = types.ObjectUnknown(driftAttrTypes)
		return
	case state != nil && !state.Drift.IsNull() && !state.Drift.IsUnknown() && state.Manifest.Equal(plan.Manifest) &&
		state.NodeClass.Equal(plan.NodeClass):
		plan.Drift = state.Drift
		return
	}
	poolHash := nodePoolHash(doc)
	// A new pool (or one imported, whose state has no plan to compare with) shows its hashes only.
	out := driftTF{NodePoolHash: emptyNil(poolHash), NodeClassHash: emptyNil(class.Hash)}
	if state == nil || state.NodeClass.IsNull() || state.NodeClass.IsUnknown() { // null after an import
		v, d := types.ObjectValueFrom(ctx, driftAttrTypes, out)
		diags.Append(d...)
		plan.Drift = v
		return
	}
	cat, err := r.meta.Client.Catalog(ctx) // loaded by the plan already
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return
	}
	region := r.meta.Client.Region
	// Requirement drift reads a node's labels against the NodePool's requirements alone: the zones
	// are the region's, not the class's (a subnet no longer selected is SubnetDrift).
	zones := cat.Zones()
	planned := driftSide(poolHash, class, launchplan.AllowedBy(cat, region, plan.requirements(ctx, diags), zones))
	var before driftTF
	if !state.Drift.IsNull() && !state.Drift.IsUnknown() {
		diags.Append(state.Drift.As(ctx, &before, basetypes.ObjectAsOptions{})...)
	}
	var rc resolvedClass
	diags.Append(state.NodeClass.As(ctx, &rc, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})...)
	prior := driftSide(deref(before.NodePoolHash), planClass(rc), launchplan.AllowedBy(cat, region, state.requirements(ctx, diags), zones))
	nodes := p.NodesByIPs
	if p.NodesByLimits >= 0 {
		nodes = min(nodes, p.NodesByLimits)
	}
	// With access to the cluster, the pool's running nodes are judged one by one.
	var count *drift.Count
	if r.meta.Kube != nil {
		count = r.countNodes(ctx, plan.Name.ValueString(), &prior, planned, diags)
		if count != nil {
			nodes = count.Total
		}
	}
	bs, err := drift.Budgets(plan.poolSpec().Budgets)
	var a drift.Assessment
	if err == nil {
		a, err = drift.Assess(&prior, planned, bs, nodes, time.Now())
	}
	if err != nil {
		diags.AddAttributeWarning(path.Root("disruption"), "Cannot count the drift pace", err.Error())
	}
	verdict, reasons, drifts, all, pace := a.Verdict.Summary(), a.Verdict.Reasons(), a.Verdict.Drifts(), a.Verdict.AllNodes, a.PaceText()
	if count != nil {
		verdict, reasons, drifts = count.Summary(), count.Reasons(), count.Drifted > 0
		all = drifts && count.Drifted == count.Total
		pace = a.Pace.Text + fmt.Sprintf(" (the pool's %d nodes)", count.Total)
	}
	out.Verdict, out.Reasons, out.Pace = emptyNil(verdict), reasons, emptyNil(pace)
	v, d := types.ObjectValueFrom(ctx, driftAttrTypes, out)
	diags.Append(d...)
	plan.Drift = v
	if drifts {
		warnDrift(diags, verdict, pace, all, a.Pace)
	}
}

// nodePoolHash is Karpenter's NodePool hash of the rendered manifest ("" when it cannot be
// computed: the plan then says nothing of NodePool drift).
func nodePoolHash(doc string) string {
	t, err := karpenterhash.DecodeNodePool(doc)
	if err != nil {
		return ""
	}
	h, err := karpenterhash.NodePoolHash(t)
	if err != nil {
		return ""
	}
	return h
}

// warnDrift is the plan's warning of a change that drifts nodes, and of budgets that never let
// drift proceed.
func warnDrift(diags *diag.Diagnostics, verdict, pace string, all bool, p budgets.Summary) {
	summary := "Karpenter will replace some nodes of the pool"
	if all {
		summary = "Karpenter will replace every node of the pool"
	}
	diags.AddWarning(summary, verdict+". Pace: "+pace+".")
	if p.Never {
		diags.AddAttributeWarning(path.Root("disruption"), "Disruption budgets never let drift proceed",
			"The change drifts nodes, but the budgets allow no Drifted disruption in the coming 7 days: "+p.Text+
				". The nodes stay as they are until a budget lets them go; add a schedule window or raise nodes for Drifted.")
	}
}

// driftSide is what drift compares of a pool and its class.
func driftSide(poolHash string, c launchplan.Class, a launchplan.Allowed) drift.Side {
	s := drift.Side{NodePoolHash: poolHash, NodeClassHash: c.Hash, NodeClassHashVersion: c.HashVersion, SecurityGroups: c.SecurityGroupIDs, CapacityReservations: c.CapacityReservationIDs,
		InstanceTypes: a.InstanceTypes, Zones: a.Zones, CapacityTypes: a.CapacityTypes}
	if c.AMIUnresolved == "" && len(c.AMIs) > 0 {
		for _, img := range c.AMIs {
			s.AMIs = append(s.AMIs, img.ID)
		}
	}
	for _, sn := range c.Subnets {
		s.Subnets = append(s.Subnets, sn.ID)
	}
	return s
}

// lateClassHash reports whether the class's hash is not known yet.
func lateClassHash(class types.Object) bool {
	h, ok := class.Attributes()["hash"]
	return class.IsUnknown() || (ok && h.IsUnknown())
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
