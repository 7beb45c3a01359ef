package provider

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// Schema versions. Version 1 reshaped what a plan shows: the node class's `resolved` (maps of
// subnets and pod subnets, defaults null), `subnets` (name and public flags) and
// `manifest_object`; the node pool's `summary`,
// `zones` as a map, `details`, and `capacity` gone. The node pool's version 2 added prices to
// `summary` (`cost`, `prices`), `prices`, `min_values_policy`, `workloads`, `workload_fit` and
// `drift`; both versions 2 added Karpenter's class hash to `resolved` (the pool's `node_class`),
// both versions 3 the class's placement group id (PlacementGroupDrift). Both versions 4 made the
// class's `resolved`, and so the pool's `node_class`, a reference carrying the resolution as one
// string (launchplan.ClassRef) instead of the ClassValue object (upgradeToClassRef).
const (
	nodeClassSchemaVersion = 4
	nodePoolSchemaVersion  = 4
)

// upgradeKeeping upgrades a version-0 state by keeping every attribute whose type did not
// change and leaving the others (`reshaped`) and new ones null. Nothing is lost that matters:
// the reshaped attributes are computed, or (a pool's `node_class`) set from configuration, and
// the next plan fills them again; refresh finds a static pool's launch templates by their
// ownership tags, as after an import.
func upgradeKeeping(reshaped ...string) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		if req.RawState == nil || req.RawState.JSON == nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "the prior state has no JSON form")
			return
		}
		var prior map[string]json.RawMessage
		if err := json.Unmarshal(req.RawState.JSON, &prior); err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "reading the prior state: "+err.Error())
			return
		}
		drop := map[string]bool{}
		for _, name := range reshaped {
			drop[name] = true
		}
		next := map[string]json.RawMessage{}
		for name := range resp.State.Schema.GetAttributes() {
			if v, ok := prior[name]; ok && !drop[name] {
				next[name] = v
			} else {
				next[name] = json.RawMessage("null")
			}
		}
		b, err := json.Marshal(next)
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: b}
	}}
}

func (r *nodeClassResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: upgradeKeeping("resolved", "subnets"),
		1: upgradeKeeping("resolved"),
		2: upgradeKeeping("resolved"),
		3: upgradeToClassRef("resolved"),
	}
}

func (r *nodePoolResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: upgradeKeeping("node_class", "zones", "launch_templates", "summary"),
		1: upgradeKeeping("summary", "node_class"),
		2: upgradeKeeping("node_class"),
		3: upgradeToClassRef("node_class"),
	}
}

// upgradeToClassRef upgrades a version-3 state, whose `attr` (a class's `resolved`, a pool's
// `node_class`) holds the class as a ClassValue object, by writing that value's reference
// (ClassValue.Ref), exactly as the class's next plan writes it from the same resolution: a pool
// whose configuration still reads `karpenter_node_class.<name>.resolved` then plans clean. Every
// other attribute is kept as it was.
func upgradeToClassRef(attr string) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		if req.RawState == nil || req.RawState.JSON == nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "the prior state has no JSON form")
			return
		}
		typ, ok := resp.State.Schema.Type().TerraformType(ctx).(tftypes.Object)
		if !ok {
			resp.Diagnostics.AddError("Cannot upgrade the state", "the schema is not an object")
			return
		}
		prior := tftypes.Object{AttributeTypes: maps.Clone(typ.AttributeTypes)}
		prior.AttributeTypes[attr] = types.ObjectType{AttrTypes: attrTypesOf(launchplan.ClassValue{})}.TerraformType(ctx)
		v, err := tftypes.ValueFromJSONWithOpts(req.RawState.JSON, prior, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "reading the prior state: "+err.Error())
			return
		}
		attrs := objectAttrs(v)
		ref := tftypes.NewValue(typ.AttributeTypes[attr], nil)
		if old := attrs[attr]; old.IsKnown() && !old.IsNull() {
			var class launchplan.ClassValue
			if err := tfvalue.Decode(old, &class); err != nil {
				resp.Diagnostics.AddError("Cannot upgrade the state", "reading the prior "+attr+": "+err.Error())
				return
			}
			if ref, err = tfvalue.Encode(typ.AttributeTypes[attr], class.Ref()); err != nil {
				resp.Diagnostics.AddError("Cannot upgrade the state", err.Error())
				return
			}
		}
		attrs[attr] = ref
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", err.Error())
			return
		}
		resp.DynamicValue = &dv
	}}
}

var (
	_ resource.ResourceWithUpgradeState = (*nodeClassResource)(nil)
	_ resource.ResourceWithUpgradeState = (*nodePoolResource)(nil)
)
