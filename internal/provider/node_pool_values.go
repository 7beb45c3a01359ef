package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The two largest computed lists of a pool (hundreds of instance types, up to a few hundred
// launch options) are built directly rather than through the framework's reflection, which
// dominated a plan's CPU time at 100 pools (see docs/guides/performance.md).

var (
	typePlanAttrTypes = attrTypesOf(typePlanTF{})
	typePlanObjType   = types.ObjectType{AttrTypes: typePlanAttrTypes}
	optionAttrTypes   = attrTypesOf(optionTF{})
	optionObjType     = types.ObjectType{AttrTypes: optionAttrTypes}
)

func stringListValue(ss []string) types.List {
	elems := make([]attr.Value, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

func typePlanList(ts []typePlanTF) types.List {
	elems := make([]attr.Value, len(ts))
	for i, t := range ts {
		elems[i] = types.ObjectValueMust(typePlanAttrTypes, map[string]attr.Value{
			"name": types.StringValue(t.Name), "vcpu": types.Int64Value(t.VCPU), "memory_mib": types.Int64Value(t.MemoryMiB),
			"zones": stringListValue(t.Zones), "capacity_types": stringListValue(t.CapacityTypes),
			"max_pods": types.Int64Value(t.MaxPods), "eni_limited_pods": types.Int64Value(t.ENILimitedPods),
			"karpenter_assumed_pods": types.Int64Value(t.KarpenterAssumedPods), "vpc_ips_at_max_pods": types.Int64Value(t.VPCIPsAtMaxPods),
			"efa_interfaces": types.Int64Value(t.EFAInterfaces), "launch_template": types.StringValue(t.LaunchTemplate),
		})
	}
	return types.ListValueMust(typePlanObjType, elems)
}

func optionList(os []optionTF) types.List {
	elems := make([]attr.Value, len(os))
	for i, o := range os {
		elems[i] = types.ObjectValueMust(optionAttrTypes, map[string]attr.Value{
			"instance_type": types.StringValue(o.InstanceType), "zone": types.StringValue(o.Zone), "subnet_id": types.StringValue(o.SubnetID),
			"capacity_type": types.StringValue(o.CapacityType), "max_pods": types.Int64Value(o.MaxPods),
			"vpc_ips_at_max_pods": types.Int64Value(o.VPCIPsAtMax), "launch_template": types.StringValue(o.LaunchTemplate),
		})
	}
	return types.ListValueMust(optionObjType, elems)
}
