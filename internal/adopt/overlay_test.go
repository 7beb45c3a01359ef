package adopt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
)

const liveOverlay = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: gpu-devices
  labels: {team: ml}
  annotations:
    kubernetes.io/description: Devices of the GPU nodes
    kubectl.kubernetes.io/last-applied-configuration: "{}"
  finalizers: [example.com/keep]
spec:
  requirements:
    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6]}
    - {key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}
    - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["0"]}
    - {key: example.com/accelerated, operator: Exists}
  priceAdjustment: "-10%"
  capacity: {example.com/device: 2, example.com/memory: 10Gi}
  weight: 20
status:
  conditions: [{type: Ready, status: "True"}]
`

// TestReadOverlay: every field of the spec is read (a capacity quantity given as a number too),
// the object's labels and annotations become `metadata` without kubectl's, the finalizer of
// another controller is named, and nothing is unexpressed.
func TestReadOverlay(t *testing.T) {
	o, err := adopt.ReadOverlay(object(t, liveOverlay))
	if err != nil {
		t.Fatal(err)
	}
	c := o.Config
	if c.Name != "gpu-devices" || c.Price != nil || c.PriceAdjustment == nil || *c.PriceAdjustment != "-10%" || c.Weight == nil || *c.Weight != 20 {
		t.Errorf("read %+v", c)
	}
	want := []nodeoverlay.Requirement{
		{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"g5", "g6"}},
		{Key: "karpenter.sh/capacity-type", Operator: "NotIn", Values: []string{"spot"}},
		{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "Gt", Values: []string{"0"}},
		{Key: "example.com/accelerated", Operator: "Exists"},
	}
	if !slices.EqualFunc(c.Requirements, want, func(a, b nodeoverlay.Requirement) bool {
		return a.Key == b.Key && a.Operator == b.Operator && slices.Equal(a.Values, b.Values)
	}) {
		t.Errorf("requirements %+v", c.Requirements)
	}
	if len(c.Capacity) != 2 || c.Capacity["example.com/device"] != "2" || c.Capacity["example.com/memory"] != "10Gi" {
		t.Errorf("capacity %v", c.Capacity)
	}
	if m := o.Metadata; m == nil || m.Labels["team"] != "ml" || len(m.Annotations) != 1 || m.Annotations["kubernetes.io/description"] == "" {
		t.Errorf("metadata %+v", o.Metadata)
	}
	if len(o.Unexpressed) != 0 || !slices.Equal(o.LeftToCluster, []string{"kubectl.kubernetes.io/last-applied-configuration"}) ||
		!slices.Equal(o.Ignored, []string{"metadata.finalizers"}) {
		t.Errorf("unexpressed %v, left %v, ignored %v", o.Unexpressed, o.LeftToCluster, o.Ignored)
	}
	if errs := nodeoverlay.Validate(c); len(errs) > 0 {
		t.Errorf("the read overlay fails the provider's rules: %v", errs)
	}
}

// TestReadOverlayPrice: an absolute price is read as `price`, an overlay without weight or
// metadata leaves both null.
func TestReadOverlayPrice(t *testing.T) {
	o, err := adopt.ReadOverlay(object(t, `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: flat}
spec:
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
  price: "0.05"
`))
	if err != nil {
		t.Fatal(err)
	}
	c := o.Config
	if c.Price == nil || *c.Price != "0.05" || c.PriceAdjustment != nil || c.Weight != nil || c.Capacity != nil || o.Metadata != nil {
		t.Errorf("read %+v, metadata %+v", c, o.Metadata)
	}
	if len(o.Unexpressed)+len(o.LeftToCluster)+len(o.Ignored) != 0 {
		t.Errorf("adopted %+v", o.Adopted)
	}
}

// TestReadOverlayUnknownFields: fields of a newer Karpenter, in the spec or a requirement, are
// named by their path, and the rest is still read.
func TestReadOverlayUnknownFields(t *testing.T) {
	doc := strings.Replace(liveOverlay, "  weight: 20\n", "  weight: 20\n  futureField: {enabled: true}\n", 1)
	doc = strings.Replace(doc, "values: [spot]}", "values: [spot], minValues: 1}", 1)
	o, err := adopt.ReadOverlay(object(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Unexpressed, []string{"spec.futureField.enabled", "spec.requirements[1].minValues"}) {
		t.Errorf("unexpressed %v", o.Unexpressed)
	}
	if len(o.Config.Requirements) != 4 || o.Config.Weight == nil || *o.Config.Weight != 20 {
		t.Errorf("read %+v", o.Config)
	}
}

// TestReadOverlayRefusesOtherKinds: a NodePool, or a spec that is not a NodeOverlay's, is refused.
func TestReadOverlayRefusesOtherKinds(t *testing.T) {
	if _, err := adopt.ReadOverlay(object(t, livePool)); err == nil ||
		!strings.Contains(err.Error(), "is karpenter.sh/v1 NodePool, not a karpenter.sh/v1alpha1 NodeOverlay") {
		t.Errorf("ReadOverlay(NodePool) = %v", err)
	}
	bad := strings.Replace(liveOverlay, "  weight: 20\n", "  weight: heavy\n", 1)
	if _, err := adopt.ReadOverlay(object(t, bad)); err == nil || !strings.Contains(err.Error(), "cannot read spec") {
		t.Errorf("ReadOverlay(weight: heavy) = %v", err)
	}
}
