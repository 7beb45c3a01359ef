package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// A node class's late values (nodeclass.LateAttrs) are what its config may take from resources
// of the same apply: the shell reads which are unknown (lateOf), planner.Class says what they
// leave unknown (planner.ClassUnknown), and the shell writes those unknowns (unknownIn).

// lateResolvedAttrs are the attributes of a class's `resolved` (a pool's `node_class`) that a
// late value leaves unknown: those it names, and the class's hash, which covers them.
var lateResolvedAttrs = append(slices.Clone(nodeclass.LateAttrs), "hash")

// lateOf reads which late values of a class are unknown.
func lateOf(v *classValue) nodeclass.Late {
	l := nodeclass.Late{Role: v.unknown("role"), InstanceProfile: v.unknown("instance_profile"), UserData: v.unknown("user_data"),
		Tags: v.unknown("tags")}
	if !l.Tags {
		for k, e := range tfvalue.Attributes(tfvalue.Attributes(v.raw)["tags"]) {
			if !e.IsKnown() {
				l.TagKeys = append(l.TagKeys, k)
			}
		}
		slices.Sort(l.TagKeys)
	}
	return l
}

// unknownIn marks the attributes of an object unknown, and the keys of its tags map.
func unknownIn(obj tftypes.Value, attrs, tagKeys []string) (tftypes.Value, error) {
	if len(attrs) == 0 && len(tagKeys) == 0 {
		return obj, nil
	}
	values := map[string]any{}
	for _, name := range attrs {
		values[name] = unknownAttr(obj.Type(), name)
	}
	if len(tagKeys) > 0 {
		elems := tfvalue.Attributes(tfvalue.Attributes(obj)["tags"])
		if elems == nil {
			elems = map[string]tftypes.Value{}
		}
		for _, k := range tagKeys {
			elems[k] = tfvalue.Unknown(tftypes.String)
		}
		values["tags"] = tftypes.NewValue(tfvalue.AttributeType(obj.Type(), "tags"), elems)
	}
	return tfvalue.With(obj, values)
}
