package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// connectivityReport runs the connectivity checks (nodeclass.CheckConnectivity) and returns
// the `connectivity_report` value (null when they did not run).
func (r *nodeClassResource) connectivityReport(ctx context.Context, c *connectivityModel, res nodeclass.Resolved, diags *diag.Diagnostics) types.List {
	checks, errs, warnings := nodeclass.CheckConnectivity(ctx, r.meta.Client.Discovery(), c.config(), res)
	addFindings(diags, attrpath.Path{}, errs, "", false)
	addFindings(diags, attrpath.Path{}, warnings, "", true)
	if checks == nil {
		return types.ListNull(connectivityCheckType)
	}
	out := make([]connectivityCheck, len(checks))
	for i, f := range checks {
		detail := f.Detail
		if !f.Passed {
			detail = fmt.Sprintf("%s Fix: %s.", f.Detail, f.Fix)
		}
		out[i] = connectivityCheck{Check: f.Check, GroupID: f.GroupID, Passed: f.Passed, Required: f.Required, Detail: detail}
	}
	v, d := types.ListValueFrom(ctx, connectivityCheckType, out)
	diags.Append(d...)
	return v
}

func setComputedUnknown(ctx context.Context, plan interface {
	SetAttribute(context.Context, path.Path, interface{}) diag.Diagnostics
}, diags *diag.Diagnostics) {
	for name, t := range map[string]attr.Type{
		"vpc_id": types.StringType, "manifest": types.StringType,
		"zones": types.ListType{ElemType: types.StringType},
	} {
		diags.Append(plan.SetAttribute(ctx, path.Root(name), unknownOf(t))...)
	}
	diags.Append(plan.SetAttribute(ctx, path.Root("subnets"), types.ListUnknown(types.ObjectType{AttrTypes: attrTypesOf(subnetTF{})}))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("security_groups"), types.ListUnknown(types.ObjectType{AttrTypes: attrTypesOf(sgOut{})}))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("pod_subnets"), types.ListUnknown(types.ObjectType{AttrTypes: attrTypesOf(podSubnetTF{})}))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("amis"), types.ListUnknown(types.ObjectType{AttrTypes: attrTypesOf(amiTF{})}))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("resolved"), types.ObjectUnknown(attrTypesOf(launchplan.ClassValue{})))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("manifest_object"), types.DynamicUnknown())...)
	diags.Append(plan.SetAttribute(ctx, path.Root("connectivity_report"), types.ListUnknown(connectivityCheckType))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("node_role_report"), types.ListUnknown(nodeRoleNeedType))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("capacity_reservations"), types.ListUnknown(capacityReservationType))...)
	diags.Append(plan.SetAttribute(ctx, path.Root("placement_group"), types.ObjectUnknown(placementGroupAttrTypes))...)
}

func unknownOf(t attr.Type) attr.Value {
	switch tt := t.(type) {
	case types.ListType:
		return types.ListUnknown(tt.ElemType)
	default:
		return types.StringUnknown()
	}
}

type sgOut struct {
	ID   string `tfsdk:"id"`
	Name string `tfsdk:"name"`
}

// resolutionFromState reads the recorded resolution back from state.
func resolutionFromState(ctx context.Context, m nodeClassModel) (nodeclass.Resolved, bool) {
	if m.Subnets.IsNull() || m.Subnets.IsUnknown() {
		return nodeclass.Resolved{}, false
	}
	var diags diag.Diagnostics
	var subnets []subnetTF
	var groups []sgOut
	var pods []podSubnetTF
	diags.Append(m.Subnets.ElementsAs(ctx, &subnets, false)...)
	diags.Append(m.SecurityGroups.ElementsAs(ctx, &groups, false)...)
	if !m.PodSubnets.IsNull() {
		diags.Append(m.PodSubnets.ElementsAs(ctx, &pods, false)...)
	}
	if diags.HasError() {
		return nodeclass.Resolved{}, false
	}
	r := nodeclass.Resolved{VPCID: m.VPCID.ValueString(), Zones: stringList(ctx, m.Zones, &diags)}
	for _, s := range subnets {
		sn := discovery.Subnet{ID: s.ID, VPCID: r.VPCID, Zone: s.Zone, ZoneID: s.ZoneID, CIDRBlock: s.CIDRBlock,
			AvailableIPAddressCount: int(s.AvailableIPAddressCount), MapPublicIPOnLaunch: s.MapPublicIPOnLaunch, DefaultForAZ: s.DefaultForAZ}
		if s.Name != nil {
			sn.Tags = map[string]string{"Name": *s.Name}
		}
		r.Subnets = append(r.Subnets, sn)
	}
	for _, g := range groups {
		r.SecurityGroups = append(r.SecurityGroups, discovery.SecurityGroup{ID: g.ID, Name: g.Name, VPCID: r.VPCID})
	}
	for _, p := range pods {
		r.PodSubnets = append(r.PodSubnets, nodeclass.PodSubnet{Zone: p.Zone, Subnet: discovery.Subnet{ID: p.ID, VPCID: r.VPCID,
			Zone: p.Zone, CIDRBlock: p.CIDRBlock, AvailableIPAddressCount: int(p.AvailableIPAddressCount)}})
	}
	return r, true
}

// setResolution fills every computed attribute of the plan from the spec and its resolution.
func setResolution(ctx context.Context, m *nodeClassModel, s nodeclass.Spec, r nodeclass.Resolved, instanceProfile, manifest string,
	hash [2]string) diag.Diagnostics {
	var diags diag.Diagnostics
	rc := launchplan.ClassOf(s, r, instanceProfile).Value()
	rc.Hash, rc.HashVersion = emptyNil(hash[0]), emptyNil(hash[1])
	if !m.CapacityReservations.IsNull() && !m.CapacityReservations.IsUnknown() { // planned by planCapacity
		var crs []capacityReservationOut
		diags.Append(m.CapacityReservations.ElementsAs(ctx, &crs, false)...)
		for _, cr := range crs {
			rc.CapacityReservationIDs = append(rc.CapacityReservationIDs, cr.ID)
		}
	}
	var d diag.Diagnostics
	m.VPCID = types.StringValue(r.VPCID)
	subnets := make([]subnetTF, len(r.Subnets))
	for i, sn := range r.Subnets {
		subnets[i] = subnetTFFrom(sn)
	}
	m.Subnets, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(subnetTF{})}, subnets)
	diags.Append(d...)
	groups := make([]sgOut, len(r.SecurityGroups))
	for i, g := range r.SecurityGroups {
		groups[i] = sgOut{ID: g.ID, Name: g.Name}
	}
	m.SecurityGroups, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(sgOut{})}, groups)
	diags.Append(d...)
	m.Zones, d = types.ListValueFrom(ctx, types.StringType, nonNil(r.Zones))
	diags.Append(d...)
	pods := make([]podSubnetTF, len(r.PodSubnets))
	for i, p := range r.PodSubnets {
		pods[i] = podSubnetTF{Zone: p.Zone, ID: p.Subnet.ID, CIDRBlock: p.Subnet.CIDRBlock, AvailableIPAddressCount: int64(p.Subnet.AvailableIPAddressCount)}
	}
	m.PodSubnets, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(podSubnetTF{})}, pods)
	diags.Append(d...)
	m.AMIs, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(amiTF{})}, amisTF(r.AMIs.AMIs))
	diags.Append(d...)
	m.Resolved, d = types.ObjectValueFrom(ctx, attrTypesOf(launchplan.ClassValue{}), rc)
	diags.Append(d...)
	m.Manifest = types.StringValue(manifest)
	return diags
}

// nodeRoleNeed is one entry of `node_role_report`.
type nodeRoleNeed struct {
	Need    string   `tfsdk:"need"`
	Status  string   `tfsdk:"status"`
	Missing []string `tfsdk:"missing"`
	Detail  string   `tfsdk:"detail"`
}

var nodeRoleNeedType = types.ObjectType{AttrTypes: attrTypesOf(nodeRoleNeed{})}

// nodeRoleReport is the `node_role_report` value of a check (null when it did not run).
func nodeRoleReport(ctx context.Context, rep *iampolicy.Report, diags *diag.Diagnostics) types.List {
	if rep == nil {
		return types.ListNull(nodeRoleNeedType)
	}
	out := make([]nodeRoleNeed, len(rep.Needs))
	for i, n := range rep.Needs {
		out[i] = nodeRoleNeed{Need: n.Need.ID, Status: n.Status(), Missing: nonNil(n.MissingActions()), Detail: "Granted."}
		switch {
		case n.Skipped:
			out[i].Detail = "Skipped: the VPC CNI has a role of its own (networking.cni_role)."
		case !n.Met:
			out[i].Detail = "Without these actions, " + n.Need.Consequence + "."
		}
		if notes := n.Notes(); len(notes) > 0 {
			out[i].Detail += " Not evaluated: " + strings.Join(notes, "; ") + "."
		}
	}
	v, d := types.ListValueFrom(ctx, nodeRoleNeedType, out)
	diags.Append(d...)
	return v
}
