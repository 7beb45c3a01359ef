package fleet_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// nodesPlan is a static pool's plan over two zones, one planned subnet each, with two launch
// templates of different content; nodesClass selects a second subnet in za besides the planned one.
func nodesPlan() launchplan.Plan {
	return launchplan.Plan{
		Zones: []launchplan.ZonePlan{{Zone: "za", SubnetID: "subnet-a"}, {Zone: "zb", SubnetID: "subnet-b"}},
		LaunchTemplates: []launchplan.LaunchTemplate{
			{Name: "lt-a", MaxPods: 29, ImageID: "ami-1", InstanceTypes: []string{"m5.large"}},
			{Name: "lt-b", MaxPods: 58, ImageID: "ami-2", InstanceTypes: []string{"m5.xlarge"}},
		},
		InstanceTypes: []launchplan.TypePlan{{Name: "m5.large", VPCIPsAtMaxPods: 30}, {Name: "m5.xlarge", VPCIPsAtMaxPods: 59}},
		LaunchPlan: []launchplan.Option{
			{Zone: "za", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
			{Zone: "zb", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
		},
	}
}

func nodesClass() launchplan.Class {
	return launchplan.Class{
		Subnets: []launchplan.Subnet{{ID: "subnet-a", Zone: "za"}, {ID: "subnet-a2", Zone: "za"}, {ID: "subnet-b", Zone: "zb"}},
		Tags:    map[string]string{"team": "infra"},
	}
}

// fpOf is the planned fingerprint of the named template of nodesPlan.
func fpOf(t *testing.T, name string) string {
	t.Helper()
	for _, lt := range nodesPlan().LaunchTemplates {
		if lt.Name == name {
			return launchplan.LaunchTemplate.Fingerprint(lt)
		}
	}
	t.Fatalf("no template %s", name)
	return ""
}

func TestPlannedSubnetsAndFingerprints(t *testing.T) {
	p := nodesPlan()
	if got, want := fleet.PlannedSubnets(p), map[string]string{"za": "subnet-a", "zb": "subnet-b"}; !maps.Equal(got, want) {
		t.Errorf("PlannedSubnets = %v, want %v", got, want)
	}
	fps := fleet.PlannedFingerprints(p)
	if len(fps) != 2 || fps["lt-a"] == "" || fps["lt-b"] == "" {
		t.Fatalf("PlannedFingerprints = %v, want one non-empty fingerprint per template", fps)
	}
	if fps["lt-a"] == fps["lt-b"] {
		t.Errorf("templates of different content share fingerprint %s", fps["lt-a"])
	}
	if fps["lt-a"] != launchplan.LaunchTemplate.Fingerprint(p.LaunchTemplates[0]) {
		t.Errorf("lt-a: %s is not the template content's fingerprint", fps["lt-a"])
	}
	if got := fleet.PlannedSubnets(launchplan.Plan{}); len(got) != 0 {
		t.Errorf("PlannedSubnets of an empty plan = %v", got)
	}
}

func TestCapacityTypeOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		ct   []string
		want string
	}{
		{"no option", nil, "on-demand"},
		{"on-demand only", []string{"on-demand", "on-demand"}, "on-demand"},
		{"spot after on-demand", []string{"on-demand", "spot"}, "spot"},
		{"spot only", []string{"spot"}, "spot"},
		{"reserved is not spot", []string{"reserved"}, "on-demand"},
	} {
		var p launchplan.Plan
		for _, ct := range tc.ct {
			p.LaunchPlan = append(p.LaunchPlan, launchplan.Option{Zone: "za", InstanceType: "m5.large", CapacityType: ct})
		}
		if got := fleet.CapacityTypeOf(p); got != tc.want {
			t.Errorf("%s: CapacityTypeOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// NodesOf keeps live instances only (pending, running), ordered by zone, launch time, then id,
// whatever order EC2 listed them in.
func TestNodesOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	inst := func(id, zone, subnet, state string, at time.Duration) fleet.Instance {
		return fleet.Instance{ID: id, Type: "m5.large", Zone: zone, SubnetID: subnet, PrivateIP: "10.0.0." + id[len(id)-1:],
			CapacityType: "spot", LaunchTemplate: "lt-a", Fingerprint: "fp-" + id, State: state, LaunchTime: t0.Add(at)}
	}
	listed := []fleet.Instance{
		inst("i-5", "zb", "subnet-b", "running", 0),
		inst("i-4", "za", "subnet-a", "running", 0), // launched first in za
		inst("i-3", "za", "subnet-a2", "pending", time.Second),
		inst("i-2", "za", "subnet-a", "running", time.Second), // same launch time as i-3: by id
		inst("i-1", "za", "subnet-a", "terminated", 0),
		inst("i-0", "za", "subnet-a", "stopped", 0),
		inst("i-6", "zb", "subnet-b", "shutting-down", 0),
		inst("i-7", "zc", "", "running", 3*time.Second), // zone not planned, no subnet
	}
	before := slices.Clone(listed)
	planned := map[string]string{"za": "subnet-a", "zb": "subnet-b"}
	got := fleet.NodesOf(listed, planned)

	var ids []string
	for _, n := range got {
		ids = append(ids, n.InstanceID)
	}
	if want := []string{"i-4", "i-2", "i-3", "i-5", "i-7"}; !slices.Equal(ids, want) {
		t.Fatalf("NodesOf ids = %v, want %v", ids, want)
	}
	wantIn := map[string]bool{"i-2": true, "i-3": false, "i-4": true, "i-5": true, "i-7": false}
	for _, n := range got {
		if n.InPlannedSubnet != wantIn[n.InstanceID] {
			t.Errorf("%s (%s, %s): InPlannedSubnet %v, want %v", n.InstanceID, n.Zone, n.SubnetID, n.InPlannedSubnet, wantIn[n.InstanceID])
		}
	}
	if want := (fleet.Node{InstanceID: "i-3", InstanceType: "m5.large", Zone: "za", SubnetID: "subnet-a2", PrivateIP: "10.0.0.3",
		CapacityType: "spot", LaunchTemplate: "lt-a", TemplateFingerprint: "fp-i-3", State: "pending"}); got[2] != want {
		t.Errorf("node fields: %+v, want %+v", got[2], want)
	}
	if !slices.EqualFunc(listed, before, func(a, b fleet.Instance) bool { return a.ID == b.ID && a.State == b.State }) {
		t.Errorf("NodesOf reordered or changed its input: %v", listed)
	}
	if got := fleet.NodesOf(nil, planned); got == nil || len(got) != 0 {
		t.Errorf("NodesOf(nil) = %#v, want an empty, non-nil list", got)
	}
}

func TestPlanNodes(t *testing.T) {
	fpA, fpB := fpOf(t, "lt-a"), fpOf(t, "lt-b")
	node := func(id, zone, subnet, lt, fp string) fleet.Node {
		return fleet.Node{InstanceID: id, Zone: zone, SubnetID: subnet, LaunchTemplate: lt, TemplateFingerprint: fp, State: "running"}
	}
	kept := []fleet.Node{node("i-1", "za", "subnet-a", "lt-a", fpA), node("i-2", "zb", "subnet-b", "lt-b", fpB)}

	for _, tc := range []struct {
		name     string
		recorded []fleet.Node
		replicas int
		known    bool
		// warnings are the expected warning summaries, in order, each with a substring of its message.
		warnings [][2]string
		// inPlanned is InPlannedSubnet of each returned node (when known).
		inPlanned []bool
	}{
		{name: "all kept at replicas", recorded: kept, replicas: 2, known: true, inPlanned: []bool{true, true}},
		{name: "no nodes and no replicas", recorded: nil, replicas: 0, known: true},
		{name: "fewer nodes than replicas", recorded: kept, replicas: 3},
		{name: "more nodes than replicas", recorded: kept, replicas: 1},
		{
			name:     "a zone not planned",
			recorded: append(slices.Clone(kept), node("i-3", "zc", "subnet-c", "lt-a", fpA)),
			replicas: 3,
			warnings: [][2]string{{"Nodes outside the node class will be replaced", "1 node(s) run in a zone or subnet the node class no longer selects: i-3 (zc, subnet-c)"}},
		},
		{
			name:     "a subnet the class no longer selects",
			recorded: []fleet.Node{node("i-1", "za", "subnet-gone", "lt-a", fpA), node("i-2", "zb", "subnet-b", "lt-b", fpB)},
			replicas: 2,
			warnings: [][2]string{{"Nodes outside the node class will be replaced", "i-1 (za, subnet-gone)"}},
		},
		{
			name:     "changed template content",
			recorded: []fleet.Node{node("i-1", "za", "subnet-a", "lt-a", "fp-old"), node("i-2", "zb", "subnet-b", "lt-b", fpB)},
			replicas: 2,
			warnings: [][2]string{{"Drifted nodes will be replaced", "1 node(s) run launch-template content the plan changes: i-1 (lt-a)"}},
		},
		{
			name:     "template gone from the plan",
			recorded: []fleet.Node{node("i-1", "za", "subnet-a", "lt-gone", fpA), node("i-2", "zb", "subnet-b", "lt-b", fpB)},
			replicas: 2,
			warnings: [][2]string{{"Drifted nodes will be replaced", "i-1 (lt-gone)"}},
		},
		{
			name:     "no fingerprint recorded is not drift",
			recorded: []fleet.Node{node("i-1", "za", "subnet-a", "lt-a", ""), node("i-2", "zb", "subnet-b", "", "")},
			replicas: 2, known: true, inPlanned: []bool{true, true},
		},
		{
			name:      "another class subnet of its zone",
			recorded:  []fleet.Node{node("i-1", "za", "subnet-a2", "lt-a", fpA), node("i-2", "zb", "subnet-b", "lt-b", fpB)},
			replicas:  2,
			known:     true,
			warnings:  [][2]string{{"Node outside its planned subnet", "i-1 runs in subnet-a2, not in subnet-a, the subnet planned for za"}},
			inPlanned: []bool{false, true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorded := slices.Clone(tc.recorded)
			got := fleet.PlanNodes(tc.recorded, tc.replicas, nodesPlan(), nodesClass())
			if got.Known != tc.known {
				t.Errorf("Known = %v, want %v (warnings %+v)", got.Known, tc.known, got.Warnings)
			}
			if !tc.known && got.Nodes != nil {
				t.Errorf("Nodes = %+v, want none when not known", got.Nodes)
			}
			if tc.known {
				if len(got.Nodes) != len(tc.recorded) {
					t.Fatalf("Nodes = %+v, want the %d recorded", got.Nodes, len(tc.recorded))
				}
				for i, n := range got.Nodes {
					if n.InstanceID != tc.recorded[i].InstanceID || n.InPlannedSubnet != tc.inPlanned[i] {
						t.Errorf("node %d: %s in planned subnet %v, want %s %v", i, n.InstanceID, n.InPlannedSubnet,
							tc.recorded[i].InstanceID, tc.inPlanned[i])
					}
				}
			}
			if len(got.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %+v, want %d", got.Warnings, len(tc.warnings))
			}
			for i, w := range tc.warnings {
				g := got.Warnings[i]
				if g.Path.String() != "nodes" || g.Summary != w[0] || !strings.Contains(g.Message, w[1]) {
					t.Errorf("warning %d: %s %q %q, want on nodes %q containing %q", i, g.Path, g.Summary, g.Message, w[0], w[1])
				}
			}
			if !slices.Equal(recorded, tc.recorded) {
				t.Errorf("PlanNodes changed the recorded nodes: %+v", tc.recorded)
			}
		})
	}
}

// A recorded InPlannedSubnet is judged again: the planned subnet may have moved since.
func TestPlanNodesRejudgesThePlannedSubnet(t *testing.T) {
	p := nodesPlan()
	p.Zones[0].SubnetID = "subnet-a2" // the plan now picks the other subnet of za
	recorded := []fleet.Node{{InstanceID: "i-1", Zone: "za", SubnetID: "subnet-a", InPlannedSubnet: true},
		{InstanceID: "i-2", Zone: "zb", SubnetID: "subnet-b", InPlannedSubnet: false}}
	got := fleet.PlanNodes(recorded, 2, p, nodesClass())
	if !got.Known || len(got.Nodes) != 2 {
		t.Fatalf("got %+v, want the nodes known", got)
	}
	if got.Nodes[0].InPlannedSubnet || !got.Nodes[1].InPlannedSubnet {
		t.Errorf("InPlannedSubnet = %v, %v; want false (moved), true", got.Nodes[0].InPlannedSubnet, got.Nodes[1].InPlannedSubnet)
	}
	if len(got.Warnings) != 1 || got.Warnings[0].Summary != "Node outside its planned subnet" || !strings.Contains(got.Warnings[0].Message, "i-1") {
		t.Errorf("warnings %+v, want one on i-1", got.Warnings)
	}
}

func TestPoolOf(t *testing.T) {
	p, class := nodesPlan(), nodesClass()
	p.LaunchPlan = append(p.LaunchPlan, launchplan.Option{Zone: "za", CapacityType: "spot", InstanceType: "m5.xlarge", LaunchTemplate: "lt-b"})
	own := fleet.OwnershipOf("c1", "general", "o1")
	templates := map[string]fleet.LaunchTemplate{"lt-a": {ID: "lt-1", Name: "lt-a"}}
	got := fleet.PoolOf("general", 3, own, p, class, templates, time.Minute)
	if got.Name != "general" || got.Replicas != 3 || got.Wait != time.Minute || got.CapacityType != "spot" {
		t.Errorf("pool %+v", got)
	}
	if !slices.Equal(got.Zones, []string{"za", "zb"}) {
		t.Errorf("Zones = %v", got.Zones)
	}
	if !maps.Equal(got.IPsPerType, map[string]int{"m5.large": 30, "m5.xlarge": 59}) {
		t.Errorf("IPsPerType = %v", got.IPsPerType)
	}
	if len(got.LaunchPlan) != 3 || len(got.Subnets) != 3 || got.Tags["team"] != "infra" || got.Templates["lt-a"].ID != "lt-1" ||
		got.Own[launchplan.TagOwner] != "o1" {
		t.Errorf("pool %+v", got)
	}
}
