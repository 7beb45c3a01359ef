package nodepool

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Config is the NodePool part of a karpenter_node_pool resource as its schema shapes it (the
// provider decodes the plan straight into it by the tfsdk tags): Spec reads it.
type Config struct {
	Name       string            `tfsdk:"name"`
	Template   *Template         `tfsdk:"template"`
	Limits     map[string]string `tfsdk:"limits"`
	Disruption *Disruption       `tfsdk:"disruption"`
	Weight     *int              `tfsdk:"weight"`
	Replicas   *int              `tfsdk:"replicas"`
	// Launcher says who launches a static pool's nodes: LauncherProvider (nil: the default) or
	// LauncherKarpenter.
	Launcher *string `tfsdk:"launcher"`
	// Spread is SpreadZones (one NodePool per zone) or nil.
	Spread *string `tfsdk:"spread"`
	// Metadata is the NodePool object's own labels and annotations (not its nodes').
	Metadata *manifest.ObjectMetadata `tfsdk:"metadata"`
}

// Template is the `template` attribute.
type Template struct {
	Labels                 map[string]string          `tfsdk:"labels"`
	Annotations            map[string]string          `tfsdk:"annotations"`
	Taints                 []manifest.Taint           `tfsdk:"taints"`
	StartupTaints          []manifest.Taint           `tfsdk:"startup_taints"`
	Requirements           []requirements.Requirement `tfsdk:"requirements"`
	ExpireAfter            string                     `tfsdk:"expire_after"`
	TerminationGracePeriod string                     `tfsdk:"termination_grace_period"`
}

// Disruption is the `disruption` attribute. A field left out (nil) takes the CRD's default, as
// the API server defaults each field; the schema gives the same defaults at plan, but the
// configuration alone, validated before them, may leave fields out.
type Disruption struct {
	ConsolidationPolicy *string  `tfsdk:"consolidation_policy"`
	ConsolidateAfter    *string  `tfsdk:"consolidate_after"`
	Budgets             []Budget `tfsdk:"budgets"`
}

// The CRD's defaults of an unset `disruption` and of its fields.
const (
	DefaultConsolidationPolicy = PolicyWhenEmptyOrUnderutilized
	DefaultConsolidateAfter    = "0s"
)

// Launchers of a static pool.
const (
	// LauncherProvider: the provider launches the nodes itself through EC2 Fleet (the default).
	LauncherProvider = "provider"
	// LauncherKarpenter: the NodePool carries spec.replicas and Karpenter keeps the nodes
	// (its StaticCapacity feature gate).
	LauncherKarpenter = "karpenter"
	// StaticCapacityGate is the Karpenter feature gate of static NodePools.
	StaticCapacityGate = "StaticCapacity"
	// SpreadZones renders a Karpenter-launched static pool as one NodePool per zone.
	SpreadZones = "zones"
)

// KarpenterLaunched reports whether Karpenter launches the static pool (launcher = "karpenter").
func (c Config) KarpenterLaunched() bool {
	return c.Replicas != nil && c.Launcher != nil && *c.Launcher == LauncherKarpenter
}

// ProviderStatic reports whether the provider launches the pool's nodes itself: replicas under
// the provider's launcher.
func (c Config) ProviderStatic() bool { return c.Replicas != nil && !c.KarpenterLaunched() }

// Requirements are the template's requirements (nil without a template).
func (c Config) Requirements() []requirements.Requirement {
	if c.Template == nil {
		return nil
	}
	return c.Template.Requirements
}

// Spec is the pool's settings for validation and the manifest.
func (c Config) Spec() Spec {
	s := Spec{Name: c.Name, Limits: c.Limits, Weight: c.Weight, Replicas: c.Replicas, Launcher: c.Launcher, Spread: c.Spread,
		ConsolidationPolicy: DefaultConsolidationPolicy, ConsolidateAfter: DefaultConsolidateAfter}
	if d := c.Disruption; d != nil {
		s.Budgets = d.Budgets
		if d.ConsolidationPolicy != nil {
			s.ConsolidationPolicy = *d.ConsolidationPolicy
		}
		if d.ConsolidateAfter != nil {
			s.ConsolidateAfter = *d.ConsolidateAfter
		}
	}
	if c.Metadata != nil {
		s.Object = *c.Metadata
	}
	if t := c.Template; t != nil {
		s.Labels, s.Annotations, s.Taints, s.StartupTaints = t.Labels, t.Annotations, t.Taints, t.StartupTaints
		s.Requirements, s.ExpireAfter, s.TerminationGracePeriod = t.Requirements, t.ExpireAfter, t.TerminationGracePeriod
	}
	return s
}
