package planner

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// autoMode reports whether the pool's node class is an EKS Auto Mode NodeClass.
func (in PoolInput) autoMode() bool { return in.Class.AutoMode != nil }

// classRef is the pool's nodeClassRef: Karpenter's EC2NodeClass, or Auto Mode's NodeClass.
func (in PoolInput) classRef() manifest.NodeClassReference {
	if in.autoMode() {
		return manifest.NodeClassReference{Group: manifest.AutoModeNodeClassGroup, Kind: manifest.AutoModeNodeClassKind, Name: in.ClassName}
	}
	return manifest.NodeClassReference{Group: manifest.DefaultNodeClassGroup, Kind: manifest.DefaultNodeClassKind, Name: in.ClassName}
}

// poolManifest renders the pool's spec s as a NodePool on its node class.
func (in PoolInput) poolManifest(s nodepool.Spec) (string, error) {
	return nodepool.ManifestOn(s, in.classRef())
}

// autoModeFindings are the pool's conflicts with EKS Auto Mode: the name of one of the looked-up
// cluster's built-in NodePools (builtinPoolFindings, on either kind of class: both are the same
// karpenter.sh NodePool object), requirement keys of the other kind's labels (both ways), and on
// an EKS Auto Mode NodeClass what Auto Mode does not run: NodeOverlays, and a static pool the
// provider launches itself (Auto Mode's instances are EC2 managed instances, which only EKS
// launches).
func autoModeFindings(facts PoolFacts, in PoolInput) []attrpath.Finding {
	out := builtinPoolFindings(facts, in)
	reqs := attrpath.Of("template", "requirements")
	for _, p := range requirements.AutoModeKeyProblems(in.Requirements(), in.autoMode()) {
		out = append(out, attrpath.Finding{Path: reqs.Index(p.Index).Attr("key"), Summary: "Label of another kind of node class", Message: p.Message})
	}
	if !in.autoMode() {
		return out
	}
	if len(in.Overlays) > 0 {
		out = append(out, attrpath.Finding{Path: pathNodeOverlays, Summary: "NodeOverlays on EKS Auto Mode",
			Message: "the pool's node class is an EKS Auto Mode NodeClass: the EKS user guide documents no NodeOverlay for Auto Mode, whose " +
				"Karpenter AWS runs and configures, so the plan cannot count on one changing its launches; remove node_overlays " +
				"(https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)"})
	}
	if in.ProviderStatic() {
		out = append(out, attrpath.Finding{Path: pathLauncher, Summary: "The provider cannot launch EKS Auto Mode nodes",
			Message: "the pool's node class is an EKS Auto Mode NodeClass, whose nodes are EC2 managed instances that only EKS launches: " +
				"set launcher = \"karpenter\" for a static pool on it (Auto Mode keeps the replicas, without a feature gate; " +
				"https://docs.aws.amazon.com/eks/latest/userguide/auto-static-capacity.html)"})
	}
	return out
}

// autoModeWarnings are what a pool on an EKS Auto Mode NodeClass plans but Auto Mode may not do
// as planned: a static interface layout caps the pods per node below the plan's max pods.
func autoModeWarnings(in PoolInput) []attrpath.Finding {
	n := in.Class.AutoModeStaticAddresses
	if !in.autoMode() || n == nil {
		return nil
	}
	return []attrpath.Finding{{Path: attrpath.Of("node_class"), Summary: "Static interfaces cap pods",
		Message: fmt.Sprintf("the pool's EKS Auto Mode NodeClass %q sets a static network interface layout, with which Auto Mode adds no "+
			"IPs, prefixes or ENIs after launch: each node's pods get at most its %d secondary addresses, whatever the instance "+
			"type; the plan's max pods assume Auto Mode's own networking (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)",
			in.Class.Name, *n)}}
}
