package provider

import (
	"cmp"
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// The largest computed values of a pool (hundreds of instance types, the launch options)
// are built directly rather than through the framework's reflection, which dominated a plan's
// CPU time at 100 pools (see docs/guides/performance.md).

var (
	optionGroupAttrTypes = attrTypesOf(optionGroupTF{})
	optionGroupObjType   = types.ObjectType{AttrTypes: optionGroupAttrTypes}
)

func stringListValue(ss []string) types.List {
	elems := make([]attr.Value, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

func int64MapValue(m map[string]int64) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.Int64Value(v)
	}
	return types.MapValueMust(types.Int64Type, elems)
}

// groupOptions folds the planner's ordered options into one group per (zone, capacity type),
// groups sorted by zone then capacity type, each keeping the options' instance-type order.
func groupOptions(opts []launchplan.Option) []optionGroupTF {
	type key struct{ zone, capacityType string }
	index := map[key]int{}
	var groups []optionGroupTF
	for _, o := range opts {
		k := key{o.Zone, o.CapacityType}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, optionGroupTF{Zone: o.Zone, SubnetID: o.SubnetID, CapacityType: o.CapacityType, InstanceTypes: []string{}})
		}
		groups[i].InstanceTypes = append(groups[i].InstanceTypes, o.InstanceType)
	}
	slices.SortStableFunc(groups, func(a, b optionGroupTF) int {
		return cmp.Or(cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.CapacityType, b.CapacityType))
	})
	return groups
}

func optionGroupList(gs []optionGroupTF) types.List {
	elems := make([]attr.Value, len(gs))
	for i, g := range gs {
		elems[i] = types.ObjectValueMust(optionGroupAttrTypes, map[string]attr.Value{
			"zone": types.StringValue(g.Zone), "subnet_id": types.StringValue(g.SubnetID),
			"capacity_type": types.StringValue(g.CapacityType), "instance_types": stringListValue(g.InstanceTypes),
		})
	}
	return types.ListValueMust(optionGroupObjType, elems)
}

var (
	interfaceAttrTypes = attrTypesOf(interfaceTF{})
	interfaceObjType   = types.ObjectType{AttrTypes: interfaceAttrTypes}
)

// launchTemplateList is types.ListValueFrom(launchTemplateObjType, lts) without reflection.
// Nil instance types and interfaces (a pool without `details`) are null.
func launchTemplateList(lts []launchTemplateTF) types.List {
	elems := make([]attr.Value, len(lts))
	for i, lt := range lts {
		nis := types.ListNull(interfaceObjType)
		if lt.NetworkInterfaces != nil {
			vs := make([]attr.Value, len(lt.NetworkInterfaces))
			for j, ni := range lt.NetworkInterfaces {
				vs[j] = types.ObjectValueMust(interfaceAttrTypes, map[string]attr.Value{
					"network_card_index": types.Int64Value(ni.NetworkCardIndex), "device_index": types.Int64Value(ni.DeviceIndex),
					"interface_type": types.StringValue(ni.InterfaceType), "security_group_ids": stringListValue(ni.SecurityGroupIDs),
					"associate_public_ip_address": types.BoolPointerValue(ni.AssociatePublicIPAddress),
					"ipv4_prefix_count":           types.Int64PointerValue(ni.IPv4PrefixCount),
				})
			}
			nis = types.ListValueMust(interfaceObjType, vs)
		}
		typesList := types.ListNull(types.StringType)
		if lt.InstanceTypes != nil {
			typesList = stringListValue(lt.InstanceTypes)
		}
		elems[i] = types.ObjectValueMust(launchTemplateObjType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue(lt.Name), "id": lt.ID, "default_version": lt.DefaultVersion, "image_id": types.StringPointerValue(lt.ImageID),
			"max_pods": types.Int64Value(lt.MaxPods), "instance_type_count": types.Int64Value(lt.InstanceTypeCount), "instance_types": typesList,
			"network_interfaces": nis, "user_data": types.StringPointerValue(lt.UserData), "fingerprint": types.StringValue(lt.Fingerprint),
		})
	}
	return types.ListValueMust(launchTemplateObjType, elems)
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
	summary, d := types.ObjectValueFrom(ctx, poolSummaryAttrTypes, p.Summary())
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
