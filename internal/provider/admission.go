package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// admissionObserver, when set, sees every manifest a plan validates with the validator's
// violations: the acceptance tests send the same documents to a real API server and compare.
var admissionObserver func(version, doc string, violations []manifest.Violation)

// admitManifest runs the API server's validation of Karpenter's CRD and Karpenter's runtime
// validation over doc, the rendered manifest of kind, and reports each refusal on the attribute
// that produced the field (manifest.Findings). It returns false when either would refuse doc.
func admitManifest(version, kind, doc string, diags *diag.Diagnostics) bool {
	violations, runtime, err := manifest.AdmitAll(version, doc)
	if err != nil {
		diags.AddError("Cannot validate the "+kind+" manifest", err.Error())
		return false
	}
	if admissionObserver != nil {
		admissionObserver(version, doc, violations)
	}
	findings := manifest.Findings(version, kind, violations, runtime)
	addFindings(diags, attrpath.Path{}, findings, "", false)
	return len(findings) == 0
}
