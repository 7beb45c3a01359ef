package awsclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
)

// maxGroupIDsPerFilter bounds the values of one group-id filter (EC2 accepts up to 200).
const maxGroupIDsPerFilter = 200

// FindSecurityGroupRules returns every rule (ingress and egress) of the given groups, paginating
// DescribeSecurityGroupRules with one group-id filter per 200 groups. Rules come back sorted by
// group, direction and rule id, so that callers see a stable order. Groups that do not exist
// simply have no rules. (LocalStack serves this call from moto, without pagination: every rule
// comes in one page, whatever MaxResults says.)
func (d Discovery) FindSecurityGroupRules(ctx context.Context, groupIDs []string) ([]connectivity.Rule, error) {
	ids := uniqueSortedIDs(groupIDs)
	type keyed struct {
		id   string
		rule connectivity.Rule
	}
	var found []keyed
	seen := map[string]bool{}
	for start := 0; start < len(ids); start += maxGroupIDsPerFilter {
		chunk := ids[start:min(start+maxGroupIDsPerFilter, len(ids))]
		p := ec2.NewDescribeSecurityGroupRulesPaginator(d.EC2, &ec2.DescribeSecurityGroupRulesInput{
			Filters:    []ec2types.Filter{{Name: aws.String("group-id"), Values: chunk}},
			MaxResults: aws.Int32(1000),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("describing the rules of security groups %v: %w", chunk, err)
			}
			for _, r := range page.SecurityGroupRules {
				id := aws.ToString(r.SecurityGroupRuleId)
				if id != "" && seen[id] {
					continue
				}
				seen[id] = true
				found = append(found, keyed{id: id, rule: ruleFromEC2(r)})
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.rule.GroupID != b.rule.GroupID {
			return a.rule.GroupID < b.rule.GroupID
		}
		if a.rule.Egress != b.rule.Egress {
			return !a.rule.Egress
		}
		return a.id < b.id
	})
	out := make([]connectivity.Rule, len(found))
	for i, k := range found {
		out[i] = k.rule
	}
	return out, nil
}

func ruleFromEC2(r ec2types.SecurityGroupRule) connectivity.Rule {
	port := func(p *int32) int {
		if p == nil {
			return -1
		}
		return int(*p)
	}
	out := connectivity.Rule{
		GroupID:      aws.ToString(r.GroupId),
		Egress:       aws.ToBool(r.IsEgress),
		Protocol:     aws.ToString(r.IpProtocol),
		FromPort:     port(r.FromPort),
		ToPort:       port(r.ToPort),
		CIDRv4:       aws.ToString(r.CidrIpv4),
		CIDRv6:       aws.ToString(r.CidrIpv6),
		PrefixListID: aws.ToString(r.PrefixListId),
	}
	if r.ReferencedGroupInfo != nil {
		out.ReferencedGroupID = aws.ToString(r.ReferencedGroupInfo.GroupId)
	}
	return out
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
