package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The largest computed values of a pool (hundreds of instance types, up to 60 launch options)
// are built directly rather than through the framework's reflection, which dominated a plan's
// CPU time at 100 pools (see docs/guides/performance.md).

var (
	optionAttrTypes = attrTypesOf(optionTF{})
	optionObjType   = types.ObjectType{AttrTypes: optionAttrTypes}
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
