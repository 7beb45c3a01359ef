package nodeclass

import (
	"context"
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// The karpenter_subnets and karpenter_security_groups reads: what a node class with the same
// selector terms would select, on the data sources' attribute paths.

var pathSelectorTerms = attrpath.Of("selector_terms")

// SubnetsQuery is a karpenter_subnets configuration, decoded by its attribute names.
type SubnetsQuery struct {
	SelectorTerms []discovery.SubnetTerm `tfsdk:"selector_terms"`
	// The read's answer (SubnetsResult), not part of the query.
	_ struct{} `tfsdk:"subnets"`
	_ struct{} `tfsdk:"zones"`
}

// Check reports the terms' problems, on selector_terms[i].
func (q SubnetsQuery) Check() []attrpath.Finding {
	return attrpath.WithSummary("Invalid subnet selector term", attrpath.Under(pathSelectorTerms, discovery.ValidateSubnetTerms(q.SelectorTerms)))
}

// SubnetsResult is what a karpenter_subnets read computes, shaped as its schema.
type SubnetsResult struct {
	Subnets []SubnetEntry `tfsdk:"subnets"`
	Zones   []string      `tfsdk:"zones"`
}

// SubnetEntry is one `subnets` entry: the subnet with its Name tag (nil without one).
type SubnetEntry struct {
	discovery.Subnet
	Name *string `tfsdk:"name"`
}

// ReadSubnets answers a karpenter_subnets read: the terms' problems, or the subnets they select
// in Karpenter's order (tags never nil) with their zones (an empty list for none). A selection
// of none is a warning, and so are the class's findings on the subnets (SubnetFindings).
func ReadSubnets(ctx context.Context, api discovery.API, region string, q SubnetsQuery) (SubnetsResult, []attrpath.Finding, []attrpath.Finding) {
	if errs := q.Check(); len(errs) > 0 {
		return SubnetsResult{}, errs, nil
	}
	subnets, err := discovery.ResolveSubnets(ctx, api, q.SelectorTerms)
	if err != nil {
		return SubnetsResult{}, []attrpath.Finding{{Summary: "Cannot read subnets from EC2", Message: err.Error()}}, nil
	}
	out := SubnetsResult{Subnets: make([]SubnetEntry, len(subnets)), Zones: append([]string{}, discovery.Zones(subnets)...)}
	for i, s := range subnets {
		out.Subnets[i] = SubnetEntry{Subnet: s}
		out.Subnets[i].Tags = tagsOrEmpty(s.Tags)
		if name := s.Name(); name != "" {
			out.Subnets[i].Name = &name
		}
	}
	warnings := noMatch(len(subnets), "No subnet matched", fmt.Sprintf("None of the %d selector terms matched a subnet in %s.",
		len(q.SelectorTerms), region))
	return out, nil, append(warnings, attrpath.WithSummary("Subnet selector finding", SubnetFindings(pathSelectorTerms, subnets))...)
}

// SecurityGroupsQuery is a karpenter_security_groups configuration, decoded by its attribute
// names.
type SecurityGroupsQuery struct {
	SelectorTerms []discovery.SecurityGroupTerm `tfsdk:"selector_terms"`
	_             struct{}                      `tfsdk:"security_groups"` // the read's answer
}

// Check reports the terms' problems, on selector_terms[i].
func (q SecurityGroupsQuery) Check() []attrpath.Finding {
	return attrpath.WithSummary("Invalid security group selector term",
		attrpath.Under(pathSelectorTerms, discovery.ValidateSecurityGroupTerms(q.SelectorTerms)))
}

// SecurityGroupsResult is what a karpenter_security_groups read computes, shaped as its schema.
type SecurityGroupsResult struct {
	SecurityGroups []discovery.SecurityGroup `tfsdk:"security_groups"`
}

// ReadSecurityGroups answers a karpenter_security_groups read: the terms' problems, or the
// groups they select sorted by id (tags never nil); a selection of none is a warning.
func ReadSecurityGroups(ctx context.Context, api discovery.API, region string, q SecurityGroupsQuery) (SecurityGroupsResult, []attrpath.Finding, []attrpath.Finding) {
	if errs := q.Check(); len(errs) > 0 {
		return SecurityGroupsResult{}, errs, nil
	}
	groups, err := discovery.ResolveSecurityGroups(ctx, api, q.SelectorTerms)
	if err != nil {
		return SecurityGroupsResult{}, []attrpath.Finding{{Summary: "Cannot read security groups from EC2", Message: err.Error()}}, nil
	}
	out := SecurityGroupsResult{SecurityGroups: make([]discovery.SecurityGroup, len(groups))}
	for i, g := range groups {
		g.Tags = tagsOrEmpty(g.Tags)
		out.SecurityGroups[i] = g
	}
	return out, nil, noMatch(len(groups), "No security group matched", fmt.Sprintf("None of the %d selector terms matched a security group in %s.",
		len(q.SelectorTerms), region))
}

// noMatch is the warning on selector_terms when a selection found nothing (n == 0): a node
// class with those terms could not launch nodes.
func noMatch(n int, summary, none string) []attrpath.Finding {
	if n > 0 {
		return nil
	}
	return []attrpath.Finding{{Path: pathSelectorTerms, Summary: summary, Standalone: true,
		Message: none + " A node class with these terms could not launch nodes."}}
}

// tagsOrEmpty is tags, or an empty map for nil: a computed map that is empty, not null.
func tagsOrEmpty(tags map[string]string) map[string]string {
	if tags == nil {
		return map[string]string{}
	}
	return tags
}
