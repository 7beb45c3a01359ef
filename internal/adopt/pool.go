package adopt

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Pool is a live NodePool read as a karpenter_node_pool.
type Pool struct {
	Config nodepool.Config
	// NodeClass is the node class the pool's nodeClassRef names: an EC2NodeClass, or with
	// AutoMode an EKS Auto Mode NodeClass.
	NodeClass string
	AutoMode  bool
	// AutoModeClass is the Auto Mode NodeClass it names, once read from the cluster
	// (planner.PoolFromCluster); nil for a pool on an EC2NodeClass.
	AutoModeClass *AutoModeClass
	Adopted
}

// ReadPool reads a live karpenter.sh/v1 NodePool. Its nodeClassRef must name an EC2NodeClass or
// an EKS Auto Mode NodeClass, the node classes this provider plans; a pool with replicas is
// Karpenter-launched.
func ReadPool(obj Object) (Pool, error) {
	if err := checkKind(obj, manifest.NodePoolAPIVersion, manifest.NodePoolKind); err != nil {
		return Pool{}, err
	}
	live := specOf(obj)
	typed := map[string]any{}
	for k, v := range live {
		if k != "limits" { // quantities: JSON numbers or strings
			typed[k] = v
		}
	}
	var spec manifest.NodePoolSpec
	if err := decodeInto(typed, &spec, "spec"); err != nil {
		return Pool{}, err
	}
	ref := spec.Template.Spec.NodeClassRef
	ec2 := ref.Group == manifest.DefaultNodeClassGroup && ref.Kind == manifest.DefaultNodeClassKind
	auto := ref.Group == manifest.AutoModeNodeClassGroup && ref.Kind == manifest.AutoModeNodeClassKind
	if !ec2 && !auto || ref.Name == "" {
		return Pool{}, fmt.Errorf("spec.template.spec.nodeClassRef names group %q, kind %q, name %q: Karpenter manages only the NodePools "+
			"whose nodeClassRef is group %q, kind %q, and EKS Auto Mode those of group %q, kind %q (both ignore this one), and so does "+
			"this provider; fix the NodePool's nodeClassRef, then import it",
			ref.Group, ref.Kind, ref.Name, manifest.DefaultNodeClassGroup, manifest.DefaultNodeClassKind, manifest.AutoModeNodeClassGroup,
			manifest.AutoModeNodeClassKind)
	}
	p := Pool{Config: poolConfig(nameOf(obj), spec), NodeClass: ref.Name, AutoMode: auto}
	p.Config.Limits = stringMap(live["limits"])
	p.Config.Metadata = metadataOf(obj, &p.Adopted)
	doc, err := nodepool.ManifestOn(p.Config.Spec(), manifest.NodeClassReference{Group: ref.Group, Kind: ref.Kind, Name: ref.Name})
	if err == nil {
		p.Unexpressed, err = unexpressed(live, doc)
	}
	return p, err
}

// poolConfig is the inverse of nodepool.Manifest for what the typed spec holds.
func poolConfig(name string, s manifest.NodePoolSpec) nodepool.Config {
	t := s.Template
	c := nodepool.Config{Name: name, Weight: intPtr(s.Weight), Replicas: intPtr(s.Replicas), Template: &nodepool.Template{
		Labels: t.Metadata.Labels, Annotations: t.Metadata.Annotations, Taints: t.Spec.Taints, StartupTaints: t.Spec.StartupTaints,
		ExpireAfter: t.Spec.ExpireAfter, TerminationGracePeriod: t.Spec.TerminationGracePeriod}}
	if c.Replicas != nil {
		launcher := nodepool.LauncherKarpenter
		c.Launcher = &launcher
	}
	for _, r := range t.Spec.Requirements {
		c.Template.Requirements = append(c.Template.Requirements, requirements.Requirement{Key: r.Key,
			Operator: requirements.Operator(r.Operator), Values: r.Values, MinValues: intPtr(r.MinValues)})
	}
	d := s.Disruption
	c.Disruption = &nodepool.Disruption{ConsolidationPolicy: strPtr(d.ConsolidationPolicy), ConsolidateAfter: strPtr(d.ConsolidateAfter)}
	for _, b := range d.Budgets {
		c.Disruption.Budgets = append(c.Disruption.Budgets, nodepool.Budget{Nodes: b.Nodes, Reasons: b.Reasons, Schedule: b.Schedule, Duration: b.Duration})
	}
	return c
}
