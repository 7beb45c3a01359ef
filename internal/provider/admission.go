package provider

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// admissionObserver, when set, sees every manifest a plan validates with the validator's
// violations: the acceptance tests send the same documents to a real API server and compare.
var admissionObserver func(version, doc string, violations []manifest.Violation)

// admitManifest runs the API server's validation of Karpenter's CRD over doc, the rendered
// manifest of kind, and reports each violation as an error on the attribute that produced the
// field, quoting the API server. It returns false when kubectl apply would refuse doc.
func admitManifest(version, kind, doc string, diags *diag.Diagnostics) bool {
	violations, runtime, err := manifest.AdmitAll(version, doc)
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
		addFindings(diags, attrpath.Path{}, []attrpath.Finding{{Path: manifest.AttributePath(kind, v.Field), Message: detail}}, summary, false)
	}
	if len(violations) > 0 {
		return false
	}
	return reportRuntime(version, kind, runtime, diags)
}

// reportRuntime reports what Karpenter's controller refuses in a manifest the API server admits
// (its runtime validation: label, taint and requirement keys and values), as errors on the
// attribute that produced the field.
func reportRuntime(version, kind string, violations []manifest.Violation, diags *diag.Diagnostics) bool {
	for _, v := range violations {
		summary := "Karpenter would refuse the " + kind
		detail := fmt.Sprintf("%s\n\nThe API server accepts this manifest, but Karpenter %s validates a %s again at runtime and would not "+
			"use it: the %s would show a failed validation condition and launch nothing.", v, version, kind, kind)
		addFindings(diags, attrpath.Path{}, []attrpath.Finding{{Path: manifest.AttributePath(kind, v.Field), Message: detail}}, summary, false)
	}
	return len(violations) == 0
}
