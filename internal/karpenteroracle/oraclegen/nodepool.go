package oraclegen

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// NodePoolSpec draws a NodePool spec: everything under spec.template (hashed, requirements
// aside) and the rest of the spec (not hashed, drawn so that it is seen not to matter).
func (g *Gen) NodePoolSpec() manifest.NodePoolSpec {
	var s manifest.NodePoolSpec
	t := &s.Template
	t.Metadata.Labels = g.strMap(4)
	t.Metadata.Annotations = g.strMap(3)
	t.Spec.NodeClassRef = manifest.NodeClassReference{
		Group: g.pick("", "karpenter.k8s.aws", "example.com"),
		Kind:  g.pick("", "EC2NodeClass", "FakeNodeClass"),
		Name:  g.pick("default", g.str()),
	}
	for range g.r.Intn(5) {
		req := manifest.NodeSelectorRequirement{
			Key:      g.pick("karpenter.sh/capacity-type", "kubernetes.io/arch", "karpenter.k8s.aws/instance-family", "topology.kubernetes.io/zone", g.key()),
			Operator: g.pick("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"),
		}
		for range g.r.Intn(4) {
			req.Values = append(req.Values, g.str())
		}
		if g.maybe(0.2) {
			v := g.r.Int31n(50) + 1
			req.MinValues = &v
		}
		t.Spec.Requirements = append(t.Spec.Requirements, req)
	}
	taints := func() []manifest.Taint {
		var out []manifest.Taint
		for range g.r.Intn(4) {
			taint := manifest.Taint{Key: g.pick("example.com/special", "dedicated", "nvidia.com/gpu", g.key()), Effect: g.pick("NoSchedule", "PreferNoSchedule", "NoExecute")}
			if g.maybe(0.6) {
				taint.Value = g.str()
			}
			out = append(out, taint)
		}
		return out
	}
	t.Spec.Taints = taints()
	t.Spec.StartupTaints = taints()
	switch g.r.Intn(4) {
	case 0: // absent: the CRD defaults 720h
	case 1:
		t.Spec.ExpireAfter = karpenterhash.Never
	default:
		t.Spec.ExpireAfter = g.duration()
	}
	if g.maybe(0.5) {
		t.Spec.TerminationGracePeriod = g.duration()
	}

	if g.maybe(0.5) {
		s.Disruption = manifest.Disruption{
			ConsolidationPolicy: g.pick("", "WhenEmpty", "WhenEmptyOrUnderutilized"),
			ConsolidateAfter:    g.pick("0s", "30s", "Never", "5m"),
		}
		for range g.r.Intn(3) {
			b := manifest.Budget{Nodes: g.pick("10%", "0", "3", "100%")}
			if g.maybe(0.5) {
				b.Schedule, b.Duration = "0 9 * * mon-fri", "8h"
			}
			if g.maybe(0.5) {
				b.Reasons = []string{g.pick("Drifted", "Underutilized", "Empty")}
			}
			s.Disruption.Budgets = append(s.Disruption.Budgets, b)
		}
	}
	if g.maybe(0.4) {
		s.Limits = map[string]string{"cpu": fmt.Sprint(g.r.Intn(1000)), "memory": g.quantity()}
	}
	if g.maybe(0.3) {
		w := g.r.Int31n(100)
		s.Weight = &w
	}
	return s
}
