package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// calls records the calls of a fake; the plan calls EC2 and IAM from several goroutines.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, call)
}

func (c *calls) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.log)
}

func (c *calls) count(prefix string) int {
	n := 0
	for _, l := range c.all() {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// fakeEC2 answers every selector with all its subnets and groups, images by id, and the rules of
// the connectivity checks.
type fakeEC2 struct {
	calls
	subnets []discovery.Subnet
	groups  []discovery.SecurityGroup
	images  []discovery.Image
	rules   []connectivity.Rule
}

var _ ClassEC2 = (*fakeEC2)(nil)

func (f *fakeEC2) FindSubnets(context.Context, discovery.FilterSet) ([]discovery.Subnet, error) {
	f.add("FindSubnets")
	return slices.Clone(f.subnets), nil
}

func (f *fakeEC2) FindSecurityGroups(context.Context, discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	f.add("FindSecurityGroups")
	return slices.Clone(f.groups), nil
}

func (f *fakeEC2) FindImages(_ context.Context, q discovery.ImageQuery) ([]discovery.Image, error) {
	f.add("FindImages")
	var out []discovery.Image
	for _, img := range f.images {
		if slices.Contains(q.IDs, img.ID) {
			out = append(out, img)
		}
	}
	return out, nil
}

func (f *fakeEC2) GetParameter(_ context.Context, name string) (string, error) {
	f.add("GetParameter")
	return "", discovery.ErrParameterNotFound
}

func (f *fakeEC2) FindCapacityReservations(context.Context, discovery.CapacityReservationQuery) ([]discovery.CapacityReservation, error) {
	f.add("FindCapacityReservations")
	return nil, nil
}

func (f *fakeEC2) FindPlacementGroups(context.Context, discovery.PlacementGroupSelector) ([]discovery.PlacementGroup, error) {
	f.add("FindPlacementGroups")
	return nil, nil
}

func (f *fakeEC2) FindSecurityGroupRules(context.Context, []string) ([]connectivity.Rule, error) {
	f.add("FindSecurityGroupRules")
	return f.rules, nil
}

// fakeIAM holds roles and instance profiles; ensureErr fails Ensure, getErr Get and currentErr
// Current; stale: no profile is as apply left it.
type fakeIAM struct {
	calls
	roles                         map[string]bool
	profiles                      map[string]fleet.InstanceProfile
	ensureErr, getErr, currentErr error
	stale                         bool
}

var _ fleet.ProfileAPI = (*fakeIAM)(nil)

func (f *fakeIAM) RoleExists(_ context.Context, role string) (bool, error) {
	f.add("RoleExists " + role)
	return f.roles[role], nil
}

func (f *fakeIAM) Get(_ context.Context, name string) (*fleet.InstanceProfile, error) {
	f.add("Get " + name)
	if f.getErr != nil {
		return nil, f.getErr
	}
	p, ok := f.profiles[name]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

func (f *fakeIAM) Current(_ context.Context, name, _ string, _ map[string]string) (bool, error) {
	f.add("Current " + name)
	return !f.stale, f.currentErr
}

func (f *fakeIAM) Ensure(_ context.Context, s fleet.ProfileSpec) (fleet.InstanceProfile, error) {
	f.add("Ensure " + s.Name + " " + s.Own[nodeclass.TagOwner])
	return fleet.InstanceProfile{Name: s.Name, Roles: []string{s.Role}, Tags: s.Tags}, f.ensureErr
}

func (f *fakeIAM) Delete(_ context.Context, name string, own map[string]string) error {
	f.add("Delete " + name + " " + own[nodeclass.TagOwner])
	return nil
}

const (
	testCluster = "my-cluster"
	testRegion  = "us-west-2"
	// adminPolicy grants every action: the node-role check finds nothing missing.
	adminPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
)

// fixture is a class planned against fakes: a role that exists, one AMI, two subnets in two
// zones and a node group whose self-reference passes node_to_node.
type fixture struct {
	ec2      *fakeEC2
	iam      *fakeIAM
	policies calls
	admitted calls
	admit    func(kind, doc string) ([]attrpath.Finding, error) // nil: Karpenter's admission
	listing  fleet.Listing                                      // the pools' template listing (nil: none)
	warmed   calls                                              // the pools' inputs warmed from disk
}

func newFixture() *fixture {
	return &fixture{
		ec2: &fakeEC2{
			subnets: []discovery.Subnet{
				{ID: "subnet-a", VPCID: "vpc-1", Zone: "us-west-2a", ZoneID: "usw2-az1", CIDRBlock: "10.0.0.0/24", AvailableIPAddressCount: 100},
				{ID: "subnet-b", VPCID: "vpc-1", Zone: "us-west-2b", ZoneID: "usw2-az2", CIDRBlock: "10.0.1.0/24", AvailableIPAddressCount: 200},
			},
			groups: []discovery.SecurityGroup{{ID: "sg-node", Name: "node", VPCID: "vpc-1"}},
			images: []discovery.Image{{ID: "ami-1", Name: "custom-node", OwnerID: "111122223333", Architecture: "x86_64",
				CreationDate: "2026-01-01T00:00:00Z"}},
			rules: []connectivity.Rule{{GroupID: "sg-node", Protocol: "-1", FromPort: -1, ToPort: -1, ReferencedGroupID: "sg-node"},
				{GroupID: "sg-node", Egress: true, Protocol: "-1", FromPort: -1, ToPort: -1, CIDRv4: "0.0.0.0/0"}},
		},
		iam: &fakeIAM{roles: map[string]bool{"NodeRole": true}, profiles: map[string]fleet.InstanceProfile{}},
	}
}

func (f *fixture) ports() ClassPorts {
	admit := f.admit
	if admit == nil {
		admit = func(kind, doc string) ([]attrpath.Finding, error) {
			violations, runtime, err := manifest.AdmitAll(manifest.DefaultVersion, doc)
			return manifest.Findings(manifest.DefaultVersion, kind, violations, runtime), err
		}
	}
	return ClassPorts{
		EC2:      f.ec2,
		Profiles: f.iam,
		RolePolicies: func(_ context.Context, role string) ([]iampolicy.Document, error) {
			f.policies.add("RolePolicies " + role)
			return []iampolicy.Document{{Source: "inline:admin", JSON: adminPolicy}}, nil
		},
		Admit: func(kind, doc string) ([]attrpath.Finding, error) {
			f.admitted.add(kind)
			return admit(kind, doc)
		},
		PoolListing:    f.listing,
		WarmPoolInputs: func(context.Context) { f.warmed.add("warm") },
	}
}

func (f *fixture) plan(in ClassInput) ClassResult {
	facts := ClassFacts{ClusterName: testCluster, Region: testRegion, KubernetesVersion: "1.33", KarpenterVersion: manifest.DefaultVersion,
		Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	return Class(context.Background(), f.ports(), facts, in)
}

func (f *fixture) awsCalls() []string {
	return append(append(f.ec2.all(), f.iam.all()...), f.policies.all()...)
}

// testConfig is a class with `role` and the provider's instance profile for static pools.
func testConfig() nodeclass.Config {
	forStatic := true
	return nodeclass.Config{Name: "default", AMIFamily: "AL2023", Role: "NodeRole", InstanceProfileForStaticPools: &forStatic,
		AMISelectorTerms: []nodeclass.AMITerm{{ID: "ami-1"}}}
}

// A class with `role` but no profile for static pools (the default) has none of the provider's:
// its plan reads the role and its policies, never the profile's name, even when a profile of that
// name is another owner's, and resolved names no profile. With `instance_profile` the attribute
// is refused.
func TestClassWithoutStaticPoolProfile(t *testing.T) {
	f := newFixture()
	f.iam.profiles[profileName()] = fleet.InstanceProfile{Name: profileName(), Roles: []string{"NodeRole"},
		Tags: nodeclass.InstanceProfileTags(testCluster, testRegion, "default", "owner-2")}
	c := testConfig()
	c.InstanceProfileForStaticPools = nil
	res := f.plan(ClassInput{Config: c})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %s", dump(res.Errors))
	}
	if res.Resolved.InstanceProfile != nil {
		t.Errorf("resolved instance profile %q, want none", *res.Resolved.InstanceProfile)
	}
	if f.iam.count("RoleExists NodeRole") != 1 || f.iam.count("Get "+profileName()) != 0 || f.policies.count("RolePolicies NodeRole") != 1 {
		t.Errorf("IAM calls %v %v", f.iam.all(), f.policies.all())
	}
	c = testConfig()
	c.Role, c.InstanceProfile = "", "custom"
	for _, errs := range [][]attrpath.Finding{ValidateClass(c), f.plan(ClassInput{Config: c}).Errors} {
		if len(errs) != 1 || errs[0].Path.String() != "instance_profile_for_static_pools" {
			t.Errorf("instance_profile with instance_profile_for_static_pools: %s", dump(errs))
		}
	}
}

func profileName() string { return nodeclass.InstanceProfileName(testCluster, testRegion, "default") }

func dump(fs []attrpath.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.Summary + ": " + f.Error())
	}
	return b.String()
}

func TestClassPlans(t *testing.T) {
	f := newFixture()
	res := f.plan(ClassInput{Config: testConfig()})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %s\nwarnings %s", dump(res.Errors), dump(res.Warnings))
	}
	if res.VPCID != "vpc-1" || len(res.Subnets) != 2 || !slices.Equal(res.Zones, []string{"us-west-2a", "us-west-2b"}) ||
		len(res.AMIs) != 1 || res.AMIs[0].ID != "ami-1" {
		t.Errorf("recorded %+v", res.Recorded)
	}
	if !strings.Contains(res.Manifest, "kind: EC2NodeClass") || !strings.Contains(res.Manifest, "role: NodeRole") ||
		!strings.Contains(res.Manifest, "karpenter.sh/discovery: "+testCluster) {
		t.Errorf("manifest:\n%s", res.Manifest)
	}
	r := res.Resolved
	if r.Name != "default" || r.InstanceProfile == nil || *r.InstanceProfile != profileName() || r.Hash == nil || r.HashVersion == nil ||
		len(r.Subnets) != 2 || !slices.Equal(r.SecurityGroupIDs, []string{"sg-node"}) {
		t.Errorf("resolved %+v", r)
	}
	if len(res.NodeRoleReport) == 0 || len(res.ConnectivityReport) != 2 || !res.ConnectivityReport[0].Passed ||
		res.ConnectivityReport[0].Check != connectivity.CheckNodeToNode || !res.ConnectivityReport[1].Passed ||
		res.ConnectivityReport[1].Check != connectivity.CheckNodesEgress {
		t.Errorf("node role report %+v, connectivity report %+v", res.NodeRoleReport, res.ConnectivityReport)
	}
	for _, n := range res.NodeRoleReport {
		if n.Status != "met" {
			t.Errorf("node role need %+v, want met by the admin policy", n)
		}
	}
	if u := res.Unknown; u.Manifest || u.ManifestObject || u.NodeRoleReport || u.Resolved != nil || u.Placeholders != nil {
		t.Errorf("unknown %+v, want nothing", u)
	}
	if got := f.admitted.all(); !slices.Equal(got, []string{manifest.EC2NodeClassKind}) {
		t.Errorf("admitted %v", got)
	}
	// The profile check and the node-role check read IAM; the checks' rules are read last.
	if f.iam.count("RoleExists NodeRole") != 1 || f.iam.count("Get "+profileName()) != 1 || f.policies.count("RolePolicies NodeRole") != 1 {
		t.Errorf("IAM calls %v %v", f.iam.all(), f.policies.all())
	}
	if ec2 := f.ec2.all(); ec2[len(ec2)-1] != "FindSecurityGroupRules" {
		t.Errorf("EC2 calls %v, want the connectivity checks last", ec2)
	}
	// The same input plans the same class: the hash moves only when the class does.
	if again := f.plan(ClassInput{Config: testConfig()}); *again.Resolved.Hash != *r.Hash {
		t.Errorf("hash %s, then %s", *r.Hash, *again.Resolved.Hash)
	}
	c := testConfig()
	c.Tags = map[string]string{"team": "a"}
	if other := f.plan(ClassInput{Config: c}); *other.Resolved.Hash == *r.Hash {
		t.Errorf("hash %s unchanged by a new tag", *r.Hash)
	}
}

// What the config alone decides fails the plan before any AWS call, with the findings on their
// attributes; the manifest is not admitted either.
func TestClassValidationFailsBeforeAWS(t *testing.T) {
	f := newFixture()
	c := testConfig()
	c.Name = "Not_A_Name"
	c.InstanceProfile = "both"
	c.Kubelet = &nodeclass.KubeletConfig{Config: "not an object"}
	res := f.plan(ClassInput{Config: c})
	want := map[string]string{"name": "Invalid node class", "kubelet.config": "Invalid kubelet.config", "instance_profile": "Invalid node class"}
	for _, e := range res.Errors {
		if s, ok := want[e.Path.String()]; ok && s == e.Summary {
			delete(want, e.Path.String())
		}
	}
	if len(want) != 0 {
		t.Errorf("missing findings (path: summary) %v in %s", want, dump(res.Errors))
	}
	if calls := f.awsCalls(); len(calls) != 0 || len(f.admitted.all()) != 0 {
		t.Errorf("AWS calls %v, admitted %v; want none", calls, f.admitted.all())
	}
	if res.Manifest != "" || res.Resolved.Name != "" {
		t.Errorf("a failed plan computed %q %+v", res.Manifest, res.Resolved)
	}
}

// What Kubernetes would refuse fails the plan with the admission's findings alone, and an
// admission that cannot run is a resource-level error. The class's reads ran beside the
// admission: none of them changes anything, nothing of their answers is planned or reported,
// and the pools' template listing does not start.
func TestClassAdmissionRefusalDiscardsTheReads(t *testing.T) {
	refusal := attrpath.Finding{Path: attrpath.Of("user_data"), Summary: "Kubernetes would reject the EC2NodeClass", Message: "no"}
	for name, tc := range map[string]struct {
		findings []attrpath.Finding
		err      error
		want     attrpath.Finding
	}{
		"refused": {findings: []attrpath.Finding{refusal}, want: refusal},
		"error": {err: errors.New("no CRDs"), want: attrpath.Finding{Summary: "Cannot validate the EC2NodeClass manifest",
			Message: "no CRDs"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture()
			f.ec2.subnets = nil // an answer the plan would report, were it read
			f.admit = func(kind, doc string) ([]attrpath.Finding, error) { return tc.findings, tc.err }
			listing := scopeRecorder{scopes: make(chan map[string]string, 1)}
			f.listing = listing
			res := f.plan(ClassInput{Config: testConfig()})
			if len(res.Errors) != 1 || res.Errors[0].Error() != tc.want.Error() || res.Errors[0].Summary != tc.want.Summary {
				t.Errorf("errors %s, want %s", dump(res.Errors), dump([]attrpath.Finding{tc.want}))
			}
			if len(res.Warnings) != 0 || res.Manifest != "" || res.Resolved.Name != "" || res.NodeRoleReport != nil {
				t.Errorf("a refused class planned: warnings %s, manifest %q, resolved %+v", dump(res.Warnings), res.Manifest, res.Resolved)
			}
			for _, call := range f.awsCalls() {
				if !isRead(call) {
					t.Errorf("AWS call %q is not a read", call)
				}
			}
			select { // not the pools' template listing
			case scope := <-listing.scopes:
				t.Errorf("the template listing started (scope %v)", scope)
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
}

// isRead reports whether a recorded fake call only reads.
func isRead(call string) bool {
	for _, p := range []string{"Find", "Get", "RoleExists", "RolePolicies", "Describe", "List"} {
		if strings.HasPrefix(call, p) {
			return true
		}
	}
	return false
}

// An answer from AWS that makes the class unusable stops the plan: nothing is recorded and the
// connectivity checks do not run.
func TestClassResolutionErrorsStop(t *testing.T) {
	f := newFixture()
	f.ec2.subnets = nil
	f.iam.roles = nil
	res := f.plan(ClassInput{Config: testConfig()})
	paths := map[string]string{}
	for _, e := range res.Errors {
		paths[e.Path.String()] = e.Summary
	}
	if paths["role"] != "IAM role not found" || len(paths) != 1 {
		t.Errorf("errors %s, want the role's (the IAM stage's errors come first)", dump(res.Errors))
	}
	if f.ec2.count("FindSecurityGroupRules") != 0 || res.ConnectivityReport != nil || res.VPCID != "" {
		t.Errorf("a failed resolution went on: %v, %+v", f.ec2.all(), res.Recorded)
	}
	f = newFixture()
	f.ec2.subnets = nil
	res = f.plan(ClassInput{Config: testConfig()})
	if len(res.Errors) == 0 || res.Errors[0].Path.String() != "subnet_selector_terms" || f.ec2.count("FindSecurityGroupRules") != 0 {
		t.Errorf("errors %s, calls %v", dump(res.Errors), f.ec2.all())
	}
}

// Late values are validated and rendered as placeholders; what names them is unknown, and what
// reads them in AWS (the role's existence, its policies) waits for apply.
func TestClassLateValues(t *testing.T) {
	f := newFixture()
	c := testConfig()
	c.Role = ""
	c.Tags = map[string]string{"team": "a", "cost": ""}
	c.UserData = nil
	late := nodeclass.Late{Role: true, UserData: true, TagKeys: []string{"cost"}}
	res := f.plan(ClassInput{Config: c, Late: late})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %s", dump(res.Errors))
	}
	for _, p := range []string{nodeclass.RoleKnownAfterApply, nodeclass.UserDataKnownAfterApply, "cost: " + nodeclass.TagKnownAfterApply, "team: a"} {
		if !strings.Contains(res.Manifest, p) {
			t.Errorf("manifest lacks %q:\n%s", p, res.Manifest)
		}
	}
	u := res.Unknown
	if !u.Manifest || u.ManifestObject || !u.NodeRoleReport || !slices.Equal(u.Resolved, []string{"hash", "user_data"}) ||
		!slices.Equal(u.ResolvedTags, []string{"cost"}) || !slices.Equal(u.Placeholders, late.Placeholders()) {
		t.Errorf("unknown %+v", u)
	}
	if c.Tags["cost"] != "" {
		t.Errorf("the config's tags changed: %v", c.Tags)
	}
	if f.iam.count("RoleExists") != 0 || len(f.policies.all()) != 0 || f.iam.count("Get "+profileName()) != 1 {
		t.Errorf("IAM calls %v %v: want only the profile name's check", f.iam.all(), f.policies.all())
	}
	// The provider's profile is named now: only the role it holds waits.
	if res.Resolved.InstanceProfile == nil || *res.Resolved.InstanceProfile != profileName() {
		t.Errorf("resolved instance profile %v", res.Resolved.InstanceProfile)
	}
	// A whole tags map: the manifest object's type is not known either.
	res = newFixture().plan(ClassInput{Config: testConfig(), Late: nodeclass.Late{Tags: true}})
	if u := res.Unknown; !u.ManifestObject || !slices.Equal(u.Resolved, []string{"hash", "tags"}) || u.ResolvedTags != nil ||
		u.NodeRoleReport || strings.Contains(res.Manifest, "\n  tags:") {
		t.Errorf("unknown %+v, manifest\n%s", u, res.Manifest)
	}
}

// The state's answers are kept while the selection is unchanged, and its owner id is the one
// whose profile the class may keep.
func TestClassPriorAnswers(t *testing.T) {
	f := newFixture()
	first := f.plan(ClassInput{Config: testConfig()})
	f.ec2.subnets[0].AvailableIPAddressCount = 7 // a launch elsewhere took addresses
	f.iam.profiles[profileName()] = fleet.InstanceProfile{Name: profileName(), Roles: []string{"NodeRole"},
		Tags: nodeclass.InstanceProfileTags(testCluster, testRegion, "default", "owner-1")}
	res := f.plan(ClassInput{Config: testConfig(), Prior: &ClassPrior{Recorded: first.Recorded, OwnerID: "owner-1"}})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %s", dump(res.Errors))
	}
	for i, s := range res.Subnets {
		if s.AvailableIPAddressCount != first.Subnets[i].AvailableIPAddressCount {
			t.Errorf("subnet %s: %d free addresses, want the state's %d", s.ID, s.AvailableIPAddressCount, first.Subnets[i].AvailableIPAddressCount)
		}
	}
	// Without the owner id the same profile is another's.
	res = f.plan(ClassInput{Config: testConfig()})
	if len(res.Errors) != 1 || res.Errors[0].Path.String() != "role" || res.Errors[0].Summary != "Instance profile name already taken" {
		t.Errorf("errors %s", dump(res.Errors))
	}
}

// A role behind the configured instance profile is the one the node-role check reads, and its
// findings sit on `instance_profile`.
func TestClassNodeRoleThroughInstanceProfile(t *testing.T) {
	f := newFixture()
	f.iam.profiles["custom"] = fleet.InstanceProfile{Name: "custom", Roles: []string{"OtherRole"}}
	c := testConfig()
	c.Role, c.InstanceProfile, c.InstanceProfileForStaticPools = "", "custom", nil
	res := f.plan(ClassInput{Config: c})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %s warnings %s", dump(res.Errors), dump(res.Warnings))
	}
	if f.iam.count("Get custom") != 2 || !slices.Equal(f.policies.all(), []string{"RolePolicies OtherRole"}) {
		t.Errorf("IAM calls %v %v", f.iam.all(), f.policies.all())
	}
	if res.Resolved.InstanceProfile == nil || *res.Resolved.InstanceProfile != "custom" {
		t.Errorf("resolved instance profile %v", res.Resolved.InstanceProfile)
	}
	f = newFixture()
	f.iam.profiles["custom"] = fleet.InstanceProfile{Name: "custom"}
	res = f.plan(ClassInput{Config: c})
	if len(res.Warnings) != 1 || res.Warnings[0].Path.String() != "instance_profile" || res.Warnings[0].Summary != "Instance profile without a role" {
		t.Errorf("warnings %s", dump(res.Warnings))
	}
}

// The connectivity checks' findings are the plan's, on their attributes; turned off, they read
// nothing and report nothing.
func TestClassConnectivity(t *testing.T) {
	f := newFixture()
	f.ec2.rules = f.ec2.rules[1:] // the egress rule alone: the nodes cannot reach each other
	res := f.plan(ClassInput{Config: testConfig()})
	if len(res.Errors) != 0 || len(res.Warnings) != 1 || res.Warnings[0].Path.String() != "security_group_selector_terms" ||
		res.Warnings[0].Summary != "Nodes cannot reach each other" || len(res.ConnectivityReport) != 2 || res.ConnectivityReport[0].Passed {
		t.Errorf("errors %s warnings %s report %+v", dump(res.Errors), dump(res.Warnings), res.ConnectivityReport)
	}
	// No rule at all: neither each other nor out, with control-plane groups or without.
	f.ec2.rules = nil
	c := testConfig()
	c.Connectivity = &nodeclass.ConnectivityConfig{Checks: nodeclass.ChecksError}
	if res = f.plan(ClassInput{Config: c}); len(res.Errors) != 2 || res.Errors[0].Summary != "Nodes cannot reach each other" ||
		res.Errors[1].Summary != "The nodes have no way out" || res.Errors[1].Path.String() != "security_group_selector_terms" {
		t.Errorf("errors %s", dump(res.Errors))
	}
	f = newFixture()
	c.Connectivity.Checks = nodeclass.ChecksOff
	if res = f.plan(ClassInput{Config: c}); res.ConnectivityReport != nil || f.ec2.count("FindSecurityGroupRules") != 0 {
		t.Errorf("report %+v, calls %v", res.ConnectivityReport, f.ec2.all())
	}
}

func TestValidateClass(t *testing.T) {
	c := testConfig()
	if fs := ValidateClass(c); len(fs) != 0 {
		t.Errorf("valid class: %s", dump(fs))
	}
	c.Name = ""
	c.Connectivity = &nodeclass.ConnectivityConfig{Checks: nodeclass.ChecksOff, ControlPlaneSecurityGroupIDs: []string{"not-a-group"}}
	fs := ValidateClass(c)
	if len(fs) != 2 || fs[0].Path.String() != "name" || fs[0].Summary != "Invalid node class" || fs[1].Path.String() != "connectivity.control_plane_security_group_ids[0]" {
		t.Errorf("findings %s", dump(fs))
	}
}

func TestValidateClassImportID(t *testing.T) {
	if fs := ValidateClassImportID("default"); fs != nil {
		t.Errorf("valid id: %s", dump(fs))
	}
	fs := ValidateClassImportID("Bad_Name")
	if len(fs) != 1 || !fs[0].Path.IsEmpty() || fs[0].Summary != "Invalid import ID" || !strings.Contains(fs[0].Message, "`metadata.name`") {
		t.Errorf("findings %s", dump(fs))
	}
}

// profileFacts are the facts a class's instance profile is named with.
var profileFacts = ClassFacts{ClusterName: testCluster, Region: testRegion}

func classProfile(owner string) ClassProfile {
	return ClassProfile{Class: "default", Role: "NodeRole", Owner: owner, Recorded: profileName()}
}

func TestCreateClass(t *testing.T) {
	iam := &fakeIAM{}
	p := ClassPorts{Profiles: iam}
	res := CreateClass(context.Background(), p, profileFacts, classProfile(""))
	if !res.Save || res.OwnerID == "" || len(res.Errors) != 0 || !slices.Equal(iam.all(), []string{"Ensure " + profileName() + " " + res.OwnerID}) {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
	// A failed create removes what its owner id created, and saves nothing.
	iam = &fakeIAM{ensureErr: errors.New("AccessDenied")}
	p.Profiles = iam
	res = CreateClass(context.Background(), p, profileFacts, classProfile(""))
	if res.Save || len(res.Errors) != 1 || res.Errors[0].Path.String() != "role" ||
		!slices.Equal(iam.all(), []string{"Ensure " + profileName() + " " + res.OwnerID, "Delete " + profileName() + " " + res.OwnerID}) {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
}

func TestUpdateClass(t *testing.T) {
	ctx := context.Background()
	iam := &fakeIAM{}
	p := ClassPorts{Profiles: iam}
	// Role replaced by instance_profile: the class's own profile goes, under the state's owner.
	now := ClassProfile{Class: "default", InstanceProfile: "custom"}
	res := UpdateClass(ctx, p, profileFacts, classProfile("owner-1"), now)
	if !res.Save || res.OwnerID != "owner-1" || !slices.Equal(iam.all(), []string{"Delete " + profileName() + " owner-1"}) {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
	// A state without an owner id gets a fresh one; a failed ensure removes what it created.
	iam = &fakeIAM{ensureErr: errors.New("AccessDenied")}
	p.Profiles = iam
	res = UpdateClass(ctx, p, profileFacts, classProfile(""), classProfile(""))
	if res.Save || res.OwnerID == "" || len(res.Errors) != 1 || iam.count("Delete "+profileName()+" "+res.OwnerID) != 1 {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
	// An owner id that is saved already keeps its profiles when the ensure fails.
	iam = &fakeIAM{ensureErr: errors.New("AccessDenied")}
	p.Profiles = iam
	if res = UpdateClass(ctx, p, profileFacts, classProfile("owner-1"), classProfile("")); res.Save || res.OwnerID != "owner-1" || iam.count("Delete") != 0 {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
}

func TestDeleteClass(t *testing.T) {
	iam := &fakeIAM{}
	res := DeleteClass(context.Background(), ClassPorts{Profiles: iam}, profileFacts, classProfile("owner-1"))
	if res.Save || len(res.Errors) != 0 || !slices.Equal(iam.all(), []string{"Delete " + profileName() + " owner-1"}) {
		t.Errorf("result %+v, calls %v", res, iam.all())
	}
}

// TestRefreshClass: the recorded profile of a class with `role` and an owner id is checked; a
// stale one is drift, an unreadable one an error; a class without an owner id reads nothing.
func TestRefreshClass(t *testing.T) {
	ctx := context.Background()
	iam := &fakeIAM{}
	if drifted, errs := RefreshClass(ctx, ClassPorts{Profiles: iam}, profileFacts, classProfile("owner-1")); drifted || len(errs) != 0 ||
		!slices.Equal(iam.all(), []string{"Current " + profileName()}) {
		t.Errorf("current profile: drifted %v, %v, calls %v", drifted, errs, iam.all())
	}
	if drifted, errs := RefreshClass(ctx, ClassPorts{Profiles: &fakeIAM{stale: true}}, profileFacts, classProfile("owner-1")); !drifted || len(errs) != 0 {
		t.Errorf("stale profile: drifted %v, %v", drifted, errs)
	}
	drifted, errs := RefreshClass(ctx, ClassPorts{Profiles: &fakeIAM{currentErr: errors.New("AccessDenied")}}, profileFacts, classProfile("owner-1"))
	if drifted || len(errs) != 1 || errs[0].Summary != "Cannot read the class's instance profile" || errs[0].Message != "AccessDenied" {
		t.Errorf("unreadable profile: drifted %v, %s", drifted, dump(errs))
	}
	iam = &fakeIAM{stale: true}
	if drifted, errs := RefreshClass(ctx, ClassPorts{Profiles: iam}, profileFacts, classProfile("")); drifted || len(errs) != 0 || len(iam.all()) != 0 {
		t.Errorf("no owner id: drifted %v, %v, calls %v", drifted, errs, iam.all())
	}
}

// The connectivity checks start as soon as the selectors resolve, while the node role's policies
// are still being read: the node role's reader here waits for the rules to have been read, which
// a check run after the rest of the plan never does in time.
func TestClassConnectivityOverlapsTheNodeRole(t *testing.T) {
	f := newFixture()
	ports := f.ports()
	overlapped := false
	ports.RolePolicies = func(context.Context, string) ([]iampolicy.Document, error) {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if f.ec2.count("FindSecurityGroupRules") > 0 {
				overlapped = true
				break
			}
		}
		return []iampolicy.Document{{Source: "inline:admin", JSON: adminPolicy}}, nil
	}
	facts := ClassFacts{ClusterName: testCluster, Region: testRegion, KubernetesVersion: "1.33", KarpenterVersion: manifest.DefaultVersion,
		Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	res := Class(context.Background(), ports, facts, ClassInput{Config: testConfig()})
	if len(res.Errors) != 0 || len(res.ConnectivityReport) != 2 {
		t.Fatalf("errors %s report %+v", dump(res.Errors), res.ConnectivityReport)
	}
	if !overlapped {
		t.Error("the connectivity checks waited for the node role's policies")
	}
	if n := f.ec2.count("FindSecurityGroupRules"); n != 1 {
		t.Errorf("the rules were read %d times, want once", n)
	}
}
