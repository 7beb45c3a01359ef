package nodeclass

import (
	"context"
	"fmt"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// PlanAPI is every AWS answer a class's plan reads: the selectors, the images, capacity
// reservations and placement groups, and the security group rules of the connectivity checks.
type PlanAPI interface {
	discovery.API
	discovery.ImageAPI
	discovery.CapacityAPI
}

// PlanInput is a class's plan: the validated spec and what the plan reads besides EC2.
type PlanInput struct {
	Spec              Spec
	KubernetesVersion string
	Now               time.Time
	// Horizon is how far ahead of Now a Capacity Block's end is a warning (the provider's
	// capacity_block_horizon); 0 means reservations.DefaultHorizon.
	Horizon time.Duration
	// Profile checks the IAM inputs and names the instance profile (fleet.Profiles.Plan); it
	// runs alongside the EC2 resolution, so the plan waits for the slower of the two.
	Profile func(context.Context) (string, []attrpath.Finding)
	// Prior and PriorCapacity are the state's answers (nil: none), kept while the selection is
	// unchanged: free-IP and available-instance counts move with every launch and would
	// otherwise make every plan an update.
	Prior         *Resolved
	PriorCapacity *Capacity
	// NodeRole checks the node role's policies (nil: nothing to check).
	NodeRole *NodeRole
	// Selected, when set, is called with the selection as soon as the selectors resolve without
	// errors, while the images, capacity and node role are still being read: what depends on
	// the selection alone (the connectivity checks) can start then instead of after Plan.
	Selected func(Resolved)
}

// NodeRole is the node-role readiness check's input: where the role is named and how to read
// its policies.
type NodeRole struct {
	// At is the attribute that names the role: `role`, or `instance_profile` for the role behind it.
	At attrpath.Path
	// Policies reads the role's name and policy documents; role is "" when an instance profile
	// holds no role. It runs alongside the EC2 resolution.
	Policies func(context.Context) (role string, docs []iampolicy.Document, err error)
	// CNIOwnRole: the VPC CNI runs with a role of its own (IRSA or EKS Pod Identity).
	CNIOwnRole bool
	// Partition is the AWS partition of the managed policy ARNs the findings name (the
	// provider's Client.Partition; "" is "aws").
	Partition string
}

// PlanResult is the resolved class.
type PlanResult struct {
	Resolved Resolved
	// InstanceProfile is the profile the launch templates name: the provider's for a class with
	// `role`, else the configured instance_profile.
	InstanceProfile string
	// Capacity is nil when the class selects neither reservations nor a placement group.
	Capacity *Capacity
	// NodeRole is the node-role readiness check (nil when it did not run).
	NodeRole         *iampolicy.Report
	Errors, Warnings []attrpath.Finding
}

func (r *PlanResult) add(errs, warnings []attrpath.Finding, errSummary, warnSummary string) {
	r.Errors = append(r.Errors, attrpath.WithSummary(errSummary, errs)...)
	r.Warnings = append(r.Warnings, attrpath.WithSummary(warnSummary, warnings)...)
}

func failure(at attrpath.Path, summary, msg string) []attrpath.Finding {
	return []attrpath.Finding{{Path: at, Summary: summary, Message: msg}}
}

// Plan resolves a class against AWS: the selectors and images (EC2) and the instance profile
// (IAM) at once, then the capacity reservations and placement group. It stops at the first
// stage with errors. The connectivity checks (CheckConnectivity) read the result.
func Plan(ctx context.Context, api PlanAPI, in PlanInput) PlanResult {
	s := in.Spec
	type ec2Answer struct {
		resolved Resolved
		errs     []FieldError
		err      error
	}
	type amiAnswer struct {
		res      AMIResolution
		findings Findings
		err      error
	}
	ec2ch, amich, rolech := make(chan ec2Answer, 1), make(chan amiAnswer, 1), make(chan roleAnswer, 1)
	if in.NodeRole != nil {
		go func() {
			role, docs, err := in.NodeRole.Policies(ctx)
			rolech <- roleAnswer{role, docs, err}
		}()
	}
	go func() {
		res, errs, err := Resolve(ctx, api, s)
		ec2ch <- ec2Answer{res, errs, err}
	}()
	go func() {
		res, findings, err := ResolveAMIs(ctx, api, s.AMISelectorTerms, in.KubernetesVersion, in.Now)
		amich <- amiAnswer{res, findings, err}
	}()
	var out PlanResult
	if in.Profile != nil {
		var errs []attrpath.Finding
		out.InstanceProfile, errs = in.Profile(ctx)
		out.add(errs, nil, "", "")
	}
	er, amis := <-ec2ch, <-amich
	out.Resolved = er.resolved
	switch {
	case len(out.Errors) > 0:
		return out
	case er.err != nil:
		out.add(failure(attrpath.Path{}, "Cannot resolve the node class selectors against EC2", er.err.Error()), nil, "", "")
		return out
	}
	if out.add(er.errs, out.Resolved.Warnings, "Node class cannot launch nodes", "Node class selector finding"); len(out.Errors) > 0 {
		return out
	}
	if in.Selected != nil {
		in.Selected(out.Resolved)
	}
	if out.planCapacity(ctx, api, in); len(out.Errors) > 0 {
		return out
	}
	if in.Prior != nil && in.Prior.SameSelection(out.Resolved) {
		warnings := out.Resolved.Warnings
		out.Resolved = *in.Prior
		out.Resolved.Warnings = warnings
	}
	if out.addAMIs(amis.res, amis.findings, amis.err); len(out.Errors) > 0 {
		return out
	}
	if out.InstanceProfile == "" { // no role: the configured instance_profile, if any
		out.InstanceProfile = s.InstanceProfile
	}
	if in.NodeRole != nil {
		out.checkNodeRole(*in.NodeRole, <-rolech)
	}
	return out
}

type roleAnswer struct {
	role string
	docs []iampolicy.Document
	err  error
}

// checkNodeRole judges the node role's policies (iampolicy.Check): a warning per need the role
// does not meet. Policies it cannot read are one warning and no failure: the check is advice.
func (r *PlanResult) checkNodeRole(nr NodeRole, a roleAnswer) {
	switch {
	case a.err != nil:
		r.add(nil, failure(nr.At, "Cannot read the node role's policies", a.err.Error()+"\n\nThe node-role check needs "+
			"iam:ListAttachedRolePolicies, iam:GetPolicy, iam:GetPolicyVersion, iam:ListRolePolicies and iam:GetRolePolicy (and "+
			"iam:GetInstanceProfile with `instance_profile`); the plan goes on without it."), "", "")
		return
	case a.role == "":
		r.add(nil, failure(nr.At, "Instance profile without a role", "the instance profile holds no role: nodes launched with it "+
			"get no AWS credentials, so the VPC CNI cannot assign pod IPs and the node cannot register with the cluster."), "", "")
		return
	}
	rep := iampolicy.Check(a.docs, iampolicy.Options{Path: nr.At, CNIHasOwnRole: nr.CNIOwnRole, Partition: nr.Partition})
	r.NodeRole = &rep
	r.add(nil, rep.Findings, "", "")
	for _, err := range rep.Errors {
		r.add(nil, failure(nr.At, "Node role policy not evaluated", err.Error()), "", "")
	}
}

var pathAMITerms = attrpath.Of("ami_selector_terms")

// addAMIs reports the AMI resolution. An alias that does not resolve is a warning: Karpenter
// resolves it at runtime, and only static pools (which fail their own plan) need it now.
func (r *PlanResult) addAMIs(res AMIResolution, f Findings, err error) {
	if err != nil {
		r.add(failure(pathAMITerms, "Cannot resolve the AMI selector terms", err.Error()+
			"\n\nThe terms need ec2:DescribeImages, and ssm:GetParameter for `alias` and `ssm_parameter` terms."), nil, "", "")
		return
	}
	r.add(f.Errors, f.Warnings, "Node class cannot launch nodes", "AMI selector term matches nothing")
	if res.Unresolved != "" {
		r.add(nil, failure(pathAMITerms.Index(0).Attr("alias"), "AMI alias left to Karpenter", res.Unresolved+". Karpenter resolves "+
			"the alias itself at runtime, so dynamic node pools are unaffected; the plan cannot check that their instance types have an "+
			"image, and a static pool (replicas) on this class fails its plan."), "", "")
	}
	r.Resolved.AMIs = res
}

// planCapacity resolves the capacity reservation terms and the placement group selector (no
// call when neither is set). A placement group that cannot be used fails the plan; reservation
// terms that select nothing are warnings.
func (r *PlanResult) planCapacity(ctx context.Context, api PlanAPI, in PlanInput) {
	s := in.Spec
	if len(s.CapacityReservationTerms) == 0 && s.PlacementGroupSelector == nil {
		return
	}
	horizon := in.Horizon
	if horizon <= 0 {
		horizon = reservations.DefaultHorizon
	}
	c, findings, err := ResolveCapacityWithin(ctx, api, s, r.Resolved.Zones, in.Now, horizon)
	if err != nil {
		r.add(failure(attrpath.Path{}, "Cannot resolve the capacity reservation and placement group selectors against EC2", err.Error()+
			"\n\nThe selectors need ec2:DescribeCapacityReservations and ec2:DescribePlacementGroups."), nil, "", "")
		return
	}
	if r.add(findings.Errors, findings.Warnings, "Node class cannot launch nodes", "Capacity reservation not usable"); len(r.Errors) > 0 {
		return
	}
	if in.PriorCapacity != nil && in.PriorCapacity.SameSelection(c) {
		c = *in.PriorCapacity
	}
	r.Capacity = &c
}

// The `connectivity.checks` modes.
const (
	ChecksWarn  = "warn"
	ChecksError = "error"
	ChecksOff   = "off"
)

// Connectivity is the class's `connectivity` block.
type Connectivity struct {
	Configured        bool   // the block is set
	Mode              string // ChecksWarn when not set
	ControlPlaneIDs   []string
	ControlPlaneTerms []discovery.SecurityGroupTerm
}

var (
	pathConnectivity       = attrpath.Of("connectivity")
	pathSecurityGroupTerms = attrpath.Of("security_group_selector_terms")
)

// connectivitySummaries title each failed check.
var connectivitySummaries = map[string]string{
	connectivity.CheckNodeToNode:          "Nodes cannot reach each other",
	connectivity.CheckControlPlaneToNodes: "The control plane cannot reach the nodes",
	connectivity.CheckNodesToControlPlane: "The nodes cannot reach the control plane",
	connectivity.CheckNodesEgress:         "The nodes have no way out",
}

// ConnectivityAPI is what the connectivity checks read of EC2.
type ConnectivityAPI interface {
	discovery.API
	FindSecurityGroupRules(ctx context.Context, groupIDs []string) ([]connectivity.Rule, error)
}

// CheckConnectivity runs the connectivity checks of a resolved class unless they are off: it
// resolves the control-plane groups, reads the rules of the node groups (which their selection's
// answer carries: no call then) and reports failed checks (warnings or errors by mode). Without a
// `connectivity` block only node_to_node runs, and rules it cannot read are a warning, not an
// error: the user did not ask for the checks. checks is nil when the checks
// did not run.
func CheckConnectivity(ctx context.Context, api ConnectivityAPI, c Connectivity, res Resolved) (checks []connectivity.Finding, errs, warnings []attrpath.Finding) {
	r := &PlanResult{Resolved: res}
	checks = r.checkConnectivity(ctx, api, c)
	return checks, r.Errors, r.Warnings
}

func (r *PlanResult) checkConnectivity(ctx context.Context, api ConnectivityAPI, c Connectivity) []connectivity.Finding {
	if c.Mode == ChecksOff {
		return nil
	}
	finding := func(at attrpath.Path, summary, msg string) {
		if c.Mode == ChecksError {
			r.add(failure(at, summary, msg), nil, "", "")
		} else {
			r.add(nil, failure(at, summary, msg), "", "")
		}
	}
	var controlPlane []string
	if terms := append(idTerms(c.ControlPlaneIDs), c.ControlPlaneTerms...); len(terms) > 0 {
		groups, err := discovery.ResolveSecurityGroups(ctx, api, terms)
		if err != nil {
			r.add(failure(pathConnectivity, "Cannot resolve the control-plane security groups", err.Error()), nil, "", "")
			return nil
		}
		found := map[string]bool{}
		for _, g := range groups {
			found[g.ID] = true
			controlPlane = append(controlPlane, g.ID)
		}
		for i, id := range c.ControlPlaneIDs {
			if !found[id] {
				finding(pathConnectivity.Attr("control_plane_security_group_ids").Index(i), "Control-plane security group not found",
					fmt.Sprintf("security group %s does not exist (in this account and region); the control-plane checks skip it.%s", id, checksHint(c.Mode)))
			}
		}
		if len(groups) == 0 && len(c.ControlPlaneTerms) > 0 {
			finding(pathConnectivity.Attr("control_plane_security_group_selector_terms"), "No control-plane security group matched",
				fmt.Sprintf("no security group matched the %d control-plane selector terms, so the control-plane checks did not run.%s",
					len(c.ControlPlaneTerms), checksHint(c.Mode)))
		}
	}
	nodeGroups := r.Resolved.SecurityGroupIDs()
	rules, err := api.FindSecurityGroupRules(ctx, nodeGroups)
	if err != nil {
		const hint = "\n\nThe checks read the node groups' rules with ec2:DescribeSecurityGroups; set connectivity = { checks = \"off\" } to plan without them."
		if !c.Configured {
			r.add(nil, failure(pathSecurityGroupTerms, "Security-group checks skipped",
				"the node-to-node check runs by default and could not read the rules of the node security groups: "+err.Error()+hint), "", "")
			return nil
		}
		r.add(failure(pathConnectivity, "Cannot read the security group rules for the connectivity checks", err.Error()+hint), nil, "", "")
		return nil
	}
	subnets := make([]string, len(r.Resolved.Subnets))
	for i, sn := range r.Resolved.Subnets {
		subnets[i] = sn.CIDRBlock
	}
	rep := connectivity.Check(connectivity.Input{
		Nodes:        connectivity.Peer{Groups: nodeGroups, CIDRs: subnets},
		ControlPlane: connectivity.Peer{Groups: controlPlane},
		Rules:        rules,
	})
	for _, f := range rep.Failed() { // node-to-node on the node groups' terms, the control-plane checks on connectivity
		at := pathConnectivity
		if f.Check == connectivity.CheckNodeToNode || f.Check == connectivity.CheckNodesEgress {
			at = pathSecurityGroupTerms
		}
		finding(at, connectivitySummaries[f.Check], fmt.Sprintf("%s (security group %s): %s\n\nMissing rule: %s.\nFix: %s.%s",
			f.Check, f.GroupID, f.Detail, f.Missing, f.Fix, checksHint(c.Mode)))
	}
	if rep.Findings == nil {
		return []connectivity.Finding{}
	}
	return rep.Findings
}

func idTerms(ids []string) []discovery.SecurityGroupTerm {
	out := make([]discovery.SecurityGroupTerm, len(ids))
	for i, id := range ids {
		out[i] = discovery.SecurityGroupTerm{ID: id}
	}
	return out
}

func checksHint(mode string) string {
	if mode == ChecksError {
		return "\n(connectivity.checks = \"error\"; set it to \"warn\" to plan anyway, or \"off\" to skip the checks.)"
	}
	return "\n(connectivity.checks = \"warn\"; set it to \"error\" to fail the plan on this, or \"off\" to skip the checks.)"
}

// ValidateConnectivity checks the `connectivity` block's control-plane groups: each id as a
// security group id (on the list element itself), each selector term as a security group term.
func ValidateConnectivity(c Connectivity) []attrpath.Finding {
	var out []attrpath.Finding
	for _, e := range discovery.ValidateSecurityGroupTerms(idTerms(c.ControlPlaneIDs)) {
		e.Path = pathConnectivity.Attr("control_plane_security_group_ids").Index(e.Path.Steps()[0].Index) // an id, not a term
		out = append(out, attrpath.WithSummary("Invalid control-plane security group id", []attrpath.Finding{e})...)
	}
	return append(out, attrpath.WithSummary("Invalid control-plane security group selector term",
		attrpath.Under(pathConnectivity.Attr("control_plane_security_group_selector_terms"), discovery.ValidateSecurityGroupTerms(c.ControlPlaneTerms)))...)
}
