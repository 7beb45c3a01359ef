package nodeclass

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// Every check the connectivity package reports has a title of its own.
func TestConnectivitySummaries(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []string{connectivity.CheckNodeToNode, connectivity.CheckControlPlaneToNodes, connectivity.CheckNodesToControlPlane} {
		s := connectivitySummaries[c]
		if s == "" || seen[s] {
			t.Errorf("check %s: summary %q missing or shared", c, s)
		}
		seen[s] = true
	}
}

// planAPI answers a class's plan from the package's fakes: selectors (fakeAPI), images
// (fakeImages) and capacity (fakeCapacityAPI), each recording its calls.
type planAPI struct {
	*fakeAPI
	*fakeImages
	*fakeCapacityAPI
}

var _ PlanAPI = planAPI{}

// planFixture is a class with an AMI id term (ami-1 exists) and a placement group selector
// (pg-1 exists), over happyAPI's three subnets and two groups.
func planFixture() (Spec, planAPI) {
	s := baseSpec()
	s.AMISelectorTerms = []AMITerm{{ID: "ami-1"}}
	s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "pg-1"}
	return s, planAPI{
		fakeAPI:         happyAPI(),
		fakeImages:      &fakeImages{images: []discovery.Image{img("ami-1", "custom-node", "x86_64", "2026-01-01T00:00:00Z")}},
		fakeCapacityAPI: &fakeCapacityAPI{groups: []discovery.PlacementGroup{{ID: "pg-1", Name: "hpc", Strategy: "cluster", State: "available"}}},
	}
}

func profileOf(name string, findings ...attrpath.Finding) func(context.Context) (string, []attrpath.Finding) {
	return func(context.Context) (string, []attrpath.Finding) { return name, findings }
}

func freeIPs(r Resolved) map[string]int {
	out := map[string]int{}
	for _, s := range r.Subnets {
		out[s.ID] = s.AvailableIPAddressCount
	}
	return out
}

func TestPlanResolvesTheClass(t *testing.T) {
	s, api := planFixture()
	got := Plan(t.Context(), api, PlanInput{Spec: s, KubernetesVersion: "1.33", Now: testNow, Profile: profileOf("nodeplane-c-default-0123456789")})
	if len(got.Errors) != 0 || len(got.Warnings) != 0 {
		t.Fatalf("errors %s warnings %s", dumpErrs(got.Errors), dumpErrs(got.Warnings))
	}
	if got.InstanceProfile != "nodeplane-c-default-0123456789" {
		t.Errorf("InstanceProfile = %q, want the profile stage's", got.InstanceProfile)
	}
	if got.Resolved.VPCID != "vpc-1" || len(got.Resolved.Subnets) != 3 || !reflect.DeepEqual(got.Resolved.AMIs.IDs(), []string{"ami-1"}) {
		t.Errorf("resolved %+v", got.Resolved)
	}
	if got.Capacity == nil || got.Capacity.PlacementGroup == nil || got.Capacity.PlacementGroup.ID != "pg-1" || got.Capacity.Reservations != nil {
		t.Errorf("capacity %+v, want pg-1 and no reservation terms", got.Capacity)
	}
	if len(api.pgCalls) != 1 {
		t.Errorf("placement group calls %v", api.pgCalls)
	}
}

// Selector findings that do not stop the class are warnings of the plan, with their own title.
func TestPlanSelectorWarnings(t *testing.T) {
	s, api := planFixture()
	api.subnets[discoveryKey][1].MapPublicIPOnLaunch = true
	got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow})
	if len(got.Errors) != 0 || len(got.Warnings) != 1 || len(got.Resolved.Warnings) != 1 {
		t.Fatalf("errors %s warnings %s resolved warnings %s", dumpErrs(got.Errors), dumpErrs(got.Warnings), dumpErrs(got.Resolved.Warnings))
	}
	w := got.Warnings[0]
	if !strings.HasPrefix(w.Path.String(), "subnet_selector_terms") || !strings.Contains(w.Message, "subnet-b") {
		t.Errorf("warning %s %q, want one on the public subnet", w.Path, w.Message)
	}
	if w.Summary != SummaryPublicSubnets {
		t.Errorf("warning summary %q, want its own %q", w.Summary, SummaryPublicSubnets)
	}
}

// A stage with errors ends the plan: the profile stage's errors come first (EC2 is resolved
// alongside, but capacity and images are not judged); selector errors stop before capacity.
func TestPlanStopsAtTheFirstFailingStage(t *testing.T) {
	roleMissing := attrpath.Finding{Path: attrpath.Of("role"), Summary: "IAM role not found", Message: "role r not found"}
	for _, tc := range []struct {
		name    string
		change  func(*Spec, planAPI)
		profile func(context.Context) (string, []attrpath.Finding)
		path    string // of the first error
		msg     string // a substring of its message
		summary string
		pgCalls int
	}{
		{
			name: "profile", profile: profileOf("", roleMissing),
			path: "role", msg: "role r not found", summary: "IAM role not found",
		},
		{
			name: "profile, with EC2 unreadable too", profile: profileOf("", roleMissing),
			change: func(_ *Spec, api planAPI) {
				api.subnetErr = map[string]error{discoveryKey: errors.New("UnauthorizedOperation")}
			},
			path: "role", msg: "role r not found", summary: "IAM role not found",
		},
		{
			name: "profile, with a selector warning", profile: profileOf("", roleMissing),
			change: func(_ *Spec, api planAPI) {
				api.subnets[discoveryKey][0].MapPublicIPOnLaunch = true
			},
			path: "role", msg: "role r not found", summary: "IAM role not found",
		},
		{
			name: "EC2 unreadable",
			change: func(_ *Spec, api planAPI) {
				api.subnetErr = map[string]error{discoveryKey: errors.New("UnauthorizedOperation")}
			},
			path: "", msg: "UnauthorizedOperation", summary: "Cannot resolve the node class selectors against EC2",
		},
		{
			name:   "no subnet matched",
			change: func(_ *Spec, api planAPI) { api.subnets = nil },
			path:   "subnet_selector_terms", msg: "no subnet matched", summary: "Node class cannot launch nodes",
		},
		{
			name:   "placement group not found",
			change: func(s *Spec, _ planAPI) { s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "pg-9"} },
			path:   "placement_group_selector", msg: "placement group pg-9 not found",
			summary: "Node class cannot launch nodes", pgCalls: 1,
		},
		{
			name:   "AMI term matches nothing",
			change: func(s *Spec, _ planAPI) { s.AMISelectorTerms = []AMITerm{{ID: "ami-9"}} },
			path:   "ami_selector_terms[0]", msg: "image ami-9 does not exist",
			summary: "Node class cannot launch nodes", pgCalls: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, api := planFixture()
			if tc.change != nil {
				tc.change(&s, api)
			}
			profile := tc.profile
			if profile == nil {
				profile = profileOf("nodeplane-c-default-0123456789")
			}
			got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, Profile: profile})
			if len(got.Errors) != 1 || got.Errors[0].Summary != tc.summary {
				t.Fatalf("errors %s, want only %q", dumpErrs(got.Errors), tc.summary)
			}
			if len(got.Warnings) != 0 {
				t.Errorf("warnings %s after a failed stage", dumpErrs(got.Warnings))
			}
			if got.Errors[0].Path.String() != tc.path {
				t.Errorf("error path %q, want %q", got.Errors[0].Path, tc.path)
			}
			if !strings.Contains(got.Errors[0].Message, tc.msg) {
				t.Errorf("error %q does not contain %q", got.Errors[0].Message, tc.msg)
			}
			if len(api.pgCalls) != tc.pgCalls {
				t.Errorf("placement group calls %v, want %d", api.pgCalls, tc.pgCalls)
			}
			if tc.pgCalls == 0 && got.Capacity != nil {
				t.Errorf("capacity %+v planned after an earlier stage failed", got.Capacity)
			}
			if len(got.Resolved.AMIs.AMIs) != 0 {
				t.Errorf("AMIs %v judged after an earlier stage failed", got.Resolved.AMIs.IDs())
			}
		})
	}
}

// While the selection is unchanged the state's answers stay, so moving free-IP and
// available-instance counts do not make every plan an update; the images and warnings are new.
func TestPlanKeepsThePriorWhileTheSelectionHolds(t *testing.T) {
	s, api := planFixture()
	s.PlacementGroupSelector = nil
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{ID: "cr-a"}}
	api.byID = map[string]discovery.CapacityReservation{"cr-a": reservation("cr-a", "us-west-2a")}
	fresh := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow})
	if len(fresh.Errors) != 0 || fresh.Capacity == nil || len(fresh.Capacity.Reservations) != 1 {
		t.Fatalf("fresh plan: %s %+v", dumpErrs(fresh.Errors), fresh.Capacity)
	}

	prior := fresh.Resolved
	prior.Subnets = slices.Clone(prior.Subnets)
	for i := range prior.Subnets {
		prior.Subnets[i].AvailableIPAddressCount += 1000
	}
	prior.AMIs = AMIResolution{AMIs: []AMI{{ID: "ami-old"}}}
	prior.Warnings = []FieldError{{Path: attrpath.Of("subnet_selector_terms"), Message: "an old warning"}}
	priorCap := Capacity{Reservations: []discovery.CapacityReservation{reservation("cr-a", "us-west-2a", func(r *discovery.CapacityReservation) {
		r.AvailableInstanceCount = 0
	})}}

	got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, Prior: &prior, PriorCapacity: &priorCap})
	if len(got.Errors) != 0 {
		t.Fatal(dumpErrs(got.Errors))
	}
	if !reflect.DeepEqual(freeIPs(got.Resolved), freeIPs(prior)) {
		t.Errorf("free IPs %v, want the prior's %v", freeIPs(got.Resolved), freeIPs(prior))
	}
	if !reflect.DeepEqual(got.Resolved.AMIs.IDs(), []string{"ami-1"}) {
		t.Errorf("AMIs %v, want the new resolution's", got.Resolved.AMIs.IDs())
	}
	if len(got.Resolved.Warnings) != 0 {
		t.Errorf("warnings %s, want the new resolution's (none)", dumpErrs(got.Resolved.Warnings))
	}
	if got.Capacity == nil || len(got.Capacity.Reservations) != 1 || got.Capacity.Reservations[0].AvailableInstanceCount != 0 {
		t.Errorf("capacity %+v, want the prior's", got.Capacity)
	}

	// Another selection (a subnet fewer, a reservation of another type): the new answers.
	prior.Subnets = prior.Subnets[:2]
	priorCap.Reservations[0].InstanceType = "m5.xlarge"
	got = Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, Prior: &prior, PriorCapacity: &priorCap})
	if !reflect.DeepEqual(freeIPs(got.Resolved), freeIPs(fresh.Resolved)) {
		t.Errorf("free IPs %v, want the new %v", freeIPs(got.Resolved), freeIPs(fresh.Resolved))
	}
	if got.Capacity == nil || len(got.Capacity.Reservations) != 1 || got.Capacity.Reservations[0].AvailableInstanceCount != 2 {
		t.Errorf("capacity %+v, want the new answer", got.Capacity)
	}
}

// An alias that does not resolve at plan is a warning on the alias: Karpenter resolves it.
// Without a profile stage the configured instance_profile is the one the templates name.
func TestPlanAliasLeftToKarpenter(t *testing.T) {
	s, api := planFixture()
	s.AMISelectorTerms = []AMITerm{{Alias: "al2023@latest"}}
	s.PlacementGroupSelector = nil
	s.Role, s.InstanceProfile = "", "custom-profile"
	got := Plan(t.Context(), api, PlanInput{Spec: s, KubernetesVersion: "", Now: testNow})
	if len(got.Errors) != 0 {
		t.Fatal(dumpErrs(got.Errors))
	}
	if len(got.Warnings) != 1 {
		t.Fatalf("warnings %s, want one", dumpErrs(got.Warnings))
	}
	w := got.Warnings[0]
	if w.Path.String() != "ami_selector_terms[0].alias" || w.Summary != "AMI alias left to Karpenter" ||
		!strings.Contains(w.Message, "set kubernetes_version") || !strings.Contains(w.Message, "Karpenter resolves the alias itself") {
		t.Errorf("warning %s %q %q", w.Path, w.Summary, w.Message)
	}
	if got.Resolved.AMIs.Unresolved == "" || len(got.Resolved.AMIs.AMIs) != 0 {
		t.Errorf("AMIs %+v, want the alias unresolved", got.Resolved.AMIs)
	}
	if got.InstanceProfile != "custom-profile" || got.Capacity != nil {
		t.Errorf("instance profile %q, capacity %+v", got.InstanceProfile, got.Capacity)
	}
}

// fakeRules answers the rules of the node groups and records the calls; the control-plane
// groups come from fakeAPI.
type fakeRules struct {
	*fakeAPI
	rules []connectivity.Rule
	err   error
	calls [][]string
}

func (f *fakeRules) FindSecurityGroupRules(_ context.Context, groupIDs []string) ([]connectivity.Rule, error) {
	f.calls = append(f.calls, groupIDs)
	return f.rules, f.err
}

var _ ConnectivityAPI = (*fakeRules)(nil)

func TestCheckConnectivity(t *testing.T) {
	res := Resolved{
		VPCID:          "vpc-1",
		Subnets:        []discovery.Subnet{{ID: "subnet-a", VPCID: "vpc-1", Zone: "us-west-2a", CIDRBlock: "10.0.0.0/24"}},
		SecurityGroups: []discovery.SecurityGroup{sg("sg-1", "node", "vpc-1")},
	}
	selfAll := connectivity.Rule{GroupID: "sg-1", Protocol: "-1", FromPort: -1, ToPort: -1, ReferencedGroupID: "sg-1"}
	egressAll := connectivity.Rule{GroupID: "sg-1", Egress: true, Protocol: "-1", FromPort: -1, ToPort: -1, CIDRv4: "0.0.0.0/0"}
	cpKey := discovery.FilterSet{{Name: "group-id", Values: []string{"sg-cp", "sg-gone"}}}.Key()
	cpTermKey := tagKey("role", "control-plane")
	type want struct {
		path, summary string
	}
	for _, tc := range []struct {
		name     string
		c        Connectivity
		noGroups bool // the class resolved no security group
		rules    []connectivity.Rule
		rulesErr error
		cpErr    error
		checks   int // -1: nil (the checks did not run)
		failed   int
		errs     []want
		warnings []want
		calls    int // rule reads
	}{
		{
			name: "off", c: Connectivity{Configured: true, Mode: ChecksOff, ControlPlaneIDs: []string{"sg-cp"}}, rulesErr: errors.New("must not be read"),
			checks: -1,
		},
		{
			name: "default, rules unreadable", c: Connectivity{Mode: ChecksWarn}, rulesErr: errors.New("UnauthorizedOperation"),
			checks: -1, calls: 1, warnings: []want{{"security_group_selector_terms", "Security-group checks skipped"}},
		},
		{
			name: "configured, rules unreadable", c: Connectivity{Configured: true, Mode: ChecksWarn}, rulesErr: errors.New("UnauthorizedOperation"),
			checks: -1, calls: 1, errs: []want{{"connectivity", "Cannot read the security group rules for the connectivity checks"}},
		},
		{
			name: "node to node admitted, and a way out", c: Connectivity{Mode: ChecksWarn}, rules: []connectivity.Rule{selfAll, egressAll},
			checks: 2, calls: 1,
		},
		{
			// Without control-plane groups the nodes still need tcp 443 out (the API server, ECR).
			name: "egress removed", c: Connectivity{Mode: ChecksWarn}, rules: []connectivity.Rule{selfAll},
			checks: 2, failed: 1, calls: 1, warnings: []want{{"security_group_selector_terms", "The nodes have no way out"}},
		},
		{
			name: "no node group: the checks ran, nothing to check", c: Connectivity{Mode: ChecksWarn}, noGroups: true,
			checks: 0, calls: 1,
		},
		{
			name: "node to node refused, warn", c: Connectivity{Mode: ChecksWarn}, rules: []connectivity.Rule{egressAll},
			checks: 2, failed: 1, calls: 1, warnings: []want{{"security_group_selector_terms", "Nodes cannot reach each other"}},
		},
		{
			name: "node to node refused, error", c: Connectivity{Configured: true, Mode: ChecksError}, rules: []connectivity.Rule{egressAll},
			checks: 2, failed: 1, calls: 1, errs: []want{{"security_group_selector_terms", "Nodes cannot reach each other"}},
		},
		{
			name: "control plane: one group missing, rules refuse it",
			c:    Connectivity{Configured: true, Mode: ChecksWarn, ControlPlaneIDs: []string{"sg-gone", "sg-cp"}}, rules: []connectivity.Rule{selfAll},
			checks: 4, failed: 3, calls: 1,
			warnings: []want{
				{"connectivity.control_plane_security_group_ids[0]", "Control-plane security group not found"},
				{"connectivity", "The control plane cannot reach the nodes"},
				{"connectivity", "The control plane cannot reach the nodes"},
				{"connectivity", "The nodes cannot reach the control plane"},
			},
		},
		{
			name: "control plane terms match nothing", c: Connectivity{Configured: true, Mode: ChecksError,
				ControlPlaneTerms: []discovery.SecurityGroupTerm{{Tags: map[string]string{"role": "none"}}}},
			rules: []connectivity.Rule{selfAll, egressAll}, checks: 2, calls: 1,
			errs: []want{{"connectivity.control_plane_security_group_selector_terms", "No control-plane security group matched"}},
		},
		{
			name: "control plane unreadable", c: Connectivity{Configured: true, Mode: ChecksWarn,
				ControlPlaneTerms: []discovery.SecurityGroupTerm{{Tags: map[string]string{"role": "control-plane"}}}},
			cpErr: errors.New("throttled"), checks: -1,
			errs: []want{{"connectivity", "Cannot resolve the control-plane security groups"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeRules{fakeAPI: &fakeAPI{
				groups:   map[string][]discovery.SecurityGroup{cpKey: {sg("sg-cp", "cp", "vpc-1")}},
				groupErr: map[string]error{cpTermKey: tc.cpErr},
			}, rules: tc.rules, err: tc.rulesErr}
			r, groups := res, []string{"sg-1"}
			if tc.noGroups {
				r.SecurityGroups, groups = nil, []string{}
			}
			checks, errs, warnings := CheckConnectivity(t.Context(), api, tc.c, r)
			if tc.checks == -1 {
				if checks != nil {
					t.Errorf("checks %+v, want nil", checks)
				}
			} else {
				failed := 0
				for _, f := range checks {
					if !f.Passed {
						failed++
					}
				}
				if checks == nil || len(checks) != tc.checks || failed != tc.failed {
					t.Errorf("checks %+v, want %d with %d failed", checks, tc.checks, tc.failed)
				}
			}
			match := func(kind string, got []attrpath.Finding, want []want) {
				if len(got) != len(want) {
					t.Errorf("%s %s, want %d", kind, dumpErrs(got), len(want))
					return
				}
				for i, w := range want {
					if got[i].Path.String() != w.path || got[i].Summary != w.summary {
						t.Errorf("%s %d: %s %q, want %s %q", kind, i, got[i].Path, got[i].Summary, w.path, w.summary)
					}
				}
			}
			match("errors", errs, tc.errs)
			match("warnings", warnings, tc.warnings)
			if len(api.calls) != tc.calls {
				t.Errorf("rule reads %v, want %d", api.calls, tc.calls)
			}
			if tc.calls == 1 && !reflect.DeepEqual(api.calls[0], groups) {
				t.Errorf("rules read for %v, want the node groups", api.calls[0])
			}
			if tc.c.Mode == ChecksOff && len(api.groupCalls) != 0 {
				t.Errorf("control-plane groups resolved with the checks off: %v", api.groupCalls)
			}
		})
	}
}

// The node-role check runs beside the resolution: a role without the CNI's actions is one
// warning on the attribute naming it; policies it cannot read, or a profile without a role, are
// one warning and no report; the plan never fails on it.
func TestPlanNodeRole(t *testing.T) {
	allow := func(actions string) iampolicy.Document {
		return iampolicy.Document{Source: "inline:p", JSON: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":[` + actions + `],"Resource":"*"}]}`}
	}
	workerAndECR := allow(`"ec2:Describe*","eks:DescribeCluster","ecr:*"`)
	for _, tc := range []struct {
		name     string
		role     string
		docs     []iampolicy.Document
		err      error
		ownCNI   bool
		warnings []string // summaries
		report   bool
	}{
		{"everything granted", "node", []iampolicy.Document{allow(`"ec2:*","eks:DescribeCluster","ecr:*"`)}, nil, false, nil, true},
		{"no CNI actions", "node", []iampolicy.Document{workerAndECR}, nil, false, []string{"Node role cannot assign pod IPs"}, true},
		{"the CNI has its own role", "node", []iampolicy.Document{workerAndECR}, nil, true, nil, true},
		{"unreadable", "node", nil, errors.New("AccessDenied: iam:ListAttachedRolePolicies"), false, []string{"Cannot read the node role's policies"}, false},
		{"profile without a role", "", nil, nil, false, []string{"Instance profile without a role"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, api := planFixture()
			nr := &NodeRole{At: attrpath.Of("role"), CNIOwnRole: tc.ownCNI,
				Policies: func(context.Context) (string, []iampolicy.Document, error) { return tc.role, tc.docs, tc.err }}
			got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, NodeRole: nr})
			var summaries []string
			for _, w := range got.Warnings {
				if w.Path.String() != "role" {
					t.Errorf("warning %q on %s, want it on role", w.Summary, w.Path)
				}
				summaries = append(summaries, w.Summary)
			}
			if len(got.Errors) != 0 || !slices.Equal(summaries, tc.warnings) || (got.NodeRole != nil) != tc.report {
				t.Errorf("errors %s, warnings %v (want %v), report %v", dumpErrs(got.Errors), summaries, tc.warnings, got.NodeRole != nil)
			}
		})
	}
}
