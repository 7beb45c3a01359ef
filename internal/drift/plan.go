package drift

import (
	"fmt"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/budgets"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// SideOf is what drift compares of a pool and its class: the NodePool hash, the class's hash,
// images (when resolved), subnets, security groups and reservations, and what the pool's
// requirements allow.
func SideOf(poolHash string, c launchplan.Class, a launchplan.Allowed) Side {
	s := Side{NodePoolHash: poolHash, NodeClassHash: c.Hash, NodeClassHashVersion: c.HashVersion, SecurityGroups: c.SecurityGroupIDs,
		CapacityReservations: c.CapacityReservationIDs, PlacementGroup: c.PlacementGroupID, InstanceTypes: a.InstanceTypes, Zones: a.Zones,
		CapacityTypes: a.CapacityTypes, Reservations: c.Reservations}
	if c.AMIUnresolved == "" && len(c.AMIs) > 0 {
		for _, img := range c.AMIs {
			s.AMIs = append(s.AMIs, img.ID)
		}
	}
	for _, sn := range c.Subnets {
		s.Subnets = append(s.Subnets, sn.ID)
	}
	return s
}

// Change is a dynamic pool's change as its plan sees it.
type Change struct {
	Prior, Planned Side
	Budgets        []nodepool.Budget
	// Nodes is the pool's size the pace is counted at when the cluster was not read: the most
	// the pool's subnets and limits allow.
	Nodes int
	// Count is the per-node judgement of the pool's running nodes (nil: the cluster was not read).
	Count *Count
	Now   time.Time
}

// Answer is a pool's `drift` verdict and the plan's warnings about it.
type Answer struct {
	Verdict, Pace string
	Reasons       []string
	Warnings      []attrpath.Finding
}

var pathDisruption = attrpath.Of("disruption")

// Judge is Karpenter's answer to a change: the verdict (per node when counted, else per pool),
// the pace its budgets allow, a warning when it drifts nodes and when the budgets never let
// drift proceed in the coming PaceHorizon.
func Judge(c Change) Answer {
	var out Answer
	nodes := c.Nodes
	if c.Count != nil {
		nodes = c.Count.Total
	}
	bs, err := Budgets(c.Budgets)
	var a Assessment
	if err == nil {
		a, err = Assess(&c.Prior, c.Planned, bs, nodes, c.Now)
	}
	if err != nil {
		out.Warnings = append(out.Warnings, attrpath.Finding{Path: pathDisruption, Summary: "Cannot count the drift pace", Message: err.Error()})
	}
	drifts, all := a.Verdict.Drifts(), a.Verdict.AllNodes
	out.Verdict, out.Reasons, out.Pace = a.Verdict.Summary(), a.Verdict.Reasons(), a.PaceText()
	if c.Count != nil {
		out.Verdict, out.Reasons, drifts = c.Count.Summary(), c.Count.Reasons(), c.Count.Drifted > 0
		all = drifts && c.Count.Drifted == c.Count.Total
		out.Pace = a.Pace.Text + fmt.Sprintf(" (the pool's %d nodes)", c.Count.Total)
	}
	if drifts {
		out.Warnings = append(out.Warnings, driftWarnings(out.Verdict, out.Pace, all, a.Pace)...)
	}
	return out
}

// driftWarnings are the plan's warnings of a change that drifts nodes, and of budgets that
// never let drift proceed.
func driftWarnings(verdict, pace string, all bool, p budgets.Summary) []attrpath.Finding {
	summary := "Karpenter will replace some nodes of the pool"
	if all {
		summary = "Karpenter will replace every node of the pool"
	}
	out := []attrpath.Finding{{Summary: summary, Message: verdict + ". Pace: " + pace + "."}}
	if p.Never {
		out = append(out, attrpath.Finding{Path: pathDisruption, Summary: "Disruption budgets never let drift proceed",
			Message: "The change drifts nodes, but the budgets allow no Drifted disruption in the coming 7 days: " + p.Text +
				". The nodes stay as they are until a budget lets them go; add a schedule window or raise nodes for Drifted."})
	}
	return out
}

// PoolPlan is what a dynamic pool's plan knows for its `drift` answer.
type PoolPlan struct {
	Manifest     string // the planned NodePool document
	Class        launchplan.Class
	Requirements []requirements.Requirement
	// TemplateLabels are spec.template.metadata.labels. The prior side reads them too: when they
	// changed, the NodePool hash did, and every node drifts for that first.
	TemplateLabels map[string]string
	// Prior is the pool as the state recorded it; nil for a new pool or one just imported,
	// which has no plan to compare with.
	Prior   *PriorPool
	Catalog *catalog.Catalog
	Region  string
	// KarpenterVersion is the cluster's release ("" is manifest.DefaultVersion): the types the
	// requirements allow carry its labels (its network bandwidth table). Releases 1.9 through
	// 1.15 decide InstanceTypeNotFound alike, on every type the region lists whatever the
	// class's AMI family (typenotfound.go).
	KarpenterVersion string
	Budgets          []nodepool.Budget
	Nodes            int // the most nodes the pool's subnets and limits allow
	Now              time.Time
	// Count judges the pool's running nodes one by one; nil without a view of the cluster.
	Count func(prior *Side, planned Side) *Count
}

// PriorPool is the recorded side of a change: the answer of the last change (its NodePool
// hash), the class, and the requirements.
type PriorPool struct {
	Output       Output
	Class        launchplan.Class
	Requirements []requirements.Requirement
}

// PlanPool is a dynamic pool's `drift` for a changed NodePool or class: the hashes alone for a
// new pool, else Karpenter's verdict with its warnings. Requirement drift reads a node's labels
// against the NodePool's requirements alone: the zones are the region's, not the class's (a
// subnet no longer selected is SubnetDrift).
func PlanPool(p PoolPlan) (Output, []attrpath.Finding) {
	poolHash := NodePoolHash(p.Manifest)
	out := Output{NodePoolHash: emptyNil(poolHash), NodeClassHash: emptyNil(p.Class.Hash)}
	if p.Prior == nil {
		return out, nil
	}
	zones := p.Catalog.Zones()
	planned := SideOf(poolHash, p.Class, launchplan.AllowedBy(p.Catalog, p.Region, p.KarpenterVersion, p.Requirements, zones))
	priorHash := ""
	if h := p.Prior.Output.NodePoolHash; h != nil {
		priorHash = *h
	}
	prior := SideOf(priorHash, p.Prior.Class, launchplan.AllowedBy(p.Catalog, p.Region, p.KarpenterVersion, p.Prior.Requirements, zones))
	planned.Labels = Labels{Requirements: p.Requirements, Template: p.TemplateLabels}
	planned.Catalog = p.Catalog
	planned.ClassAllows = classAllows(p.Class)
	prior.Labels = Labels{Requirements: p.Prior.Requirements, Template: p.TemplateLabels}
	change := Change{Prior: prior, Planned: planned, Budgets: p.Budgets, Nodes: p.Nodes, Now: p.Now}
	if p.Count != nil {
		change.Count = p.Count(&prior, planned)
	}
	a := Judge(change)
	out.Verdict, out.Reasons, out.Pace = emptyNil(a.Verdict), a.Reasons, emptyNil(a.Pace)
	return out, a.Warnings
}

// NodePoolHash is Karpenter's NodePool hash of a rendered manifest ("" when it cannot be
// computed: the plan then says nothing of NodePool drift).
func NodePoolHash(doc string) string {
	t, err := karpenterhash.DecodeNodePool(doc)
	if err != nil {
		return ""
	}
	h, err := karpenterhash.NodePoolHash(t)
	if err != nil {
		return ""
	}
	return h
}

func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// classAllows narrows the types InstanceTypeNotFound looks a node's type up in to those the
// pool's class can have: an EKS Auto Mode class the families the user guide lists (Auto Mode's
// cloud provider is not public); nil for an EC2NodeClass, whose GetInstanceTypes lists every type
// of the region: its compatibility checks (AL2023 and a1 from v1.11, network interfaces, ...) mark
// a type's offerings unavailable, which drift does not read, and keep the type in the list.
func classAllows(c launchplan.Class) func(string) bool {
	if c.AutoMode != nil {
		return launchplan.AutoModeFamily
	}
	return nil
}
