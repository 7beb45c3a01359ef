package acctest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// The recorder derives each call's requests from its input and what it saw before: a launch
// from a template it saw created is ec2:CreateFleet and ec2:RunInstances on the instances with
// the template's and the fleet's tags, on the template with its tags, on the subnet, group and
// image, ec2:CreateTags under CreateFleet, and iam:PassRole of the profile's role to EC2; a
// terminate carries the tags the launch gave the instance.
func TestPolicyRecorderDerivesLaunches(t *testing.T) {
	r := NewPolicyRecorder()
	s := CallScope{Partition: "aws-cn", Region: "cn-north-1", Account: "111122223333", Cluster: "demo"}
	tag := func(k, v string) ec2types.Tag { return ec2types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	owned := []ec2types.Tag{tag("owner", "o1"), tag("cluster", "demo")}

	r.Record("IAM.GetInstanceProfile", s, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("p")},
		&iam.GetInstanceProfileOutput{InstanceProfile: &iamtypes.InstanceProfile{Path: aws.String("/nodeplane/"),
			Roles: []iamtypes.Role{{RoleName: aws.String("nodes"), Path: aws.String("/")}}}}, nil)
	r.Record("EC2.CreateLaunchTemplate", s, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("lt"),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: owned}},
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: aws.String("ami-1"),
			IamInstanceProfile: &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String("p")},
			NetworkInterfaces:  []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{{Groups: []string{"sg-1"}}},
			TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{
				{ResourceType: ec2types.ResourceTypeInstance, Tags: append(slices.Clone(owned), tag("fingerprint", "f"))}}}},
		&ec2.CreateLaunchTemplateOutput{LaunchTemplate: &ec2types.LaunchTemplate{LaunchTemplateId: aws.String("lt-1")}}, nil)
	r.Record("EC2.CreateFleet", s, &ec2.CreateFleetInput{
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: aws.String("lt-1")},
			Overrides:                   []ec2types.FleetLaunchTemplateOverridesRequest{{SubnetId: aws.String("subnet-1")}}}},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: []ec2types.Tag{tag("Name", "n")}}},
	}, &ec2.CreateFleetOutput{FleetId: aws.String("fleet-1"), Instances: []ec2types.CreateFleetInstance{{InstanceIds: []string{"i-1"}}}}, nil)
	r.Record("EC2.TerminateInstances", s, &ec2.TerminateInstancesInput{InstanceIds: []string{"i-1", "i-2"}}, nil, nil)
	r.Record("SSM.GetParameter", s, &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/x")}, nil, errors.New("not found"))
	r.Record("SSM.GetParameter", s, &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/x")}, nil, errors.New("not found"))

	calls := r.Calls()
	if len(calls) != 5 || calls[4].Count != 2 || !calls[4].Failed {
		t.Fatalf("calls: %+v", calls)
	}
	got := map[string]PolicyRequest{}
	for _, c := range calls {
		for _, q := range c.Requests {
			got[q.Action+" "+q.Resource] = q
		}
	}
	ec2ARN := func(res string) string { return "arn:aws-cn:ec2:cn-north-1:111122223333:" + res }
	for key, check := range map[string]func(PolicyRequest) bool{
		"ec2:CreateLaunchTemplate " + ec2ARN("launch-template/*"): func(q PolicyRequest) bool { return q.RequestTags["owner"] == "o1" },
		"ec2:CreateTags " + ec2ARN("launch-template/*"): func(q PolicyRequest) bool {
			return slices.Equal(q.Keys["ec2:CreateAction"], []string{"CreateLaunchTemplate"})
		},
		"ec2:RunInstances " + ec2ARN("instance/*"): func(q PolicyRequest) bool {
			return q.RequestTags["owner"] == "o1" && q.RequestTags["fingerprint"] == "f" && q.RequestTags["Name"] == "n"
		},
		"ec2:CreateFleet " + ec2ARN("launch-template/lt-1"):       func(q PolicyRequest) bool { return q.ResourceTags["owner"] == "o1" },
		"ec2:CreateFleet " + ec2ARN("subnet/subnet-1"):            func(q PolicyRequest) bool { return true },
		"ec2:RunInstances " + ec2ARN("security-group/sg-1"):       func(q PolicyRequest) bool { return true },
		"ec2:RunInstances arn:aws-cn:ec2:cn-north-1::image/ami-1": func(q PolicyRequest) bool { return true },
		"ec2:CreateFleet " + ec2ARN("fleet/fleet-1"):              func(q PolicyRequest) bool { return true },
		"ec2:CreateTags " + ec2ARN("instance/*"): func(q PolicyRequest) bool {
			return slices.Equal(q.Keys["ec2:CreateAction"], []string{"CreateFleet"}) && q.RequestTags["owner"] == "o1"
		},
		"iam:PassRole arn:aws-cn:iam::111122223333:role/nodes": func(q PolicyRequest) bool {
			return slices.Equal(q.Keys["iam:PassedToService"], []string{"ec2.amazonaws.com"})
		},
		"ec2:TerminateInstances " + ec2ARN("instance/i-1"): func(q PolicyRequest) bool {
			return q.ResourceTags["owner"] == "o1" && q.ResourceTags["Name"] == "n"
		},
		"ec2:TerminateInstances " + ec2ARN("instance/i-2"):                                 func(q PolicyRequest) bool { return q.ResourceTags == nil },
		"ssm:GetParameter arn:aws-cn:ssm:cn-north-1::parameter/aws/service/bottlerocket/x": func(q PolicyRequest) bool { return true },
	} {
		q, ok := got[key]
		if !ok || !check(q) {
			t.Errorf("%s: %+v (found %v)", key, q, ok)
		}
	}
	if u := calls[3].Unknown; len(u) != 1 || !strings.Contains(u[0], "i-2") {
		t.Errorf("terminate of an instance never seen: unknown %v", u)
	}
	if q := got["ec2:RunInstances "+ec2ARN("instance/*")].IAM(); !slices.Equal(q.Keys["aws:TagKeys"], []string{"Name", "cluster", "fingerprint", "owner"}) ||
		q.Keys["aws:RequestTag/owner"][0] != "o1" {
		t.Errorf("IAM keys %v", q.Keys)
	}
}
