package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Node is one live instance of a static pool as the pool records it (`nodes`; the tfsdk tags
// name its attributes and are metadata only).
type Node struct {
	InstanceID     string `tfsdk:"instance_id"`
	InstanceType   string `tfsdk:"instance_type"`
	Zone           string `tfsdk:"zone"`
	SubnetID       string `tfsdk:"subnet_id"`
	PrivateIP      string `tfsdk:"private_ip"`
	CapacityType   string `tfsdk:"capacity_type"`
	LaunchTemplate string `tfsdk:"launch_template"`
	// TemplateFingerprint is the fingerprint of the template content the node was launched
	// with; when it is not the planned template's, the node has drifted and apply replaces it.
	TemplateFingerprint string `tfsdk:"template_fingerprint"`
	State               string `tfsdk:"state"`
	InPlannedSubnet     bool   `tfsdk:"in_planned_subnet"`
}

// NodesOf turns live instances into recorded nodes in a stable order: by zone, then launch
// time, then id (EC2 lists them in no fixed order). planned is zone -> the planned subnet.
func NodesOf(instances []Instance, planned map[string]string) []Node {
	live := slices.DeleteFunc(slices.Clone(instances), func(i Instance) bool { return !i.Live() })
	slices.SortStableFunc(live, func(a, b Instance) int {
		return cmp.Or(cmp.Compare(a.Zone, b.Zone), a.LaunchTime.Compare(b.LaunchTime), cmp.Compare(a.ID, b.ID))
	})
	out := make([]Node, 0, len(live))
	for _, i := range live {
		out = append(out, Node{
			InstanceID: i.ID, InstanceType: i.Type, Zone: i.Zone, SubnetID: i.SubnetID, PrivateIP: i.PrivateIP,
			CapacityType: i.CapacityType, LaunchTemplate: i.LaunchTemplate, TemplateFingerprint: i.Fingerprint, State: i.State,
			InPlannedSubnet: i.SubnetID != "" && i.SubnetID == planned[i.Zone],
		})
	}
	return out
}

// PlannedSubnets maps zone -> the subnet the plan chose there.
func PlannedSubnets(p launchplan.Plan) map[string]string {
	chosen := make(map[string]string, len(p.Zones))
	for _, z := range p.Zones {
		chosen[z.Zone] = z.SubnetID
	}
	return chosen
}

// PlannedFingerprints maps the plan's launch templates to their content fingerprints.
func PlannedFingerprints(p launchplan.Plan) map[string]string {
	out := make(map[string]string, len(p.LaunchTemplates))
	for _, lt := range p.LaunchTemplates {
		out[lt.Name] = lt.Fingerprint()
	}
	return out
}

// CapacityTypeOf is the capacity type a static pool launches: spot when the plan allows it, as
// Karpenter prefers spot, else on-demand.
func CapacityTypeOf(p launchplan.Plan) string {
	for _, o := range p.LaunchPlan {
		if o.CapacityType == "spot" {
			return "spot"
		}
	}
	return "on-demand"
}

func zonesOf(p launchplan.Plan) []string {
	zones := make([]string, len(p.Zones))
	for i, z := range p.Zones {
		zones[i] = z.Zone
	}
	return zones
}

// NodesPlan is what a plan says of a static pool's nodes.
type NodesPlan struct {
	// Known: apply keeps Nodes as they are; otherwise apply launches, replaces or terminates
	// and the nodes are known only after it.
	Known    bool
	Nodes    []Node
	Warnings []attrpath.Finding
}

var pathNodes = attrpath.Of("nodes")

// PlanNodes judges the recorded nodes of a static pool against its new plan with the rule
// apply uses (Classify): nodes outside the planned zones or the class's subnets, and nodes on
// template content the plan changes, are replaced; a node in another subnet of its zone than
// the planned one stays, with a warning. The nodes are known when none is replaced and their
// count is replicas.
func PlanNodes(recorded []Node, replicas int, p launchplan.Plan, class launchplan.Class) NodesPlan {
	zones, fingerprints, planned := zonesOf(p), PlannedFingerprints(p), PlannedSubnets(p)
	classSubnets := make(map[string]bool, len(class.Subnets))
	for _, s := range class.Subnets {
		classSubnets[s.ID] = true
	}
	var out NodesPlan
	var drifted, outside []string
	nodes := slices.Clone(recorded)
	for i, n := range nodes {
		v := Classify(n.Zone, n.SubnetID, launchplan.TemplateStamp{Template: n.LaunchTemplate, Fingerprint: n.TemplateFingerprint},
			fingerprints, zones, classSubnets)
		if v.Outside {
			outside = append(outside, fmt.Sprintf("%s (%s, %s)", n.InstanceID, n.Zone, n.SubnetID))
			continue
		}
		nodes[i].InPlannedSubnet = n.SubnetID == planned[n.Zone] // the planned subnet may have changed since
		if !nodes[i].InPlannedSubnet {
			out.Warnings = append(out.Warnings, attrpath.Finding{Path: pathNodes, Summary: "Node outside its planned subnet",
				Message: fmt.Sprintf("%s runs in %s, not in %s, the subnet planned for %s", n.InstanceID, n.SubnetID, planned[n.Zone], n.Zone)})
		}
		if v.Drifted {
			drifted = append(drifted, fmt.Sprintf("%s (%s)", n.InstanceID, n.LaunchTemplate))
		}
	}
	switch {
	case len(outside) > 0:
		out.Warnings = append(out.Warnings, attrpath.Finding{Path: pathNodes, Summary: "Nodes outside the node class will be replaced",
			Message: fmt.Sprintf("%d node(s) run in a zone or subnet the node class no longer selects: %s. Apply launches replacements in the "+
				"planned zones and terminates these once the replacements run.", len(outside), strings.Join(outside, ", "))})
	case len(drifted) > 0:
		out.Warnings = append(out.Warnings, attrpath.Finding{Path: pathNodes, Summary: "Drifted nodes will be replaced",
			Message: fmt.Sprintf("%d node(s) run launch-template content the plan changes: %s. Apply launches replacements with the new "+
				"template and terminates these once the replacements run, as Karpenter replaces drifted static capacity.", len(drifted), strings.Join(drifted, ", "))})
	case len(nodes) == replicas:
		out.Known, out.Nodes = true, nodes
	}
	return out
}

// PoolOf is the apply of a static pool from its plan: the planned zones and launch options,
// the class's subnets and tags, the addresses a node of each type takes, and the capacity type
// (CapacityTypeOf).
func PoolOf(name string, replicas int, own Ownership, p launchplan.Plan, class launchplan.Class,
	templates map[string]LaunchTemplate, wait time.Duration) Pool {
	ips := make(map[string]int, len(p.InstanceTypes))
	for _, t := range p.InstanceTypes {
		ips[t.Name] = t.VPCIPsAtMaxPods
	}
	return Pool{Name: name, Replicas: replicas, Own: own, Zones: zonesOf(p), LaunchPlan: p.LaunchPlan, Subnets: class.Subnets,
		IPsPerType: ips, CapacityType: CapacityTypeOf(p), Tags: class.Tags, Templates: templates, Wait: wait}
}
