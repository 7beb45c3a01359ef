package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
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

// replaceOnModeSwitch replaces the pool when it switches between static (replicas) and dynamic,
// as Karpenter forbids it.
func replaceOnModeSwitch(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return
	}
	var before, after types.Int64
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("replicas"), &before)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("replicas"), &after)...)
	if !after.IsUnknown() && before.IsNull() != after.IsNull() {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas"))
	}
}

// ownable reports whether the plan may go on as the pool's owner: a new pool's name must be free
// in the cluster, and a state needs an owner id.
func (r *nodePoolResource) ownable(ctx context.Context, plan, state *nodePoolModel, diags *diag.Diagnostics) bool {
	switch {
	case state == nil: // a new pool: its name must be free in the cluster
		r.claimConflict(ctx, plan.Name.ValueString(), true, diags)
		return !diags.HasError()
	case state.OwnerID.ValueString() == "":
		diags.AddAttributeError(path.Root("owner_id"), "Node pool state without an owner id",
			"This pool was applied by a development build before owner ids: the provider cannot tell its EC2 objects from another "+
				"owner's and changes none of them. Delete the pool's launch templates (and static instances) in EC2, run "+
				"`terraform state rm` for this resource, and apply again.")
		return false
	}
	return true
}

// validateStatic runs every rule that needs neither EC2 nor the node class.
func validateStatic(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) {
	addFindings(diags, attrpath.Of("template", "requirements"), requirements.Validate(m.requirements(ctx, diags)), "Invalid requirement", false)
	addFindings(diags, attrpath.Path{}, nodepool.Validate(m.poolSpec()), "Invalid node pool", false)
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
	replaceOnModeSwitch(ctx, req, resp)
	if !poolPlannable(req.Config.Raw) { // e.g. a node class whose selectors resolve only at apply
		setPoolComputedUnknown(ctx, resp)
		return
	}
	lateClass := !req.Config.Raw.IsFullyKnown() // only the class's late values (late_values.go) are unknown
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
	if !admitManifest(r.meta.KarpenterVersion, manifest.NodePoolKind, doc, &resp.Diagnostics) || !r.ownable(ctx, &plan, state, &resp.Diagnostics) {
		return
	}
	p, ok := r.buildPlan(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = plan.Name
	if lateClass && !plan.Replicas.IsNull() { // drift is judged on template content, which waits for the class
		plan.Nodes = types.ListUnknown(nodeObjType)
	} else {
		planNodes(ctx, &plan, state, p, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	// A static pool's nodes are the provider's: there is no NodePool for Karpenter to apply (one
	// with `replicas` would make Karpenter launch as many again). Its manifest is still rendered
	// and admitted above, so what Kubernetes would refuse fails the plan all the same.
	plan.Manifest = types.StringNull()
	if plan.Replicas.IsNull() {
		plan.Manifest = types.StringValue(doc)
	}
	resp.Diagnostics.Append(setPoolPlan(ctx, &plan, state, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, class := poolClass(ctx, plan.NodeClass, &resp.Diagnostics)
	r.planDrift(ctx, &plan, state, doc, class, p, &resp.Diagnostics)
	if lateClass && !plan.LaunchTemplates.IsNull() { // their content names the late values
		plan.LaunchTemplates = types.ListUnknown(launchTemplateObjType)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// poolPlannable reports whether a pool's configuration is known enough to plan: fully, or but
// for the late values of its node class, which no planned number depends on.
func poolPlannable(config tftypes.Value) bool {
	if config.IsFullyKnown() {
		return true
	}
	var attrs map[string]tftypes.Value
	if !config.IsKnown() || config.As(&attrs) != nil {
		return false
	}
	for k, a := range attrs {
		if k == "node_class" {
			if !knownBesides(a, lateResolvedAttrs...) {
				return false
			}
		} else if !a.IsFullyKnown() {
			return false
		}
	}
	return true
}

func setPoolComputedUnknown(ctx context.Context, resp *resource.ModifyPlanResponse) {
	var details types.Bool
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("details"), &details)...)
	detail := func(v attr.Value, null attr.Value) attr.Value {
		if details.ValueBool() || details.IsUnknown() {
			return v
		}
		return null
	}
	set := func(name string, v attr.Value) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
	}
	set("summary", types.ObjectUnknown(poolSummaryAttrTypes))
	set("zones", types.MapUnknown(zonePlanObjType))
	set("instance_types", detail(types.ListUnknown(types.StringType), types.ListNull(types.StringType)))
	set("max_pods", detail(types.MapUnknown(types.Int64Type), types.MapNull(types.Int64Type)))
	set("prices", detail(types.MapUnknown(types.Float64Type), types.MapNull(types.Float64Type)))
	set("workload_fit", types.MapUnknown(workloadFitObjType))
	set("drift", types.ObjectUnknown(driftAttrTypes))
	set("karpenter_assumed_pods", detail(types.MapUnknown(types.Int64Type), types.MapNull(types.Int64Type)))
	set("launch_plan", detail(types.ListUnknown(optionGroupObjType), types.ListNull(optionGroupObjType)))
	set("launch_templates", types.ListUnknown(launchTemplateObjType))
	manifestValue := types.StringUnknown()
	var replicas types.Int64
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("replicas"), &replicas)...)
	if !replicas.IsUnknown() && !replicas.IsNull() {
		manifestValue = types.StringNull() // a static pool has none
	}
	set("manifest", manifestValue)
	set("warnings", types.ListUnknown(types.StringType))
	set("nodes", types.ListUnknown(nodeObjType))
}

// buildPlan runs the planner and reports its problems; ok is false when it failed.
func (r *nodePoolResource) buildPlan(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (launchplan.Plan, bool) {
	_, class := poolClass(ctx, m.NodeClass, diags)
	if diags.HasError() {
		return launchplan.Plan{}, false
	}
	cat, err := r.meta.Client.Catalog(ctx)
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return launchplan.Plan{}, false
	}
	p, errs := launchplan.Build(launchplan.Input{
		PoolName: m.Name.ValueString(), ClusterName: r.meta.ClusterName, OwnerID: m.OwnerID.ValueString(), Bootstrap: r.meta.Bootstrap, Region: r.meta.Client.Region,
		Class: class, Requirements: m.requirements(ctx, diags), Limits: tagsFromMap(m.Limits),
		Replicas: intPtr(m.Replicas), Catalog: cat, Prices: r.meta.Client.Prices(ctx),
		MinValuesBestEffort: m.MinValuesPolicy.ValueString() == "BestEffort", Workloads: m.workloads(),
	})
	addFindings(diags, attrpath.Path{}, errs, "Node pool cannot launch nodes", false)
	addFindings(diags, attrpath.Path{}, p.Warnings, "Node pool warning", true)
	return p, !diags.HasError()
}

// setPoolPlan writes the planner's result into the model (the manifest is set by the caller,
// which validated it). A static pool's template ids come from state when the template is already
// known there; a dynamic pool's templates are only planned (Karpenter builds its own from the
// EC2NodeClass), so they are shown only with `details`, with null id and default version.
// Per-type detail (every eligible type, max pods per type, the launch options, template content)
// is null unless the pool sets `details`: `summary` and `zones` carry what a reviewer reads.
func setPoolPlan(ctx context.Context, m *nodePoolModel, state *nodePoolModel, p launchplan.Plan) diag.Diagnostics {
	var diags diag.Diagnostics
	details := m.Details.ValueBool()
	known := map[string]launchTemplateTF{}
	if state != nil {
		for _, lt := range launchTemplatesOf(ctx, state.LaunchTemplates, &diags) {
			known[lt.Name] = lt
		}
	}
	summary, d := types.ObjectValueFrom(ctx, poolSummaryAttrTypes, summaryOf(p))
	diags.Append(d...)
	m.Summary = summary
	m.Zones = zonesValue(p)
	m.WorkloadFit = workloadFitValue(ctx, p, &diags)

	m.InstanceTypes, m.MaxPods, m.KarpenterPods = types.ListNull(types.StringType), types.MapNull(types.Int64Type), types.MapNull(types.Int64Type)
	m.Prices = types.MapNull(types.Float64Type)
	m.LaunchPlan = types.ListNull(optionGroupObjType)
	if details {
		names := make([]string, 0, len(p.InstanceTypes))
		maxPods := make(map[string]int64, len(p.InstanceTypes))
		prices := make(map[string]attr.Value, len(p.InstanceTypes))
		assumed := map[string]int64{}
		for _, t := range p.InstanceTypes {
			names = append(names, t.Name)
			prices[t.Name] = types.Float64Value(t.Price)
			maxPods[t.Name] = int64(t.MaxPods)
			if t.KarpenterAssumedPods != t.MaxPods {
				assumed[t.Name] = int64(t.KarpenterAssumedPods)
			}
		}
		m.InstanceTypes, m.MaxPods, m.KarpenterPods = stringListValue(names), int64MapValue(maxPods), int64MapValue(assumed)
		m.LaunchPlan = optionGroupList(groupOptions(p.LaunchPlan))
		m.Prices = types.MapValueMust(types.Float64Type, prices)
	}

	m.LaunchTemplates = types.ListNull(launchTemplateObjType)
	if static := !m.Replicas.IsNull(); static || details {
		lts := make([]launchTemplateTF, 0, len(p.LaunchTemplates))
		for _, lt := range p.LaunchTemplates {
			t := launchTemplateTFFrom(lt, details)
			if !static {
				t.ID, t.DefaultVersion = types.StringNull(), types.Int64Null()
			} else if prev, ok := known[lt.Name]; ok && !prev.ID.IsNull() && prev.ID.ValueString() != "" {
				t.ID = prev.ID // same template; a content change writes a new version under the same id
				if prev.Fingerprint == t.Fingerprint {
					t.DefaultVersion = prev.DefaultVersion
				}
			}
			lts = append(lts, t)
		}
		m.LaunchTemplates = launchTemplateList(lts)
	}
	warnings := make([]string, 0, len(p.Warnings))
	for _, w := range p.Warnings {
		if !w.Path.IsEmpty() {
			warnings = append(warnings, w.Path.String()+": "+w.Message)
		} else {
			warnings = append(warnings, w.Message)
		}
	}
	m.Warnings = stringListValue(warnings)
	return diags
}

// firstTypesShown is how many instance types `summary.first_instance_types` names.
const firstTypesShown = 5

// summaryOf condenses a plan into `summary`.
func summaryOf(p launchplan.Plan) poolSummaryTF {
	s := poolSummaryTF{InstanceTypes: int64(len(p.InstanceTypes)), LaunchTemplates: int64(len(p.LaunchTemplates)), NodesByIPs: int64(p.NodesByIPs),
		Cost: p.Cost.String(), Prices: p.PriceSource}
	byName := make(map[string]*launchplan.TypePlan, len(p.InstanceTypes))
	for i := range p.InstanceTypes {
		byName[p.InstanceTypes[i].Name] = &p.InstanceTypes[i]
	}
	names := make([]string, 0, firstTypesShown)
	for _, name := range p.LaunchTypes[:min(firstTypesShown, len(p.LaunchTypes))] {
		if t := byName[name]; t != nil {
			names = append(names, fmt.Sprintf("%s %s %s", t.Name, launchplan.FormatPrice(t.Price), t.PriceCapacityType))
		}
	}
	for i, t := range p.InstanceTypes {
		if i == 0 || int64(t.MaxPods) < s.MaxPodsMin {
			s.MaxPodsMin = int64(t.MaxPods)
		}
		if int64(t.MaxPods) > s.MaxPodsMax {
			s.MaxPodsMax = int64(t.MaxPods)
		}
		if t.KarpenterAssumedPods != t.MaxPods {
			s.KarpenterDisagrees++
		}
	}
	s.FirstInstanceTypes = strings.Join(names, ", ")
	if more := len(p.LaunchTypes) - len(names); more > 0 {
		s.FirstInstanceTypes += fmt.Sprintf(" and %d more", more)
	}
	if len(names) > 0 {
		s.FirstInstanceTypes += " (USD/h)"
	}
	if p.NodesByLimits >= 0 {
		n := int64(p.NodesByLimits)
		s.NodesByLimits = &n
	}
	return s
}

// firstTypeNames are the type names of `summary.first_instance_types`, without their prices:
// what apply compares with its own plan, since a price may move between plan and apply while
// the launch stays the same.
func firstTypeNames(first string) []string {
	first = strings.TrimSuffix(first, " (USD/h)")
	first, _, _ = strings.Cut(first, " and ")
	var out []string
	for _, part := range strings.Split(first, ", ") {
		if name, _, _ := strings.Cut(part, " "); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// zonesValue is `zones`: per pool zone, the subnet Karpenter would pick and the nodes it holds.
func zonesValue(p launchplan.Plan) types.Map {
	byIPs := map[string]int{}
	for _, c := range p.Capacity {
		byIPs[c.Zone] = c.NodesByIPs
	}
	elems := make(map[string]attr.Value, len(p.Zones))
	for _, z := range p.Zones {
		elems[z.Zone] = types.ObjectValueMust(zonePlanObjType.AttrTypes, map[string]attr.Value{
			"subnet_id": types.StringValue(z.SubnetID), "nodes_by_ips": types.Int64Value(int64(byIPs[z.Zone])),
			"pod_subnet_id": types.StringPointerValue(emptyNil(z.PodSubnetID)),
		})
	}
	return types.MapValueMust(zonePlanObjType, elems)
}

func launchTemplateTFFrom(lt launchplan.LaunchTemplate, details bool) launchTemplateTF {
	t := launchTemplateTF{Name: lt.Name, ID: types.StringUnknown(), DefaultVersion: types.Int64Unknown(), ImageID: emptyNil(lt.ImageID), MaxPods: int64(lt.MaxPods),
		InstanceTypeCount: int64(len(lt.InstanceTypes)), Fingerprint: awsclient.Fingerprint(lt)}
	if !details {
		return t
	}
	t.InstanceTypes, t.UserData, t.NetworkInterfaces = nonNil(lt.InstanceTypes), &lt.UserData, []interfaceTF{}
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

// readScope, poolTags and ownership are fleet's ownership policy for this provider's cluster.
func (r *nodePoolResource) readScope() map[string]string { return fleet.ReadScope(r.meta.ClusterName) }

func (r *nodePoolResource) poolTags(pool string) map[string]string {
	return fleet.PoolTags(r.meta.ClusterName, pool)
}

func (r *nodePoolResource) ownership(pool, owner string) fleet.Ownership {
	return fleet.OwnershipOf(r.meta.ClusterName, pool, owner)
}

func (r *nodePoolResource) stage() fleet.Stage {
	return fleet.Stage{Templates: awsclient.LaunchTemplates{EC2: r.meta.Client.EC2}, Instances: awsclient.Instances{EC2: r.meta.Client.EC2},
		AfterLaunch: r.meta.AfterLaunch}
}

// apply makes EC2 hold exactly the planned templates and `replicas` nodes of a static pool. A
// dynamic pool holds no EC2 objects: its apply only deletes templates its owner created before
// (provider versions that created templates for dynamic pools too).
// A new pool gets its owner id here, before the first mutating call, after checking that no
// other owner holds the pool name; a pool whose name another owner takes in the meantime fails
// on its first template (names are unique per region) and removes what it created.
// It reports aborted when a test hook simulated a crash: nothing may then be saved.
func (r *nodePoolResource) apply(ctx context.Context, m *nodePoolModel, creating bool, wait time.Duration, diags *diag.Diagnostics) (aborted bool) {
	pool := m.Name.ValueString()
	if creating {
		if r.claimConflict(ctx, pool, false, diags); diags.HasError() {
			return false
		}
		m.OwnerID = types.StringValue(fleet.NewOwnerID())
		if r.meta.BeforeClaim != nil {
			r.meta.BeforeClaim(pool)
		}
	}
	p, ok := r.buildPlan(ctx, m, diags)
	if !ok || !samePlan(ctx, m, p, diags) {
		return false
	}
	own := r.ownership(pool, m.OwnerID.ValueString())
	st := r.stage()
	if m.Replicas.IsNull() {
		m.Nodes = types.ListNull(nodeObjType)
		if !creating { // a new owner id owns nothing yet
			if err := st.DeleteTemplates(ctx, own); err != nil {
				addStageError(diags, err) // Read finds what is left, and the next plan deletes it again
			}
		}
		return false
	}
	ensured, err := st.EnsureTemplates(ctx, own, p.LaunchTemplates)
	if err != nil {
		addStageError(diags, err)
		if creating {
			// Nothing of this new owner may stay behind: its state will not be saved.
			if derr := st.DeleteTemplates(ctx, own); derr != nil {
				addStageError(diags, derr)
			}
			m.OwnerID = types.StringNull()
		}
		return false
	}
	cur := launchTemplatesOf(ctx, m.LaunchTemplates, diags)
	for i := range cur {
		if got, ok := ensured[cur[i].Name]; ok {
			cur[i].ID = types.StringValue(got.ID)
			cur[i].DefaultVersion = types.Int64Value(got.DefaultVersion)
		}
	}
	m.LaunchTemplates = launchTemplateList(cur)

	rc, class := poolClass(ctx, m.NodeClass, diags)
	ipsPerType := map[string]int{}
	for _, t := range p.InstanceTypes {
		ipsPerType[t.Name] = t.VPCIPsAtMaxPods
	}
	zones := make([]string, len(p.Zones))
	for i, z := range p.Zones {
		zones[i] = z.Zone
	}
	res := st.Reconcile(ctx, fleet.Pool{
		Name: pool, Replicas: int(m.Replicas.ValueInt64()), Own: own, Zones: zones, LaunchPlan: p.LaunchPlan,
		Subnets: class.Subnets, IPsPerType: ipsPerType, CapacityType: capacityTypeOf(p),
		Tags: rc.Tags, Templates: ensured, Wait: wait,
	})
	for _, e := range res.Errors {
		addStageError(diags, e)
	}
	var d diag.Diagnostics
	m.Nodes, d = types.ListValueFrom(ctx, nodeObjType, nodesFrom(res.Live, plannedSubnets(p)))
	diags.Append(d...)
	return res.Aborted
}

// addStageError reports an apply-stage failure; failures to reach replicas sit on `replicas`.
func addStageError(diags *diag.Diagnostics, err error) {
	var e fleet.Error
	switch {
	case errors.As(err, &e) && e.OnReplicas:
		diags.AddAttributeError(path.Root("replicas"), e.Summary, e.Detail)
	case errors.As(err, &e):
		diags.AddError(e.Summary, e.Detail)
	default:
		diags.AddError("Apply failed", err.Error())
	}
}

// samePlan fails the apply when the planner, run again at apply, no longer gives what the plan
// showed (the catalog moved between plan and apply): the summary, the template names and
// fingerprints, and with `details` the instance types. Apply executes what the plan showed, or
// nothing.
func samePlan(ctx context.Context, m *nodePoolModel, p launchplan.Plan, diags *diag.Diagnostics) bool {
	if m.Summary.IsUnknown() || m.LaunchTemplates.IsUnknown() {
		return true // planned while the node class was unknown: this is the plan
	}
	var planned poolSummaryTF
	diags.Append(m.Summary.As(ctx, &planned, basetypes.ObjectAsOptions{})...)
	now := summaryOf(p)
	same := planned.InstanceTypes == now.InstanceTypes && slices.Equal(firstTypeNames(planned.FirstInstanceTypes), firstTypeNames(now.FirstInstanceTypes)) &&
		planned.MaxPodsMin == now.MaxPodsMin && planned.MaxPodsMax == now.MaxPodsMax && planned.LaunchTemplates == now.LaunchTemplates
	if !m.InstanceTypes.IsNull() && !m.InstanceTypes.IsUnknown() {
		var types []string
		diags.Append(m.InstanceTypes.ElementsAs(ctx, &types, false)...)
		names := make([]string, len(p.InstanceTypes))
		for i, t := range p.InstanceTypes {
			names[i] = t.Name
		}
		same = same && slices.Equal(types, names)
	}
	if lts := launchTemplatesOf(ctx, m.LaunchTemplates, diags); lts != nil {
		plannedFP := map[string]string{}
		for _, lt := range lts {
			plannedFP[lt.Name] = lt.Fingerprint
		}
		same = same && maps.Equal(plannedFP, plannedFingerprints(p))
	}
	if same {
		return true
	}
	diags.AddError("The plan no longer holds",
		fmt.Sprintf("Planning the pool again at apply gives other instance types or launch templates than the plan showed (%d types "+
			"planned, %d now; first types planned: %s; now: %s): the instance-type catalog or the node class changed between plan and apply. "+
			"Nothing was changed in EC2; run terraform plan again.", planned.InstanceTypes, now.InstanceTypes, planned.FirstInstanceTypes, now.FirstInstanceTypes))
	return false
}

// templatesByOwner lists the launch templates of a pool name in this cluster, by owner id (""
// for templates without one). Without cluster_name, templates tagged with a cluster are another
// cluster's pool of the same name and left out. A plan reads the walk's shared listing
// (shared); apply and import list afresh.
func (r *nodePoolResource) templatesByOwner(ctx context.Context, pool string, shared bool) (map[string][]awsclient.LaunchTemplate, error) {
	scope := r.readScope()
	if !shared {
		scope = nil
	}
	listed, err := r.meta.Client.ListTemplates(ctx, scope, r.poolTags(pool))
	if err != nil {
		return nil, err
	}
	out := map[string][]awsclient.LaunchTemplate{}
	for _, lt := range listed {
		if r.meta.ClusterName == "" && lt.Tags[launchplan.TagCluster] != "" {
			continue
		}
		out[lt.Tags[launchplan.TagOwner]] = append(out[lt.Tags[launchplan.TagOwner]], lt)
	}
	return out, nil
}

// claimConflict reports, as an error on `name`, templates of this pool name in this cluster that
// carry an owner id: a new pool has none yet, so every owner there is another. (Templates
// without one, from earlier development builds, surface at apply: Ensure refuses them.) It runs
// for dynamic pools too: they hold no templates themselves, but another owner's static pool (or
// a dynamic pool of an earlier provider version) of the name still has some. Two dynamic pools
// of one name leave nothing in EC2 to meet on; their NodePool object in the cluster is shared.
func (r *nodePoolResource) claimConflict(ctx context.Context, pool string, shared bool, diags *diag.Diagnostics) {
	others, err := r.templatesByOwner(ctx, pool, shared)
	if err != nil {
		diags.AddError("Cannot list the pool's launch templates", err.Error())
		return
	}
	delete(others, "")
	for _, o := range slices.Sorted(maps.Keys(others)) {
		names := make([]string, len(others[o]))
		for i, lt := range others[o] {
			names[i] = fmt.Sprintf("%s (%s)", lt.Name, lt.ID)
		}
		who, id := "owner "+o, pool+"/"+o
		diags.AddAttributeError(path.Root("name"), "Node pool name already taken",
			fmt.Sprintf("node pool %q%s already has EC2 objects of %s: launch templates %s. Another Terraform state (or an apply that "+
				"was interrupted before it saved state) holds this pool; this configuration would share its templates and nodes. "+
				"To run a separate pool, give it another name. To take these objects over on purpose, import them: "+
				"`terraform import <address> %s` (or an `import { id = %q }` block).",
				pool, clusterSuffix(r.meta.ClusterName), who, strings.Join(names, ", "), id, id))
	}
}

func clusterSuffix(cluster string) string {
	if cluster == "" {
		return " (no cluster)"
	}
	return " in cluster " + cluster
}

// planNodes decides the planned `nodes`: unchanged while the live nodes already match
// `replicas`, unknown when apply will launch or terminate.
func planNodes(ctx context.Context, plan, state *nodePoolModel, p launchplan.Plan, diags *diag.Diagnostics) {
	if plan.Replicas.IsNull() {
		plan.Nodes = types.ListNull(nodeObjType)
		return
	}
	rc, _ := poolClass(ctx, plan.NodeClass, diags)
	plan.Nodes = types.ListUnknown(nodeObjType)
	if state == nil || state.Nodes.IsNull() || state.Nodes.IsUnknown() {
		return
	}
	var nodes []nodeTF
	diags.Append(state.Nodes.ElementsAs(ctx, &nodes, false)...)
	zones := make([]string, len(p.Zones))
	for i, z := range p.Zones {
		zones[i] = z.Zone
	}
	fingerprints := plannedFingerprints(p)
	classSubnets := map[string]bool{}
	for id := range rc.Subnets {
		classSubnets[id] = true
	}
	planned := plannedSubnets(p)
	var drifted, outside []string
	for i, n := range nodes {
		v := fleet.Classify(n.Zone, n.SubnetID, launchplan.TemplateStamp{Template: n.LaunchTemplate, Fingerprint: n.TemplateFingerprint},
			fingerprints, zones, classSubnets)
		if v.Outside {
			outside = append(outside, fmt.Sprintf("%s (%s, %s)", n.InstanceID, n.Zone, n.SubnetID))
			continue
		}
		nodes[i].InPlannedSubnet = n.SubnetID == planned[n.Zone] // the planned subnet may have changed since
		n = nodes[i]
		if !n.InPlannedSubnet {
			diags.AddAttributeWarning(path.Root("nodes"), "Node outside its planned subnet",
				fmt.Sprintf("nodes: %s runs in %s, not in %s, the subnet planned for %s", n.InstanceID, n.SubnetID, planned[n.Zone], n.Zone))
		}
		if v.Drifted {
			drifted = append(drifted, fmt.Sprintf("%s (%s)", n.InstanceID, n.LaunchTemplate))
		}
	}
	if len(outside) > 0 {
		diags.AddAttributeWarning(path.Root("nodes"), "Nodes outside the node class will be replaced",
			fmt.Sprintf("nodes: %d node(s) run in a zone or subnet the node class no longer selects: %s. Apply launches replacements in the "+
				"planned zones and terminates these once the replacements run.", len(outside), strings.Join(outside, ", ")))
		return
	}
	if len(drifted) > 0 {
		diags.AddAttributeWarning(path.Root("nodes"), "Drifted nodes will be replaced",
			fmt.Sprintf("nodes: %d node(s) run launch-template content the plan changes: %s. Apply launches replacements with the new "+
				"template and terminates these once the replacements run, as Karpenter replaces drifted static capacity.", len(drifted), strings.Join(drifted, ", ")))
		return
	}
	if int64(len(nodes)) == plan.Replicas.ValueInt64() {
		var d diag.Diagnostics
		plan.Nodes, d = types.ListValueFrom(ctx, nodeObjType, nodes)
		diags.Append(d...)
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
	if r.apply(ctx, &plan, true, wait, &resp.Diagnostics) {
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
	var kept []launchTemplateTF
	if !m.LaunchTemplates.IsNull() { // null: a dynamic pool without `details`
		for _, lt := range launchTemplatesOf(ctx, m.LaunchTemplates, diags) {
			if !lt.ID.IsUnknown() {
				kept = append(kept, lt)
			}
		}
		m.LaunchTemplates = launchTemplateList(kept)
	}
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
	if r.apply(ctx, &plan, false, wait, &resp.Diagnostics) {
		return
	}
	r.saveApplied(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// Read reconciles the recorded templates with EC2. Static pool: a deleted one drops out and a
// changed one shows its real fingerprint, so the next plan restores it. Dynamic pool: its planned
// templates are not in EC2 (null ids) and stay as recorded; a template its owner still holds
// there (written by an earlier provider version, or left by a failed delete) is recorded with
// its id, so the next plan shows it and apply deletes it.
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
	own := r.ownership(pool, state.OwnerID.ValueString())
	owned, err := r.meta.Client.ReadTemplates(ctx, r.readScope(), own, known)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the pool's launch templates", err.Error())
		return
	}
	byName := map[string]awsclient.LaunchTemplate{}
	for _, o := range owned {
		byName[o.Name] = o
	}
	dynamic := state.Replicas.IsNull()
	kept := make([]launchTemplateTF, 0, len(recorded))
	matched := map[string]bool{}
	for _, lt := range recorded {
		o, ok := byName[lt.Name]
		switch {
		case ok:
			lt.ID, lt.Fingerprint, lt.DefaultVersion = types.StringValue(o.ID), o.Fingerprint, types.Int64Value(o.DefaultVersion)
			matched[o.Name] = true
		case dynamic: // planned only: not in EC2 is what it should be
			lt.ID, lt.DefaultVersion = types.StringNull(), types.Int64Null()
		default:
			continue
		}
		kept = append(kept, lt)
	}
	if state.LaunchTemplates.IsNull() || dynamic { // after import, or a dynamic pool's leftovers: adopt what the tags find
		for _, o := range owned {
			if !matched[o.Name] {
				kept = append(kept, launchTemplateTF{Name: o.Name, ID: types.StringValue(o.ID), Fingerprint: o.Fingerprint,
					DefaultVersion: types.Int64Value(o.DefaultVersion)})
			}
		}
	}
	if len(kept) > 0 || !state.LaunchTemplates.IsNull() { // null stays null: a dynamic pool without `details` lists none
		state.LaunchTemplates = launchTemplateList(kept)
	}
	if !state.Replicas.IsNull() || !state.Nodes.IsNull() {
		found, err := r.meta.Client.ReadInstances(ctx, r.readScope(), own)
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
func stateSubnets(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	if m.Zones.IsNull() || m.Zones.IsUnknown() {
		return out
	}
	zones := map[string]zonePlanTF{}
	diags.Append(m.Zones.ElementsAs(ctx, &zones, false)...)
	for zone, z := range zones {
		out[zone] = z.SubnetID
	}
	return out
}

// Delete terminates the pool's own instances (they use the templates), then deletes its own
// templates: objects of another owner are never listed. A dynamic pool has neither, unless its
// owner's templates from an earlier provider version are left.
func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	if state.OwnerID.ValueString() == "" {
		resp.Diagnostics.AddWarning("Node pool without an owner id",
			"This state was written before owner ids: nothing is deleted in EC2 (the provider cannot tell its objects from another owner's). "+
				"Delete the pool's launch templates and instances yourself if they are no longer used.")
		return
	}
	own := r.ownership(state.Name.ValueString(), state.OwnerID.ValueString())
	wait, d := state.Timeouts.Delete(ctx, defaultTerminateTimeout)
	resp.Diagnostics.Append(d...)
	st := r.stage()
	if err := st.TerminateAll(ctx, own, wait); err != nil {
		addStageError(&resp.Diagnostics, err)
		return
	}
	if err := st.DeleteTemplates(ctx, own); err != nil {
		addStageError(&resp.Diagnostics, err)
	}
}

// ImportState adopts a pool: `<name>` when exactly one owner holds that pool name in the
// cluster, `<name>/<owner id>` to pick one. Read then finds the owner's launch templates (and
// instances: a pool with live instances is imported as static with replicas = their count, so
// the next plan does not replace it). A dynamic pool holds no EC2 objects, so a `<name>` nobody
// holds is imported as a dynamic pool with a new owner id (with a warning); the next plan fills
// in the rest from the configuration. A `<name>/<owner id>` without objects fails.
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	pool, owner, _ := strings.Cut(req.ID, "/")
	owners, err := r.templatesByOwner(ctx, pool, false)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the pool's launch templates", err.Error())
		return
	}
	delete(owners, "") // written before owner ids: nobody's to adopt
	switch {
	case owner != "" && len(owners[owner]) == 0:
		resp.Diagnostics.AddError("Node pool not found", fmt.Sprintf("no launch template of node pool %q%s has owner id %q (owners found: %s).",
			pool, clusterSuffix(r.meta.ClusterName), owner, ownerList(owners)))
		return
	case owner == "" && len(owners) == 0:
		resp.Diagnostics.AddWarning("Node pool imported as a dynamic pool", fmt.Sprintf("no EC2 object of node pool %q%s carries the provider's "+
			"ownership tags. A dynamic pool has none (Karpenter launches its nodes), so it is imported as one, with a new owner id; the next "+
			"plan fills it in from the configuration. A static pool (`replicas`) has launch templates: if you meant one, check the name and "+
			"the provider's cluster_name, as the next plan would replace it.", pool, clusterSuffix(r.meta.ClusterName)))
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), pool)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), pool)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner_id"), fleet.NewOwnerID())...)
		return
	case owner == "" && len(owners) > 1:
		resp.Diagnostics.AddError("Node pool held by several owners", fmt.Sprintf("node pool %q%s has launch templates of owners %s: import one as <name>/<owner id>.",
			pool, clusterSuffix(r.meta.ClusterName), ownerList(owners)))
		return
	case owner == "":
		owner = slices.Collect(maps.Keys(owners))[0]
	}
	found, err := awsclient.Instances{EC2: r.meta.Client.EC2}.FindByTags(ctx, r.ownership(pool, owner))
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the pool's instances", err.Error())
		return
	}
	live := 0
	for _, i := range found {
		if i.Live() {
			live++
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), pool)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), pool)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner_id"), owner)...)
	if live > 0 {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("replicas"), int64(live))...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("nodes"), types.ListValueMust(nodeObjType, nil))...)
	}
}

func ownerList(owners map[string][]awsclient.LaunchTemplate) string {
	if len(owners) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(owners)), ", ")
}
