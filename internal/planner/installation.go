package planner

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

// InstallationPorts read the cluster (nil without the provider's kubernetes access).
type InstallationPorts struct {
	Deployment  func(ctx context.Context, namespace, name string) (*kubeclient.Deployment, error)
	Deployments func(ctx context.Context, selector string) ([]kubeclient.Deployment, error)
	// Queue reads the controller's interruption queue and the rules that feed it (AWS).
	Queue func(ctx context.Context, name string) (installation.Queue, error)
	// ServiceAccount reads a service account's annotations (nil, nil when it does not exist).
	ServiceAccount func(ctx context.Context, namespace, name string) (map[string]string, error)
	// PodIdentityRole reads the role an EKS Pod Identity association gives a service account
	// ("" when none does) and the association's id (AWS).
	PodIdentityRole func(ctx context.Context, cluster, namespace, serviceAccount string) (role, association string, err error)
	// RolePolicies reads a role's policy documents (AWS IAM).
	RolePolicies func(ctx context.Context, role string) ([]iampolicy.Document, error)
}

var pathController = attrpath.Of("karpenter_controller")

// CheckInstallation finds Karpenter's controller (karpenter_controller, "namespace/name", or the
// chart's standard label in any namespace) and compares it with the settings
// (installation.Check). A controller that cannot be read, or none found by label, skips the
// check with a warning; none is never an error unless karpenter_controller names it.
func CheckInstallation(ctx context.Context, ports InstallationPorts, controller string, want installation.Want) (
	found *installation.Controller, errs, warnings []attrpath.Finding) {
	skip := func(format string, args ...any) []attrpath.Finding {
		return []attrpath.Finding{{Path: pathController, Summary: "Karpenter installation not checked", Message: fmt.Sprintf(format, args...)}}
	}
	var d *kubeclient.Deployment
	if controller != "" {
		ns, name, ok := strings.Cut(controller, "/")
		if !ok || ns == "" || name == "" {
			return nil, []attrpath.Finding{{Path: pathController, Summary: "Invalid provider setting",
				Message: fmt.Sprintf("karpenter_controller %q is not namespace/name, e.g. \"kube-system/karpenter\"", controller)}}, nil
		}
		got, err := ports.Deployment(ctx, ns, name)
		switch {
		case err != nil:
			return nil, nil, skip("cannot read deployment %s: %v", controller, err)
		case got == nil:
			return nil, []attrpath.Finding{{Path: pathController, Summary: "Karpenter controller not found",
				Message: fmt.Sprintf("the cluster has no deployment %s", controller)}}, nil
		}
		d = got
	} else {
		found, err := ports.Deployments(ctx, installation.StandardSelector)
		switch {
		case err != nil:
			return nil, nil, skip("cannot list deployments labelled %s: %v", installation.StandardSelector, err)
		case len(found) == 0:
			return nil, nil, nil // not a cluster whose Karpenter this provider can see: nothing to compare
		case len(found) > 1:
			names := make([]string, len(found))
			for i, f := range found {
				names[i] = f.Namespace + "/" + f.Name
			}
			return nil, nil, skip("%d deployments carry %s (%s): set karpenter_controller to the one this configuration's Karpenter is",
				len(found), installation.StandardSelector, strings.Join(names, ", "))
		}
		d = &found[0]
	}
	found, errs, warnings = checkController(d, want)
	warnings = append(warnings, checkQueue(ctx, ports, found, want.KarpenterVersion)...)
	return found, errs, append(warnings, checkControllerRole(ctx, ports, d, found, want)...)
}

// checkQueue checks the controller's interruption queue (installation.CheckInterruption) for
// the release it runs (karpenter_version when its image names none); a queue that cannot be
// read is a warning, and the plan goes on.
func checkQueue(ctx context.Context, ports InstallationPorts, c *installation.Controller, karpenterVersion string) []attrpath.Finding {
	if c == nil || c.InterruptionQueue == "" || ports.Queue == nil {
		return nil
	}
	q, err := ports.Queue(ctx, c.InterruptionQueue)
	if err != nil {
		return []attrpath.Finding{{Path: pathController, Summary: "Interruption queue not checked", Message: fmt.Sprintf("cannot read "+
			"INTERRUPTION_QUEUE %q and the EventBridge rules that target it (sqs:GetQueueUrl, sqs:GetQueueAttributes, "+
			"events:ListRuleNamesByTarget, events:DescribeRule): %v", c.InterruptionQueue, err)}}
	}
	return installation.CheckInterruption(*c, cmp.Or(c.Minor(), karpenterVersion), q)
}

// checkController reads the controller from its Deployment and compares it with want.
func checkController(d *kubeclient.Deployment, want installation.Want) (*installation.Controller, []attrpath.Finding, []attrpath.Finding) {
	containers := make([]installation.Container, len(d.Containers))
	for i, c := range d.Containers {
		containers[i] = installation.Container{Name: c.Name, Image: c.Image, Env: c.Env, Args: c.Args}
	}
	c := installation.FromContainers(d.Namespace, d.Name, containers)
	errs, warnings := installation.Check(c, want)
	if preview, ok := installation.UpgradePreview(c, want.KarpenterVersion); ok {
		warnings = append(warnings, preview)
	}
	return &c, errs, warnings
}

// roleAnnotation is the IRSA annotation that names a service account's IAM role.
const roleAnnotation = "eks.amazonaws.com/role-arn"

// checkControllerRole finds the role the controller runs as (its service account's IRSA
// annotation, else an EKS Pod Identity association for it), reads the role's policies and
// evaluates them against what the running release needs (installation.CheckControllerRole).
// What cannot be read or found is one warning naming it; the plan goes on.
func checkControllerRole(ctx context.Context, ports InstallationPorts, d *kubeclient.Deployment, c *installation.Controller,
	want installation.Want) []attrpath.Finding {
	if c == nil || ports.ServiceAccount == nil || ports.RolePolicies == nil {
		return nil
	}
	skip := func(format string, args ...any) []attrpath.Finding {
		return []attrpath.Finding{{Path: pathController, Summary: "Controller permissions not checked", Message: fmt.Sprintf(format, args...)}}
	}
	sa := d.Namespace + "/" + d.ServiceAccount
	annotations, err := ports.ServiceAccount(ctx, d.Namespace, d.ServiceAccount)
	switch {
	case err != nil:
		return skip("cannot read service account %s, which the controller runs as: %v", sa, err)
	case annotations == nil:
		return skip("the controller's service account %s does not exist", sa)
	}
	role := installation.ControllerRole{ARN: annotations[roleAnnotation], Via: fmt.Sprintf("the %s annotation of service account %s", roleAnnotation, sa)}
	if cluster := cmp.Or(c.ClusterName, want.ClusterName); role.ARN == "" && cluster != "" && ports.PodIdentityRole != nil {
		arn, id, err := ports.PodIdentityRole(ctx, cluster, d.Namespace, d.ServiceAccount)
		if err != nil {
			return skip("service account %s has no %s annotation, and its EKS Pod Identity association cannot be read "+
				"(eks:ListPodIdentityAssociations, eks:DescribePodIdentityAssociation): %v", sa, roleAnnotation, err)
		}
		role = installation.ControllerRole{ARN: arn, Via: fmt.Sprintf("EKS Pod Identity association %s of service account %s", id, sa)}
	}
	if role.ARN == "" {
		return skip("service account %s has no %s annotation and no EKS Pod Identity association names it, so the plan cannot "+
			"tell which IAM role the controller runs as (the node's, or credentials in its environment)", sa, roleAnnotation)
	}
	docs, err := ports.RolePolicies(ctx, role.ARN)
	if err != nil {
		return skip("cannot read the policies of the controller's role %s (iam:ListAttachedRolePolicies, iam:GetPolicy, "+
			"iam:GetPolicyVersion, iam:ListRolePolicies, iam:GetRolePolicy): %v", role.ARN, err)
	}
	return installation.CheckControllerRole(*c, cmp.Or(c.Minor(), want.KarpenterVersion), want.Region, role, docs)
}
