package planner

import (
	"context"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// AutoModeClassPorts are what an Auto Mode NodeClass's plan asks beyond its configuration.
type AutoModeClassPorts struct {
	EC2 automode.API
	// Admit is what the schema of the kind refuses of a manifest (manifest.AutoModeNodeClassCRD).
	Admit func(kind, doc string) ([]attrpath.Finding, error)
	// Cluster is the EKS cluster as lookup_cluster read it (nil: not looked up, and neither its
	// EKS Auto Mode compute nor the node role's access entry is checked).
	Cluster *AutoModeCluster
}

// AutoModeClassInput is the class's configuration with the value the state recorded (nil: a
// new class).
type AutoModeClassInput struct {
	automode.Config
	Prior *launchplan.ClassValue
}

// AutoModeClassResult is the class's plan: its manifest, the value its pools read and the
// findings. The values are complete only without Errors.
type AutoModeClassResult struct {
	Manifest         string
	Resolved         launchplan.ClassValue
	Errors, Warnings []attrpath.Finding
}

// ValidateAutoModeClass runs the rules that need no API call: the name, and the manifest as the
// schema written from the EKS user guide admits it (admit). It returns the manifest too ("" when
// a rule failed before it).
func ValidateAutoModeClass(c automode.Config, admit func(kind, doc string) ([]attrpath.Finding, error)) []attrpath.Finding {
	_, errs := autoModeManifest(c, admit)
	return errs
}

func autoModeManifest(c automode.Config, admit func(kind, doc string) ([]attrpath.Finding, error)) (string, []attrpath.Finding) {
	if errs := automode.Validate(c); len(errs) > 0 {
		return "", errs
	}
	doc, err := c.Manifest()
	if err != nil {
		return "", []attrpath.Finding{{Summary: "Cannot render the NodeClass manifest", Message: err.Error()}}
	}
	findings, err := admit(manifest.AutoModeNodeClassKind, doc)
	if err != nil {
		findings = []attrpath.Finding{{Summary: "Cannot validate the NodeClass manifest", Message: err.Error()}}
	}
	return doc, findings
}

// AutoModeClass plans an EKS Auto Mode NodeClass: its rules and the manifest as the schema
// written from the EKS user guide admits it (no AWS call before they pass), the looked-up
// cluster's EKS Auto Mode compute, then its selectors resolved against EC2 (automode.Resolve)
// and the node role's access entry (warnings). It stops at the first stage with errors.
func AutoModeClass(ctx context.Context, ports AutoModeClassPorts, in AutoModeClassInput, now time.Time) AutoModeClassResult {
	var res AutoModeClassResult
	doc, errs := autoModeManifest(in.Config, ports.Admit)
	if res.Errors = append(errs, autoModeComputeFindings(ports.Cluster)...); len(res.Errors) > 0 {
		return res
	}
	r, err := automode.Resolve(ctx, ports.EC2, in.Config, now)
	if err != nil {
		res.Errors = []attrpath.Finding{{Path: attrpath.Of("subnet_selector_terms"), Summary: "Cannot resolve the NodeClass's selectors",
			Message: err.Error()}}
		return res
	}
	res.Errors, res.Warnings = r.Errors, r.Warnings
	if len(res.Errors) > 0 {
		return res
	}
	res.Warnings = append(res.Warnings, nodeRoleAccessFindings(ctx, ports.Cluster, in.Role)...)
	res.Manifest, res.Resolved = doc, r.Value(in.Config, in.Prior)
	return res
}
