package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// admissionObserver, when set, sees every manifest a plan validates with the validator's
// violations: the acceptance tests send the same documents to a real API server and compare.
var admissionObserver func(version, doc string, violations []manifest.Violation)

// admitManifest runs the API server's validation of Karpenter's CRD over doc, the rendered
// manifest of kind, and reports each violation as an error on the attribute that produced the
// field, quoting the API server. It returns false when kubectl apply would refuse doc.
func admitManifest(version, kind, doc string, diags *diag.Diagnostics) bool {
	violations, err := manifest.AdmitFor(version, doc)
	if err != nil {
		diags.AddError("Cannot validate the "+kind+" manifest", err.Error())
		return false
	}
	if admissionObserver != nil {
		admissionObserver(version, doc, violations)
	}
	crds, _ := manifest.CRDsFor(version) // loaded by AdmitFor
	for _, v := range violations {
		summary := "Kubernetes would reject the " + kind
		detail := fmt.Sprintf("%s\n\nThe API server validates a %s against Karpenter's CRD (%s, Karpenter %s, the provider's "+
			"karpenter_version %q) and would refuse this manifest at `kubectl apply`.", v, kind, crds[kind].APIVersion(), crds[kind].KarpenterVersion, version)
		if p, ok := attributePath(manifest.AttributePath(kind, v.Field)); ok {
			diags.AddAttributeError(p, summary, detail)
		} else {
			diags.AddError(summary, detail)
		}
	}
	if len(violations) > 0 {
		return false
	}
	return admitAtRuntime(version, kind, doc, diags)
}

// admitAtRuntime reports what Karpenter's controller refuses in a manifest the API server admits
// (its runtime validation: label, taint and requirement keys and values), as errors on the
// attribute that produced the field.
func admitAtRuntime(version, kind, doc string, diags *diag.Diagnostics) bool {
	violations, err := manifest.AdmitAtRuntime(version, doc)
	if err != nil {
		diags.AddError("Cannot validate the "+kind+" manifest", err.Error())
		return false
	}
	for _, v := range violations {
		summary := "Karpenter would refuse the " + kind
		detail := fmt.Sprintf("%s\n\nThe API server accepts this manifest, but Karpenter %s validates a %s again at runtime and would not "+
			"use it: the %s would show a failed validation condition and launch nothing.", v, version, kind, kind)
		if p, ok := attributePath(manifest.AttributePath(kind, v.Field)); ok {
			diags.AddAttributeError(p, summary, detail)
		} else {
			diags.AddError(summary, detail)
		}
	}
	return len(violations) == 0
}

// attributePath maps a structured attribute path onto the framework's; false for the empty
// path (the resource as a whole).
func attributePath(p manifest.Path) (path.Path, bool) {
	if len(p) == 0 || p[0].Kind != manifest.FieldStep {
		return path.Empty(), false
	}
	out := path.Root(p[0].Name)
	for _, s := range p[1:] {
		switch s.Kind {
		case manifest.IndexStep:
			out = out.AtListIndex(s.Index)
		case manifest.KeyStep:
			out = out.AtMapKey(s.Name)
		default:
			out = out.AtName(s.Name)
		}
	}
	return out, true
}
