package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// LiveObject reads one cluster-scoped object by apiVersion, resource and name
// (kubeclient.Client.Object): kubeclient.ErrNotFound when there is none.
type LiveObject func(ctx context.Context, apiVersion, resource, name string) (map[string]any, error)

// The resources of the Karpenter kinds the provider imports.
const (
	classResource   = "ec2nodeclasses"
	poolResource    = "nodepools"
	overlayResource = "nodeoverlays"
)

// NoClusterAccess is what importing by name says without the provider's kubernetes access.
func NoClusterAccess(kind string) attrpath.Finding {
	return attrpath.Finding{Summary: "Imported by name only",
		Message: fmt.Sprintf("the provider has no `kubernetes` access, so the live %s is not read: the state holds its name and the next plan "+
			"records the configuration. To import its spec and metadata (and have `terraform plan -generate-config-out` write them), "+
			"set the provider's `kubernetes` block (host, token, cluster_ca_certificate) with get on %s.", kind, kindResource(kind))}
}

func kindResource(kind string) string {
	switch kind {
	case manifest.EC2NodeClassKind:
		return classResource + ".karpenter.k8s.aws"
	case manifest.AutoModeNodeClassKind:
		return autoModeClassResource + "." + manifest.AutoModeNodeClassGroup
	case manifest.NodeOverlayKind:
		return overlayResource + ".karpenter.sh"
	}
	return poolResource + ".karpenter.sh"
}

// PoolNotFound is an import of a pool that is neither a NodePool of the cluster nor a static
// pool of the provider's launcher in EC2.
func PoolNotFound(name string) attrpath.Finding {
	return attrpath.Finding{Summary: "Cannot import NodePool " + name, Message: fmt.Sprintf("the cluster has no NodePool named %q and no "+
		"launch template in EC2 carries the provider's ownership tags for a pool of that name. Check the name (`kubectl get %s`), "+
		"the provider's kubernetes host and its cluster_name.", name, kindResource(manifest.NodePoolKind))}
}

// ClassFromCluster reads the cluster's EC2NodeClass name as a karpenter_node_class
// configuration; what it cannot carry is a warning. A class with `role` has no instance profile
// of the provider's (Karpenter keeps its own for the nodes it launches), unless the provider's
// profile for static pools already exists under profileOwner (a class's owner id, "" for none):
// then the configuration keeps it (`instance_profile_for_static_pools`), with a note saying so.
func ClassFromCluster(ctx context.Context, read LiveObject, name, profileOwner string) (adopt.Class, []attrpath.Finding, []attrpath.Finding) {
	obj, err := read(ctx, manifest.EC2NodeClassAPIVersion, classResource, name)
	if err != nil {
		return adopt.Class{}, []attrpath.Finding{importError(manifest.EC2NodeClassKind, name, err)}, nil
	}
	c, err := adopt.ReadClass(obj)
	if err != nil {
		return adopt.Class{}, []attrpath.Finding{importError(manifest.EC2NodeClassKind, name, err)}, nil
	}
	note := ""
	if c.Config.Role != "" && profileOwner != "" {
		keep := true
		c.Config.InstanceProfileForStaticPools = &keep
		note = fmt.Sprintf("the provider's instance profile for the class's static pools exists (owner id %s): the import keeps it, "+
			"with `instance_profile_for_static_pools = true`; remove that if no static pool of the provider's launcher uses the class, "+
			"and the next apply deletes the profile", profileOwner)
	}
	return c, nil, adoptedWarnings(manifest.EC2NodeClassKind, name, c.Adopted, note)
}

// ClassImported is what adopting a class by name finds.
type ClassImported struct {
	// OwnerID is the owner id of the provider's instance profile for the class name when one
	// exists with the provider's tags, so that the class keeps managing it; otherwise, for a
	// class read from the cluster, a new one, chosen now rather than at the next apply so that
	// the next plan is clean ("" when the cluster is not read).
	OwnerID string
	// Adopted: OwnerID is that of an existing profile, which the import's plan must be made
	// with (the profile is this class's, not a name already taken).
	Adopted bool
	// Class is the cluster's EC2NodeClass as a configuration (ClassFromCluster); nil when the
	// cluster is not read.
	Class *adopt.Class
}

// ImportClass adopts a class by name: the owner id of the provider's instance profile for it
// (fleet.Profiles.Adopt) and, through read, the live EC2NodeClass. Without read (no cluster
// access) it finds the owner id only, with a warning.
func ImportClass(ctx context.Context, ports ClassPorts, facts ClassFacts, read LiveObject, name string) (ClassImported, []attrpath.Finding, []attrpath.Finding) {
	owner, err := profiles(ports, facts).Adopt(ctx, name)
	if err != nil {
		return ClassImported{}, []attrpath.Finding{{Summary: "Cannot read the class's instance profile",
			Message: err.Error() + "\n\n" + fleet.IAMPermissionsHint}}, nil
	}
	out := ClassImported{OwnerID: owner, Adopted: owner != ""}
	if read == nil {
		return out, nil, []attrpath.Finding{NoClusterAccess(manifest.EC2NodeClassKind)}
	}
	c, errs, warnings := ClassFromCluster(ctx, read, name, owner)
	if len(errs) > 0 {
		return out, errs, warnings
	}
	if out.OwnerID == "" {
		out.OwnerID = fleet.NewOwnerID()
	}
	out.Class = &c
	return out, nil, warnings
}

// PoolFromCluster reads the cluster's NodePool name as a karpenter_node_pool configuration, and
// the EC2NodeClass it names, whose values become the pool's node_class. found is false (with
// no finding) when the cluster has no NodePool of that name.
func PoolFromCluster(ctx context.Context, read LiveObject, name string) (p adopt.Pool, class adopt.Class, found bool, errs, warnings []attrpath.Finding) {
	obj, err := read(ctx, manifest.NodePoolAPIVersion, poolResource, name)
	if errors.Is(err, kubeclient.ErrNotFound) {
		return p, class, false, nil, nil
	}
	if err == nil {
		p, err = adopt.ReadPool(obj)
	}
	if err != nil {
		return p, class, true, []attrpath.Finding{importError(manifest.NodePoolKind, name, err)}, nil
	}
	if p.AutoMode {
		errs, warnings = autoModePoolClass(ctx, read, name, &p)
		return p, class, true, errs, warnings
	}
	class, errs, warnings = ClassFromCluster(ctx, read, p.NodeClass, "") // the pool's value only: no profile of the provider's
	if len(errs) > 0 {
		errs[0].Message = fmt.Sprintf("NodePool %q names EC2NodeClass %q in its nodeClassRef, whose values become the pool's `node_class`: %s",
			name, p.NodeClass, errs[0].Message)
		return p, class, true, errs, nil
	}
	note := fmt.Sprintf("`node_class` holds the values of EC2NodeClass %q as the plan resolved them; replace it with "+
		"`karpenter_node_class.<name>.resolved` once that class is in the configuration (import it by %q)", p.NodeClass, p.NodeClass)
	return p, class, true, nil, append(adoptedWarnings(manifest.NodePoolKind, name, p.Adopted, note), warnings...)
}

// ValidateOverlayImportID checks a node overlay's import ID: a Kubernetes object name.
func ValidateOverlayImportID(id string) []attrpath.Finding {
	if msgs := validation.IsDNS1123Subdomain(id); len(msgs) > 0 {
		return []attrpath.Finding{{Summary: "Invalid import ID", Message: fmt.Sprintf("The import ID is the overlay name, `metadata.name` "+
			"of the NodeOverlay, and must equal `name` in the configuration: %q is not a valid Kubernetes object name (lower-case DNS "+
			"subdomain): %s.", id, strings.Join(msgs, "; "))}}
	}
	return nil
}

// ImportOverlay adopts a node overlay by name: through read, the live NodeOverlay as a
// karpenter_node_overlay configuration, what it cannot carry a warning. Without read (no cluster
// access) it finds nothing (nil), with a warning: the state holds the name only.
func ImportOverlay(ctx context.Context, read LiveObject, name string) (*adopt.Overlay, []attrpath.Finding, []attrpath.Finding) {
	if read == nil {
		return nil, nil, []attrpath.Finding{NoClusterAccess(manifest.NodeOverlayKind)}
	}
	obj, err := read(ctx, manifest.NodeOverlayAPIVersion, overlayResource, name)
	if err != nil {
		return nil, []attrpath.Finding{importError(manifest.NodeOverlayKind, name, err)}, nil
	}
	o, err := adopt.ReadOverlay(obj)
	if err != nil {
		return nil, []attrpath.Finding{importError(manifest.NodeOverlayKind, name, err)}, nil
	}
	return &o, nil, adoptedWarnings(manifest.NodeOverlayKind, name, o.Adopted, "")
}

// importError is a failed import of kind name: the object missing, unreadable or not adoptable.
func importError(kind, name string, err error) attrpath.Finding {
	summary := "Cannot import " + kind + " " + name
	if kind == manifest.AutoModeNodeClassKind {
		if errors.Is(err, kubeclient.ErrNotInstalled) { // the error names Karpenter's NodeClaim CRD: not this kind's
			return attrpath.Finding{Summary: summary, Message: strings.TrimSpace(autoModeImportFix(err))}
		}
		return attrpath.Finding{Summary: summary, Message: err.Error() + "." + autoModeImportFix(err)}
	}
	if kind == manifest.NodeOverlayKind && errors.Is(err, kubeclient.ErrNotInstalled) { // the error names Karpenter's NodeClaim CRD
		return attrpath.Finding{Summary: summary, Message: fmt.Sprintf("the cluster does not serve %s (%s): its Karpenter CRDs have no "+
			"NodeOverlay. Install the CRDs of a Karpenter release with NodeOverlay, or point the provider's kubernetes block at the "+
			"cluster that runs Karpenter.", kindResource(kind), manifest.NodeOverlayAPIVersion)}
	}
	fix := ""
	switch {
	case errors.Is(err, kubeclient.ErrNotFound):
		fix = fmt.Sprintf(" Check the name (`kubectl get %s`) and the provider's kubernetes host.", kindResource(kind))
	case errors.Is(err, kubeclient.ErrNotInstalled):
		fix = " The cluster does not serve that kind: install Karpenter's CRDs, or point the provider's kubernetes block at the cluster that runs Karpenter."
	}
	return attrpath.Finding{Summary: summary, Message: err.Error() + "." + fix}
}

// adoptedWarnings name what the import left out of the configuration, and the note.
func adoptedWarnings(kind, name string, a adopt.Adopted, note string) []attrpath.Finding {
	var parts []string
	if len(a.Unexpressed) > 0 {
		parts = append(parts, fmt.Sprintf("fields the configuration cannot carry (applying its manifest would drop or change them): %s",
			strings.Join(a.Unexpressed, ", ")))
	}
	if len(a.LeftToCluster) > 0 {
		parts = append(parts, "annotations written by Karpenter or kubectl, left to the cluster: "+strings.Join(a.LeftToCluster, ", "))
	}
	if len(a.Ignored) > 0 {
		parts = append(parts, "metadata the resource does not manage: "+strings.Join(a.Ignored, ", "))
	}
	if note != "" {
		parts = append(parts, note)
	}
	if len(parts) == 0 {
		return nil
	}
	return []attrpath.Finding{{Summary: "Imported " + kind + " " + name + " from the cluster", Message: strings.Join(parts, "; ") + "."}}
}
