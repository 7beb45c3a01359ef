package awsfake

import (
	"context"
	"math"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

var instanceFields = fields[ec2types.Instance]{
	"instance-id":         func(i ec2types.Instance) []string { return str(i.InstanceId) },
	"instance-type":       func(i ec2types.Instance) []string { return enum(i.InstanceType) },
	"image-id":            func(i ec2types.Instance) []string { return str(i.ImageId) },
	"subnet-id":           func(i ec2types.Instance) []string { return str(i.SubnetId) },
	"vpc-id":              func(i ec2types.Instance) []string { return str(i.VpcId) },
	"instance-lifecycle":  func(i ec2types.Instance) []string { return enum(i.InstanceLifecycle) },
	"instance-state-name": func(i ec2types.Instance) []string { return stateName(i) },
	"availability-zone": func(i ec2types.Instance) []string {
		if i.Placement == nil {
			return nil
		}
		return str(i.Placement.AvailabilityZone)
	},
}

func instanceTags(i ec2types.Instance) []ec2types.Tag { return i.Tags }

func stateName(i ec2types.Instance) []string {
	if i.State == nil {
		return nil
	}
	return enum(i.State.Name)
}

func instanceState(name ec2types.InstanceStateName) *ec2types.InstanceState {
	codes := map[ec2types.InstanceStateName]int32{"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80}
	return &ec2types.InstanceState{Name: name, Code: aws.Int32(codes[name])}
}

// DescribeInstances answers the instances asked for (InstanceIds; InvalidInstanceID.NotFound for
// one it does not hold) that match the filters, a page's instances in one reservation.
func (f *EC2) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeInstances", in, func(in *ec2.DescribeInstancesInput) (*ec2.DescribeInstancesOutput, error) {
		objs, err := byIDs(f.Instances, in.InstanceIds, func(i ec2types.Instance) string { return aws.ToString(i.InstanceId) }, "InvalidInstanceID.NotFound", "instance ID")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeInstances", selectObjects("DescribeInstances", objs, in.Filters, instanceTags, instanceFields), f.PageSize, in.MaxResults, in.NextToken)
		out := &ec2.DescribeInstancesOutput{NextToken: next}
		if len(items) > 0 {
			out.Reservations = []ec2types.Reservation{{Instances: slices.Clone(items)}}
		}
		return out, err
	})
}

// TerminateInstances terminates the instances at once; InvalidInstanceID.NotFound (and nothing
// terminated) when it does not hold one of them.
func (f *EC2) TerminateInstances(ctx context.Context, in *ec2.TerminateInstancesInput, _ ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "TerminateInstances", in, func(in *ec2.TerminateInstancesInput) (*ec2.TerminateInstancesOutput, error) {
		if len(in.InstanceIds) == 0 {
			return nil, apiError("MissingParameter", "The request must contain the parameter InstanceIds")
		}
		if _, err := byIDs(f.Instances, in.InstanceIds, func(i ec2types.Instance) string { return aws.ToString(i.InstanceId) }, "InvalidInstanceID.NotFound", "instance ID"); err != nil {
			return nil, err
		}
		out := &ec2.TerminateInstancesOutput{}
		for k := range f.Instances {
			i := &f.Instances[k]
			if !slices.Contains(in.InstanceIds, aws.ToString(i.InstanceId)) {
				continue
			}
			prev := i.State
			i.State = instanceState(ec2types.InstanceStateNameTerminated)
			out.TerminatingInstances = append(out.TerminatingInstances, ec2types.InstanceStateChange{InstanceId: i.InstanceId, PreviousState: prev, CurrentState: i.State})
		}
		return out, nil
	})
}

// launch is one instance as EC2 starts it from template data and the request's choices
// (an empty choice takes the template's), running at once. The caller holds the lock.
func (f *EC2) launch(data *ec2types.ResponseLaunchTemplateData, instanceType ec2types.InstanceType, imageID, subnetID, zone string,
	capacityType string, tags []ec2types.Tag) ec2types.Instance {
	if data == nil {
		data = &ec2types.ResponseLaunchTemplateData{}
	}
	if instanceType == "" {
		instanceType = data.InstanceType
	}
	if imageID == "" {
		imageID = aws.ToString(data.ImageId)
	}
	var vpc *string
	for _, s := range f.Subnets {
		if aws.ToString(s.SubnetId) == subnetID && subnetID != "" {
			vpc = s.VpcId
			if zone == "" {
				zone = aws.ToString(s.AvailabilityZone)
			}
		}
	}
	now := f.clock()
	i := ec2types.Instance{
		InstanceId: aws.String(f.nextID("i")), InstanceType: instanceType, State: instanceState(ec2types.InstanceStateNameRunning),
		LaunchTime: &now, Placement: &ec2types.Placement{AvailabilityZone: aws.String(zone)}, VpcId: vpc,
		Tags: mergeTags(tagsForTemplate(data.TagSpecifications, ec2types.ResourceTypeInstance), tags),
	}
	if imageID != "" {
		i.ImageId = aws.String(imageID)
	}
	if subnetID != "" {
		i.SubnetId = aws.String(subnetID)
	}
	if capacityType == string(ec2types.DefaultTargetCapacityTypeSpot) {
		i.InstanceLifecycle = ec2types.InstanceLifecycleTypeSpot
	}
	f.Instances = append(f.Instances, i)
	return i
}

func tagsForTemplate(specs []ec2types.LaunchTemplateTagSpecification, rt ec2types.ResourceType) []ec2types.Tag {
	var out []ec2types.Tag
	for _, s := range specs {
		if s.ResourceType == rt {
			out = append(out, s.Tags...)
		}
	}
	return out
}

// mergeTags is the tags of the lists, a later value winning for the same key.
func mergeTags(lists ...[]ec2types.Tag) []ec2types.Tag {
	var out []ec2types.Tag
	for _, l := range lists {
		for _, t := range l {
			k := slices.IndexFunc(out, func(o ec2types.Tag) bool { return aws.ToString(o.Key) == aws.ToString(t.Key) })
			if k >= 0 {
				out[k] = t
			} else {
				out = append(out, t)
			}
		}
	}
	return out
}

// CreateFleet runs an instant fleet: the whole target capacity launches from the override with
// the lowest Priority (the first of equals; no Priority is the lowest priority), with the
// template version's data and the instance tags of the template and the request. A launch
// template it does not hold fails the call with EC2's NotFound code. Per-override errors (an
// instance profile EC2 does not see yet, a subnet out of addresses) are a Hook's to answer.
func (f *EC2) CreateFleet(ctx context.Context, in *ec2.CreateFleetInput, _ ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "CreateFleet", in, func(in *ec2.CreateFleetInput) (*ec2.CreateFleetOutput, error) {
		if in.Type != ec2types.FleetTypeInstant {
			panic("awsfake: CreateFleet: only instant fleets are implemented")
		}
		if len(in.LaunchTemplateConfigs) == 0 || in.TargetCapacitySpecification == nil {
			return nil, apiError("MissingParameter", "The request must contain the parameters LaunchTemplateConfigs and TargetCapacitySpecification")
		}
		type candidate struct {
			spec ec2types.FleetLaunchTemplateSpecification
			data *ec2types.ResponseLaunchTemplateData
			ov   ec2types.FleetLaunchTemplateOverridesRequest
		}
		var best *candidate
		for _, c := range in.LaunchTemplateConfigs {
			s := c.LaunchTemplateSpecification
			if s == nil {
				return nil, apiError("MissingParameter", "The request must contain the parameter LaunchTemplateSpecification")
			}
			i, err := f.template(s.LaunchTemplateId, s.LaunchTemplateName)
			if err != nil {
				return nil, err
			}
			lv, err := f.version(i, aws.ToString(s.Version))
			if err != nil {
				return nil, err
			}
			spec := ec2types.FleetLaunchTemplateSpecification{LaunchTemplateId: f.LaunchTemplates[i].LaunchTemplateId,
				LaunchTemplateName: f.LaunchTemplates[i].LaunchTemplateName, Version: s.Version}
			overrides := c.Overrides
			if len(overrides) == 0 {
				overrides = []ec2types.FleetLaunchTemplateOverridesRequest{{}}
			}
			for _, ov := range overrides {
				if best == nil || priority(ov.Priority) < priority(best.ov.Priority) {
					best = &candidate{spec: spec, data: lv.LaunchTemplateData, ov: ov}
				}
			}
		}
		capacityType := string(in.TargetCapacitySpecification.DefaultTargetCapacityType)
		tags := tagsFor(in.TagSpecifications, ec2types.ResourceTypeInstance)
		var ids []string
		var typ ec2types.InstanceType
		for range aws.ToInt32(in.TargetCapacitySpecification.TotalTargetCapacity) {
			i := f.launch(best.data, best.ov.InstanceType, aws.ToString(best.ov.ImageId), aws.ToString(best.ov.SubnetId), aws.ToString(best.ov.AvailabilityZone), capacityType, tags)
			ids, typ = append(ids, aws.ToString(i.InstanceId)), i.InstanceType
		}
		out := &ec2.CreateFleetOutput{FleetId: aws.String(f.nextID("fleet"))}
		if len(ids) > 0 {
			out.Instances = []ec2types.CreateFleetInstance{{
				InstanceIds: ids, InstanceType: typ, Lifecycle: ec2types.InstanceLifecycle(capacityType),
				LaunchTemplateAndOverrides: &ec2types.LaunchTemplateAndOverridesResponse{
					LaunchTemplateSpecification: &best.spec,
					Overrides: &ec2types.FleetLaunchTemplateOverrides{InstanceType: best.ov.InstanceType, SubnetId: best.ov.SubnetId,
						AvailabilityZone: best.ov.AvailabilityZone, Priority: best.ov.Priority, ImageId: best.ov.ImageId},
				},
			}}
		}
		return out, nil
	})
}

func priority(p *float64) float64 {
	if p == nil {
		return math.Inf(1)
	}
	return *p
}

// RunInstances launches MaxCount running instances of the request's type, image and subnet (or
// its launch template's), tagged from the template and the request.
func (f *EC2) RunInstances(ctx context.Context, in *ec2.RunInstancesInput, _ ...func(*ec2.Options)) (*ec2.RunInstancesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "RunInstances", in, func(in *ec2.RunInstancesInput) (*ec2.RunInstancesOutput, error) {
		if aws.ToInt32(in.MaxCount) < 1 || aws.ToInt32(in.MinCount) < 1 {
			return nil, apiError("MissingParameter", "The request must contain the parameters MinCount and MaxCount")
		}
		var data *ec2types.ResponseLaunchTemplateData
		if s := in.LaunchTemplate; s != nil {
			i, err := f.template(s.LaunchTemplateId, s.LaunchTemplateName)
			if err != nil {
				return nil, err
			}
			lv, err := f.version(i, aws.ToString(s.Version))
			if err != nil {
				return nil, err
			}
			data = lv.LaunchTemplateData
		}
		out := &ec2.RunInstancesOutput{ReservationId: aws.String(f.nextID("r"))}
		zone := ""
		if in.Placement != nil {
			zone = aws.ToString(in.Placement.AvailabilityZone)
		}
		for range aws.ToInt32(in.MaxCount) {
			out.Instances = append(out.Instances, f.launch(data, in.InstanceType, aws.ToString(in.ImageId), aws.ToString(in.SubnetId), zone, "",
				tagsFor(in.TagSpecifications, ec2types.ResourceTypeInstance)))
		}
		return out, nil
	})
}
