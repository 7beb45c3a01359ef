package provider

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// admissionObserver, when set, sees every manifest a plan validates with the validator's
// violations: the acceptance tests send the same documents to a real API server and compare.
var admissionObserver func(version, doc string, violations []manifest.Violation)

// admission is the planner's Admit port for a Karpenter version: the API server's validation of
// Karpenter's CRD and Karpenter's runtime validation over doc, the rendered manifest of kind,
// with each refusal on the attribute that produced the field (manifest.Findings).
func admission(version string) func(kind, doc string) ([]attrpath.Finding, error) {
	return func(kind, doc string) ([]attrpath.Finding, error) {
		violations, runtime, err := manifest.AdmitAll(version, doc)
		if err != nil {
			return nil, err
		}
		if admissionObserver != nil {
			admissionObserver(version, doc, violations)
		}
		return manifest.Findings(version, kind, violations, runtime), nil
	}
}

// admission is the Admit port of the provider's configuration: admission(KarpenterVersion) and,
// when the cluster's CRDs were read, the manifest judged by them too (installation.CRDCheck): a
// missing CRD, a field an older CRD would drop, what its validation would refuse.
func (m *Meta) admission() func(kind, doc string) ([]attrpath.Finding, error) {
	admit := admission(m.KarpenterVersion)
	if m.CRDs == nil {
		return admit
	}
	return func(kind, doc string) ([]attrpath.Finding, error) {
		findings, err := admit(kind, doc)
		if err != nil {
			return nil, err
		}
		served, err := m.CRDs.Check(kind, doc, len(findings) == 0)
		if err != nil {
			return nil, err
		}
		return append(findings, served...), nil
	}
}
