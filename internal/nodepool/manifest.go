package nodepool

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// defaultBudgetNodes is a budget's nodes when the pool leaves it out: the CRD requires it once a
// budget is written, and Karpenter's default budget is 10%.
const defaultBudgetNodes = "10%"

// Manifest renders the pool as Karpenter's NodePool, its nodeClassRef naming the EC2NodeClass.
func Manifest(s Spec, nodeClass string) (string, error) {
	return ManifestOn(s, manifest.NodeClassReference{Group: manifest.DefaultNodeClassGroup, Kind: manifest.DefaultNodeClassKind, Name: nodeClass})
}

// ManifestOn renders the pool as a NodePool whose nodeClassRef is ref: an EC2NodeClass, or an
// EKS Auto Mode NodeClass.
func ManifestOn(s Spec, ref manifest.NodeClassReference) (string, error) {
	spec := manifest.NodePoolSpec{
		Template: manifest.NodeClaimTemplate{
			Metadata: manifest.TemplateMetadata{Labels: s.Labels, Annotations: s.Annotations},
			Spec: manifest.NodeClaimTemplateSpec{
				NodeClassRef: ref,
				Requirements: []manifest.NodeSelectorRequirement{},
				Taints:       s.Taints, StartupTaints: s.StartupTaints,
				ExpireAfter: s.ExpireAfter, TerminationGracePeriod: s.TerminationGracePeriod,
			},
		},
		Disruption: manifest.Disruption{ConsolidationPolicy: s.ConsolidationPolicy, ConsolidateAfter: s.ConsolidateAfter},
		Limits:     s.Limits, Weight: manifest.Int32(s.Weight), Replicas: manifest.Int64(s.Replicas),
	}
	for _, b := range s.Budgets {
		nodes := b.Nodes
		if nodes == "" {
			nodes = defaultBudgetNodes
		}
		spec.Disruption.Budgets = append(spec.Disruption.Budgets, manifest.Budget{Nodes: nodes, Reasons: b.Reasons, Schedule: b.Schedule, Duration: b.Duration})
	}
	for _, r := range s.Requirements {
		spec.Template.Spec.Requirements = append(spec.Template.Spec.Requirements, manifest.NodeSelectorRequirement{
			Key: r.Key, Operator: string(r.Operator), Values: r.Values, MinValues: manifest.Int32(r.MinValues)})
	}
	return manifest.RenderNodePool(manifest.NodePool{Name: s.Name, Labels: s.Object.Labels, Annotations: s.Object.Annotations, Spec: spec})
}
