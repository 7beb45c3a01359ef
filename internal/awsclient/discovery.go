package awsclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// Discovery implements discovery.API on EC2. With a Cache, each distinct filter set is asked
// once per provider process (see DiscoveryCache).
type Discovery struct {
	EC2   EC2API
	SSM   SSMAPI // AMI parameters; nil in tests that resolve no AMI
	Cache *DiscoveryCache
}

var (
	_ discovery.API      = Discovery{}
	_ discovery.ImageAPI = Discovery{}
)

func toEC2Filters(fs discovery.FilterSet) []ec2types.Filter {
	out := make([]ec2types.Filter, len(fs))
	for i, f := range fs {
		out[i] = ec2types.Filter{Name: aws.String(f.Name), Values: append([]string(nil), f.Values...)}
	}
	return out
}

// FindSubnets paginates DescribeSubnets for one filter set. A subnet-id filter that names a
// subnet that does not exist yields no result, not an error, as with tag filters.
func (d Discovery) FindSubnets(ctx context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	if d.Cache != nil {
		return d.cachedSubnets(ctx, fs)
	}
	return d.findSubnets(ctx, fs)
}

func (d Discovery) findSubnets(ctx context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	p := ec2.NewDescribeSubnetsPaginator(d.EC2, &ec2.DescribeSubnetsInput{Filters: toEC2Filters(fs), MaxResults: aws.Int32(500)})
	var out []discovery.Subnet
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			if IsCode(err, ErrCodeInvalidSubnetIDNotFound) {
				return nil, nil
			}
			return nil, fmt.Errorf("describing subnets (%s): %w", fs.Key(), err)
		}
		for _, s := range page.Subnets {
			out = append(out, discovery.Subnet{
				ID:                      aws.ToString(s.SubnetId),
				VPCID:                   aws.ToString(s.VpcId),
				Zone:                    aws.ToString(s.AvailabilityZone),
				ZoneID:                  aws.ToString(s.AvailabilityZoneId),
				CIDRBlock:               aws.ToString(s.CidrBlock),
				AvailableIPAddressCount: int(aws.ToInt32(s.AvailableIpAddressCount)),
				Tags:                    tagMap(s.Tags),
				MapPublicIPOnLaunch:     aws.ToBool(s.MapPublicIpOnLaunch),
				DefaultForAZ:            aws.ToBool(s.DefaultForAz),
			})
		}
	}
	return out, nil
}

// FindSecurityGroups paginates DescribeSecurityGroups for one filter set.
func (d Discovery) FindSecurityGroups(ctx context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	if d.Cache != nil {
		return d.cachedSecurityGroups(ctx, fs)
	}
	return d.findSecurityGroups(ctx, fs)
}

func (d Discovery) findSecurityGroups(ctx context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	p := ec2.NewDescribeSecurityGroupsPaginator(d.EC2, &ec2.DescribeSecurityGroupsInput{Filters: toEC2Filters(fs), MaxResults: aws.Int32(500)})
	var out []discovery.SecurityGroup
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			if IsCode(err, ErrCodeInvalidGroupNotFound) {
				return nil, nil
			}
			return nil, fmt.Errorf("describing security groups (%s): %w", fs.Key(), err)
		}
		for _, g := range page.SecurityGroups {
			d.Cache.keepRules(aws.ToString(g.GroupId), rulesOfGroup(g))
			out = append(out, discovery.SecurityGroup{
				ID:    aws.ToString(g.GroupId),
				Name:  aws.ToString(g.GroupName),
				VPCID: aws.ToString(g.VpcId),
				Tags:  tagMap(g.Tags),
			})
		}
	}
	return out, nil
}

func tagMap(tags []ec2types.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}
