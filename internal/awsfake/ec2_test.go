package awsfake

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestEC2(t *testing.T) {
	ctx := context.Background()
	f := &EC2{
		Subnets:        []ec2types.Subnet{{SubnetId: aws.String("subnet-a")}, {SubnetId: aws.String("subnet-b")}},
		SecurityGroups: []ec2types.SecurityGroup{{GroupId: aws.String("sg-a")}, {GroupId: aws.String("sg-b")}},
		SecurityGroupRules: []ec2types.SecurityGroupRule{{GroupId: aws.String("sg-a"), SecurityGroupRuleId: aws.String("sgr-1")},
			{GroupId: aws.String("sg-b"), SecurityGroupRuleId: aws.String("sgr-2")}},
	}
	all, _ := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	one, _ := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-b"}})
	if len(all.Subnets) != 2 || len(one.Subnets) != 1 || aws.ToString(one.Subnets[0].SubnetId) != "subnet-b" {
		t.Errorf("subnets: all %d, by id %v", len(all.Subnets), one.Subnets)
	}
	byFilter, _ := f.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{{Name: aws.String("group-id"), Values: []string{"sg-a"}}}})
	if len(byFilter.SecurityGroups) != 1 || aws.ToString(byFilter.SecurityGroups[0].GroupId) != "sg-a" {
		t.Errorf("groups by filter: %v", byFilter.SecurityGroups)
	}
	rules, _ := f.DescribeSecurityGroupRules(ctx, &ec2.DescribeSecurityGroupRulesInput{Filters: []ec2types.Filter{{Name: aws.String("group-id"), Values: []string{"sg-b"}}}})
	if len(rules.SecurityGroupRules) != 1 || aws.ToString(rules.SecurityGroupRules[0].SecurityGroupRuleId) != "sgr-2" {
		t.Errorf("rules by group: %v", rules.SecurityGroupRules)
	}
	f.Fail = map[string]error{"DescribeInstanceTypes": errors.New("denied")}
	if _, err := f.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{}); err == nil {
		t.Error("a configured failure did not fail")
	}
	if got := f.Calls("DescribeSubnets"); got != 2 {
		t.Errorf("DescribeSubnets counted %d times", got)
	}
	if got := f.Calls("DescribeSecurityGroups", "DescribeSecurityGroupRules", "DescribeInstanceTypes"); got != 3 {
		t.Errorf("other calls counted %d", got)
	}
}
