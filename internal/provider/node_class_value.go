package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// classValue is a karpenter_node_class value as the provider reads it (tfvalue.Decode): the
// class's inputs and its recorded resolution in their core types, `resolved` raw, and the raw
// value itself for what may be known only after apply.
type classValue struct {
	nodeclass.Config
	nodeclass.Recorded
	ID       string        `tfsdk:"id"`
	OwnerID  string        `tfsdk:"owner_id"`
	Resolved tftypes.Value `tfsdk:"resolved"`
	raw      tftypes.Value
	// Computed reports and the manifest: written by the plan, never read back.
	_ struct{} `tfsdk:"manifest"`
	_ struct{} `tfsdk:"manifest_object"`
	_ struct{} `tfsdk:"connectivity_report"`
	_ struct{} `tfsdk:"node_role_report"`
}

// decodeClass reads a raw class value; false (with an error) when it does not decode.
func decodeClass(raw tftypes.Value, v *classValue, diags *diag.Diagnostics) bool {
	v.raw = raw
	return decodeInto(raw, v, "node class", diags)
}

// unknown reports whether the top-level attribute name is not known yet.
func (v *classValue) unknown(name string) bool {
	a, ok := tfvalue.Attributes(v.raw)[name]
	return ok && !a.IsKnown()
}

// recordedProfile is the instance profile the recorded `resolved` names.
func (v *classValue) recordedProfile() string {
	return decoded[string](tfvalue.Attributes(v.Resolved)["instance_profile"])
}

// classPlanned are the attributes a class's plan computes (ModifyPlan writes exactly these, in
// one pass over the raw plan; `any` fields hold a Go value or a raw unknown).
type classPlanned struct {
	nodeclass.Recorded
	ID                 string `tfsdk:"id"`
	Resolved           any    `tfsdk:"resolved"`
	Manifest           any    `tfsdk:"manifest"`
	ManifestObject     any    `tfsdk:"manifest_object"`
	ConnectivityReport any    `tfsdk:"connectivity_report"`
	NodeRoleReport     any    `tfsdk:"node_role_report"`
}

// classInput is what planner.Class reads of a plan and its state (nil for a new class).
func classInput(plan, state *classValue) planner.ClassInput {
	in := planner.ClassInput{Config: plan.Config, Late: lateOf(plan)}
	if state != nil {
		in.Prior = &planner.ClassPrior{Recorded: state.Recorded, OwnerID: state.OwnerID}
	}
	return in
}

// classPlannedOf writes a class's plan (planner.Class) as the plan's attributes, with what late
// values leave unknown.
func classPlannedOf(plan *classValue, res planner.ClassResult, diags *diag.Diagnostics) classPlanned {
	typ, u := plan.raw.Type(), res.Unknown
	out := classPlanned{Recorded: res.Recorded, ID: plan.Name, Manifest: res.Manifest, NodeRoleReport: res.NodeRoleReport,
		ConnectivityReport: res.ConnectivityReport}
	if u.NodeRoleReport {
		out.NodeRoleReport = unknownAttr(typ, "node_role_report")
	}
	if u.Manifest {
		out.Manifest = tfvalue.Unknown(tftypes.String)
	}
	resolved, err := tfvalue.Encode(tfvalue.AttributeType(typ, "resolved"), res.Resolved.Ref())
	if err == nil {
		resolved, err = unknownIn(resolved, u.Resolved, u.ResolvedTags)
	}
	if err != nil {
		diags.AddError("Cannot write the node class", err.Error())
		return out
	}
	out.Resolved = resolved
	if u.ManifestObject { // the object's type is not known either
		out.ManifestObject = tfvalue.Unknown(tftypes.DynamicPseudoType)
	} else if out.ManifestObject, err = manifestObject(res.Manifest, u.Placeholders...); err != nil {
		diags.AddError("Cannot render the EC2NodeClass manifest", err.Error())
	}
	return out
}

func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}
