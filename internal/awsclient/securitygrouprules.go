package awsclient

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
)

// maxGroupIDsPerFilter bounds the values of one group-id filter (EC2 accepts up to 200).
const maxGroupIDsPerFilter = 200

// FindSecurityGroupRules returns every rule (ingress and egress) of the given groups. A group
// the discovery has described in this process (its selector's DescribeSecurityGroups, which
// carries each group's IpPermissions) costs no call: the connectivity checks read the node
// groups' rules from the same answer that selected them, with no second round trip in series.
// Other groups are described with one group-id filter per 200 groups. Rules come back in a
// stable order: by group, ingress first, then by protocol, ports and peer. Groups that do not
// exist simply have no rules.
func (d Discovery) FindSecurityGroupRules(ctx context.Context, groupIDs []string) ([]connectivity.Rule, error) {
	ids := uniqueSortedIDs(groupIDs)
	var out []connectivity.Rule
	var missing []string
	for _, id := range ids {
		if rules, ok := d.Cache.rulesOf(id); ok {
			out = append(out, rules...)
		} else {
			missing = append(missing, id)
		}
	}
	for start := 0; start < len(missing); start += maxGroupIDsPerFilter {
		chunk := missing[start:min(start+maxGroupIDsPerFilter, len(missing))]
		p := ec2.NewDescribeSecurityGroupsPaginator(d.EC2, &ec2.DescribeSecurityGroupsInput{
			Filters:    []ec2types.Filter{{Name: aws.String("group-id"), Values: chunk}},
			MaxResults: aws.Int32(500),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("describing the rules of security groups %v: %w", chunk, err)
			}
			for _, g := range page.SecurityGroups {
				rules := rulesOfGroup(g)
				d.Cache.keepRules(aws.ToString(g.GroupId), rules)
				out = append(out, rules...)
			}
		}
	}
	sortRules(out)
	return out, nil
}

// rulesOfGroup flattens a group's IpPermissions (ingress) and IpPermissionsEgress into one
// rule per peer, as DescribeSecurityGroupRules lists them.
func rulesOfGroup(g ec2types.SecurityGroup) []connectivity.Rule {
	id := aws.ToString(g.GroupId)
	out := []connectivity.Rule{} // described: no rules is an answer too
	for _, dir := range []struct {
		egress bool
		perms  []ec2types.IpPermission
	}{{false, g.IpPermissions}, {true, g.IpPermissionsEgress}} {
		for _, p := range dir.perms {
			base := connectivity.Rule{GroupID: id, Egress: dir.egress, Protocol: aws.ToString(p.IpProtocol), FromPort: port(p.FromPort), ToPort: port(p.ToPort)}
			for _, r := range p.IpRanges {
				out = append(out, withPeer(base, func(r *connectivity.Rule, v string) { r.CIDRv4 = v }, aws.ToString(r.CidrIp)))
			}
			for _, r := range p.Ipv6Ranges {
				out = append(out, withPeer(base, func(r *connectivity.Rule, v string) { r.CIDRv6 = v }, aws.ToString(r.CidrIpv6)))
			}
			for _, r := range p.PrefixListIds {
				out = append(out, withPeer(base, func(r *connectivity.Rule, v string) { r.PrefixListID = v }, aws.ToString(r.PrefixListId)))
			}
			for _, r := range p.UserIdGroupPairs {
				out = append(out, withPeer(base, func(r *connectivity.Rule, v string) { r.ReferencedGroupID = v }, aws.ToString(r.GroupId)))
			}
		}
	}
	return out
}

func withPeer(r connectivity.Rule, set func(*connectivity.Rule, string), v string) connectivity.Rule {
	set(&r, v)
	return r
}

// port is a rule's port (or ICMP type and code); -1, all, when EC2 gives none.
func port(p *int32) int {
	if p == nil {
		return -1
	}
	return int(*p)
}

// sortRules orders rules by group, ingress first, then protocol, ports and peer.
func sortRules(rules []connectivity.Rule) {
	slices.SortStableFunc(rules, func(a, b connectivity.Rule) int {
		if c := cmp.Compare(a.GroupID, b.GroupID); c != 0 {
			return c
		}
		if a.Egress != b.Egress {
			if a.Egress {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.FromPort, b.FromPort), cmp.Compare(a.ToPort, b.ToPort),
			cmp.Compare(a.CIDRv4, b.CIDRv4), cmp.Compare(a.CIDRv6, b.CIDRv6), cmp.Compare(a.PrefixListID, b.PrefixListID),
			cmp.Compare(a.ReferencedGroupID, b.ReferencedGroupID))
	})
}

// groupRules are the rules of the groups a discovery described, by group id.
type groupRules struct {
	mu    sync.Mutex
	rules map[string][]connectivity.Rule
}

// keepRules records a described group's rules (a nil cache keeps nothing).
func (c *DiscoveryCache) keepRules(id string, rules []connectivity.Rule) {
	if c == nil || id == "" {
		return
	}
	c.groups.mu.Lock()
	defer c.groups.mu.Unlock()
	if c.groups.rules == nil {
		c.groups.rules = map[string][]connectivity.Rule{}
	}
	c.groups.rules[id] = rules
}

// rulesOf is a described group's rules (a copy).
func (c *DiscoveryCache) rulesOf(id string) ([]connectivity.Rule, bool) {
	if c == nil {
		return nil, false
	}
	c.groups.mu.Lock()
	defer c.groups.mu.Unlock()
	rules, ok := c.groups.rules[id]
	return slices.Clone(rules), ok
}

func uniqueSortedIDs(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
