// Package drift decides, at plan time, what Karpenter's drift controller will do to a dynamic
// pool's running nodes once a change is applied: which of its drift reasons the change trips
// (pkg/cloudprovider/drift.go in karpenter-provider-aws, and the core's static and requirement
// drift), and which nodes that reaches. Pure: the shell hands it the pool and class as they
// were (the prior state) and as they are planned.
//
// Without a view of the cluster the verdict is per pool: a reason reaches every node (a hash or
// the security groups changed) or the nodes of a kind (an image, a subnet, an instance type, a
// zone or a capacity type no longer allowed).
package drift

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// Side is a pool and its class as Karpenter sees them, before or after the change.
type Side struct {
	NodePoolHash  string // Karpenter's NodePool hash of spec.template; "" unknown
	NodeClassHash string // Karpenter's EC2NodeClass hash; "" unknown
	// NodeClassHashVersion is the hash version of NodeClassHash (v4, v5, v6); "" unknown.
	NodeClassHashVersion string
	AMIs                 []string // the class's resolved images; nil when left to Karpenter (unknown)
	Subnets              []string // the class's resolved subnet ids
	SecurityGroups       []string
	// CapacityReservations are the ids of the capacity reservations the class selects.
	CapacityReservations []string
	// PlacementGroup is the id of the placement group the class selects ("" without one).
	PlacementGroup string
	InstanceTypes  []string // the types the pool's requirements allow (before the class's filters)
	Zones          []string // the zones the pool's requirements allow
	CapacityTypes  []string // the capacity types the requirements allow
	// Labels are the requirements and template labels, for the label checks (labels.go).
	Labels Labels
	// Reservations are the capacity reservations the class selects, in full: Karpenter's reserved
	// offerings, for InstanceTypeNotFound on reserved nodes.
	Reservations []reservations.Reservation
	// Catalog is the region's instance types, for InstanceTypeNotFound on counted nodes (nil:
	// not judged).
	Catalog *catalog.Catalog
	// ClassAllows narrows the types Karpenter lists for the pool's class, for
	// InstanceTypeNotFound; nil: every type of the catalog Karpenter lists (an EC2NodeClass).
	ClassAllows func(instanceType string) bool
}

// Finding is one drift reason the change trips.
type Finding struct {
	Reason   string
	AllNodes bool     // every node of the pool drifts
	Which    []string // otherwise the kinds of node that drift, e.g. the images or types no longer allowed
	Detail   string   // one line, e.g. "AMI ami-0a… no longer selected (now ami-0b…)"
}

// Verdict is the outcome for one pool.
type Verdict struct {
	Findings []Finding
	// AllNodes is set when a finding reaches every node of the pool.
	AllNodes bool
}

// Drifts reports whether any node drifts.
func (v Verdict) Drifts() bool { return len(v.Findings) > 0 }

// Reasons are the findings' reasons, in report order.
func (v Verdict) Reasons() []string {
	out := make([]string, len(v.Findings))
	for i, f := range v.Findings {
		out[i] = f.Reason
	}
	return out
}

// Summary is the verdict in a line.
func (v Verdict) Summary() string {
	if !v.Drifts() {
		return "no drift: running nodes are kept"
	}
	parts := make([]string, len(v.Findings))
	for i, f := range v.Findings {
		parts[i] = f.Detail
	}
	who := "some nodes drift"
	if v.AllNodes {
		who = "every node of the pool drifts"
	}
	return who + ": " + strings.Join(parts, "; ")
}

// Compare decides the drift a change from prior to planned causes, its findings in Karpenter's
// order of checks (checks). A prior without hashes (a pool created by an earlier provider
// version, or one being created) trips no hash finding.
func Compare(prior, planned Side) Verdict {
	var v Verdict
	for _, c := range checks {
		if f, ok := c.pool(prior, planned); ok {
			v.Findings = append(v.Findings, f)
			v.AllNodes = v.AllNodes || f.AllNodes
		}
	}
	return v
}

// list names up to three values of a kind: "image ami-1", "3 instance types (a, b, c and 2 more)".
func list(kind string, values []string) string {
	if len(values) == 1 {
		return kind + " " + values[0]
	}
	shown := values
	more := ""
	if len(values) > 3 {
		shown, more = values[:3], fmt.Sprintf(" and %d more", len(values)-3)
	}
	return fmt.Sprintf("%d %ss (%s%s)", len(values), kind, strings.Join(shown, ", "), more)
}

func set(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// missing are the values of before that after lacks, sorted.
func missing(before, after []string) []string {
	in := set(after)
	var out []string
	for v := range set(before) {
		if !in[v] {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func sameSet(a, b []string) bool {
	return len(missing(a, b)) == 0 && len(missing(b, a)) == 0
}

func sorted(values []string) []string {
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}
