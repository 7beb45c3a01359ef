package awsclient

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// InstanceAPI is the slice of EC2 that static capacity uses.
type InstanceAPI interface {
	CreateFleet(context.Context, *ec2.CreateFleetInput, ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error)
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	TerminateInstances(context.Context, *ec2.TerminateInstancesInput, ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error)
}

var _ InstanceAPI = (*ec2.Client)(nil)

// Instances launches, finds and terminates the provider's instances.
type Instances struct{ EC2 InstanceAPI }

// FindByTags lists the instances that carry every tag and are not terminated, oldest first.
func (x Instances) FindByTags(ctx context.Context, tags map[string]string) ([]fleet.Instance, error) {
	filters := append([]ec2types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped", "shutting-down"}}},
		tagFilters(tags)...)
	p := ec2.NewDescribeInstancesPaginator(x.EC2, &ec2.DescribeInstancesInput{Filters: filters, MaxResults: aws.Int32(1000)})
	var out []fleet.Instance
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing instances by tag: %w", err)
		}
		for _, r := range page.Reservations {
			for _, in := range r.Instances {
				out = append(out, instanceFrom(in))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].LaunchTime.Equal(out[j].LaunchTime) {
			return out[i].LaunchTime.Before(out[j].LaunchTime)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func instanceFrom(in ec2types.Instance) fleet.Instance {
	i := fleet.Instance{
		ID: aws.ToString(in.InstanceId), Type: string(in.InstanceType), SubnetID: aws.ToString(in.SubnetId),
		PrivateIP: aws.ToString(in.PrivateIpAddress), CapacityType: "on-demand", LaunchTime: aws.ToTime(in.LaunchTime),
	}
	if in.Placement != nil {
		i.Zone = aws.ToString(in.Placement.AvailabilityZone)
	}
	if in.State != nil {
		i.State = string(in.State.Name)
	}
	if in.InstanceLifecycle == ec2types.InstanceLifecycleTypeSpot {
		i.CapacityType = "spot"
	}
	tags := tagMap(in.Tags)
	i.Tags = tags
	i.LaunchTemplate = tags[launchplan.TagLaunchTemplateName]
	i.Fingerprint = tags[launchplan.TagTemplateFingerprint]
	return i
}

// Launch runs one instant CreateFleet. It returns what launched and the per-override errors;
// err is a failure of the call itself. The client token makes a retried call idempotent.
func (x Instances) Launch(ctx context.Context, req fleet.LaunchRequest) ([]string, []fleet.FleetError, error) {
	if len(req.Overrides) == 0 || req.Count <= 0 {
		return nil, nil, nil
	}
	// One launch-template config per template, in the order the overrides name them.
	var configs []ec2types.FleetLaunchTemplateConfigRequest
	index := map[string]int{}
	for _, o := range req.Overrides {
		ov := ec2types.FleetLaunchTemplateOverridesRequest{
			InstanceType: ec2types.InstanceType(o.InstanceType), SubnetId: aws.String(o.SubnetID),
			AvailabilityZone: aws.String(o.Zone), Priority: aws.Float64(o.Priority),
		}
		if o.ImageID != "" {
			ov.ImageId = aws.String(o.ImageID)
		}
		i, ok := index[o.LaunchTemplateID]
		if !ok {
			i = len(configs)
			index[o.LaunchTemplateID] = i
			configs = append(configs, ec2types.FleetLaunchTemplateConfigRequest{
				LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{
					LaunchTemplateId: aws.String(o.LaunchTemplateID), Version: aws.String("$Default"),
				},
			})
		}
		configs[i].Overrides = append(configs[i].Overrides, ov)
	}
	in := &ec2.CreateFleetInput{
		Type:                  ec2types.FleetTypeInstant,
		ClientToken:           aws.String(req.ClientToken),
		LaunchTemplateConfigs: configs,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: aws.Int32(int32(req.Count)), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(req.CapacityType),
		},
		TagSpecifications: []ec2types.TagSpecification{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: tagList(req.Tags)},
			{ResourceType: ec2types.ResourceTypeVolume, Tags: tagList(req.Tags)},
		},
	}
	if req.CapacityType == "spot" {
		in.SpotOptions = &ec2types.SpotOptionsRequest{AllocationStrategy: ec2types.SpotAllocationStrategyPriceCapacityOptimized}
	} else {
		in.OnDemandOptions = &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice}
	}
	out, err := x.EC2.CreateFleet(ctx, in)
	if err != nil {
		return nil, nil, fmt.Errorf("CreateFleet: %w", err)
	}
	var ids []string
	for _, i := range out.Instances {
		ids = append(ids, i.InstanceIds...)
	}
	var errs []fleet.FleetError
	for _, e := range out.Errors {
		fe := fleet.FleetError{Code: aws.ToString(e.ErrorCode), Message: aws.ToString(e.ErrorMessage)}
		fe.Cause = fleetCause(fe.Code, fe.Message)
		if e.LaunchTemplateAndOverrides != nil && e.LaunchTemplateAndOverrides.Overrides != nil {
			fe.InstanceType = string(e.LaunchTemplateAndOverrides.Overrides.InstanceType)
			fe.SubnetID = aws.ToString(e.LaunchTemplateAndOverrides.Overrides.SubnetId)
		}
		errs = append(errs, fe)
	}
	return ids, errs, nil
}

// Describe reads instances by id; ids EC2 no longer knows are left out.
func (x Instances) Describe(ctx context.Context, ids []string) ([]fleet.Instance, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := x.EC2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: ids})
	if IsCode(err, ErrCodeInstanceIDNotFound) {
		// One unknown id fails the batch: fall back to one by one.
		var all []fleet.Instance
		for _, id := range ids {
			one, err := x.Describe(ctx, []string{id})
			if err != nil && !IsCode(err, ErrCodeInstanceIDNotFound) {
				return nil, err
			}
			all = append(all, one...)
		}
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describing instances %s: %w", strings.Join(ids, ","), err)
	}
	var res []fleet.Instance
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			res = append(res, instanceFrom(in))
		}
	}
	return res, nil
}

// WaitFor polls until every instance is in one of the states (or gone, when "terminated" is
// among them), with capped exponential backoff, until ctx ends.
func (x Instances) WaitFor(ctx context.Context, ids []string, states ...string) ([]fleet.Instance, error) {
	want := map[string]bool{}
	for _, s := range states {
		want[s] = true
	}
	delay := 500 * time.Millisecond
	for {
		got, err := x.Describe(ctx, ids)
		if err != nil {
			return nil, err
		}
		done := len(got) == len(ids) || want["terminated"]
		for _, i := range got {
			if !want[i.State] {
				done = false
			}
		}
		if done {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("waiting for instances %s to be %s: %w", strings.Join(ids, ","), strings.Join(states, " or "), ctx.Err())
		case <-time.After(delay):
		}
		if delay < 10*time.Second {
			delay *= 2
		}
	}
}

// Terminate ends the instances; ids already gone are not an error.
func (x Instances) Terminate(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := x.EC2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
	if err != nil && !IsCode(err, ErrCodeInstanceIDNotFound) {
		return fmt.Errorf("terminating %s: %w", strings.Join(ids, ","), err)
	}
	return nil
}

// The adapter implements the apply stage's ports with the stage's own records.
var (
	_ fleet.Templates  = LaunchTemplates{}
	_ fleet.Instances  = Instances{}
	_ fleet.Listing    = (*Client)(nil)
	_ fleet.ProfileAPI = InstanceProfiles{}
)
