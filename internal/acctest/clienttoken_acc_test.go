package acctest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"
)

// accAMI is an image id LocalStack accepts without registering it.
const accAMI = "ami-0123456789abcdef0"

// liveInstances lists the pending and running instances of a fixture network's tag.
func liveInstances(ctx context.Context, c *ec2.Client, networkID string) ([]string, error) {
	out, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:" + TagKey), Values: []string{networkID}},
		{Name: aws.String("instance-state-name"), Values: []string{"pending", "running"}},
	}})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range out.Reservations {
		for _, i := range r.Instances {
			ids = append(ids, aws.ToString(i.InstanceId))
		}
	}
	return ids, nil
}

// TestAccFaultProxyClientTokens runs instant fleets against LocalStack through the proxy:
// LocalStack launches again on every CreateFleet whatever its token; the proxy makes a repeat
// with the same token return the first launch, as EC2 does.
func TestAccFaultProxyClientTokens(t *testing.T) {
	t.Parallel()
	c := EC2(t)
	n := NewNetwork(t, NetworkSpec{})
	ctx := Context(t)
	// Registered after the network, so it runs before the network is deleted.
	var fleets []string
	t.Cleanup(func() {
		ctx := context.Background()
		if len(fleets) > 0 {
			if _, err := c.DeleteFleets(ctx, &ec2.DeleteFleetsInput{FleetIds: fleets, TerminateInstances: aws.Bool(true)}); err != nil {
				t.Logf("deleting the test's fleets: %v", err)
			}
		}
		// Whatever is left (also what a broken emulation launched twice).
		ids, err := liveInstances(ctx, c, n.ID)
		if err == nil && len(ids) > 0 {
			_, err = c.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
		}
		if err != nil {
			t.Logf("terminating the test's instances: %v", err)
		}
	})
	lt, err := c.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(n.ID + "-tokens"),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: aws.String(accAMI), InstanceType: ec2types.InstanceTypeT3Micro},
		TagSpecifications:  tagSpec(ec2types.ResourceTypeLaunchTemplate, map[string]string{TagKey: n.ID}),
	})
	if err != nil {
		t.Fatalf("CreateLaunchTemplate: %v", err)
	}
	ltID := lt.LaunchTemplate.LaunchTemplateId
	t.Cleanup(func() {
		if _, err := c.DeleteLaunchTemplate(context.Background(), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: ltID}); err != nil {
			t.Logf("deleting the launch template: %v", err)
		}
	})

	p := NewFaultProxy(t, FaultConfig{ClientTokens: true,
		// Requests 0-2 (launch, replay, mismatch) go through; request 3 launches and loses its answer.
		Script: map[string][]Fault{"CreateFleet": {FaultNone, FaultNone, FaultNone, FaultResetAfterForward}}})
	pc := ec2.New(ec2.Options{
		Region: Region(), BaseEndpoint: aws.String(p.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.RateLimiter = ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 10 * time.Millisecond, nil })
		}),
		HTTPClient: &http.Client{Timeout: 60 * time.Second},
	})
	fleet := func(token string, capacity int32) (*ec2.CreateFleetOutput, error) {
		out, err := pc.CreateFleet(ctx, &ec2.CreateFleetInput{
			Type:        ec2types.FleetTypeInstant,
			ClientToken: aws.String(token),
			LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
				LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: ltID, Version: aws.String("$Default")},
				Overrides: []ec2types.FleetLaunchTemplateOverridesRequest{{
					InstanceType: ec2types.InstanceTypeT3Micro, SubnetId: aws.String(n.Subnets[0].ID),
				}},
			}},
			TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
				TotalTargetCapacity: aws.Int32(capacity), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand,
			},
			TagSpecifications: tagSpec(ec2types.ResourceTypeInstance, map[string]string{TagKey: n.ID, "Name": n.ID + "-tokens"}),
		})
		if err == nil && out.FleetId != nil && !slices.Contains(fleets, *out.FleetId) {
			fleets = append(fleets, *out.FleetId)
		}
		return out, err
	}

	token := RandomName("token")
	first, err := fleet(token, 1)
	if err != nil {
		t.Fatalf("CreateFleet: %v", err)
	}
	if len(fleetIDs(first)) != 1 {
		t.Fatalf("the first fleet launched %v (errors %+v), want one instance", fleetIDs(first), first.Errors)
	}
	again, err := fleet(token, 1)
	if err != nil {
		t.Fatalf("CreateFleet with the same token: %v", err)
	}
	if !slices.Equal(fleetIDs(again), fleetIDs(first)) || aws.ToString(again.FleetId) != aws.ToString(first.FleetId) {
		t.Fatalf("same token answered fleet %s %v, want %s %v", aws.ToString(again.FleetId), fleetIDs(again),
			aws.ToString(first.FleetId), fleetIDs(first))
	}
	_, err = fleet(token, 2)
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "IdempotentParameterMismatch" {
		t.Fatalf("same token, other capacity: want IdempotentParameterMismatch, got %v", err)
	}
	live, err := liveInstances(ctx, c, n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(live, fleetIDs(first)) {
		t.Fatalf("live instances %v after a launch, a replay and a mismatch, want only %v", live, fleetIDs(first))
	}

	// A lost answer: the SDK retries with the same token and gets the instance that launched.
	second, err := fleet(RandomName("token"), 1)
	if err != nil {
		t.Fatalf("CreateFleet after a lost answer: %v", err)
	}
	if live, err = liveInstances(ctx, c, n.ID); err != nil {
		t.Fatal(err)
	}
	if len(fleetIDs(second)) != 1 || len(live) != 2 || !slices.Contains(live, fleetIDs(second)[0]) {
		t.Fatalf("after a lost answer the client got %v; live instances %v, want the first and that one", fleetIDs(second), live)
	}

	st := p.Stats().Actions["CreateFleet"]
	if st.Requests != 5 || st.Forwarded != 2 || st.TokensBound != 2 || st.TokenReplays != 2 || st.TokenMismatches != 1 || st.Retries != 1 {
		t.Fatalf("stats %+v", st)
	}
	t.Logf("\n%s", p.Stats())
}
