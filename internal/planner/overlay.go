package planner

import (
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// OverlayPorts are what an overlay's plan reads.
type OverlayPorts struct {
	// Admit is what the API server and Karpenter would refuse of a manifest of the kind.
	Admit func(kind, doc string) ([]attrpath.Finding, error)
	// Catalog is the region's instance types; nil skips the check that the overlay selects one.
	Catalog func(context.Context) (*catalog.Catalog, error)
}

// OverlayInput is a karpenter_node_overlay as configured.
type OverlayInput struct {
	nodeoverlay.Config
	Metadata *manifest.ObjectMetadata
	// FeatureGates are the provider's karpenter_feature_gates.
	FeatureGates []string
}

// OverlayResult is an overlay's plan: its NodeOverlay manifest, or why not.
type OverlayResult struct {
	Manifest         string
	Errors, Warnings []attrpath.Finding
}

// ValidateOverlay runs the rules that need nothing but the configuration.
func ValidateOverlay(c nodeoverlay.Config) []attrpath.Finding {
	return attrpath.WithSummary("Invalid node overlay", nodeoverlay.Validate(c))
}

// Overlay plans a node overlay: its rules, the feature gate, the NodeOverlay as the API server
// admits it, and whether any instance type of the region has the labels it selects.
func Overlay(ctx context.Context, ports OverlayPorts, in OverlayInput) OverlayResult {
	var res OverlayResult
	res.Errors = append(ValidateOverlay(in.Config),
		attrpath.WithSummary("NodeOverlay feature gate off", nodeoverlay.ValidateGates(in.FeatureGates, attrpath.Path{}))...)
	res.Warnings = attrpath.WithSummary("Node overlay changes nothing", nodeoverlay.Warnings(in.Config))
	if len(res.Errors) > 0 {
		return res
	}
	doc, err := nodeoverlay.Manifest(in.Config, in.Metadata)
	if err != nil {
		res.Errors = append(res.Errors, attrpath.Finding{Summary: "Cannot render the NodeOverlay manifest", Message: err.Error()})
		return res
	}
	findings, err := ports.Admit(manifest.NodeOverlayKind, doc)
	if err != nil {
		findings = []attrpath.Finding{{Summary: "Cannot validate the NodeOverlay manifest", Message: err.Error()}}
	}
	if res.Errors = findings; len(findings) > 0 {
		return res
	}
	res.Manifest = doc
	if ports.Catalog != nil {
		res.Warnings = append(res.Warnings, selectsNoType(ctx, ports, in.Config)...)
	}
	return res
}

// selectsNoType warns when no instance type of the region has the labels the overlay's
// requirements ask for. Requirements on labels a type alone does not decide (zones, capacity
// types, the pool, custom labels) are left out of the check.
func selectsNoType(ctx context.Context, ports OverlayPorts, c nodeoverlay.Config) []attrpath.Finding {
	cat, err := ports.Catalog(ctx)
	if err != nil {
		return []attrpath.Finding{{Summary: "Cannot load the instance-type catalog", Path: attrpath.Of("requirements"),
			Message: "whether the overlay selects any instance type is not checked: " + err.Error()}}
	}
	var typeReqs []requirements.Requirement
	for _, r := range nodeoverlay.RequirementsOf(c.Requirements) {
		if catalog.IsDefinedKey(r.Key) && r.Key != requirements.LabelZone && r.Key != requirements.LabelRegion &&
			r.Key != requirements.LabelCapacityType && r.Key != requirements.LabelInstanceTenancy && r.Key != requirements.LabelOS {
			typeReqs = append(typeReqs, r)
		}
	}
	for _, it := range cat.Types() {
		if it.KarpenterEligible() && requirements.LabelsCompatible(catalog.Labels(it), typeReqs) {
			return nil
		}
	}
	return []attrpath.Finding{{Summary: "Node overlay selects no instance type", Path: attrpath.Of("requirements"),
		Message: "no instance type of the region has the labels these requirements select, so the overlay changes nothing " +
			"(check the values: e.g. instance-family \"m5\", instance-type \"m5.large\", arch \"amd64\")"}}
}
