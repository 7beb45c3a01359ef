package provider

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/admitted"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// admissionObserver, when set, sees every manifest a plan validates with the validator's
// violations: the acceptance tests send the same documents to a real API server and compare.
var admissionObserver func(version, doc string, violations []manifest.Violation)

// admission is the planner's Admit port for a Karpenter version: the API server's validation of
// Karpenter's CRD and Karpenter's runtime validation over doc, the rendered manifest of kind,
// with each refusal on the attribute that produced the field (manifest.Findings).
//
// A manifest this build admitted before without a finding is taken from store (nil: none kept)
// instead of being judged again; one it admits now is recorded there.
func admission(version string, store *admitted.Store) func(kind, doc string) ([]attrpath.Finding, error) {
	return func(kind, doc string) ([]attrpath.Finding, error) {
		if store.Has(version, kind, doc) {
			if admissionObserver != nil {
				admissionObserver(version, doc, nil)
			}
			return nil, nil
		}
		violations, runtime, err := manifest.AdmitAll(version, doc)
		if err != nil {
			return nil, err
		}
		if admissionObserver != nil {
			admissionObserver(version, doc, violations)
		}
		if len(violations) == 0 && len(runtime) == 0 { // manifest.Findings has none then
			store.Add(version, kind, doc)
		}
		return manifest.Findings(version, kind, violations, runtime), nil
	}
}

// admission is the Admit port of the provider's configuration: admission(KarpenterVersion) and,
// when the cluster's CRDs were read, the manifest judged by them too (installation.CRDCheck): a
// missing CRD, a field an older CRD would drop, what its validation would refuse.
func (m *Meta) admission() func(kind, doc string) ([]attrpath.Finding, error) {
	admit := admission(m.KarpenterVersion, m.admitted)
	older := ""
	if m.Controller != nil {
		older = m.Controller.OlderMinor(m.KarpenterVersion)
	}
	if m.CRDs == nil && older == "" {
		return admit
	}
	return func(kind, doc string) ([]attrpath.Finding, error) {
		findings, err := admit(kind, doc)
		if err != nil || m.CRDs == nil && older == "" {
			return findings, err
		}
		if older != "" && len(findings) == 0 {
			if findings, err = runningLacks(m.Controller, m.admitted, older, kind, doc); err != nil {
				return nil, err
			}
		}
		if m.CRDs == nil {
			return findings, nil
		}
		served, err := m.CRDs.Check(kind, doc, len(findings) == 0)
		if err != nil {
			return nil, err
		}
		return append(findings, served...), nil
	}
}

// runningLacks are the refusals of a manifest by the running controller's older release: fields
// this configuration uses that the cluster's Karpenter does not have yet.
func runningLacks(c *installation.Controller, store *admitted.Store, minor, kind, doc string) ([]attrpath.Finding, error) {
	findings, err := admission(minor, store)(kind, doc)
	for i := range findings {
		findings[i].Summary = "Not in the running Karpenter"
		findings[i].Message = fmt.Sprintf("the cluster runs Karpenter %s (deployment %s/%s), which would refuse or drop this: %s. Upgrade the "+
			"controller and its CRDs first, or leave the field out until then", c.Version, c.Namespace, c.Name, findings[i].Message)
	}
	return findings, err
}
