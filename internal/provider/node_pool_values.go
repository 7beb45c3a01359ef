package provider

import (
	"cmp"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

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
