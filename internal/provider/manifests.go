package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

func i32p(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}

func i64p(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

func taintsOf(ts []taintModel) []manifest.Taint {
	var out []manifest.Taint
	for _, t := range ts {
		out = append(out, manifest.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
	}
	return out
}

// renderNodePoolManifest renders the NodePool with nodeClassRef pointing at the node class.
func renderNodePoolManifest(ctx context.Context, m *nodePoolModel) (string, error) {
	var diags diag.Diagnostics
	className, _ := m.NodeClass.Attributes()["name"].(types.String)
	ps := m.poolSpec()
	policy := ps.ConsolidationPolicy
	spec := manifest.NodePoolSpec{
		Template: manifest.NodeClaimTemplate{Spec: manifest.NodeClaimTemplateSpec{
			NodeClassRef: manifest.NodeClassReference{Group: manifest.DefaultNodeClassGroup, Kind: manifest.DefaultNodeClassKind, Name: className.ValueString()},
			Requirements: []manifest.NodeSelectorRequirement{},
		}},
		Disruption: manifest.Disruption{ConsolidationPolicy: policy, ConsolidateAfter: ps.ConsolidateAfter},
		Limits:     ps.Limits, Weight: i32p(ps.Weight), Replicas: i64p(ps.Replicas),
	}
	for _, b := range ps.Budgets {
		nodes := b.Nodes
		if nodes == "" {
			nodes = "10%" // the CRD requires it once a budget is written
		}
		spec.Disruption.Budgets = append(spec.Disruption.Budgets, manifest.Budget{Nodes: nodes, Reasons: b.Reasons, Schedule: b.Schedule, Duration: b.Duration})
	}
	if t := m.Template; t != nil {
		spec.Template.Metadata = manifest.TemplateMetadata{Labels: tagsFromMap(t.Labels), Annotations: tagsFromMap(t.Annotations)}
		spec.Template.Spec.Taints, spec.Template.Spec.StartupTaints = taintsOf(t.Taints), taintsOf(t.StartupTaints)
		spec.Template.Spec.ExpireAfter, spec.Template.Spec.TerminationGracePeriod = ps.ExpireAfter, ps.TerminationGracePeriod
		for _, r := range m.requirements(ctx, &diags) {
			spec.Template.Spec.Requirements = append(spec.Template.Spec.Requirements, manifest.NodeSelectorRequirement{
				Key: r.Key, Operator: string(r.Operator), Values: r.Values, MinValues: i32p(r.MinValues)})
		}
	}
	if diags.HasError() {
		return "", diagError(diags)
	}
	return manifest.RenderNodePool(manifest.NodePool{Name: ps.Name, Spec: spec})
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
