// Package awsfake holds the test doubles of the AWS APIs the provider calls: one in-memory fake
// per API, holding objects and answering the provider's calls with the API's filter semantics,
// counting calls and failing them on demand. Unit suites use these instead of fakes of their
// own; acceptance tests talk to LocalStack (and internal/acctest's stubs where it falls short).
package awsfake

import (
	"context"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// EC2 is the fake EC2 API. Its zero value answers every implemented call with nothing; a call
// it does not implement panics (the embedded interface is nil), so a suite sees at once that
// the code under test made a call nobody expected.
type EC2 struct {
	awsclient.EC2API

	Subnets            []ec2types.Subnet
	SecurityGroups     []ec2types.SecurityGroup
	SecurityGroupRules []ec2types.SecurityGroupRule
	InstanceTypes      []ec2types.InstanceTypeInfo
	Offerings          []ec2types.InstanceTypeOffering
	// Fail makes an operation ("DescribeSecurityGroupRules") return the error.
	Fail map[string]error

	mu    sync.Mutex
	calls map[string]int
}

var _ awsclient.EC2API = (*EC2)(nil)

// Calls is how many times the operations were called, together.
func (f *EC2) Calls(ops ...string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, op := range ops {
		n += f.calls[op]
	}
	return n
}

// call counts op and returns its configured failure.
func (f *EC2) call(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[op]++
	return f.Fail[op]
}

// DescribeSubnets answers the subnets with the ids asked for (SubnetIds or a subnet-id filter),
// or all of them.
func (f *EC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	if err := f.call("DescribeSubnets"); err != nil {
		return nil, err
	}
	ids := idsOf(in.SubnetIds, in.Filters, "subnet-id")
	out := &ec2.DescribeSubnetsOutput{}
	for _, s := range f.Subnets {
		if ids == nil || slices.Contains(ids, aws.ToString(s.SubnetId)) {
			out.Subnets = append(out.Subnets, s)
		}
	}
	return out, nil
}

// DescribeSecurityGroups answers the groups with the ids asked for (GroupIds or a group-id
// filter), or all of them.
func (f *EC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	if err := f.call("DescribeSecurityGroups"); err != nil {
		return nil, err
	}
	ids := idsOf(in.GroupIds, in.Filters, "group-id")
	out := &ec2.DescribeSecurityGroupsOutput{}
	for _, g := range f.SecurityGroups {
		if ids == nil || slices.Contains(ids, aws.ToString(g.GroupId)) {
			out.SecurityGroups = append(out.SecurityGroups, g)
		}
	}
	return out, nil
}

// DescribeSecurityGroupRules answers the rules of the groups asked for (a group-id filter), or
// all of them.
func (f *EC2) DescribeSecurityGroupRules(_ context.Context, in *ec2.DescribeSecurityGroupRulesInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupRulesOutput, error) {
	if err := f.call("DescribeSecurityGroupRules"); err != nil {
		return nil, err
	}
	ids := idsOf(nil, in.Filters, "group-id")
	out := &ec2.DescribeSecurityGroupRulesOutput{}
	for _, r := range f.SecurityGroupRules {
		if ids == nil || slices.Contains(ids, aws.ToString(r.GroupId)) {
			out.SecurityGroupRules = append(out.SecurityGroupRules, r)
		}
	}
	return out, nil
}

// DescribeInstanceTypes answers every instance type, in one page.
func (f *EC2) DescribeInstanceTypes(context.Context, *ec2.DescribeInstanceTypesInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	if err := f.call("DescribeInstanceTypes"); err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypesOutput{InstanceTypes: slices.Clone(f.InstanceTypes)}, nil
}

// DescribeInstanceTypeOfferings answers every offering, in one page.
func (f *EC2) DescribeInstanceTypeOfferings(context.Context, *ec2.DescribeInstanceTypeOfferingsInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	if err := f.call("DescribeInstanceTypeOfferings"); err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: slices.Clone(f.Offerings)}, nil
}

// idsOf is the ids a call asks for: the explicit list and the values of the named filter; nil
// when it asks for neither (every object).
func idsOf(explicit []string, filters []ec2types.Filter, name string) []string {
	ids := slices.Clone(explicit)
	asked := len(explicit) > 0
	for _, flt := range filters {
		if aws.ToString(flt.Name) == name {
			ids, asked = append(ids, flt.Values...), true
		}
	}
	if !asked {
		return nil
	}
	return ids
}
