package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// poolPorts records which ports a plan called, in order; admit answers with the findings given.
type poolPorts struct {
	calls   []string
	refused []attrpath.Finding
	// taken: another owner (o9) holds a launch template of the pool's name.
	taken     bool
	catErr    error
	claims    []kubeclient.NodeClaim
	claimsErr error
}

// listing is the pool's EC2 listing: the name check lists templates by tag.
type listing struct{ f *poolPorts }

func (l listing) ListTemplates(_ context.Context, _, tags map[string]string) ([]fleet.LaunchTemplate, error) {
	l.f.calls = append(l.f.calls, "conflicts "+tags[launchplan.TagNodePool])
	if !l.f.taken {
		return nil, nil
	}
	return []fleet.LaunchTemplate{{ID: "lt-9", Name: "demo/general/x", Tags: fleet.OwnershipOf("demo", "general", "o9")}}, nil
}

func (l listing) ReadTemplates(context.Context, map[string]string, map[string]string, map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	return nil, errors.New("not read by a plan")
}

func (l listing) ReadInstances(context.Context, map[string]string, map[string]string) ([]fleet.Instance, error) {
	return nil, errors.New("not read by a plan")
}

func (f *poolPorts) ports(withCluster bool) PoolPorts {
	p := PoolPorts{
		Catalog: func(context.Context) (*catalog.Catalog, error) {
			f.calls = append(f.calls, "catalog")
			if f.catErr != nil {
				return nil, f.catErr
			}
			it := catalog.InstanceType{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, Architectures: []string{"x86_64"}, Hypervisor: "nitro",
				SupportsHVM: true, CurrentGeneration: true, UsageClasses: []string{"on-demand", "spot"}, MaxENIs: 3,
				NetworkCards: []catalog.NetworkCard{{MaxENIs: 3}}, IPv4PerENI: 10, ENASupport: "required", Zones: []string{"us-west-2a"}}
			return catalog.New([]catalog.InstanceType{it}), nil
		},
		Prices: func(context.Context) *pricing.Prices { return pricing.Fallback("us-west-2", "test") },
		Admit: func(kind, doc string) ([]attrpath.Finding, error) {
			f.calls = append(f.calls, "admit "+kind)
			return f.refused, nil
		},
		EC2: PoolEC2{Listing: listing{f}},
	}
	if withCluster {
		p.NodeClaims = func(_ context.Context, pool string) ([]kubeclient.NodeClaim, error) {
			f.calls = append(f.calls, "claims "+pool)
			return f.claims, f.claimsErr
		}
		p.InstanceSubnets = func(_ context.Context, ids []string) (map[string]string, error) {
			f.calls = append(f.calls, "subnets "+strings.Join(ids, ","))
			return map[string]string{}, nil
		}
	}
	return p
}

func (f *poolPorts) called() string { return strings.Join(f.calls, "; ") }

var poolFacts = PoolFacts{ClusterName: "demo", Region: "us-west-2", Bootstrap: launchplan.Bootstrap{Endpoint: "https://example.eks.amazonaws.com",
	CABundle: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=", ServiceCIDR: "10.100.0.0/16"},
	Now: time.Unix(0, 0).UTC()}

func poolInput(replicas *int) PoolInput {
	return PoolInput{
		Config: nodepool.Config{Name: "general", Replicas: replicas, Template: &nodepool.Template{Requirements: []requirements.Requirement{
			{Key: "node.kubernetes.io/instance-type", Operator: requirements.OpIn, Values: []string{"m5.large"}}}}},
		Class: launchplan.Class{Name: "default", AMIFamily: capacity.FamilyAL2023, Hash: "123", InstanceProfile: "demo-node",
			AMIs:    []nodeclass.AMI{{ID: "ami-1", Architecture: "amd64"}},
			Subnets: []launchplan.Subnet{{ID: "subnet-a", Zone: "us-west-2a", AvailableIPs: 4000}},
			Kubelet: launchplan.Kubelet{},
			Tags:    map[string]string{"team": "platform"},
			CNI:     capacity.Settings{AMIFamily: capacity.FamilyAL2023},
			MetadataOptions: launchplan.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required",
				HTTPPutResponseHopLimit: 1}},
		ClassName: "default",
	}
}

// The steps run in order and stop at the first that fails: nothing after a refusal asks the
// cluster, EC2 or the catalog.
func TestPoolStopsAtTheFirstFailingStep(t *testing.T) {
	bad := poolInput(nil)
	bad.Template.Requirements = append(bad.Template.Requirements, requirements.Requirement{Key: "", Operator: requirements.OpIn})
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), poolFacts, bad)
	if len(res.Errors) == 0 || len(f.calls) > 0 {
		t.Fatalf("an invalid requirement: errors %v, calls %q", res.Errors, f.called())
	}
	if got := res.Errors[0]; got.Summary != "Invalid requirement" || !strings.HasPrefix(got.Path.String(), "template.requirements[1]") {
		t.Errorf("the requirement's finding: %+v", got)
	}

	f = poolPorts{refused: []attrpath.Finding{{Path: attrpath.Of("weight"), Message: "too heavy"}}}
	res = Pool(context.Background(), f.ports(false), poolFacts, poolInput(nil))
	if f.called() != "admit NodePool" || len(res.Errors) != 1 || res.Manifest != nil {
		t.Fatalf("a refused manifest: calls %q, errors %v", f.called(), res.Errors)
	}

	f = poolPorts{taken: true}
	res = Pool(context.Background(), f.ports(false), poolFacts, poolInput(nil))
	if f.called() != "admit NodePool; conflicts general" || len(res.Errors) != 1 || res.Errors[0].Summary != "Node pool name already taken" ||
		!strings.Contains(res.Errors[0].Message, "general/o9") {
		t.Fatalf("a taken name: calls %q, errors %v", f.called(), res.Errors)
	}

	in := poolInput(nil)
	in.Prior = &PoolPrior{} // a state without an owner id
	f = poolPorts{}
	res = Pool(context.Background(), f.ports(false), poolFacts, in)
	if f.called() != "admit NodePool" || len(res.Errors) != 1 || res.Errors[0].Summary != fleet.StateWithoutOwner.Summary {
		t.Fatalf("a state without owner: calls %q, errors %v", f.called(), res.Errors)
	}

	f = poolPorts{catErr: errors.New("throttled")}
	res = Pool(context.Background(), f.ports(false), poolFacts, poolInput(nil))
	if len(res.Errors) != 1 || res.Errors[0].Summary != "Cannot load the instance-type catalog" || res.Errors[0].Message != "throttled" {
		t.Fatalf("a catalog failure: %v", res.Errors)
	}
}

// A dynamic pool gets its manifest and a drift answer and no nodes; a static one gets no
// manifest and nodes known only after apply until the state records them.
func TestPoolDynamicAndStatic(t *testing.T) {
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), poolFacts, poolInput(nil))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if res.Manifest == nil || !strings.Contains(*res.Manifest, "kind: NodePool") || res.Outputs.Summary.InstanceTypes != 1 {
		t.Errorf("dynamic: manifest %v, summary %+v", res.Manifest, res.Outputs.Summary)
	}
	if d := res.Drift; d.Unknown || d.Kept || d.Value == nil || d.Value.NodePoolHash == nil || *d.Value.NodeClassHash != "123" {
		t.Errorf("a new dynamic pool's drift: %+v", d)
	}
	if res.Nodes.Unknown || res.Nodes.Value != nil {
		t.Errorf("a dynamic pool has no nodes: %+v", res.Nodes)
	}

	two := 2
	res = Pool(context.Background(), f.ports(false), poolFacts, poolInput(&two))
	if len(res.Errors) > 0 || res.Manifest != nil || !res.Nodes.Unknown || res.Drift.Value != nil {
		t.Fatalf("a new static pool: errors %v, manifest %v, nodes %+v, drift %+v", res.Errors, res.Manifest, res.Nodes, res.Drift)
	}
	in := poolInput(&two)
	lt := res.Plan.LaunchTemplates[0].Name
	fp := fleet.PlannedFingerprints(res.Plan)[lt]
	in.Prior = &PoolPrior{OwnerID: "o1", NodesKnown: true, Nodes: []fleet.Node{
		{InstanceID: "i-1", Zone: "us-west-2a", SubnetID: "subnet-a", LaunchTemplate: lt, TemplateFingerprint: fp},
		{InstanceID: "i-2", Zone: "us-west-2a", SubnetID: "subnet-a", LaunchTemplate: lt, TemplateFingerprint: fp}}}
	res = Pool(context.Background(), f.ports(false), poolFacts, in)
	if res.Nodes.Unknown || len(res.Nodes.Value) != 2 || !res.Nodes.Value[0].InPlannedSubnet {
		t.Errorf("two recorded nodes that match the plan stay: %+v (warnings %v)", res.Nodes, res.Warnings)
	}
	in.LateClass = true
	if res = Pool(context.Background(), f.ports(false), poolFacts, in); !res.Nodes.Unknown {
		t.Errorf("nodes wait for the class's late values: %+v", res.Nodes)
	}
	in.Prior.Nodes = in.Prior.Nodes[:1]
	in.LateClass = false
	if res = Pool(context.Background(), f.ports(false), poolFacts, in); !res.Nodes.Unknown {
		t.Errorf("one node of two replicas: apply launches, so the nodes are unknown: %+v", res.Nodes)
	}
}

// The recorded drift answer stands while neither the NodePool nor the class changes; a late
// class hash makes it unknown; with a view of the cluster the nodes are counted, and a cluster
// that cannot be read is a warning on `drift`.
func TestPoolDrift(t *testing.T) {
	var f poolPorts
	first := Pool(context.Background(), f.ports(false), poolFacts, poolInput(nil))
	recorded := drift.Output{NodePoolHash: first.Drift.Value.NodePoolHash}
	in := poolInput(nil)
	in.Prior = &PoolPrior{OwnerID: "o1", Manifest: *first.Manifest, SameClass: true, Drift: &recorded, Class: &in.Class}
	if res := Pool(context.Background(), f.ports(false), poolFacts, in); !res.Drift.Kept || res.Drift.Value != &recorded {
		t.Errorf("unchanged pool: %+v", res.Drift)
	}
	in.ClassHashLate = true
	if res := Pool(context.Background(), f.ports(false), poolFacts, in); !res.Drift.Unknown {
		t.Errorf("late class hash: %+v", res.Drift)
	}
	in.ClassHashLate, in.Prior.SameClass = false, false
	changed := in.Class
	changed.Hash = "456"
	in.Class = changed
	f = poolPorts{claimsErr: errors.New("forbidden")}
	res := Pool(context.Background(), f.ports(true), poolFacts, in)
	if res.Drift.Kept || res.Drift.Value == nil || res.Drift.Value.Verdict == nil {
		t.Fatalf("a changed class: %+v", res.Drift)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || (w.Summary == "Cannot read the pool's NodeClaims" && w.Path.String() == "drift" && strings.Contains(w.Message, "forbidden"))
	}
	if !found || !strings.Contains(f.called(), "claims general") {
		t.Errorf("an unreadable cluster: warnings %v, calls %q", res.Warnings, f.called())
	}
	f = poolPorts{claims: []kubeclient.NodeClaim{{Name: "n1", InstanceID: "i-1", NodePoolHash: *recorded.NodePoolHash,
		Labels: map[string]string{"node.kubernetes.io/instance-type": "m5.large", "topology.kubernetes.io/zone": "us-west-2a"}},
		{Name: "n2", Deleting: true}}}
	res = Pool(context.Background(), f.ports(true), poolFacts, in)
	if !strings.Contains(f.called(), "subnets i-1") || res.Drift.Value.Verdict == nil || !strings.Contains(*res.Drift.Value.Verdict, "1") {
		t.Errorf("counted nodes: calls %q, drift %+v", f.called(), res.Drift.Value)
	}
}

// The catalog and the prices are read at once: each of these ports waits for the other to be
// asked, so a pool that read them one after the other would give up.
func TestPoolReadsCatalogAndPricesAtOnce(t *testing.T) {
	var f poolPorts
	ports := f.ports(false)
	catalogAsked, pricesAsked := make(chan struct{}), make(chan struct{})
	wait := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(5 * time.Second):
			return false
		}
	}
	load := ports.Catalog
	ports.Catalog = func(ctx context.Context) (*catalog.Catalog, error) {
		close(catalogAsked)
		if !wait(pricesAsked) {
			return nil, errors.New("the prices were not asked while the catalog loaded")
		}
		return load(ctx)
	}
	ports.Prices = func(context.Context) *pricing.Prices {
		close(pricesAsked)
		if !wait(catalogAsked) {
			return nil
		}
		return pricing.Fallback("us-west-2", "test")
	}
	if res := Pool(context.Background(), ports, poolFacts, poolInput(nil)); len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
}

// A custom-label requirement changed from a to b: RequirementsDrifted, per pool without the
// cluster and node by node with it (the nodes labelled a drift, the one labelled b stays).
func TestPoolDriftOnACustomLabel(t *testing.T) {
	const team = "example.com/team"
	var f poolPorts
	before := poolInput(nil)
	before.Template.Requirements = append(before.Template.Requirements, requirements.Requirement{Key: team, Operator: requirements.OpIn, Values: []string{"a", "b"}})
	first := Pool(context.Background(), f.ports(false), poolFacts, before)
	recorded := drift.Output{NodePoolHash: first.Drift.Value.NodePoolHash}
	in := poolInput(nil)
	in.Template.Requirements = append(in.Template.Requirements, requirements.Requirement{Key: team, Operator: requirements.OpIn, Values: []string{"b"}})
	in.Prior = &PoolPrior{OwnerID: "o1", Manifest: *first.Manifest, SameClass: true, Drift: &recorded, Class: &in.Class,
		Requirements: before.Template.Requirements}
	res := Pool(context.Background(), f.ports(false), poolFacts, in)
	if v := res.Drift.Value; v == nil || v.Verdict == nil || !strings.Contains(*v.Verdict, "some nodes drift: nodes with label example.com/team=a") ||
		!slices.Equal(v.Reasons, []string{drift.ReasonRequirements}) {
		t.Fatalf("per pool: %+v", res.Drift)
	}
	node := func(name, value string) kubeclient.NodeClaim {
		return kubeclient.NodeClaim{Name: name, InstanceID: "i-" + name, NodePoolHash: *recorded.NodePoolHash, Labels: map[string]string{
			"node.kubernetes.io/instance-type": "m5.large", "topology.kubernetes.io/zone": "us-west-2a", team: value}}
	}
	f = poolPorts{claims: []kubeclient.NodeClaim{node("n1", "a"), node("n2", "b"), node("n3", "a")}}
	res = Pool(context.Background(), f.ports(true), poolFacts, in)
	if v := res.Drift.Value; v == nil || v.Verdict == nil || !strings.Contains(*v.Verdict, "drifts 2 of 3 nodes: RequirementsDrifted 2 (n1, n3)") {
		t.Errorf("node by node: %+v", res.Drift.Value)
	}
}

// kubernetes.io/arch "x86_64" matches no node: the pool warns on the value with the name meant.
func TestPoolNamesTheArchitectureMeant(t *testing.T) {
	var f poolPorts
	in := poolInput(nil)
	in.Template.Requirements = append(in.Template.Requirements,
		requirements.Requirement{Key: requirements.LabelArch, Operator: requirements.OpIn, Values: []string{"amd64", "x86_64"}})
	res := Pool(context.Background(), f.ports(false), poolFacts, in)
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || (w.Summary == "Label value no node carries" && w.Path.String() == "template.requirements[1].values" &&
			strings.Contains(w.Message, `(did you mean "amd64"?)`))
	}
	if !found {
		t.Errorf("warnings %v", res.Warnings)
	}
}

// A pool's node_overlays: a bad overlay or the gate off stops the plan before any port; with a
// view of the cluster, live overlays the list lacks are a warning; a static pool plans without them.
func TestPoolOverlays(t *testing.T) {
	cheap := "-50%"
	overlay := nodeoverlay.Config{Name: "cheap", Requirements: []nodeoverlay.Requirement{{Key: requirements.LabelInstanceType,
		Operator: requirements.OpIn, Values: []string{"m5.large"}}}, PriceAdjustment: &cheap}
	in := poolInput(nil)
	in.Overlays = []nodeoverlay.Config{overlay}
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), poolFacts, in)
	if len(res.Errors) != 1 || res.Errors[0].Summary != "NodeOverlay feature gate off" || len(f.calls) > 0 {
		t.Fatalf("gate off: errors %v, calls %q", res.Errors, f.called())
	}
	facts := poolFacts
	facts.FeatureGates = []string{nodeoverlay.FeatureGate}
	bad := in
	bad.Overlays = []nodeoverlay.Config{overlay, overlay}
	bad.Overlays[1].Price = &cheap
	if res = Pool(context.Background(), f.ports(false), facts, bad); len(res.Errors) == 0 || res.Errors[0].Path.String() != "node_overlays[1].price_adjustment" || len(f.calls) > 0 {
		t.Fatalf("a bad overlay: errors %v, calls %q", res.Errors, f.called())
	}

	ports := f.ports(true)
	ports.NodeOverlays = func(context.Context) ([]string, error) { return []string{"cheap", "other"}, nil }
	res = Pool(context.Background(), ports, facts, in)
	if len(res.Errors) > 0 || res.Outputs.Summary.NodeOverlays != "cheap (price -50%) on m5.large" {
		t.Fatalf("errors %v, summary %+v", res.Errors, res.Outputs.Summary)
	}
	if !slices.ContainsFunc(res.Warnings, func(w attrpath.Finding) bool {
		return w.Path.String() == "node_overlays" && strings.Contains(w.Message, "NodeOverlays other that node_overlays does not list")
	}) {
		t.Errorf("warnings %v: want the live overlay the list lacks", res.Warnings)
	}

	static := in
	static.Replicas = new(int)
	*static.Replicas = 1
	res = Pool(context.Background(), f.ports(false), facts, static)
	if res.Outputs.Summary.NodeOverlays != "" || !slices.ContainsFunc(res.Warnings, func(w attrpath.Finding) bool {
		return w.Summary == "NodeOverlays do not change a static pool"
	}) {
		t.Errorf("static: summary %q, warnings %v", res.Outputs.Summary.NodeOverlays, res.Warnings)
	}
}

// A static pool Karpenter launches: its manifest carries replicas and it plans as a dynamic pool
// (no nodes of the provider's, drift counted on replicas); the gate and limits.nodes are checked.
func TestPoolKarpenterLauncher(t *testing.T) {
	three, karpenter := 3, nodepool.LauncherKarpenter
	in := poolInput(&three)
	in.Launcher = &karpenter
	in.Limits = map[string]string{"nodes": "3"}
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), poolFacts, in)
	if len(res.Errors) != 1 || res.Errors[0].Path.String() != "launcher" || len(f.calls) > 0 {
		t.Fatalf("gate off: errors %v, calls %q", res.Errors, f.called())
	}
	facts := poolFacts
	facts.FeatureGates = []string{nodepool.StaticCapacityGate}
	res = Pool(context.Background(), f.ports(false), facts, in)
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	if res.Manifest == nil || !strings.Contains(*res.Manifest, "replicas: 3") || res.Nodes.Value != nil || res.Nodes.Unknown {
		t.Errorf("manifest %v, nodes %+v", res.Manifest, res.Nodes)
	}
	if res.Drift.Value == nil || !strings.Contains(res.Outputs.Summary.Cost, "3 replicas") {
		t.Errorf("drift %+v, cost %q", res.Drift, res.Outputs.Summary.Cost)
	}
	if !slices.ContainsFunc(res.Warnings, func(w attrpath.Finding) bool { return w.Path.String() == `limits["nodes"]` }) {
		t.Errorf("warnings %v: want limits.nodes at replicas", res.Warnings)
	}
	in.Limits = map[string]string{"nodes": "4"}
	res = Pool(context.Background(), f.ports(false), facts, in)
	if slices.ContainsFunc(res.Warnings, func(w attrpath.Finding) bool { return w.Path.String() == `limits["nodes"]` }) {
		t.Errorf("limits.nodes above replicas still warns: %v", res.Warnings)
	}

	dyn := poolInput(nil)
	dyn.Launcher = &karpenter
	if res = Pool(context.Background(), f.ports(false), facts, dyn); len(res.Errors) == 0 || res.Errors[0].Path.String() != "launcher" {
		t.Errorf("launcher without replicas: %v", res.Errors)
	}
}

// Spot launches without an interruption queue on the running controller warn; with a queue, or
// on-demand, or without a view of the controller, they do not.
func TestPoolSpotWithoutInterruptionQueue(t *testing.T) {
	in := poolInput(nil) // no capacity-type requirement: spot first
	facts := poolFacts
	facts.Controller = &installation.Controller{Namespace: "kube-system", Name: "karpenter", Gates: map[string]bool{}}
	var f poolPorts
	warned := func(res PoolResult) bool {
		return slices.ContainsFunc(res.Warnings, func(w attrpath.Finding) bool { return w.Summary == "Spot without interruption handling" })
	}
	if res := Pool(context.Background(), f.ports(false), facts, in); !warned(res) {
		t.Errorf("spot without a queue: warnings %v", res.Warnings)
	}
	facts.Controller.InterruptionQueue = "demo"
	if res := Pool(context.Background(), f.ports(false), facts, in); warned(res) {
		t.Error("a queue is configured, yet the pool warns")
	}
	facts.Controller = nil
	if res := Pool(context.Background(), f.ports(false), facts, in); warned(res) {
		t.Error("without a view of the controller the pool warns")
	}
}
