package discovery

import (
	"context"
	"sort"
)

// Subnet is what discovery keeps of an EC2 subnet. The tfsdk tags name the attributes of a
// karpenter_subnets entry (the provider adds `name` and writes nil tags as an empty map).
type Subnet struct {
	ID                      string            `tfsdk:"id"`
	VPCID                   string            `tfsdk:"vpc_id"`
	Zone                    string            `tfsdk:"zone"`
	ZoneID                  string            `tfsdk:"zone_id"`
	CIDRBlock               string            `tfsdk:"cidr_block"`
	AvailableIPAddressCount int               `tfsdk:"available_ip_address_count"`
	Tags                    map[string]string `tfsdk:"tags"`
	MapPublicIPOnLaunch     bool              `tfsdk:"map_public_ip_on_launch"` // instances launched here get a public IPv4 address
	DefaultForAZ            bool              `tfsdk:"default_for_az"`          // the zone's default subnet of a default VPC
}

// Name is the subnet's Name tag ("" without one).
func (s Subnet) Name() string { return s.Tags["Name"] }

// SecurityGroup is what discovery keeps of an EC2 security group. The tfsdk tags name the
// attributes of a karpenter_security_groups entry.
type SecurityGroup struct {
	ID    string            `tfsdk:"id"`
	Name  string            `tfsdk:"name"`
	VPCID string            `tfsdk:"vpc_id"`
	Tags  map[string]string `tfsdk:"tags"`
}

// API is the part of EC2 discovery needs: one paginated Describe call per filter set.
type API interface {
	FindSubnets(ctx context.Context, filters FilterSet) ([]Subnet, error)
	FindSecurityGroups(ctx context.Context, filters FilterSet) ([]SecurityGroup, error)
}

// ResolveSubnets runs one call per filter set, merges the results without duplicates and
// returns them in Karpenter's status order: most available IPs first, then subnet id.
func ResolveSubnets(ctx context.Context, api API, terms []SubnetTerm) ([]Subnet, error) {
	seen := map[string]bool{}
	var out []Subnet
	for _, fs := range SubnetFilterSets(terms) {
		found, err := api.FindSubnets(ctx, fs)
		if err != nil {
			return nil, err
		}
		for _, s := range found {
			if !seen[s.ID] {
				seen[s.ID] = true
				out = append(out, s)
			}
		}
	}
	SortSubnets(out)
	return out, nil
}

// ResolveSecurityGroups runs one call per filter set, merges without duplicates and sorts by id
// (Karpenter's status order).
func ResolveSecurityGroups(ctx context.Context, api API, terms []SecurityGroupTerm) ([]SecurityGroup, error) {
	seen := map[string]bool{}
	var out []SecurityGroup
	for _, fs := range SecurityGroupFilterSets(terms) {
		found, err := api.FindSecurityGroups(ctx, fs)
		if err != nil {
			return nil, err
		}
		for _, g := range found {
			if !seen[g.ID] {
				seen[g.ID] = true
				out = append(out, g)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// SortSubnets orders subnets by available IPs descending, then id.
func SortSubnets(subnets []Subnet) {
	sort.SliceStable(subnets, func(i, j int) bool {
		a, b := subnets[i], subnets[j]
		if a.AvailableIPAddressCount != b.AvailableIPAddressCount {
			return a.AvailableIPAddressCount > b.AvailableIPAddressCount
		}
		return a.ID < b.ID
	})
}

// Zones returns the distinct zones of the subnets, sorted.
func Zones(subnets []Subnet) []string {
	seen := map[string]bool{}
	var zones []string
	for _, s := range subnets {
		if !seen[s.Zone] {
			seen[s.Zone] = true
			zones = append(zones, s.Zone)
		}
	}
	sort.Strings(zones)
	return zones
}

// VPCs returns the distinct VPC ids of the subnets, sorted.
func VPCs(subnets []Subnet) []string {
	seen := map[string]bool{}
	var ids []string
	for _, s := range subnets {
		if !seen[s.VPCID] {
			seen[s.VPCID] = true
			ids = append(ids, s.VPCID)
		}
	}
	sort.Strings(ids)
	return ids
}
