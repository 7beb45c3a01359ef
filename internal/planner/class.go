package planner

import (
	"context"
	"fmt"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// ClassEC2 is what a class's plan reads of EC2 and SSM: the selectors, images, capacity
// reservations and placement groups (nodeclass.Plan) and the rules of the connectivity checks.
type ClassEC2 interface {
	nodeclass.PlanAPI
	nodeclass.ConnectivityAPI
}

// ClassPorts are what a node class's plan asks beyond its configuration.
type ClassPorts struct {
	EC2 ClassEC2
	// Profiles reads and writes the class's instance profiles in IAM (the instance-profile
	// stage's port); the node-role check reads instance profiles through it too, so one plan
	// reads each profile once when it reads once.
	Profiles ProfileIAM
	// RolePolicies reads the policy documents of a role (the node-role check).
	RolePolicies func(ctx context.Context, role string) ([]iampolicy.Document, error)
	// Admit is what the API server and Karpenter would refuse of a manifest of the kind.
	Admit func(kind, doc string) ([]attrpath.Finding, error)
	// PoolListing, when set, is the walk's shared launch template listing that the plans of new
	// pools read (the ownership check): the class starts it, since its pools plan after it.
	PoolListing fleet.Listing
	// WarmPoolInputs, when set, starts in the background what every pool's plan reads first
	// (the catalog and prices from the disk cache, no AWS call): the class starts it, since its
	// pools plan after it.
	WarmPoolInputs func(context.Context)
}

// ClassFacts are the provider's settings a class plans with.
type ClassFacts struct {
	// ClusterName and Region name the instance profile of a class with `role`.
	ClusterName, Region string
	// Partition is the AWS partition (awsclient.Client.Partition) of the ARNs the node-role
	// check names ("" is "aws").
	Partition string
	// KubernetesVersion is the cluster's major.minor ("" when not set): AMI aliases resolve with it.
	KubernetesVersion string
	// KarpenterVersion and FeatureGates are the Karpenter the manifest is rendered, admitted
	// and hashed for.
	KarpenterVersion string
	FeatureGates     []string
	// CABundle is the cluster's CA bundle as Karpenter hashes it ("" when the provider has none:
	// the hash then differs from the cluster's by that term, but still changes exactly when the
	// class does).
	CABundle string
	Now      time.Time
	// CapacityBlockHorizon is how far ahead of Now a selected Capacity Block's end is a warning
	// on the class (the provider's capacity_block_horizon; 0: reservations.DefaultHorizon).
	CapacityBlockHorizon time.Duration
}

// ClassInput is a class's configuration as the plan reads it, with what the state recorded.
type ClassInput struct {
	nodeclass.Config
	// Late are the values known only after apply (nodeclass.LateAttrs).
	Late nodeclass.Late
	// Prior is nil for a new class.
	Prior *ClassPrior
}

// ClassPrior is what the state recorded of the class: its answers, kept while the selection is
// unchanged, and its owner id ("" when it owns nothing yet).
type ClassPrior struct {
	nodeclass.Recorded
	OwnerID string
}

// ClassResult is a class's plan: every computed attribute, what of them a late value leaves
// unknown, and the findings. The values are complete only without Errors.
type ClassResult struct {
	nodeclass.Recorded
	// Manifest is the admitted EC2NodeClass, with placeholders for late values.
	Manifest string
	// Resolved is the class as its pools read it (the resource's `resolved`).
	Resolved           launchplan.ClassValue
	NodeRoleReport     []nodeclass.NodeRoleNeedOutput
	ConnectivityReport []nodeclass.ConnectivityCheckOutput
	Unknown            ClassUnknown
	Errors, Warnings   []attrpath.Finding
}

// ClassUnknown is what a plan leaves unknown because a late value names it.
type ClassUnknown struct {
	// Manifest: the manifest holds Placeholders in place of late values.
	Manifest     bool
	Placeholders []string
	// ManifestObject: the whole manifest object is unknown (a late tags map leaves even its
	// type unknown); otherwise only the Placeholders in it are.
	ManifestObject bool
	// NodeRoleReport: the role is checked at apply's final plan, once it is known.
	NodeRoleReport bool
	// Resolved are the attributes of Resolved unknown as a whole; ResolvedTags the keys of its
	// tags that are.
	Resolved     []string
	ResolvedTags []string
}

// ValidateClass runs every rule on a class that needs no API call, for a known configuration.
func ValidateClass(c nodeclass.Config) []attrpath.Finding {
	s, out := c.Spec()
	out = append(out, attrpath.WithSummary("Invalid node class", nodeclass.Validate(s))...)
	out = append(out, profileFlagFindings(c)...)
	if c.Connectivity != nil {
		out = append(out, nodeclass.ValidateConnectivity(c.Connectivity.Setting())...)
	}
	return out
}

// Class plans a node class: the rules and the EC2NodeClass as Kubernetes would admit it (no
// AWS call before they pass), the resolution against AWS (nodeclass.Plan: selectors, images,
// capacity, the instance profile and the node-role check), the class its pools read with
// Karpenter's hash, and the connectivity checks, in that order; it stops at the first stage with
// errors. Late values are validated and rendered as placeholders; what names them is unknown.
func Class(ctx context.Context, ports ClassPorts, facts ClassFacts, in ClassInput) ClassResult {
	var res ClassResult
	s, ok := res.rules(facts, in)
	if !ok {
		return res
	}
	// Kubernetes' admission of the manifest waits for the CRD's CEL rules to compile (started
	// at configure): the class's reads, none of which changes anything, run beside it, and a
	// refusal cancels them and discards their answers.
	readCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ports.WarmPoolInputs != nil {
		ports.WarmPoolInputs(ctx) // disk reads for the pools, outliving the class's request
	}
	resolved := make(chan classReads, 1)
	go func() { resolved <- readClass(readCtx, ports, facts, in, s) }()
	doc, ok := res.admit(ports, s)
	if !ok {
		cancel()
		<-resolved
		return res
	}
	warmPoolListing(ctx, ports.PoolListing, facts.ClusterName) // for pools of an admitted class only
	r := <-resolved
	p := r.plan
	if res.Errors, res.Warnings = append(res.Errors, p.Errors...), append(res.Warnings, p.Warnings...); len(res.Errors) > 0 {
		return res
	}
	res.Recorded, res.Manifest = nodeclass.Record(p.Resolved, p.Capacity), doc
	res.NodeRoleReport = nodeclass.NodeRoleReport(p.NodeRole)
	class := launchplan.ClassOf(s, p.Resolved, p.InstanceProfile)
	class.Hash, class.HashVersion = res.hash(facts, doc)
	class.CapacityReservationIDs, class.PlacementGroupID = res.ReservationIDs(), res.PlacementGroupID()
	if g := res.PlacementGroup; g != nil {
		class.PlacementGroupStrategy = g.Strategy
	}
	if recorded, ok := res.Capacity(); ok {
		class.Reservations = nodeclass.ReservationsOf(recorded.Reservations)
	}
	res.Resolved = class.Value()
	res.Unknown = classUnknown(in.Late)
	c := <-r.checked
	res.Errors, res.Warnings = append(res.Errors, c.errs...), append(res.Warnings, c.warnings...)
	res.ConnectivityReport = nodeclass.ConnectivityReport(c.checks)
	return res
}

// classReads are a class's answers from AWS: its plan, and its connectivity checks (nil when
// the plan failed).
type classReads struct {
	plan    nodeclass.PlanResult
	checked chan connectivityAnswer
}

// readClass resolves the class's spec against AWS (nodeclass.Plan). The connectivity report
// is computed afresh at every plan (never kept from state), so rules changed outside Terraform
// show up as an in-place update of connectivity_report; it starts as soon as the selectors
// resolve: it reads the selection's groups and subnet CIDRs alone (as sets), which the state's
// kept answer shares.
func readClass(ctx context.Context, ports ClassPorts, facts ClassFacts, in ClassInput, s nodeclass.Spec) classReads {
	pin := classPlanInput(ports, facts, in, s)
	var checked chan connectivityAnswer
	pin.Selected = func(r nodeclass.Resolved) {
		checked = checkConnectivityOf(ctx, ports.EC2, in.Connectivity.Setting(), r)
	}
	p := nodeclass.Plan(ctx, ports.EC2, pin)
	if len(p.Errors) == 0 && checked == nil {
		checked = checkConnectivityOf(ctx, ports.EC2, in.Connectivity.Setting(), p.Resolved)
	}
	return classReads{plan: p, checked: checked}
}

// connectivityAnswer is the connectivity checks' result.
type connectivityAnswer struct {
	checks         []connectivity.Finding
	errs, warnings []attrpath.Finding
}

// checkConnectivityOf runs the connectivity checks of a selection in the background.
func checkConnectivityOf(ctx context.Context, api nodeclass.ConnectivityAPI, c nodeclass.Connectivity, r nodeclass.Resolved) chan connectivityAnswer {
	out := make(chan connectivityAnswer, 1)
	go func() {
		var a connectivityAnswer
		a.checks, a.errs, a.warnings = nodeclass.CheckConnectivity(ctx, api, c, r)
		out <- a
	}()
	return out
}

// profileFlagFindings refuse `instance_profile_for_static_pools` on a class without `role`: with
// `instance_profile` the static pools' launch templates use that profile.
func profileFlagFindings(c nodeclass.Config) []attrpath.Finding {
	if !c.ProfileForStaticPools() || c.Role != "" || c.InstanceProfile == "" { // both set: Validate's "exactly one"
		return nil
	}
	return []attrpath.Finding{{Path: attrpath.Of("instance_profile_for_static_pools"), Summary: "Invalid node class",
		Message: "instance_profile_for_static_pools asks the provider to create an instance profile for `role`; with `instance_profile` " +
			"the static pools' launch templates use that profile as it is. Remove instance_profile_for_static_pools."}}
}

// rules are the part of a plan the config alone decides: the spec and every rule on it.
func (res *ClassResult) rules(facts ClassFacts, in ClassInput) (nodeclass.Spec, bool) {
	s, findings := in.Spec()
	in.Late.Substitute(&s) // validated and rendered as placeholders
	res.Errors = append(findings, nodeclass.ApplyDefaultTerms(&s, facts.ClusterName)...)
	res.Errors = append(res.Errors, attrpath.WithSummary("Invalid node class", nodeclass.Validate(s))...)
	res.Errors = append(res.Errors, profileFlagFindings(in.Config)...)
	res.Errors = append(res.Errors, attrpath.WithSummary("Invalid kubelet configuration",
		nodeclass.ValidateForVersion(s, facts.KarpenterVersion, facts.FeatureGates))...)
	return s, len(res.Errors) == 0
}

// admit is the manifest of the spec as the API server and Karpenter would admit it.
func (res *ClassResult) admit(ports ClassPorts, s nodeclass.Spec) (string, bool) {
	doc, err := nodeclass.Manifest(s)
	if err != nil {
		res.Errors = append(res.Errors, attrpath.Finding{Summary: "Cannot render the EC2NodeClass manifest", Message: err.Error()})
		return "", false
	}
	findings, err := ports.Admit(manifest.EC2NodeClassKind, doc)
	if err != nil {
		findings = []attrpath.Finding{{Summary: "Cannot validate the " + manifest.EC2NodeClassKind + " manifest", Message: err.Error()}}
	}
	res.Errors = append(res.Errors, findings...)
	return doc, len(findings) == 0
}

// classPlanInput is what nodeclass.Plan reads besides EC2: the state's answers, the profile
// stage (a new class owns nothing yet) and the node-role check.
func classPlanInput(ports ClassPorts, facts ClassFacts, in ClassInput, s nodeclass.Spec) nodeclass.PlanInput {
	out := nodeclass.PlanInput{Spec: s, KubernetesVersion: facts.KubernetesVersion, Now: facts.Now, Horizon: facts.CapacityBlockHorizon,
		NodeRole: classNodeRole(ports, facts, in)}
	c := ClassProfile{Class: in.Name, Role: in.Role, RoleUnknown: in.Late.Role, InstanceProfile: in.InstanceProfile,
		ForStaticPools: in.ProfileForStaticPools()}
	if in.Prior != nil {
		c.Owner = in.Prior.OwnerID
		if prior, ok := in.Prior.Resolution(); ok {
			out.Prior = &prior
		}
		if prior, ok := in.Prior.Capacity(); ok {
			out.PriorCapacity = &prior
		}
	}
	out.Profile = func(ctx context.Context) (string, []attrpath.Finding) { return profiles(ports, facts).Plan(ctx, c) }
	return out
}

// classNodeRole is the node-role readiness check of a class (nil when the role is known only
// after apply): the policies of `role`, or of the role `instance_profile` holds.
func classNodeRole(ports ClassPorts, facts ClassFacts, in ClassInput) *nodeclass.NodeRole {
	nr := &nodeclass.NodeRole{At: attrpath.Of("role"), CNIOwnRole: in.Networking.CNIOwnRole(), Partition: facts.Partition}
	switch role, profile := in.Role, in.InstanceProfile; {
	case in.Late.Role || in.Late.InstanceProfile:
		return nil
	case role != "":
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			docs, err := ports.RolePolicies(ctx, role)
			return role, docs, err
		}
	case profile != "":
		nr.At = attrpath.Of("instance_profile")
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			p, err := ports.Profiles.Get(ctx, profile)
			if err != nil || p == nil || len(p.Roles) == 0 {
				return "", nil, err // a missing profile is the profile check's error
			}
			docs, err := ports.RolePolicies(ctx, p.Roles[0])
			return p.Roles[0], docs, err
		}
	default:
		return nil
	}
	return nr
}

// hash is Karpenter's EC2NodeClass hash of the admitted manifest and its hash version, as the
// provider's Karpenter version computes them (both "", with a warning, when it cannot).
func (res *ClassResult) hash(facts ClassFacts, doc string) (hash, version string) {
	h, v, err := karpenterhash.EC2NodeClassHashFor(facts.KarpenterVersion, doc, facts.CABundle)
	if err != nil {
		res.Warnings = append(res.Warnings, attrpath.Finding{Summary: "Cannot compute Karpenter's EC2NodeClass hash",
			Message: "The plan cannot say whether the change drifts nodes: " + err.Error()})
		return "", ""
	}
	return h, v
}

// classUnknown is what the late values leave unknown: the manifest (its object only where a
// placeholder stands, unless a whole tags map is late), resolved's copies of them and its hash,
// which covers every late value, the role too; the node-role report when the role is late.
func classUnknown(l nodeclass.Late) ClassUnknown {
	u := ClassUnknown{Placeholders: l.Placeholders(), ManifestObject: l.Tags, NodeRoleReport: l.Role || l.InstanceProfile}
	if !l.Any() {
		return u
	}
	u.Manifest, u.Resolved = true, []string{"hash"}
	for _, a := range []struct {
		late bool
		name string
	}{{l.InstanceProfile, "instance_profile"}, {l.UserData, "user_data"}, {l.Tags, "tags"}} {
		if a.late {
			u.Resolved = append(u.Resolved, a.name)
		}
	}
	if !l.Tags {
		u.ResolvedTags = l.TagKeys
	}
	return u
}

// ValidateClassImportID checks an import ID, the class's name: the name rule of nodeclass.Validate,
// the one a planned class must pass.
func ValidateClassImportID(id string) []attrpath.Finding {
	for _, e := range nodeclass.Validate(nodeclass.Spec{Name: id}) {
		if e.Path.String() == "name" {
			return []attrpath.Finding{{Summary: "Invalid import ID", Message: fmt.Sprintf("The import ID is the node class name, "+
				"`metadata.name` of the EC2NodeClass, and must equal `name` in the configuration: %s.", e.Message)}}
		}
	}
	return nil
}

// ClassApplied is what apply did in IAM for a class.
type ClassApplied struct {
	// OwnerID is the owner id the state records.
	OwnerID string
	// Save: the state is written. False when the class's instance profile could not be made
	// to match; a new owner id's profiles are removed again then.
	Save             bool
	Errors, Warnings []attrpath.Finding
}

// CreateClass gives a new class an owner id and, for a class with `role` and
// `instance_profile_for_static_pools`, creates its instance profile. A failed create leaves nothing of the new owner behind.
func CreateClass(ctx context.Context, ports ClassPorts, facts ClassFacts, c ClassProfile) ClassApplied {
	c.Owner = fleet.NewOwnerID()
	return classEnsure(ctx, profiles(ports, facts), c, true)
}

// UpdateClass makes IAM match the updated class (now): the instance profile of a class with
// `role` for static pools is ensured, and a profile the class no longer uses (role replaced by
// instance_profile, no profile for static pools any more, or a new name after a provider setting
// changed) is deleted. A class whose plan and state have
// no owner id (written before the class had one) gets one: it owned nothing until now.
func UpdateClass(ctx context.Context, ports ClassPorts, facts ClassFacts, was, now ClassProfile) ClassApplied {
	profiles, fresh := profiles(ports, facts), false
	if now.Owner == "" {
		if now.Owner = was.Owner; now.Owner == "" {
			now.Owner, fresh = fleet.NewOwnerID(), true
		}
	}
	out := classEnsure(ctx, profiles, now, fresh)
	if out.Save {
		out.add(profiles.Delete(ctx, profiles.Unused(was, now), was.Owner))
	}
	return out
}

// DeleteClass removes the instance profiles the class created for its `role`; nothing else of
// the class exists in AWS.
func DeleteClass(ctx context.Context, ports ClassPorts, facts ClassFacts, c ClassProfile) ClassApplied {
	profiles := profiles(ports, facts)
	out := ClassApplied{OwnerID: c.Owner}
	out.add(profiles.Delete(ctx, profiles.Owned(c), c.Owner))
	return out
}

// RefreshClass reports whether the recorded instance profile of a class with `role` is gone or
// was changed outside Terraform (fleet.Profiles.Drifted): the state then drops it, so that the
// next plan shows the update that restores it.
func RefreshClass(ctx context.Context, ports ClassPorts, facts ClassFacts, c ClassProfile) (drifted bool, errs []attrpath.Finding) {
	drifted, err := profiles(ports, facts).Drifted(ctx, c)
	if err != nil {
		return false, []attrpath.Finding{{Summary: "Cannot read the class's instance profile", Message: err.Error()}}
	}
	return drifted, nil
}

// profiles is the instance-profile stage of the provider's cluster (fleet.Profiles).
func profiles(ports ClassPorts, facts ClassFacts) fleet.Profiles {
	return fleet.Profiles{IAM: ports.Profiles, Cluster: facts.ClusterName, Region: facts.Region}
}

// classEnsure ensures the class's profile; when that fails for a fresh owner id, whose state is
// not saved, what it created is removed.
func classEnsure(ctx context.Context, profiles fleet.Profiles, c ClassProfile, fresh bool) ClassApplied {
	out := ClassApplied{OwnerID: c.Owner, Errors: profiles.Ensure(ctx, c)}
	if out.Save = len(out.Errors) == 0; !out.Save && fresh {
		out.add(profiles.Delete(ctx, profiles.Owned(c), c.Owner))
	}
	return out
}

func (a *ClassApplied) add(errs, warnings []attrpath.Finding) {
	a.Errors, a.Warnings = append(a.Errors, errs...), append(a.Warnings, warnings...)
}

// warmPoolListing starts, in the background, the cluster's launch template listing that every
// new pool's plan reads (one listing per walk, shared): Terraform plans a class before the pools
// that reference it, so the listing's round trip overlaps the class's AWS calls instead of
// following them. Its answer, or its error, is the pools' to read; nothing waits for it here.
// Without a cluster name there is no shared listing (each pool lists by its own tags).
func warmPoolListing(ctx context.Context, listing fleet.Listing, cluster string) {
	if listing == nil || fleet.ReadScope(cluster) == nil {
		return
	}
	ctx = context.WithoutCancel(ctx) // the class's request ends before the pools read it
	go func() { _, _ = (fleet.Cluster{Name: cluster, EC2: listing}).TemplatesByOwner(ctx, "", true) }()
}
