package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

func taintsOf(ts []taintModel) []manifest.Taint {
	var out []manifest.Taint
	for _, t := range ts {
		out = append(out, manifest.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
	}
	return out
}

// renderNodePoolManifest renders the NodePool (nodepool.Manifest) with nodeClassRef naming the
// node class.
func renderNodePoolManifest(ctx context.Context, m *nodePoolModel) (string, error) {
	var diags diag.Diagnostics
	className, _ := m.NodeClass.Attributes()["name"].(types.String)
	ps := m.poolSpec()
	if t := m.Template; t != nil {
		ps.Annotations, ps.Taints, ps.StartupTaints = tagsFromMap(t.Annotations), taintsOf(t.Taints), taintsOf(t.StartupTaints)
		ps.Requirements = m.requirements(ctx, &diags)
	}
	if diags.HasError() {
		return "", diagError(diags)
	}
	return nodepool.Manifest(ps, className.ValueString())
}

type diagErr struct{ diags diag.Diagnostics }

func (e diagErr) Error() string {
	msg := ""
	for _, d := range e.diags.Errors() {
		msg += d.Summary() + ": " + d.Detail() + "; "
	}
	return msg
}

func diagError(d diag.Diagnostics) error { return diagErr{d} }
