package launchplan

import (
	"sort"
)

// Node is a live instance of a static pool, as the reconciler sees it.
type Node struct {
	ID   string
	Zone string
	// Order is the launch order (larger is newer); ties are broken by ID.
	Order int64
}

// ZoneLaunch is how many nodes to launch in one zone.
type ZoneLaunch struct {
	Zone  string
	Count int
}

// Reconcile decides how a static pool reaches `replicas` from its live nodes: which zones
// get new nodes (spread evenly, the emptiest zone first, then zone order) and which nodes are
// terminated (newest first). Nodes in zones the pool no longer has count as live but are the
// first to go when scaling down.
func Reconcile(zones []string, nodes []Node, replicas int) (launch []ZoneLaunch, terminate []string) {
	count := map[string]int{}
	inPool := map[string]bool{}
	for _, z := range zones {
		inPool[z] = true
	}
	for _, n := range nodes {
		count[n.Zone]++
	}
	if len(nodes) > replicas {
		sorted := append([]Node(nil), nodes...)
		sort.SliceStable(sorted, func(i, j int) bool {
			a, b := sorted[i], sorted[j]
			if inPool[a.Zone] != inPool[b.Zone] {
				return !inPool[a.Zone] // outside the pool's zones first
			}
			if a.Order != b.Order {
				return a.Order > b.Order // newest first
			}
			return a.ID > b.ID
		})
		for _, n := range sorted[:len(nodes)-replicas] {
			terminate = append(terminate, n.ID)
		}
		return nil, terminate
	}
	if len(zones) == 0 {
		return nil, nil
	}
	add := map[string]int{}
	for need := replicas - len(nodes); need > 0; need-- {
		best := zones[0]
		for _, z := range zones[1:] {
			if count[z] < count[best] {
				best = z
			}
		}
		count[best]++
		add[best]++
	}
	for _, z := range zones {
		if add[z] > 0 {
			launch = append(launch, ZoneLaunch{Zone: z, Count: add[z]})
		}
	}
	return launch, nil
}

// SubnetTracker picks, per zone, the subnet Karpenter would: most free IPs, then lowest id,
// counting the IPs that launches of this apply already took and skipping subnets that EC2
// reported as out of addresses.
type SubnetTracker struct {
	subnets     []Subnet
	taken       map[string]int
	unavailable map[string]bool
}

// NewSubnetTracker starts from the node class's subnets.
func NewSubnetTracker(subnets []Subnet) *SubnetTracker {
	return &SubnetTracker{subnets: subnets, taken: map[string]int{}, unavailable: map[string]bool{}}
}

// Pick returns the zone's best subnet, or false when none is left.
func (t *SubnetTracker) Pick(zone string) (Subnet, bool) {
	var best Subnet
	found := false
	for _, s := range t.subnets {
		if s.Zone != zone || t.unavailable[s.ID] {
			continue
		}
		free := s.AvailableIPs - t.taken[s.ID]
		if !found || free > best.AvailableIPs-t.taken[best.ID] || (free == best.AvailableIPs-t.taken[best.ID] && s.ID < best.ID) {
			best, found = s, true
		}
	}
	return best, found
}

// Take records IPs consumed in a subnet by launches of this apply.
func (t *SubnetTracker) Take(subnetID string, ips int) { t.taken[subnetID] += ips }

// MarkUnavailable skips a subnet that EC2 said has no free addresses.
func (t *SubnetTracker) MarkUnavailable(subnetID string) { t.unavailable[subnetID] = true }

// TemplateStamp is what a static node records of the template it was launched from: the
// template's name and the fingerprint of its content at launch (both empty for nodes launched
// before the provider tagged them).
type TemplateStamp struct {
	Template, Fingerprint string
}

// Drifted reports whether a node launched with stamp no longer matches the pool's planned
// templates (name -> content fingerprint): its template is gone from the plan (the group
// changed, e.g. another max pods) or holds other content now. This is Karpenter's drift for
// static capacity: such nodes are replaced. A node without a stamp is never called drifted,
// since nothing says what it runs.
func Drifted(stamp TemplateStamp, planned map[string]string) bool {
	if stamp.Template == "" || stamp.Fingerprint == "" {
		return false
	}
	fp, ok := planned[stamp.Template]
	return !ok || fp != stamp.Fingerprint
}
