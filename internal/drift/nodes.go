package drift

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Node is a running node of a pool as its Karpenter NodeClaim records it (and EC2, for the
// subnet).
type Node struct {
	Name                             string
	InstanceType, Zone, CapacityType string // the NodeClaim's well-known labels
	ImageID                          string // status.imageID
	SubnetID                         string // the instance's subnet; "" when not known
	NodePoolHash                     string // the karpenter.sh/nodepool-hash annotation
	CapacityReservationID            string // the karpenter.k8s.aws/capacity-reservation-id label; "" when none
	// Labels are the NodeClaim's labels, for the label checks (nil: not read).
	Labels map[string]string
}

// Count is the verdict node by node: how many of the pool's nodes drift once the change is
// applied, by Karpenter's first reason for each (in the order of checks).
type Count struct {
	Total, Drifted int
	ByReason       map[string]int
	Examples       map[string][]string // up to three node names per reason
	// Already are nodes that drift before this change (their NodePool hash is already not the
	// prior one): Karpenter is replacing them anyway.
	Already int
}

// CountNodes judges nodes against the planned side. Reasons that only a pool-wide comparison
// can tell (the class hash, which Karpenter counts with its own CA bundle, and the security
// groups, which the NodeClaim does not record) come from the pool verdict v: when v has them,
// every node drifts for them.
func CountNodes(nodes []Node, prior *Side, planned Side, v Verdict) Count {
	c := Count{Total: len(nodes), ByReason: map[string]int{}, Examples: map[string][]string{}}
	t := targetOf(planned, v)
	for _, n := range nodes {
		reason := t.firstReason(n)
		if reason == ReasonNodePool && prior != nil && prior.NodePoolHash != "" && n.NodePoolHash != prior.NodePoolHash {
			c.Already++
		}
		if reason == "" {
			continue
		}
		c.Drifted++
		c.ByReason[reason]++
		if len(c.Examples[reason]) < 3 {
			c.Examples[reason] = append(c.Examples[reason], n.Name)
		}
	}
	return c
}

// Reasons are the reasons that drift at least one node, in Karpenter's order.
func (c Count) Reasons() []string {
	var out []string
	for _, ch := range checks {
		if c.ByReason[ch.reason] > 0 {
			out = append(out, ch.reason)
		}
	}
	return out
}

// Summary is the count in a line, e.g. "drifts 14 of 20 nodes: AMIDrift 14 (ip-10-0-1-5, …)".
func (c Count) Summary() string {
	if c.Total == 0 {
		return "the pool has no nodes: nothing to replace"
	}
	if c.Drifted == 0 {
		return fmt.Sprintf("no drift: the pool's %d nodes are kept", c.Total)
	}
	var parts []string
	for _, r := range c.Reasons() {
		ex := slices.Clone(c.Examples[r])
		sort.Strings(ex)
		more := ""
		if n := c.ByReason[r] - len(ex); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s%s)", r, c.ByReason[r], strings.Join(ex, ", "), more))
	}
	s := fmt.Sprintf("drifts %d of %d nodes: %s", c.Drifted, c.Total, strings.Join(parts, "; "))
	if c.Already > 0 {
		s += fmt.Sprintf("; %d of them had drifted before this change", c.Already)
	}
	return s
}
