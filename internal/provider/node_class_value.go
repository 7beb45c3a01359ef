package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
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

// connectivityReport runs the connectivity checks (nodeclass.CheckConnectivity) and returns the
// `connectivity_report` entries (nil when they did not run).
func (r *nodeClassResource) connectivityReport(ctx context.Context, c *nodeclass.ConnectivityConfig, res nodeclass.Resolved,
	diags *diag.Diagnostics) []nodeclass.ConnectivityCheckOutput {
	checks, errs, warnings := nodeclass.CheckConnectivity(ctx, r.meta.Client.Discovery(), c.Setting(), res)
	addFindings(diags, attrpath.Path{}, errs, "", false)
	addFindings(diags, attrpath.Path{}, warnings, "", true)
	return nodeclass.ConnectivityReport(checks)
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
