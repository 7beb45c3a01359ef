package provider

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

type nodePoolModel struct {
	ID         types.String     `tfsdk:"id"`
	Name       types.String     `tfsdk:"name"`
	NodeClass  types.Object     `tfsdk:"node_class"`
	Template   *poolTemplate    `tfsdk:"template"`
	Limits     types.Map        `tfsdk:"limits"`
	Disruption *disruptionModel `tfsdk:"disruption"`
	Weight     types.Int64      `tfsdk:"weight"`
	Replicas   types.Int64      `tfsdk:"replicas"`

	Details         types.Bool               `tfsdk:"details"`
	MinValuesPolicy types.String             `tfsdk:"min_values_policy"`
	Workloads       map[string]workloadModel `tfsdk:"workloads"`
	WorkloadFit     types.Map                `tfsdk:"workload_fit"`
	Drift           types.Object             `tfsdk:"drift"`

	Summary         types.Object   `tfsdk:"summary"`
	Zones           types.Map      `tfsdk:"zones"`
	InstanceTypes   types.List     `tfsdk:"instance_types"`
	Prices          types.Map      `tfsdk:"prices"`
	MaxPods         types.Map      `tfsdk:"max_pods"`
	KarpenterPods   types.Map      `tfsdk:"karpenter_assumed_pods"`
	LaunchPlan      types.List     `tfsdk:"launch_plan"`
	LaunchTemplates types.List     `tfsdk:"launch_templates"`
	Manifest        types.String   `tfsdk:"manifest"`
	Warnings        types.List     `tfsdk:"warnings"`
	Nodes           types.List     `tfsdk:"nodes"`
	OwnerID         types.String   `tfsdk:"owner_id"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

// planned are the attributes a plan computes (ModifyPlan writes only these).
func (m *nodePoolModel) planned() map[string]attr.Value {
	return map[string]attr.Value{
		"id": m.ID, "summary": m.Summary, "zones": m.Zones, "instance_types": m.InstanceTypes, "prices": m.Prices, "max_pods": m.MaxPods,
		"karpenter_assumed_pods": m.KarpenterPods, "launch_plan": m.LaunchPlan, "launch_templates": m.LaunchTemplates, "manifest": m.Manifest,
		"warnings": m.Warnings, "nodes": m.Nodes, "workload_fit": m.WorkloadFit, "drift": m.Drift,
	}
}

type poolTemplate struct {
	Labels                 types.Map          `tfsdk:"labels"`
	Annotations            types.Map          `tfsdk:"annotations"`
	Taints                 []taintModel       `tfsdk:"taints"`
	StartupTaints          []taintModel       `tfsdk:"startup_taints"`
	Requirements           []requirementModel `tfsdk:"requirements"`
	ExpireAfter            types.String       `tfsdk:"expire_after"`
	TerminationGracePeriod types.String       `tfsdk:"termination_grace_period"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

type requirementModel struct {
	Key       types.String `tfsdk:"key"`
	Operator  types.String `tfsdk:"operator"`
	Values    types.List   `tfsdk:"values"`
	MinValues types.Int64  `tfsdk:"min_values"`
}

type disruptionModel struct {
	ConsolidationPolicy types.String `tfsdk:"consolidation_policy"`
	ConsolidateAfter    types.String `tfsdk:"consolidate_after"`
	Budgets             []budgetTF   `tfsdk:"budgets"`
}

// driftTF is `drift`.
type driftTF struct {
	NodePoolHash  *string  `tfsdk:"nodepool_hash"`
	NodeClassHash *string  `tfsdk:"nodeclass_hash"`
	Verdict       *string  `tfsdk:"verdict"` // null for a new pool: no nodes yet
	Reasons       []string `tfsdk:"reasons"`
	Pace          *string  `tfsdk:"pace"`
}

var driftAttrTypes = attrTypesOf(driftTF{})

// workloadModel is one `workloads` entry.
type workloadModel struct {
	CPU            types.String `tfsdk:"cpu"`
	Memory         types.String `tfsdk:"memory"`
	Replicas       types.Int64  `tfsdk:"replicas"`
	MaxPodsPerNode types.Int64  `tfsdk:"max_pods_per_node"`
	DaemonSetPods  types.Int64  `tfsdk:"daemonset_pods"`
}

// defaultDaemonSetPods are aws-node and kube-proxy, which every EKS node runs.
const defaultDaemonSetPods = 2

// workloads are the pool's `workloads` for the planner; unknown values read as zero, which the
// plan after apply corrects.
func (m *nodePoolModel) workloads() map[string]workloadfit.Workload {
	if len(m.Workloads) == 0 {
		return nil
	}
	out := make(map[string]workloadfit.Workload, len(m.Workloads))
	for name, w := range m.Workloads {
		ds := defaultDaemonSetPods
		if !w.DaemonSetPods.IsNull() && !w.DaemonSetPods.IsUnknown() {
			ds = int(w.DaemonSetPods.ValueInt64())
		}
		out[name] = workloadfit.Workload{CPU: w.CPU.ValueString(), Memory: w.Memory.ValueString(), Replicas: int(w.Replicas.ValueInt64()),
			MaxPodsPerNode: int(w.MaxPodsPerNode.ValueInt64()), DaemonSetPods: ds}
	}
	return out
}

// workloadFitTF is one `workload_fit` entry.
type workloadFitTF struct {
	Fits         bool    `tfsdk:"fits"`
	Summary      string  `tfsdk:"summary"`
	InstanceType string  `tfsdk:"instance_type"`
	CapacityType string  `tfsdk:"capacity_type"`
	PodsPerNode  int64   `tfsdk:"pods_per_node"`
	BoundBy      string  `tfsdk:"bound_by"`
	Nodes        int64   `tfsdk:"nodes"`
	HourlyCost   float64 `tfsdk:"hourly_cost"`
	Binding      string  `tfsdk:"binding"`
}

var workloadFitObjType = types.ObjectType{AttrTypes: attrTypesOf(workloadFitTF{})}

// workloadFitValue is `workload_fit`: null without workloads.
func workloadFitValue(ctx context.Context, p launchplan.Plan, diags *diag.Diagnostics) types.Map {
	if p.Workloads == nil {
		return types.MapNull(workloadFitObjType)
	}
	out := make(map[string]workloadFitTF, len(p.Workloads))
	for name, r := range p.Workloads {
		out[name] = workloadFitTF{Fits: r.Fits, Summary: r.Summary, InstanceType: r.Type, CapacityType: r.CapacityType,
			PodsPerNode: int64(r.PodsPerNode), BoundBy: r.BoundBy, Nodes: int64(r.Nodes), HourlyCost: r.HourlyCost, Binding: r.Binding}
	}
	v, d := types.MapValueFrom(ctx, workloadFitObjType, out)
	diags.Append(d...)
	return v
}

// Computed element shapes; their Go form defines their Terraform type.

var poolSummaryAttrTypes = attrTypesOf(launchplan.Summary{})

// zonePlanTF is one entry of `zones`, keyed by zone.
type zonePlanTF struct {
	SubnetID    string  `tfsdk:"subnet_id"`
	NodesByIPs  int64   `tfsdk:"nodes_by_ips"`
	PodSubnetID *string `tfsdk:"pod_subnet_id"`
}

var zonePlanObjType = types.ObjectType{AttrTypes: attrTypesOf(zonePlanTF{})}

// optionGroupTF is the launch options of one (zone, capacity type).
type optionGroupTF struct {
	Zone          string   `tfsdk:"zone"`
	SubnetID      string   `tfsdk:"subnet_id"`
	CapacityType  string   `tfsdk:"capacity_type"`
	InstanceTypes []string `tfsdk:"instance_types"`
}

type interfaceTF struct {
	NetworkCardIndex         int64    `tfsdk:"network_card_index"`
	DeviceIndex              int64    `tfsdk:"device_index"`
	InterfaceType            string   `tfsdk:"interface_type"`
	SecurityGroupIDs         []string `tfsdk:"security_group_ids"`
	AssociatePublicIPAddress *bool    `tfsdk:"associate_public_ip_address"`
	IPv4PrefixCount          *int64   `tfsdk:"ipv4_prefix_count"`
}

// launchTemplateTF has ID as a framework type: unknown in a plan until EC2 assigns it. The
// instance types, interfaces and user data are null unless the pool sets `details`.
type launchTemplateTF struct {
	Name              string        `tfsdk:"name"`
	ID                types.String  `tfsdk:"id"`
	DefaultVersion    types.Int64   `tfsdk:"default_version"`
	ImageID           *string       `tfsdk:"image_id"`
	MaxPods           int64         `tfsdk:"max_pods"`
	InstanceTypeCount int64         `tfsdk:"instance_type_count"`
	InstanceTypes     []string      `tfsdk:"instance_types"`
	NetworkInterfaces []interfaceTF `tfsdk:"network_interfaces"`
	UserData          *string       `tfsdk:"user_data"`
	Fingerprint       string        `tfsdk:"fingerprint"`
}

var launchTemplateObjType = func() types.ObjectType {
	t := attrTypesOf(launchTemplateTF{})
	t["id"] = types.StringType
	t["default_version"] = types.Int64Type
	return types.ObjectType{AttrTypes: t}
}()

func (m *nodePoolModel) requirements(ctx context.Context, diags *diag.Diagnostics) []requirements.Requirement {
	if m.Template == nil {
		return nil
	}
	out := make([]requirements.Requirement, len(m.Template.Requirements))
	for i, r := range m.Template.Requirements {
		out[i] = requirements.Requirement{
			Key: r.Key.ValueString(), Operator: requirements.Operator(r.Operator.ValueString()),
			Values: stringList(ctx, r.Values, diags), MinValues: intPtr(r.MinValues),
		}
	}
	return out
}

func (m *nodePoolModel) poolSpec() nodepool.Spec {
	s := nodepool.Spec{
		Name: m.Name.ValueString(), Limits: tagsFromMap(m.Limits),
		Weight: intPtr(m.Weight), Replicas: intPtr(m.Replicas),
		ConsolidationPolicy: nodepool.PolicyWhenEmptyOrUnderutilized, ConsolidateAfter: "0s",
	}
	if t := m.Template; t != nil {
		s.Labels = tagsFromMap(t.Labels)
		s.ExpireAfter, s.TerminationGracePeriod = t.ExpireAfter.ValueString(), t.TerminationGracePeriod.ValueString()
	}
	if d := m.Disruption; d != nil {
		s.ConsolidationPolicy, s.ConsolidateAfter = d.ConsolidationPolicy.ValueString(), d.ConsolidateAfter.ValueString()
		for _, b := range d.Budgets {
			s.Budgets = append(s.Budgets, nodepool.Budget{Nodes: deref(b.Nodes), Reasons: b.Reasons, Schedule: deref(b.Schedule), Duration: deref(b.Duration)})
		}
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// classCache keeps the last node class value converted in this process, with its conversion:
// the pools of one class (in most configurations all of them) read `node_class` once instead of
// once each, which spared each pool's plan a reflection pass over the whole object. The
// conversion is pure, so any provider instance may share it; the planner only reads a Class.
var classCache struct {
	sync.Mutex
	obj   types.Object
	rc    launchplan.ClassValue
	class launchplan.Class
}

// poolClass converts a pool's `node_class` value (the class's `resolved`).
func poolClass(ctx context.Context, obj types.Object, diags *diag.Diagnostics) (launchplan.ClassValue, launchplan.Class) {
	classCache.Lock()
	defer classCache.Unlock()
	if !classCache.obj.IsNull() && classCache.obj.Equal(obj) {
		return classCache.rc, classCache.class
	}
	var rc launchplan.ClassValue
	// Unknown late values (instance profile, user data, tags of a class planned in the same run)
	// read as empty: no planned number depends on them.
	d := obj.As(ctx, &rc, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})
	diags.Append(d...)
	if d.HasError() {
		return rc, launchplan.Class{}
	}
	classCache.obj, classCache.rc, classCache.class = obj, rc, rc.Class()
	return rc, classCache.class
}
