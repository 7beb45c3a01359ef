package planner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

const (
	testClusterARN = "arn:aws:eks:us-west-2:111122223333:cluster/demo"
	testRoleARN    = "arn:aws:iam::111122223333:role/NodeRole"
)

// fakeEntries is a cluster's access entries by principal ARN; err fails every read.
type fakeEntries struct {
	calls
	entries map[string]settings.AccessEntry
	err     error
}

func (f *fakeEntries) AccessEntryPrincipals(_ context.Context, cluster string) ([]string, error) {
	f.add("ListAccessEntries " + cluster)
	var out []string
	for p := range f.entries {
		out = append(out, p)
	}
	return out, f.err
}

func (f *fakeEntries) AccessEntry(_ context.Context, cluster, principal string) (settings.AccessEntry, error) {
	f.add("DescribeAccessEntry " + cluster + " " + principal)
	return f.entries[principal], f.err
}

func autoModeOn() *settings.AutoModeFacts {
	return &settings.AutoModeFacts{Enabled: true, NodePools: []string{"general-purpose", "system"},
		NodeRoleARN: "arn:aws:iam::111122223333:role/AmazonEKSAutoNodeRole"}
}

func autoModeClusterWith(entries *fakeEntries) *AutoModeCluster {
	return &AutoModeCluster{Name: "demo", Facts: settings.ClusterFacts{ARN: testClusterARN, AutoMode: autoModeOn()}, Entries: entries}
}

func ec2Entry(principal string, policies ...settings.AccessPolicy) settings.AccessEntry {
	return settings.AccessEntry{PrincipalARN: principal, Type: "EC2", Policies: policies}
}

var autoNodePolicy = settings.AccessPolicy{ARN: AutoModeNodePolicy, ScopeType: "cluster"}

func autoModeClassPorts(c *AutoModeCluster) (AutoModeClassPorts, *fakeEC2) {
	ec2 := newFixture().ec2
	return AutoModeClassPorts{EC2: ec2, Admit: func(string, string) ([]attrpath.Finding, error) { return nil, nil }, Cluster: c}, ec2
}

func autoModeClassInput(role string) AutoModeClassInput {
	return AutoModeClassInput{Config: automode.Config{Name: "private", Role: role,
		SubnetSelectorTerms:        []discovery.SubnetTerm{{ID: "subnet-a"}},
		SecurityGroupSelectorTerms: []discovery.SecurityGroupTerm{{ID: "sg-node"}}}}
}

// An Auto Mode NodeClass on a looked-up cluster whose EKS Auto Mode compute is off (or not
// reported) fails the plan before any EC2 call, naming how to enable it; on a cluster with it on,
// or without lookup_cluster, the class plans.
func TestAutoModeClassOnTheCluster(t *testing.T) {
	for name, c := range map[string]*AutoModeCluster{
		"compute off":       {Name: "demo", Facts: settings.ClusterFacts{ARN: testClusterARN, AutoMode: &settings.AutoModeFacts{}}},
		"no computeConfig":  {Name: "demo", Facts: settings.ClusterFacts{ARN: testClusterARN}},
		"Auto Mode enabled": autoModeClusterWith(&fakeEntries{entries: map[string]settings.AccessEntry{testRoleARN: ec2Entry(testRoleARN, autoNodePolicy)}}),
		"not looked up":     nil,
	} {
		ports, ec2 := autoModeClassPorts(c)
		res := AutoModeClass(context.Background(), ports, autoModeClassInput("NodeRole"), time.Now())
		if c == nil || c.Facts.AutoModeEnabled() {
			if len(res.Errors)+len(res.Warnings) > 0 || res.Manifest == "" {
				t.Errorf("%s: %v %v", name, res.Errors, res.Warnings)
			}
			continue
		}
		if len(res.Errors) != 1 || res.Errors[0].Summary != SummaryAutoModeOff || !res.Errors[0].Path.IsEmpty() ||
			!strings.Contains(res.Errors[0].Message, "aws eks update-cluster-config --name demo --compute-config enabled=true") ||
			!strings.Contains(res.Errors[0].Message, "blockStorage") || !strings.Contains(res.Errors[0].Message, "auto-enable-existing") {
			t.Errorf("%s: errors %v", name, res.Errors)
		}
		if n := len(ec2.all()); n != 0 {
			t.Errorf("%s: %d EC2 calls after the error", name, n)
		}
	}
}

// The node role's access entry: none, one of another type, one without AmazonEKSAutoNodePolicy
// (or with it only for namespaces) is a warning on `role` naming the commands that fix it; an EC2
// entry with the policy at cluster scope, found by the role's name whatever its path, is none;
// a failed read is a warning that the check was skipped.
func TestNodeRoleAccessFindings(t *testing.T) {
	pathRole := "arn:aws:iam::111122223333:role/nodes/NodeRole"
	namespaced := settings.AccessPolicy{ARN: AutoModeNodePolicy, ScopeType: "namespace", Namespaces: []string{"default"}}
	cases := []struct {
		name    string
		role    string
		entries map[string]settings.AccessEntry
		err     error
		summary string // "" for no warning
		want    []string
	}{
		{name: "no entry", role: "NodeRole", entries: map[string]settings.AccessEntry{
			"arn:aws:iam::111122223333:role/Other":    ec2Entry("arn:aws:iam::111122223333:role/Other", autoNodePolicy),
			"arn:aws:iam::444455556666:role/NodeRole": ec2Entry("arn:aws:iam::444455556666:role/NodeRole", autoNodePolicy)},
			summary: SummaryNodeRoleCannotJoin, want: []string{"has no EKS access entry for node role " + testRoleARN, "never join",
				"aws eks create-access-entry --cluster-name demo --principal-arn " + testRoleARN + " --type EC2",
				"aws eks associate-access-policy --cluster-name demo --principal-arn " + testRoleARN + " --policy-arn " + AutoModeNodePolicy +
					" --access-scope type=cluster", "create-node-class.html"}},
		{name: "a path in role names the role under it", role: "nodes/NodeRole", entries: nil, summary: SummaryNodeRoleCannotJoin,
			want: []string{"--principal-arn " + pathRole + " --type EC2"}},
		{name: "another type", role: "NodeRole", entries: map[string]settings.AccessEntry{
			testRoleARN: {PrincipalARN: testRoleARN, Type: "EC2_LINUX", Policies: []settings.AccessPolicy{autoNodePolicy}}},
			summary: SummaryNodeRoleCannotJoin, want: []string{"is of type EC2_LINUX", "aws eks delete-access-entry --cluster-name demo --principal-arn " + testRoleARN,
				"--type EC2"}},
		{name: "no policy", role: "NodeRole", entries: map[string]settings.AccessEntry{testRoleARN: ec2Entry(testRoleARN)},
			summary: SummaryNodeRoleCannotJoin, want: []string{"has no " + AutoModeNodePolicy + " access policy at cluster scope", "associate-access-policy"}},
		{name: "policy for a namespace only", role: "NodeRole", entries: map[string]settings.AccessEntry{testRoleARN: ec2Entry(testRoleARN, namespaced)},
			summary: SummaryNodeRoleCannotJoin, want: []string{"at cluster scope"}},
		{name: "entry and policy", role: "NodeRole", entries: map[string]settings.AccessEntry{testRoleARN: ec2Entry(testRoleARN, autoNodePolicy)}},
		{name: "the role's entry has its path", role: "NodeRole", entries: map[string]settings.AccessEntry{pathRole: ec2Entry(pathRole, autoNodePolicy)}},
		{name: "denied", role: "NodeRole", err: errors.New("AccessDeniedException"), summary: SummaryNodeRoleAccessNotChecked,
			want: []string{"AccessDeniedException", "eks:ListAccessEntries, eks:DescribeAccessEntry and eks:ListAssociatedAccessPolicies"}},
	}
	for _, c := range cases {
		got := nodeRoleAccessFindings(context.Background(), autoModeClusterWith(&fakeEntries{entries: c.entries, err: c.err}), c.role)
		if c.summary == "" {
			if len(got) > 0 {
				t.Errorf("%s: %v", c.name, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Summary != c.summary || got[0].Path.String() != "role" {
			t.Errorf("%s: %v", c.name, got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got[0].Message, w) {
				t.Errorf("%s: %q lacks %q", c.name, got[0].Message, w)
			}
		}
	}
}

// Without the cluster, its entries, a role, or an account, the access entry is not read; the
// partition and account come from the cluster's ARN, or the caller's account without one.
func TestNodeRoleAccessFindings_scope(t *testing.T) {
	entries := &fakeEntries{}
	for name, c := range map[string]*AutoModeCluster{"no cluster": nil, "no entries port": {Name: "demo", Facts: settings.ClusterFacts{ARN: testClusterARN}},
		"no account": {Name: "demo", Entries: entries}} {
		if got := nodeRoleAccessFindings(context.Background(), c, "NodeRole"); len(got) > 0 {
			t.Errorf("%s: %v", name, got)
		}
	}
	if got := nodeRoleAccessFindings(context.Background(), autoModeClusterWith(entries), ""); len(got) > 0 {
		t.Errorf("instance profile: %v", got)
	}
	if n := len(entries.all()); n != 0 {
		t.Errorf("%d reads without a role or an account", n)
	}
	china := &AutoModeCluster{Name: "cn", Facts: settings.ClusterFacts{ARN: "arn:aws-cn:eks:cn-north-1:111122223333:cluster/cn"}, Entries: entries}
	if got := nodeRoleAccessFindings(context.Background(), china, "NodeRole"); len(got) != 1 ||
		!strings.Contains(got[0].Message, "arn:aws-cn:iam::111122223333:role/NodeRole") ||
		!strings.Contains(got[0].Message, "arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy") {
		t.Errorf("aws-cn: %v", got)
	}
	noARN := &AutoModeCluster{Name: "demo", AccountID: "777788889999", Entries: entries}
	if got := nodeRoleAccessFindings(context.Background(), noARN, "NodeRole"); len(got) != 1 ||
		!strings.Contains(got[0].Message, "arn:aws:iam::777788889999:role/NodeRole") {
		t.Errorf("caller's account: %v", got)
	}
}

// The access entry warning reaches the class's plan, which still plans.
func TestAutoModeClassWarnsAboutTheAccessEntry(t *testing.T) {
	ports, _ := autoModeClassPorts(autoModeClusterWith(&fakeEntries{}))
	res := AutoModeClass(context.Background(), ports, autoModeClassInput("NodeRole"), time.Now())
	if len(res.Errors) > 0 || res.Manifest == "" || len(res.Warnings) != 1 || res.Warnings[0].Summary != SummaryNodeRoleCannotJoin {
		t.Errorf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
}

// A pool named as one of the cluster's built-in NodePools is an error on `name`, on either kind
// of node class; another name, a built-in pool the cluster does not run, Auto Mode off, a pool
// spread over zones (named per zone) and a cluster not looked up are not.
func TestBuiltinPoolNames(t *testing.T) {
	withFacts := func(am *settings.AutoModeFacts) PoolFacts {
		f := poolFacts
		f.AutoMode = am
		return f
	}
	named := func(in PoolInput, name string) PoolInput {
		in.Name = name
		return in
	}
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), withFacts(autoModeOn()), named(autoModePoolInput(nil), "general-purpose"))
	if len(res.Errors) != 1 || res.Errors[0].Path.String() != "name" || res.Errors[0].Summary != SummaryBuiltinNodePool ||
		!strings.Contains(res.Errors[0].Message, `built-in NodePool "general-purpose"`) || !strings.Contains(res.Errors[0].Message, "set-builtin-node-pools") {
		t.Errorf("a pool named general-purpose: %v", res.Errors)
	}
	if got := builtinPoolFindings(withFacts(autoModeOn()), named(poolInput(nil), "system")); len(got) != 1 {
		t.Errorf("on an EC2NodeClass: %v", got)
	}
	spread := named(autoModePoolInput(nil), "system")
	zones := "zones"
	spread.Spread = &zones
	systemOnly := &settings.AutoModeFacts{Enabled: true, NodePools: []string{"system"}}
	for name, c := range map[string]struct {
		facts PoolFacts
		in    PoolInput
	}{
		"another name":          {withFacts(autoModeOn()), named(autoModePoolInput(nil), "general")},
		"built-in pool not run": {withFacts(systemOnly), named(autoModePoolInput(nil), "general-purpose")},
		"Auto Mode off":         {withFacts(&settings.AutoModeFacts{NodePools: []string{"system"}}), named(autoModePoolInput(nil), "system")},
		"spread over zones":     {withFacts(autoModeOn()), spread},
		"not looked up":         {withFacts(nil), named(autoModePoolInput(nil), "system")},
	} {
		if got := builtinPoolFindings(c.facts, c.in); len(got) > 0 {
			t.Errorf("%s: %v", name, got)
		}
	}
}
