package planner

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// autoModeClassResource is the resource of the EKS Auto Mode NodeClass.
const autoModeClassResource = "nodeclasses"

// ValidateAutoModeImportID checks an Auto Mode NodeClass's import ID: a node class name, and not
// the NodeClass EKS keeps for its built-in node pools, which no configuration may name.
func ValidateAutoModeImportID(id string) []attrpath.Finding {
	if errs := ValidateClassImportID(id); len(errs) > 0 {
		return errs
	}
	if id == automode.ReservedName {
		return []attrpath.Finding{{Summary: "Invalid import ID", Message: `"default" is the NodeClass EKS Auto Mode creates and keeps ` +
			"for its built-in node pools (the cluster's computeConfig), not a custom NodeClass; a karpenter_auto_mode_node_class " +
			"must be named otherwise (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)."}}
	}
	return nil
}

// ImportAutoModeClass reads the cluster's Auto Mode NodeClass name (eks.amazonaws.com/v1
// nodeclasses) as a karpenter_auto_mode_node_class configuration. What the configuration cannot
// carry is a warning, by path. Without read (no cluster access) it returns nil, with a warning:
// the state then holds the name only.
func ImportAutoModeClass(ctx context.Context, read LiveObject, name string) (*adopt.AutoModeClass, []attrpath.Finding, []attrpath.Finding) {
	kind := manifest.AutoModeNodeClassKind
	if read == nil {
		return nil, nil, []attrpath.Finding{NoClusterAccess(kind)}
	}
	obj, err := read(ctx, manifest.AutoModeNodeClassAPIVersion, autoModeClassResource, name)
	if err != nil {
		return nil, []attrpath.Finding{importError(kind, name, err)}, nil
	}
	c, err := adopt.ReadAutoModeClass(obj)
	if err != nil {
		return nil, []attrpath.Finding{importError(kind, name, err)}, nil
	}
	note := ""
	if c.Status {
		note = "the status EKS Auto Mode writes (its conditions and the subnets, security groups and instance profile it chose) " +
			"stays with the cluster: the plan resolves the selectors itself (`subnets`, `security_group_ids`, `resolved`)"
	}
	return &c, nil, adoptedWarnings(kind, name, c.Adopted, note)
}

// autoModeImportFix is what to check when the cluster has no Auto Mode NodeClass to import
// ("" for another error).
func autoModeImportFix(err error) string {
	switch {
	case errors.Is(err, kubeclient.ErrNotInstalled):
		return fmt.Sprintf(" The cluster does not serve %s: EKS Auto Mode is not enabled on it, or the provider's kubernetes "+
			"block points at another cluster.", kindResource(manifest.AutoModeNodeClassKind))
	case errors.Is(err, kubeclient.ErrNotFound):
		return fmt.Sprintf(" Check the name (`kubectl get %s`) and the provider's kubernetes host.", kindResource(manifest.AutoModeNodeClassKind))
	}
	return ""
}

// autoModePoolClass reads the Auto Mode NodeClass the NodePool name names into p, whose values
// become the pool's node_class.
func autoModePoolClass(ctx context.Context, read LiveObject, name string, p *adopt.Pool) (errs, warnings []attrpath.Finding) {
	c, errs, warnings := ImportAutoModeClass(ctx, read, p.NodeClass)
	if len(errs) > 0 {
		errs[0].Message = fmt.Sprintf("NodePool %q names EKS Auto Mode NodeClass %q in its nodeClassRef, whose values become the pool's "+
			"`node_class`: %s", name, p.NodeClass, errs[0].Message)
		return errs, nil
	}
	p.AutoModeClass = c
	note := fmt.Sprintf("`node_class` holds the values of EKS Auto Mode NodeClass %q as the plan resolved them; replace it with "+
		"`karpenter_auto_mode_node_class.<name>.resolved` once that class is in the configuration (import it by %q)", p.NodeClass, p.NodeClass)
	return nil, append(adoptedWarnings(manifest.NodePoolKind, name, p.Adopted, note), warnings...)
}
