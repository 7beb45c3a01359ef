package karpenterhash

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Upstream (sigs.k8s.io/karpenter at the commit karpenter-provider-aws v1.14.1 builds with) tests
// the NodePool hash by comparing hashes, without spelling them out. The values pinned here are
// what its NodePool.Hash returns for the objects of those tests.

// driftTestTemplate is spec.template of the NodePool in upstream's "NodePool Static Drift"
// tests (pkg/controllers/nodeclaim/disruption/drift_test.go).
func driftTestTemplate(t *testing.T) NodeClaimTemplate {
	return NodeClaimTemplate{
		ObjectMeta: ObjectMeta{
			Annotations: map[string]string{
				"keyAnnotation":  "valueAnnotation",
				"keyAnnotation2": "valueAnnotation2",
			},
			Labels: map[string]string{
				"keyLabel":  "valueLabel",
				"keyLabel2": "valueLabel2",
			},
		},
		Spec: NodeClaimTemplateSpec{
			Requirements: []NodeSelectorRequirementWithMinValues{},
			NodeClassRef: &NodeClassReference{
				Group: "karpenter.test.sh",
				Kind:  "TestNodeClass",
				Name:  "default",
			},
			Taints:                 []Taint{{Key: "keyvalue1", Effect: "NoExecute"}},
			StartupTaints:          []Taint{{Key: "startupkeyvalue1", Effect: "NoExecute"}},
			ExpireAfter:            mustNillableDuration(t, "5m"),
			TerminationGracePeriod: &metav1.Duration{Duration: 5 * time.Minute},
		},
	}
}

const driftTestHash = "10188347701192299315"

func templateHash(t *testing.T, tmpl NodeClaimTemplate) string {
	t.Helper()
	return mustHash(t, func() (string, error) { return NodePoolHash(tmpl) })
}

func TestNodePoolHash(t *testing.T) {
	t.Run("static hash of the drift test NodePool", func(t *testing.T) {
		if got := templateHash(t, driftTestTemplate(t)); got != driftTestHash {
			t.Errorf("hash = %s, want %s", got, driftTestHash)
		}
	})
	// Upstream merges each change into the NodePool with mergo.Merge(WithOverride): maps gain
	// the new key, slices are replaced, set pointers are merged field by field.
	t.Run("should detect drift on changes to the static fields", func(t *testing.T) {
		entries := []struct {
			name   string
			hash   string
			change func(*NodeClaimTemplate)
		}{
			{"Annoations", "13542364248529334868", func(n *NodeClaimTemplate) { n.Annotations["keyAnnotationTest"] = "valueAnnotationTest" }},
			{"Labels", "13266466668878518960", func(n *NodeClaimTemplate) { n.Labels["keyLabelTest"] = "valueLabelTest" }},
			{"Taints", "271383451537737138", func(n *NodeClaimTemplate) { n.Spec.Taints = []Taint{{Key: "keytest2taint", Effect: "NoExecute"}} }},
			{"StartupTaints", "10276403699098120024", func(n *NodeClaimTemplate) {
				n.Spec.StartupTaints = []Taint{{Key: "keytest2taint", Effect: "NoExecute"}}
			}},
			{"NodeClassRef Name", "3359489699712099556", func(n *NodeClaimTemplate) { n.Spec.NodeClassRef.Name = "testName" }},
			{"ExpireAfter", "11696012953478951494", func(n *NodeClaimTemplate) { n.Spec.ExpireAfter = mustNillableDuration(t, "100m") }},
			{"TerminationGracePeriod", "11477834428926949931", func(n *NodeClaimTemplate) {
				n.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 100 * time.Minute}
			}},
		}
		for _, e := range entries {
			t.Run(e.name, func(t *testing.T) {
				n := driftTestTemplate(t)
				e.change(&n)
				got := templateHash(t, n)
				if got != e.hash {
					t.Errorf("hash = %s, want %s", got, e.hash)
				}
				if got == driftTestHash {
					t.Errorf("hash unchanged: %s", got)
				}
			})
		}
	})
}

// staticDriftHashTemplate is spec.template of the NodePool in upstream's "Static Drift Hash"
// tests (pkg/controllers/nodepool/hash/suite_test.go), as its test.NodePool helper completes it
// (a testing/cluster label, the TestNodeClass reference, empty requirements).
func staticDriftHashTemplate(t *testing.T) NodeClaimTemplate {
	return NodeClaimTemplate{
		ObjectMeta: ObjectMeta{
			Annotations: map[string]string{
				"keyAnnotation":  "valueAnnotation",
				"keyAnnotation2": "valueAnnotation2",
			},
			Labels: map[string]string{
				"keyLabel":        "valueLabel",
				"testing/cluster": "unspecified",
			},
		},
		Spec: NodeClaimTemplateSpec{
			Requirements:           []NodeSelectorRequirementWithMinValues{},
			NodeClassRef:           &NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
			Taints:                 []Taint{{Key: "key", Effect: "NoExecute"}},
			StartupTaints:          []Taint{{Key: "key", Effect: "NoExecute"}},
			ExpireAfter:            mustNillableDuration(t, "5m"),
			TerminationGracePeriod: &metav1.Duration{Duration: 5 * time.Minute},
		},
	}
}

const staticDriftHash = "10317254286844711616"

func TestNodePoolStaticDriftHash(t *testing.T) {
	t.Run("should update the drift hash when NodePool static field is updated", func(t *testing.T) {
		n := staticDriftHashTemplate(t)
		if got := templateHash(t, n); got != staticDriftHash {
			t.Errorf("hash = %s, want %s", got, staticDriftHash)
		}
		n.Labels = map[string]string{"keyLabeltest": "valueLabeltest"}
		n.Annotations = map[string]string{"keyAnnotation2": "valueAnnotation2", "keyAnnotation": "valueAnnotation"}
		if got, want := templateHash(t, n), "4174112719969639390"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("should not update the drift hash when NodePool behavior field is updated", func(t *testing.T) {
		// Of upstream's changes only the requirements are in spec.template; limits, disruption
		// and weight are covered by TestFromManifestNodePool.
		n := staticDriftHashTemplate(t)
		n.Spec.Requirements = []NodeSelectorRequirementWithMinValues{
			{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"test"}},
			{Key: "topology.kubernetes.io/zone", Operator: "Gt", Values: []string{"1"}},
			{Key: "topology.kubernetes.io/zone", Operator: "Lt", Values: []string{"1"}},
		}
		if got := templateHash(t, n); got != staticDriftHash {
			t.Errorf("hash = %s, want %s", got, staticDriftHash)
		}
	})
	t.Run("taint order does not matter", func(t *testing.T) {
		n := driftTestTemplate(t)
		n.Spec.Taints = []Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "b", Value: "v", Effect: "NoExecute"}}
		before := templateHash(t, n)
		n.Spec.Taints[0], n.Spec.Taints[1] = n.Spec.Taints[1], n.Spec.Taints[0]
		if after := templateHash(t, n); after != before {
			t.Errorf("hash = %s, want %s", after, before)
		}
	})
	t.Run("the raw form of a duration does not matter", func(t *testing.T) {
		n := driftTestTemplate(t)
		n.Spec.ExpireAfter = mustNillableDuration(t, "300s")
		if got := templateHash(t, n); got != driftTestHash {
			t.Errorf("hash = %s, want %s", got, driftTestHash)
		}
	})
}
