// Package nodeoverlay holds Karpenter's NodeOverlay (karpenter.sh/v1alpha1): its settings, their
// validation, its manifest, and how Karpenter applies a cluster's overlays to the instance types
// of a NodePool (weight order, conflicts, price changes and added capacity). Pure: no Terraform,
// no AWS SDK.
package nodeoverlay

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// FeatureGate is the Karpenter feature gate without which Karpenter ignores every NodeOverlay.
const FeatureGate = "NodeOverlay"

// Requirement is one overlay requirement: a NodeSelectorRequirement (no min values).
type Requirement struct {
	Key      string                `tfsdk:"key"`
	Operator requirements.Operator `tfsdk:"operator"`
	Values   []string              `tfsdk:"values"`
}

// Config is a karpenter_node_overlay as written: also the shape of its `resolved` value, which
// pools take in `node_overlays`.
type Config struct {
	Name            string            `tfsdk:"name"`
	Requirements    []Requirement     `tfsdk:"requirements"`
	Price           *string           `tfsdk:"price"`
	PriceAdjustment *string           `tfsdk:"price_adjustment"`
	Capacity        map[string]string `tfsdk:"capacity"`
	Weight          *int64            `tfsdk:"weight"`
}

// Weight bounds of the CRD.
const (
	MinWeight = 1
	MaxWeight = 10000
)

// restrictedCapacity are the resources an overlay may not change (Karpenter's well-known
// resources): only extended resources can be added.
var restrictedCapacity = []string{"cpu", "memory", "ephemeral-storage", "pods"}

// The CRD's patterns for price and priceAdjustment.
var (
	pricePattern      = regexp.MustCompile(`^\d+(\.\d+)?$`)
	adjustmentPattern = regexp.MustCompile(`^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`)
)

var (
	pathRequirements    = attrpath.Of("requirements")
	pathPrice           = attrpath.Of("price")
	pathPriceAdjustment = attrpath.Of("price_adjustment")
	pathCapacity        = attrpath.Of("capacity")
	pathWeight          = attrpath.Of("weight")
)

// RequirementsOf converts an overlay's requirements for matching.
func RequirementsOf(rs []Requirement) []requirements.Requirement {
	out := make([]requirements.Requirement, len(rs))
	for i, r := range rs {
		out[i] = requirements.Requirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
	}
	return out
}

// Validate is what the API server (the CRD's schema and CEL rules) and Karpenter's runtime
// validation refuse, each on its attribute and worded with the fix.
func Validate(c Config) []attrpath.Finding {
	var out []attrpath.Finding
	add := func(at attrpath.Path, format string, args ...any) {
		out = append(out, attrpath.Finding{Path: at, Message: fmt.Sprintf(format, args...)})
	}
	if msgs := validation.IsDNS1123Subdomain(c.Name); len(msgs) > 0 {
		add(attrpath.Of("name"), "%q is not a valid Kubernetes object name (lower-case DNS subdomain): %s", c.Name, strings.Join(msgs, "; "))
	}
	if len(c.Requirements) == 0 {
		add(pathRequirements, "an overlay needs at least one requirement: Karpenter's CRD requires spec.requirements")
	}
	out = append(out, attrpath.Under(pathRequirements, requirements.ValidateOverlay(RequirementsOf(c.Requirements)))...)
	if c.Price != nil && c.PriceAdjustment != nil {
		add(pathPriceAdjustment, "set price or price_adjustment, not both: Karpenter refuses an overlay with both")
	}
	if c.Price != nil && !pricePattern.MatchString(*c.Price) {
		add(pathPrice, "price %q is not an hourly price in USD: write a non-negative decimal such as \"0.25\" (no sign, no unit)", *c.Price)
	}
	if a := c.PriceAdjustment; a != nil && !adjustmentPattern.MatchString(*a) {
		add(pathPriceAdjustment, "price_adjustment %q is not one of Karpenter's forms: \"+0.1\" or \"-0.1\" (USD per hour added), "+
			"\"+10%%\" (any increase) or \"-10%%\" (a decrease below 100%%, or exactly \"-100%%\")", *a)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Capacity)) {
		at := pathCapacity.Key(name)
		if slices.Contains(restrictedCapacity, name) {
			add(at, "capacity %q cannot be overlaid: Karpenter computes cpu, memory, ephemeral-storage and pods itself; an overlay "+
				"adds extended resources only (e.g. \"example.com/device\")", name)
			continue
		}
		if p := requirements.QualifiedNameProblem(name); p != "" {
			add(at, "capacity %q is not a resource name: %s", name, p)
		}
		if _, err := resource.ParseQuantity(c.Capacity[name]); err != nil {
			add(at, "capacity %q = %q is not a Kubernetes quantity (e.g. \"1\", \"500m\", \"10Gi\")", name, c.Capacity[name])
		}
	}
	if w := c.Weight; w != nil && (*w < MinWeight || *w > MaxWeight) {
		add(pathWeight, "weight must be between %d and %d, got %d", MinWeight, MaxWeight, *w)
	}
	return out
}

// Warnings are what the API server accepts but does nothing.
func Warnings(c Config) []attrpath.Finding {
	if c.Price == nil && c.PriceAdjustment == nil && len(c.Capacity) == 0 {
		return []attrpath.Finding{{Path: attrpath.Path{}, Message: "the overlay changes nothing: set price, price_adjustment or capacity"}}
	}
	return nil
}

// ValidateGates refuses an overlay when the cluster's Karpenter (the provider's
// karpenter_feature_gates) does not enable NodeOverlay: Karpenter would ignore it, silently.
func ValidateGates(gates []string, at attrpath.Path) []attrpath.Finding {
	if reservations.GateOn(gates, FeatureGate, reservations.GateDefaultOf(FeatureGate)) {
		return nil
	}
	return []attrpath.Finding{{Path: at, Message: "Karpenter applies NodeOverlays only with its NodeOverlay feature gate on " +
		"(settings.featureGates.nodeOverlay in the Helm chart, an alpha gate): without it the overlay is accepted by the API " +
		"server and ignored. Enable the gate in the cluster and add \"NodeOverlay\" to the provider's karpenter_feature_gates"}}
}

// Manifest renders the overlay as Karpenter's NodeOverlay.
func Manifest(c Config, meta *manifest.ObjectMetadata) (string, error) {
	spec := manifest.NodeOverlaySpec{Requirements: []manifest.NodeSelectorRequirement{}, Price: c.Price, PriceAdjustment: c.PriceAdjustment,
		Capacity: c.Capacity}
	for _, r := range c.Requirements {
		spec.Requirements = append(spec.Requirements, manifest.NodeSelectorRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values})
	}
	if c.Weight != nil {
		w := int32(*c.Weight) //nolint:gosec // bounded by Validate and the CRD
		spec.Weight = &w
	}
	o := manifest.NodeOverlay{Name: c.Name, Spec: spec}
	if meta != nil {
		o.Labels, o.Annotations = meta.Labels, meta.Annotations
	}
	return manifest.RenderNodeOverlay(o)
}

// Change is the overlay's price change in a phrase: "price 0.05", "price -90%".
func (c Config) Change() string {
	var parts []string
	switch {
	case c.Price != nil:
		parts = append(parts, "price "+*c.Price)
	case c.PriceAdjustment != nil:
		parts = append(parts, "price "+*c.PriceAdjustment)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Capacity)) {
		parts = append(parts, k+"="+c.Capacity[k])
	}
	return strings.Join(parts, ", ")
}

// AdjustedPrice is Karpenter's price of an offering under an overlay's change: an absolute
// price replaces it; "+N"/"-N" add USD per hour; "+N%"/"-N%" scale it; the result is never
// below 0. change is valid (Validate).
func AdjustedPrice(price float64, change string) float64 {
	if change == "" {
		return price
	}
	if !strings.HasPrefix(change, "+") && !strings.HasPrefix(change, "-") {
		v, _ := strconv.ParseFloat(change, 64)
		return v
	}
	var adjusted float64
	if pct, ok := strings.CutSuffix(change, "%"); ok {
		v, _ := strconv.ParseFloat(pct, 64)
		adjusted = price * (1 + v/100)
	} else {
		v, _ := strconv.ParseFloat(change, 64)
		adjusted = price + v
	}
	return max(adjusted, 0)
}
