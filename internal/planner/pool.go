package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/prefixblocks"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

// PoolPorts are what a node pool's plan asks beyond its configuration.
type PoolPorts struct {
	// Catalog is the region's instance types.
	Catalog func(context.Context) (*catalog.Catalog, error)
	// Prices are the prices Karpenter orders the launches by.
	Prices func(context.Context) *pricing.Prices
	// Admit is what the API server and Karpenter would refuse of a manifest of the kind.
	Admit func(kind, doc string) ([]attrpath.Finding, error)
	// EC2 reads and writes the pool's own EC2 objects; a new pool's name is checked against
	// the other owners that hold it in the cluster (fleet.Cluster.Conflicts).
	EC2 PoolEC2
	// NodeClaims lists the pool's Karpenter NodeClaims; nil without a view of the cluster, and
	// the drift verdict is then per pool.
	NodeClaims func(ctx context.Context, pool string) ([]kubeclient.NodeClaim, error)
	// InstanceSubnets is the subnet of each instance id.
	InstanceSubnets func(ctx context.Context, ids []string) (map[string]string, error)
	// NodeOverlays lists the names of the cluster's NodeOverlays; nil without a view of the cluster.
	NodeOverlays func(ctx context.Context) ([]string, error)
	// NodePools lists the cluster's karpenter.sh/v1 NodePools, JSON decoded; nil without a view
	// of the cluster. The overlays' conflicts are judged over those on the pool's class too.
	NodePools func(ctx context.Context) ([]map[string]any, error)
	// SubnetBlocks reads what decides a subnet's free /28 blocks, for pools whose class has prefix
	// delegation (prefixBlockWarnings); nil: not checked.
	SubnetBlocks func(ctx context.Context, subnetID string) (prefixblocks.Subnet, error)
}

// PoolFacts are the provider's settings a pool plans with.
type PoolFacts struct {
	ClusterName, Region string
	// KarpenterVersion is the provider's karpenter_version (manifest.DefaultVersion when unset).
	KarpenterVersion string
	// FeatureGates are the provider's karpenter_feature_gates.
	FeatureGates []string
	// Controller is Karpenter's controller as the cluster runs it (nil: not read).
	Controller *installation.Controller
	Bootstrap  launchplan.Bootstrap
	Now        time.Time
	// CapacityBlockHorizon is how far ahead a Capacity Block's end is a finding (0: 24 hours).
	CapacityBlockHorizon time.Duration
	// AutoMode is the cluster's EKS Auto Mode compute as lookup_cluster read it (nil: not looked
	// up, or EKS reported none).
	AutoMode *settings.AutoModeFacts
}

// PoolInput is a pool's configuration as the plan reads it, with what the state recorded.
type PoolInput struct {
	nodepool.Config
	Class launchplan.Class
	// ClassName is the EC2NodeClass the NodePool names ("" while unknown).
	ClassName string
	// ClassHashLate: the class's hash waits for a value known only after apply.
	ClassHashLate bool
	// LateClass: the configuration is known but for the class's late values, which no planned
	// number depends on; what names them (templates, a static pool's nodes) waits for apply.
	LateClass           bool
	Details             bool
	MinValuesBestEffort bool
	Workloads           map[string]workloadfit.Request
	// Overlays are the cluster's NodeOverlays (node_overlays), each an overlay's resolved value.
	Overlays []nodeoverlay.Config
	OwnerID  string
	// Prior is nil for a new pool.
	Prior *PoolPrior
}

// PoolPrior is what the state recorded of the pool.
type PoolPrior struct {
	OwnerID string
	// Nodes are the recorded nodes of a static pool; NodesKnown is false when none are recorded.
	Nodes      []Node
	NodesKnown bool
	// Manifest is the recorded NodePool document.
	Manifest string
	// SameClass: the pool's node class value is the one the state recorded.
	SameClass bool
	// Drift is the recorded drift answer (nil: none).
	Drift *drift.Output
	// Class is the recorded node class (nil after an import, which records none).
	Class        *launchplan.Class
	Requirements []requirements.Requirement
}

// Answer is a planned attribute that may have to wait for apply.
type Answer[T any] struct {
	// Unknown: known only after apply. Kept: the state's value stands.
	Unknown, Kept bool
	Value         T
}

// PoolResult is a pool's plan. A plan with Errors computed nothing past the step that failed.
type PoolResult struct {
	Plan    launchplan.Plan
	Outputs launchplan.Outputs
	// Manifest is the NodePool document; nil for a static pool, whose nodes are the provider's,
	// and for a pool spread over zones.
	Manifest *string
	// Manifests are a pool spread over zones: its NodePool documents by zone (nil otherwise).
	Manifests map[string]string
	// Nodes are a static pool's planned nodes (nil for a dynamic pool).
	Nodes Answer[[]Node]
	// Drift is a dynamic pool's drift answer (nil for a static pool).
	Drift            Answer[*drift.Output]
	Errors, Warnings []attrpath.Finding
}

// ValidatePool runs every rule that needs neither AWS nor the node class.
func ValidatePool(c nodepool.Config) []attrpath.Finding {
	return append(attrpath.WithSummary("Invalid requirement", attrpath.Under(attrpath.Of("template", "requirements"), requirements.Validate(c.Requirements()))),
		attrpath.WithSummary("Invalid node pool", nodepool.Validate(c.Spec()))...)
}

var pathNodeOverlays = attrpath.Of("node_overlays")

// overlayFindings check the pool's node_overlays: each as Karpenter admits it, and the feature
// gate without which Karpenter ignores them all (errors); a static pool, which the provider's
// own EC2 Fleet launches, is not changed by them (a warning).
func overlayFindings(facts PoolFacts, in PoolInput) (errs, warnings []attrpath.Finding) {
	if len(in.Overlays) == 0 || in.autoMode() { // Auto Mode's refusal is autoModeFindings'
		return nil, nil
	}
	for i, o := range in.Overlays {
		errs = append(errs, attrpath.WithSummary("Invalid node overlay", attrpath.Under(pathNodeOverlays.Index(i), nodeoverlay.Validate(o)))...)
	}
	errs = append(errs, attrpath.WithSummary("NodeOverlay feature gate off", nodeoverlay.ValidateGates(facts.FeatureGates, pathNodeOverlays))...)
	if in.ProviderStatic() {
		warnings = append(warnings, attrpath.Finding{Summary: "NodeOverlays do not change a static pool", Path: pathNodeOverlays,
			Message: "the provider launches a static pool's nodes itself (EC2 Fleet, lowest price): Karpenter's overlays change neither its " +
				"order nor its cost, so the plan leaves them out for this pool"})
	}
	return errs, warnings
}

// TerminateFirstDriftGate is Karpenter 1.15's gate that lets drift delete a static pool's node
// before its replacement when the pool cannot launch one first.
const TerminateFirstDriftGate = "TerminateFirstDrift"

var (
	pathLauncher = attrpath.Of("launcher")
	pathLimits   = attrpath.Of("limits")
)

// launcherFindings check who launches a static pool. Karpenter's launcher needs its
// StaticCapacity gate (without it Karpenter ignores replicas, silently) and limits.nodes above
// replicas, or drift deadlocks: Karpenter launches a replacement before it removes a drifted
// node (aws/karpenter-provider-aws#8873).
func launcherFindings(facts PoolFacts, in PoolInput) (errs, warnings []attrpath.Finding) {
	if !in.KarpenterLaunched() {
		return nil, nil
	}
	if !reservations.GateOn(facts.FeatureGates, nodepool.StaticCapacityGate, reservations.GateDefaultOf(nodepool.StaticCapacityGate)) && !in.autoMode() { // Auto Mode needs no gate
		errs = append(errs, attrpath.Finding{Summary: "StaticCapacity feature gate off", Path: pathLauncher,
			Message: "Karpenter keeps a static NodePool's replicas only with its StaticCapacity feature gate (alpha, off by default): " +
				"without it Karpenter accepts the NodePool and launches nothing. Enable the gate in the cluster " +
				"(settings.featureGates.staticCapacity in the Helm chart) and add \"StaticCapacity\" to the provider's karpenter_feature_gates, " +
				"or use launcher = \"provider\""})
	}
	if n, ok := nodepool.NodeLimit(in.Limits); ok && n <= *in.Replicas {
		if reservations.GateOn(facts.FeatureGates, TerminateFirstDriftGate, reservations.GateDefaultOf(TerminateFirstDriftGate)) {
			// Karpenter 1.15's TerminateFirstDrift: at its node limit a static pool's drifted node
			// is deleted first and the pool refilled after, paced by the disruption budget.
			warnings = append(warnings, attrpath.Finding{Summary: "Drifted nodes go before their replacements", Path: pathLimits.Key("nodes"),
				Message: fmt.Sprintf("limits.nodes (%d) is not above replicas (%d), and with the TerminateFirstDrift feature gate Karpenter "+
					"deletes a drifted static node before it launches the replacement: drift proceeds, with the pool one node short "+
					"during each replacement (as many as the disruption budget allows at once); set limits.nodes to at least %d to "+
					"replace nodes before removing them", n, *in.Replicas, *in.Replicas+1)})
		} else {
			warnings = append(warnings, attrpath.Finding{Summary: "No room to replace drifted nodes", Path: pathLimits.Key("nodes"),
				Message: fmt.Sprintf("limits.nodes (%d) is not above replicas (%d): Karpenter replaces a drifted static node by launching "+
					"the new one first, so at the limit drift never proceeds (aws/karpenter-provider-aws#8873); set limits.nodes to at "+
					"least %d, or, with Karpenter 1.15, turn on the TerminateFirstDrift feature gate", n, *in.Replicas, *in.Replicas+1)})
		}
	}
	return errs, warnings
}

// launchOverlays are the overlays the launch plan applies: none for a static pool the provider
// launches.
func launchOverlays(in PoolInput) []nodeoverlay.Config {
	if in.ProviderStatic() {
		return nil
	}
	return in.Overlays
}

// Pool plans a node pool: the rules, the NodePool as Kubernetes would admit it, ownership of a
// new pool's name, the launch plan, its outputs, a static pool's nodes and a dynamic pool's
// drift, in that order; what Kubernetes would refuse stops the plan before the catalog or any
// AWS call.
func Pool(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) PoolResult {
	var res PoolResult
	res.Errors, res.Warnings = overlayFindings(facts, in)
	res.Errors = append(res.Errors, autoModeFindings(facts, in)...)
	res.Warnings = append(res.Warnings, autoModeWarnings(in)...)
	launcherErrs, launcherWarnings := launcherFindings(facts, in)
	res.Errors, res.Warnings = append(res.Errors, launcherErrs...), append(res.Warnings, launcherWarnings...)
	if res.Errors = append(ValidatePool(in.Config), res.Errors...); len(res.Errors) > 0 {
		return res
	}
	res.Warnings = append(res.Warnings, attrpath.WithSummary("Label value no node carries",
		attrpath.Under(attrpath.Of("template", "requirements"), requirements.ValueHints(in.Requirements())))...)
	doc, err := in.poolManifest(in.Spec())
	if err != nil {
		return res.fail("Cannot render the NodePool manifest", err)
	}
	if !res.admit(ports, doc) || !res.staticProfile(in) || !res.ownable(ctx, ports, facts, in) {
		return res
	}
	cat, p, ok := res.launchPlan(ctx, ports, facts, in)
	if !ok {
		return res
	}
	static := in.ProviderStatic()
	res.Plan, res.Outputs = p, p.Outputs(in.Details, static)
	res.Warnings = append(res.Warnings, prefixBlockWarnings(ctx, ports, in, p)...)
	if static {
		// A static pool's nodes are the provider's: there is no NodePool for Karpenter to apply
		// (one with `replicas` would make Karpenter launch as many again). Its manifest is still
		// rendered and admitted above, so what Kubernetes would refuse fails the plan all the same.
		res.Nodes = res.planNodes(in, p)
		if p.Cost.CapacityType == requirements.CapacityTypeSpot {
			res.Warnings = append(res.Warnings, attrpath.Finding{Summary: "Spot nodes come back only at the next apply", Path: attrpath.Of("replicas"),
				Message: "the provider launches this static pool as spot, and nothing replaces a node EC2 reclaims until the next " +
					"terraform apply; with launcher = \"karpenter\" Karpenter keeps the replicas, handling interruptions when it runs " +
					"with an interruption queue"})
		}
		return res
	}
	if in.Spread == nil {
		res.Manifest = &doc
	} else if res.Manifests = res.spread(ports, in, p); res.Manifests == nil {
		return res
	}
	if !in.autoMode() { // AWS runs Auto Mode's Karpenter, interruption handling included
		res.Warnings = append(res.Warnings, spotWithoutInterruptions(facts, p)...)
	}
	res.Drift = res.planDrift(ctx, ports, facts, in, cat, doc, p)
	res.Warnings = append(res.Warnings, liveOverlaysMissing(ctx, ports, facts, in)...)
	return res
}

// spotWithoutInterruptions warns when Karpenter launches the pool's nodes as spot and the running
// controller has no interruption queue: a reclaimed spot node then goes without warning, and its
// pods are not drained ahead of the two-minute notice.
func spotWithoutInterruptions(facts PoolFacts, p launchplan.Plan) []attrpath.Finding {
	c := facts.Controller
	if c == nil || c.InterruptionQueue != "" || !slices.ContainsFunc(p.LaunchPlan, func(o launchplan.Option) bool {
		return o.CapacityType == requirements.CapacityTypeSpot
	}) {
		return nil
	}
	return []attrpath.Finding{{Summary: "Spot without interruption handling", Path: attrpath.Of("template", "requirements"),
		Message: fmt.Sprintf("Karpenter launches this pool's nodes as spot, but its controller (deployment %s/%s) runs without "+
			"INTERRUPTION_QUEUE: it does not hear EC2's two-minute spot interruption notices, so a reclaimed node's pods are not "+
			"drained first. Configure the interruption queue (settings.interruptionQueue in the Helm chart, with its EventBridge "+
			"rules), or require on-demand", c.Namespace, c.Name)}}
}

// liveOverlaysMissing warns, with a view of the cluster and the NodeOverlay gate on, about the
// cluster's NodeOverlays that node_overlays does not list: Karpenter applies every one of them
// to the pool, so the plan's order and cost leave them out.
func liveOverlaysMissing(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) []attrpath.Finding {
	if ports.NodeOverlays == nil || !reservations.GateOn(facts.FeatureGates, nodeoverlay.FeatureGate, reservations.GateDefaultOf(nodeoverlay.FeatureGate)) {
		return nil
	}
	live, err := ports.NodeOverlays(ctx)
	if err != nil {
		return []attrpath.Finding{{Summary: "Cannot read the cluster's NodeOverlays", Path: pathNodeOverlays,
			Message: "whether node_overlays lists every overlay of the cluster is not checked: " + err.Error()}}
	}
	var missing []string
	for _, name := range live {
		if !slices.ContainsFunc(in.Overlays, func(o nodeoverlay.Config) bool { return o.Name == name }) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return []attrpath.Finding{{Summary: "NodeOverlays of the cluster not in node_overlays", Path: pathNodeOverlays,
		Message: fmt.Sprintf("the cluster has NodeOverlays %s that node_overlays does not list: Karpenter applies every overlay to every "+
			"pool, so this plan's launch order and cost may not be Karpenter's. Add their karpenter_node_overlay resolved values "+
			"(import them by name), or delete them from the cluster", strings.Join(missing, ", "))}}
}

// LaunchPlan is the launch plan apply executes: the planner run again on the applied values.
func LaunchPlan(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) (launchplan.Plan, []attrpath.Finding, []attrpath.Finding) {
	var res PoolResult
	_, p, _ := res.launchPlan(ctx, ports, facts, in)
	return p, res.Errors, res.Warnings
}

func (res *PoolResult) admit(ports PoolPorts, doc string) bool {
	findings, err := ports.Admit(manifest.NodePoolKind, doc)
	if err != nil {
		res.fail("Cannot validate the "+manifest.NodePoolKind+" manifest", err)
		return false
	}
	res.Errors = append(res.Errors, findings...)
	return len(findings) == 0
}

// ownable reports whether the plan may go on as the pool's owner: a new pool's name must be free
// in the cluster, and a state needs an owner id.
func (res *PoolResult) ownable(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) bool {
	switch {
	case in.Prior == nil:
		findings, err := ports.EC2.cluster(facts.ClusterName).Conflicts(ctx, in.Name, true)
		if err != nil {
			res.Errors = append(res.Errors, fleet.ErrorFinding(err))
		}
		res.Errors = append(res.Errors, findings...)
	case in.Prior.OwnerID == "":
		res.Errors = append(res.Errors, fleet.StateWithoutOwner)
	}
	return len(res.Errors) == 0
}

// launchPlan runs launchplan.Build on the catalog; ok is false when it failed.
func (res *PoolResult) launchPlan(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput) (*catalog.Catalog, launchplan.Plan, bool) {
	// The catalog and the prices are independent reads (seconds each on a cold cache): both
	// are asked at once.
	prices := make(chan *pricing.Prices, 1)
	go func() { prices <- ports.Prices(ctx) }()
	cat, err := ports.Catalog(ctx)
	if err != nil {
		res.fail("Cannot load the instance-type catalog", err)
		return nil, launchplan.Plan{}, false
	}
	var templateLabels map[string]string
	if in.Template != nil {
		templateLabels = in.Template.Labels
	}
	siblings := res.siblingPools(ctx, ports, facts, in)
	p, errs := launchplan.Build(launchplan.Input{
		PoolName: in.Name, ClusterName: facts.ClusterName, OwnerID: in.OwnerID, Bootstrap: facts.Bootstrap, Region: facts.Region,
		Class: in.Class, Requirements: in.Requirements(), Limits: in.Limits, Replicas: replicasIf(in.ProviderStatic(), in.Replicas),
		KarpenterReplicas: replicasIf(in.KarpenterLaunched(), in.Replicas), Catalog: cat, Prices: <-prices,
		MinValuesBestEffort: in.MinValuesBestEffort, Workloads: workloadfit.Requests(in.Workloads), KarpenterVersion: facts.KarpenterVersion,
		Overlays: launchOverlays(in), TemplateLabels: templateLabels, SiblingPools: siblings,
		// AWS runs Auto Mode's Karpenter with reserved capacity on.
		ReservedCapacityOff: !in.autoMode() && !reservations.GateEnabled(facts.FeatureGates), Now: facts.Now,
		CapacityBlockHorizon: facts.CapacityBlockHorizon,
	})
	res.Errors = append(res.Errors, attrpath.WithSummary("Node pool cannot launch nodes", errs)...)
	res.Warnings = append(res.Warnings, attrpath.WithSummary("Node pool warning", p.Warnings)...)
	return cat, p, len(res.Errors) == 0
}

// replicasIf is replicas when on, else nil.
func replicasIf(on bool, replicas *int) *int {
	if !on {
		return nil
	}
	return replicas
}

// planNodes is a static pool's planned `nodes` (fleet.PlanNodes): unchanged while the live
// nodes already match `replicas`, unknown when apply will launch, replace or terminate, and
// while the class's late values wait (drift is judged on template content, which names them).
func (res *PoolResult) planNodes(in PoolInput, p launchplan.Plan) Answer[[]Node] {
	if in.LateClass || in.Prior == nil || !in.Prior.NodesKnown {
		return Answer[[]Node]{Unknown: true}
	}
	np := fleet.PlanNodes(in.Prior.Nodes, *in.Replicas, p, in.Class)
	res.Warnings = append(res.Warnings, np.Warnings...)
	if np.Known && np.Nodes == nil {
		np.Nodes = []Node{} // no nodes is an empty list, not null
	}
	return Answer[[]Node]{Unknown: !np.Known, Value: np.Nodes}
}

// planDrift is a dynamic pool's planned `drift`: unknown while the class's hash waits for a
// late value; the state's answer while neither the NodePool nor its node class changes (the
// answer is the last change's, and its pace is counted from the time of that plan); otherwise
// drift.PlanPool's answer for this change.
func (res *PoolResult) planDrift(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolInput, cat *catalog.Catalog, doc string,
	p launchplan.Plan) Answer[*drift.Output] {
	prior := in.Prior
	switch {
	case in.ClassHashLate:
		return Answer[*drift.Output]{Unknown: true}
	case prior != nil && prior.Drift != nil && prior.Manifest == doc && prior.SameClass:
		return Answer[*drift.Output]{Kept: true, Value: prior.Drift}
	}
	nodes := p.MaxNodes()
	if in.KarpenterLaunched() { // Karpenter keeps replicas nodes
		nodes = *in.Replicas
	}
	pp := drift.PoolPlan{Manifest: doc, Class: in.Class, Requirements: in.Requirements(), Catalog: cat, Region: facts.Region, KarpenterVersion: facts.KarpenterVersion,
		Budgets: in.Spec().Budgets, Nodes: nodes, Now: facts.Now}
	if in.Template != nil {
		pp.TemplateLabels = in.Template.Labels
	}
	if prior != nil && prior.Class != nil {
		pp.Prior = &drift.PriorPool{Class: *prior.Class, Requirements: prior.Requirements}
		if prior.Drift != nil {
			pp.Prior.Output = *prior.Drift
		}
	}
	// With a view of the cluster, the pool's running nodes are judged one by one; a pool spread
	// over zones is judged per pool, as its nodes carry their zone NodePool's hash.
	if ports.NodeClaims != nil && in.Spread == nil {
		pp.Count = func(priorSide *drift.Side, planned drift.Side) *drift.Count {
			return res.countNodes(ctx, ports, in.Name, priorSide, planned)
		}
	}
	out, warnings := drift.PlanPool(pp)
	res.Warnings = append(res.Warnings, warnings...)
	return Answer[*drift.Output]{Value: &out}
}

var pathDrift = attrpath.Of("drift")

// countNodes lists the pool's NodeClaims (and their instances' subnets) and judges each; nil,
// with a warning, when the cluster cannot be read: the verdict is then per pool.
func (res *PoolResult) countNodes(ctx context.Context, ports PoolPorts, pool string, prior *drift.Side, planned drift.Side) *drift.Count {
	claims, err := ports.NodeClaims(ctx, pool)
	if err != nil {
		res.Warnings = append(res.Warnings, attrpath.Finding{Path: pathDrift, Summary: "Cannot read the pool's NodeClaims",
			Message: "The drift verdict is per pool: " + err.Error()})
		return nil
	}
	var ids []string
	for _, c := range claims {
		if c.InstanceID != "" {
			ids = append(ids, c.InstanceID)
		}
	}
	subnets := map[string]string{}
	if len(ids) > 0 {
		found, err := ports.InstanceSubnets(ctx, ids)
		if err != nil {
			res.Warnings = append(res.Warnings, attrpath.Finding{Path: pathDrift, Summary: "Cannot read the nodes' instances",
				Message: "Subnet drift is judged per pool: " + err.Error()})
		}
		if found != nil {
			subnets = found
		}
	}
	nodes := make([]drift.Node, 0, len(claims))
	for _, c := range claims {
		if c.Deleting {
			continue // already on its way out
		}
		nodes = append(nodes, drift.Node{Name: c.Name, InstanceType: c.Labels["node.kubernetes.io/instance-type"],
			Zone: c.Labels["topology.kubernetes.io/zone"], CapacityType: c.Labels["karpenter.sh/capacity-type"],
			ImageID: c.ImageID, SubnetID: subnets[c.InstanceID], NodePoolHash: c.NodePoolHash,
			CapacityReservationID: c.Labels["karpenter.k8s.aws/capacity-reservation-id"], Labels: c.Labels})
	}
	count := drift.CountNodes(nodes, prior, planned, drift.Compare(*prior, planned))
	return &count
}

// fail records an error without a path and returns the result.
func (res *PoolResult) fail(summary string, err error) PoolResult {
	res.Errors = append(res.Errors, attrpath.Finding{Summary: summary, Message: err.Error()})
	return *res
}
