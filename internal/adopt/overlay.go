package adopt

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Overlay is a live NodeOverlay read as a karpenter_node_overlay.
type Overlay struct {
	Config nodeoverlay.Config
	// Metadata is the object's own labels and annotations (the resource's `metadata`); nil when
	// it has none.
	Metadata *manifest.ObjectMetadata
	Adopted
}

// ReadOverlay reads a live karpenter.sh/v1alpha1 NodeOverlay. What the API server admitted but
// the provider's rules refuse is left to the plan, which names it on its attribute.
func ReadOverlay(obj Object) (Overlay, error) {
	if err := checkKind(obj, manifest.NodeOverlayAPIVersion, manifest.NodeOverlayKind); err != nil {
		return Overlay{}, err
	}
	live := specOf(obj)
	typed := map[string]any{}
	for k, v := range live {
		if k != "capacity" { // quantities: JSON numbers or strings
			typed[k] = v
		}
	}
	var spec manifest.NodeOverlaySpec
	if err := decodeInto(typed, &spec, "spec"); err != nil {
		return Overlay{}, err
	}
	o := Overlay{Config: overlayConfig(nameOf(obj), spec)}
	o.Config.Capacity = stringMap(live["capacity"])
	o.Metadata = metadataOf(obj, &o.Adopted)
	doc, err := nodeoverlay.Manifest(o.Config, o.Metadata)
	if err == nil {
		o.Unexpressed, err = unexpressed(live, doc)
	}
	return o, err
}

// overlayConfig is the inverse of nodeoverlay.Manifest for what the typed spec holds.
func overlayConfig(name string, s manifest.NodeOverlaySpec) nodeoverlay.Config {
	c := nodeoverlay.Config{Name: name, Price: s.Price, PriceAdjustment: s.PriceAdjustment, Weight: intPtr64(s.Weight)}
	for _, r := range s.Requirements {
		c.Requirements = append(c.Requirements, nodeoverlay.Requirement{Key: r.Key, Operator: requirements.Operator(r.Operator), Values: r.Values})
	}
	return c
}

// intPtr64 is an optional int32 field as an int64 attribute holds it.
func intPtr64(p *int32) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}
