package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

var (
	_ resource.ResourceWithConfigure      = (*nodePoolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodePoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodePoolResource)(nil)
	_ resource.ResourceWithImportState    = (*nodePoolResource)(nil)
)

type nodePoolResource struct{ meta *Meta }

func newNodePoolResource() resource.Resource { return &nodePoolResource{} }

func (r *nodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodePoolSchema()
}

func (r *nodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func addProblems(diags *diag.Diagnostics, errs []nodepool.Problem, summary string, warning bool) {
	for _, e := range errs {
		p := parsePath(e.Path)
		detail := e.Message
		if e.Path != "" {
			detail = e.Path + ": " + e.Message
		}
		switch {
		case warning && e.Path == "":
			diags.AddWarning(summary, detail)
		case warning:
			diags.AddAttributeWarning(p, summary, detail)
		case e.Path == "":
			diags.AddError(summary, detail)
		default:
			diags.AddAttributeError(p, summary, detail)
		}
	}
}

func fromLaunchPlanProblems(ps []launchplan.Problem) []nodepool.Problem {
	out := make([]nodepool.Problem, len(ps))
	for i, p := range ps {
		out[i] = nodepool.Problem{Path: p.Path, Message: p.Message}
	}
	return out
}

// validateStatic runs every rule that needs neither EC2 nor the node class.
func validateStatic(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) {
	for _, e := range requirements.Validate(m.requirements(ctx, diags)) {
		diags.AddAttributeError(path.Root("template").AtName("requirements").AtListIndex(e.Index).AtName(e.Field),
			"Invalid requirement", e.Error())
	}
	errs, warnings := nodepool.Validate(m.poolSpec(ctx, diags))
	addProblems(diags, errs, "Invalid node pool", false)
	addProblems(diags, warnings, "Node pool setting rewritten", true)
}

func (r *nodePoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	var m nodePoolModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Disruption == nil { // the default applies after validation
		m.Disruption = &disruptionModel{ConsolidationPolicy: types.StringValue(nodepool.PolicyWhenEmptyOrUnderutilized), ConsolidateAfter: types.StringValue("0s")}
	}
	validateStatic(ctx, &m, &resp.Diagnostics)
}

// ModifyPlan plans the launches: CPU only, from the node class value and the catalog (loaded
// once per provider process). It adds no discovery call.
func (r *nodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if !req.State.Raw.IsNull() {
		// Switching between static (replicas) and dynamic replaces the pool, as Karpenter forbids it.
		var before, after types.Int64
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("replicas"), &before)...)
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("replicas"), &after)...)
		if !after.IsUnknown() && before.IsNull() != after.IsNull() {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas"))
		}
	}
	if !req.Config.Raw.IsFullyKnown() { // e.g. a node class planned in the same run
		setPoolComputedUnknown(ctx, resp)
		return
	}
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	var state *nodePoolModel
	if !req.State.Raw.IsNull() {
		state = &nodePoolModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	validateStatic(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// What Kubernetes would refuse stops the plan before the catalog or any EC2 call.
	doc, err := renderNodePoolManifest(ctx, &plan)
	if err != nil {
		resp.Diagnostics.AddError("Cannot render the NodePool manifest", err.Error())
		return
	}
	if !admitManifest(manifest.NodePoolKind, doc, &resp.Diagnostics) {
		return
	}
	p, ok := r.buildPlan(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = plan.Name
	planNodes(ctx, &plan, state, p, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Manifest = types.StringValue(doc)
	resp.Diagnostics.Append(setPoolPlan(ctx, &plan, state, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func setPoolComputedUnknown(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("instance_types"), types.ListUnknown(types.StringType))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("max_pods"), types.MapUnknown(types.Int64Type))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("karpenter_assumed_pods"), types.MapUnknown(types.Int64Type))...)
	for name, elem := range map[string]any{"zones": zonePlanTF{}, "launch_plan": optionGroupTF{}, "capacity": capacityTF{}} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), types.ListUnknown(types.ObjectType{AttrTypes: attrTypesOf(elem)}))...)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("launch_templates"), types.ListUnknown(launchTemplateObjType))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("manifest"), types.StringUnknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("warnings"), types.ListUnknown(types.StringType))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("nodes"), types.ListUnknown(nodeObjType))...)
}

// buildPlan runs the planner and reports its problems; ok is false when it failed.
func (r *nodePoolResource) buildPlan(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (launchplan.Plan, bool) {
	var rc resolvedClass
	diags.Append(m.NodeClass.As(ctx, &rc, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return launchplan.Plan{}, false
	}
	cat, err := r.meta.Client.Catalog(ctx)
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return launchplan.Plan{}, false
	}
	p, errs := launchplan.Build(launchplan.Input{
		PoolName: m.Name.ValueString(), ClusterName: r.meta.ClusterName, Region: r.meta.Client.Region,
		Class: planClass(rc), Requirements: m.requirements(ctx, diags), Limits: tagsFromMap(ctx, m.Limits, diags),
		Replicas: intPtr(m.Replicas), Catalog: cat,
	})
	addProblems(diags, fromLaunchPlanProblems(errs), "Node pool cannot launch nodes", false)
	addProblems(diags, fromLaunchPlanProblems(p.Warnings), "Node pool warning", true)
	return p, !diags.HasError()
}

// setPoolPlan writes the planner's result into the model (the manifest is set by the caller,
// which validated it); template ids come from state when the template is already known there.
func setPoolPlan(ctx context.Context, m *nodePoolModel, state *nodePoolModel, p launchplan.Plan) diag.Diagnostics {
	var diags diag.Diagnostics
	known := map[string]launchTemplateTF{}
	if state != nil {
		for _, lt := range launchTemplatesOf(ctx, state.LaunchTemplates, &diags) {
			known[lt.Name] = lt
		}
	}
	names := make([]string, 0, len(p.InstanceTypes))
	maxPods := make(map[string]int64, len(p.InstanceTypes))
	assumed := map[string]int64{}
	for _, t := range p.InstanceTypes {
		names = append(names, t.Name)
		maxPods[t.Name] = int64(t.MaxPods)
		if t.KarpenterAssumedPods != t.MaxPods {
			assumed[t.Name] = int64(t.KarpenterAssumedPods)
		}
	}
	zones := make([]zonePlanTF, 0, len(p.Zones))
	for _, z := range p.Zones {
		zones = append(zones, zonePlanTF{Zone: z.Zone, ZoneID: z.ZoneID, SubnetID: z.SubnetID, AvailableIPs: int64(z.AvailableIPs), PodSubnetID: emptyNil(z.PodSubnetID)})
	}
	caps := make([]capacityTF, 0, len(p.Capacity))
	for _, c := range p.Capacity {
		caps = append(caps, capacityTF{Zone: c.Zone, AvailableIPs: int64(c.AvailableIPs), NodesByIPs: int64(c.NodesByIPs), NodesByLimits: int64(c.NodesByLimits)})
	}
	lts := make([]launchTemplateTF, 0, len(p.LaunchTemplates))
	for _, lt := range p.LaunchTemplates {
		t := launchTemplateTFFrom(lt)
		if prev, ok := known[lt.Name]; ok && !prev.ID.IsNull() && prev.ID.ValueString() != "" {
			t.ID = prev.ID // same template; a content change writes a new version under the same id
			if prev.Fingerprint == t.Fingerprint {
				t.DefaultVersion = prev.DefaultVersion
			}
		}
		lts = append(lts, t)
	}
	var d diag.Diagnostics
	m.InstanceTypes, m.MaxPods, m.KarpenterPods = stringListValue(names), int64MapValue(maxPods), int64MapValue(assumed)
	m.Zones, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(zonePlanTF{})}, zones)
	diags.Append(d...)
	m.LaunchPlan = optionGroupList(groupOptions(p.LaunchPlan))
	m.Capacity, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypesOf(capacityTF{})}, caps)
	diags.Append(d...)
	m.LaunchTemplates = launchTemplateList(lts)
	warnings := make([]string, 0, len(p.Warnings))
	for _, w := range p.Warnings {
		if w.Path != "" {
			warnings = append(warnings, w.Path+": "+w.Message)
		} else {
			warnings = append(warnings, w.Message)
		}
	}
	m.Warnings = stringListValue(warnings)
	return diags
}

func launchTemplateTFFrom(lt launchplan.LaunchTemplate) launchTemplateTF {
	t := launchTemplateTF{Name: lt.Name, ID: types.StringUnknown(), DefaultVersion: types.Int64Unknown(), MaxPods: int64(lt.MaxPods), InstanceTypes: nonNil(lt.InstanceTypes),
		UserData: lt.UserData, Fingerprint: awsclient.Fingerprint(lt), NetworkInterfaces: []interfaceTF{}}
	for _, ni := range lt.NetworkInterfaces {
		t.NetworkInterfaces = append(t.NetworkInterfaces, interfaceTF{NetworkCardIndex: int64(ni.NetworkCardIndex), DeviceIndex: int64(ni.DeviceIndex),
			InterfaceType: ni.InterfaceType, SecurityGroupIDs: nonNil(ni.SecurityGroupIDs), AssociatePublicIPAddress: ni.AssociatePublicIPAddress,
			IPv4PrefixCount: toInt64Ptr(ni.IPv4PrefixCount)})
	}
	return t
}

func launchTemplatesOf(ctx context.Context, l types.List, diags *diag.Diagnostics) []launchTemplateTF {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []launchTemplateTF
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// ownershipTags identify the pool's EC2 objects; the provider never touches objects without them.
// readScope is what the ownership tags of every pool of this provider's cluster share (all but
// the pool tag): refresh lists templates and instances once for that scope and filters per
// pool. Without cluster_name the scope would be every managed object in the region, possibly of
// many clusters, so each pool then lists its own.
func (r *nodePoolResource) readScope() map[string]string {
	if r.meta.ClusterName == "" {
		return nil
	}
	return map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: r.meta.ClusterName}
}

func (r *nodePoolResource) ownershipTags(pool string) map[string]string {
	tags := map[string]string{launchplan.TagNodePool: pool, launchplan.TagManagedBy: launchplan.ManagedBy}
	if r.meta.ClusterName != "" {
		tags[launchplan.TagCluster] = r.meta.ClusterName
	}
	return tags
}

// apply makes EC2 hold exactly the planned templates: each is ensured (created, or a new
// default version), then the pool's templates that are no longer planned are deleted. A static
// pool then reconciles its instances.
// It reports aborted when a test hook simulated a crash: nothing may then be saved.
func (r *nodePoolResource) apply(ctx context.Context, m *nodePoolModel, wait time.Duration, diags *diag.Diagnostics) (aborted bool) {
	p, ok := r.buildPlan(ctx, m, diags)
	if !ok {
		return false
	}
	lts := awsclient.LaunchTemplates{EC2: r.meta.Client.EC2}
	planned := map[string]bool{}
	ids := map[string]awsclient.LaunchTemplate{}
	for _, lt := range p.LaunchTemplates {
		got, err := lts.Ensure(ctx, lt)
		if err != nil {
			diags.AddError("Cannot write a launch template", err.Error())
			return false
		}
		planned[lt.Name] = true
		ids[lt.Name] = got
	}
	owned, err := lts.FindByTags(ctx, r.ownershipTags(m.Name.ValueString()), nil)
	if err != nil {
		diags.AddError("Cannot list the pool's launch templates", err.Error())
		return false
	}
	for _, o := range owned {
		if !planned[o.Name] {
			if err := lts.Delete(ctx, o.ID); err != nil {
				diags.AddError("Cannot delete a stale launch template", err.Error())
				return false
			}
		}
	}
	cur := launchTemplatesOf(ctx, m.LaunchTemplates, diags)
	for i := range cur {
		if got, ok := ids[cur[i].Name]; ok {
			cur[i].ID = types.StringValue(got.ID)
			cur[i].DefaultVersion = types.Int64Value(got.DefaultVersion)
		}
	}
	m.LaunchTemplates = launchTemplateList(cur)

	if m.Replicas.IsNull() {
		m.Nodes = types.ListNull(nodeObjType)
		return false
	}
	var rc resolvedClass
	diags.Append(m.NodeClass.As(ctx, &rc, basetypes.ObjectAsOptions{})...)
	live, aborted := r.reconcileNodes(ctx, m, p, rc, ids, wait, diags)
	var d diag.Diagnostics
	m.Nodes, d = types.ListValueFrom(ctx, nodeObjType, nodesFrom(live, plannedSubnets(p, rc)))
	diags.Append(d...)
	return aborted
}

// planNodes decides the planned `nodes`: unchanged while the live nodes already match
// `replicas`, unknown when apply will launch or terminate.
func planNodes(ctx context.Context, plan, state *nodePoolModel, p launchplan.Plan, diags *diag.Diagnostics) {
	if plan.Replicas.IsNull() {
		plan.Nodes = types.ListNull(nodeObjType)
		return
	}
	var rc resolvedClass
	diags.Append(plan.NodeClass.As(ctx, &rc, basetypes.ObjectAsOptions{})...)
	if len(rc.AMIIDs) == 0 {
		diags.AddAttributeError(path.Root("replicas"), "Static capacity needs an AMI id",
			"replicas: the provider launches these nodes itself and needs an `id` term in the node class's ami_selector_terms "+
				"(aliases are resolved by Karpenter through SSM, which the provider does not call).")
		return
	}
	plan.Nodes = types.ListUnknown(nodeObjType)
	if state == nil || state.Nodes.IsNull() || state.Nodes.IsUnknown() {
		return
	}
	var nodes []nodeTF
	diags.Append(state.Nodes.ElementsAs(ctx, &nodes, false)...)
	zones := map[string]bool{}
	for _, z := range p.Zones {
		zones[z.Zone] = true
	}
	fingerprints := plannedFingerprints(p)
	var drifted []string
	for _, n := range nodes {
		if !zones[n.Zone] {
			return
		}
		if !n.InPlannedSubnet {
			diags.AddAttributeWarning(path.Root("nodes"), "Node outside its planned subnet",
				fmt.Sprintf("nodes: %s has private IP %s, outside the CIDR of the subnet planned for %s", n.InstanceID, n.PrivateIP, n.Zone))
		}
		if launchplan.Drifted(launchplan.TemplateStamp{Template: n.LaunchTemplate, Fingerprint: n.TemplateFingerprint}, fingerprints) {
			drifted = append(drifted, fmt.Sprintf("%s (%s)", n.InstanceID, n.LaunchTemplate))
		}
	}
	if len(drifted) > 0 {
		diags.AddAttributeWarning(path.Root("nodes"), "Drifted nodes will be replaced",
			fmt.Sprintf("nodes: %d node(s) run launch-template content the plan changes: %s. Apply launches replacements with the new "+
				"template and terminates these once the replacements run, as Karpenter replaces drifted static capacity.", len(drifted), strings.Join(drifted, ", ")))
		return
	}
	if int64(len(nodes)) == plan.Replicas.ValueInt64() {
		plan.Nodes = state.Nodes
	}
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wait, d := plan.Timeouts.Create(ctx, defaultLaunchTimeout)
	resp.Diagnostics.Append(d...)
	if r.apply(ctx, &plan, wait, &resp.Diagnostics) {
		return // a simulated crash: state is lost, as after a killed apply
	}
	r.saveApplied(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// saveApplied writes the applied model; after a failure it still records what exists (launch
// templates and live nodes), so nothing that launched is lost from state.
func (r *nodePoolResource) saveApplied(ctx context.Context, m *nodePoolModel, state interface {
	Set(context.Context, interface{}) diag.Diagnostics
}, diags *diag.Diagnostics) {
	if m.Nodes.IsUnknown() {
		m.Nodes = types.ListNull(nodeObjType)
	}
	lts := launchTemplatesOf(ctx, m.LaunchTemplates, diags)
	kept := make([]launchTemplateTF, 0, len(lts))
	for _, lt := range lts {
		if !lt.ID.IsUnknown() {
			kept = append(kept, lt)
		}
	}
	var d diag.Diagnostics
	m.LaunchTemplates, d = types.ListValueFrom(ctx, launchTemplateObjType, kept)
	diags.Append(d...)
	if diags.HasError() && len(kept) == 0 && m.Nodes.IsNull() {
		return // nothing was created
	}
	diags.Append(state.Set(ctx, m)...)
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wait, d := plan.Timeouts.Update(ctx, defaultLaunchTimeout)
	resp.Diagnostics.Append(d...)
	if r.apply(ctx, &plan, wait, &resp.Diagnostics) {
		return
	}
	r.saveApplied(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// Read reconciles the recorded templates with EC2: a deleted one drops out and a changed one
// shows its real fingerprint, so the next plan restores it.
func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	recorded := launchTemplatesOf(ctx, state.LaunchTemplates, &resp.Diagnostics)
	known := map[string]awsclient.LaunchTemplate{}
	for _, lt := range recorded {
		if !lt.ID.IsNull() && !lt.ID.IsUnknown() && !lt.DefaultVersion.IsNull() && !lt.DefaultVersion.IsUnknown() {
			known[lt.Name] = awsclient.LaunchTemplate{ID: lt.ID.ValueString(), Name: lt.Name, DefaultVersion: lt.DefaultVersion.ValueInt64(), Fingerprint: lt.Fingerprint}
		}
	}
	pool := state.Name.ValueString()
	owned, err := r.meta.Client.ReadTemplates(ctx, r.readScope(), r.ownershipTags(pool), known)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the pool's launch templates", err.Error())
		return
	}
	byName := map[string]awsclient.LaunchTemplate{}
	for _, o := range owned {
		byName[o.Name] = o
	}
	kept := make([]launchTemplateTF, 0, len(recorded))
	if state.LaunchTemplates.IsNull() { // after import: adopt what the tags find
		for _, o := range owned {
			kept = append(kept, launchTemplateTF{Name: o.Name, ID: types.StringValue(o.ID), Fingerprint: o.Fingerprint,
				DefaultVersion: types.Int64Value(o.DefaultVersion),
				InstanceTypes:  []string{}, NetworkInterfaces: []interfaceTF{}})
		}
	}
	for _, lt := range recorded {
		o, ok := byName[lt.Name]
		if !ok {
			continue
		}
		lt.ID, lt.Fingerprint, lt.DefaultVersion = types.StringValue(o.ID), o.Fingerprint, types.Int64Value(o.DefaultVersion)
		kept = append(kept, lt)
	}
	state.LaunchTemplates = launchTemplateList(kept)
	if !state.Replicas.IsNull() || !state.Nodes.IsNull() {
		found, err := r.meta.Client.ReadInstances(ctx, r.readScope(), r.ownershipTags(pool))
		if err != nil {
			resp.Diagnostics.AddError("Cannot read the pool's instances", err.Error())
			return
		}
		var d diag.Diagnostics
		state.Nodes, d = types.ListValueFrom(ctx, nodeObjType, nodesFrom(found, stateSubnets(ctx, &state, &resp.Diagnostics)))
		resp.Diagnostics.Append(d...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// stateSubnets rebuilds zone -> planned subnet from the recorded plan, for in_planned_subnet.
func stateSubnets(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) map[string]resolvedSubnet {
	out := map[string]resolvedSubnet{}
	if m.NodeClass.IsNull() || m.NodeClass.IsUnknown() || m.Zones.IsNull() || m.Zones.IsUnknown() {
		return out
	}
	var rc resolvedClass
	diags.Append(m.NodeClass.As(ctx, &rc, basetypes.ObjectAsOptions{})...)
	var zones []zonePlanTF
	diags.Append(m.Zones.ElementsAs(ctx, &zones, false)...)
	chosen := map[string]string{}
	for _, z := range zones {
		chosen[z.Zone] = z.SubnetID
	}
	return subnetsByZone(chosen, rc)
}

func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.terminateAll(ctx, &state, &resp.Diagnostics) // instances first: they use the templates
	if resp.Diagnostics.HasError() {
		return
	}
	lts := awsclient.LaunchTemplates{EC2: r.meta.Client.EC2}
	owned, err := lts.FindByTags(ctx, r.ownershipTags(state.Name.ValueString()), nil)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the pool's launch templates", err.Error())
		return
	}
	var errs []error
	for _, o := range owned {
		errs = append(errs, lts.Delete(ctx, o.ID))
	}
	if err := errors.Join(errs...); err != nil {
		resp.Diagnostics.AddError("Cannot delete the pool's launch templates", err.Error())
	}
}

// ImportState adopts a pool by name: Read finds its launch templates by their ownership tags.
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
