package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// newEC2 is the shared EC2 fake holding the pools' launch template lt-a (id lt-1): its instance
// tags name the template and its content fingerprint fp-1, as the provider's templates do.
func newEC2() *awsfake.EC2 {
	instanceTags := []ec2types.Tag{
		{Key: aws.String(launchplan.TagLaunchTemplateName), Value: aws.String("lt-a")},
		{Key: aws.String(launchplan.TagTemplateFingerprint), Value: aws.String("fp-1")},
	}
	return &awsfake.EC2{
		LaunchTemplates: []ec2types.LaunchTemplate{{LaunchTemplateId: aws.String("lt-1"), LaunchTemplateName: aws.String("lt-a"), DefaultVersionNumber: aws.Int64(1)}},
		LaunchTemplateVersions: []ec2types.LaunchTemplateVersion{{LaunchTemplateId: aws.String("lt-1"), LaunchTemplateName: aws.String("lt-a"), VersionNumber: aws.Int64(1),
			LaunchTemplateData: &ec2types.ResponseLaunchTemplateData{TagSpecifications: []ec2types.LaunchTemplateTagSpecification{
				{ResourceType: ec2types.ResourceTypeInstance, Tags: instanceTags}}}}},
	}
}

func stageOf(f *awsfake.EC2) fleet.Stage {
	return fleet.Stage{Templates: awsclient.LaunchTemplates{EC2: f}, Instances: awsclient.Instances{EC2: f}}
}

// launches are the fake's CreateFleet requests, tokens their client tokens.
func launches(f *awsfake.EC2) []ec2.CreateFleetInput { return awsfake.Inputs[ec2.CreateFleetInput](f) }

func tokens(f *awsfake.EC2) []string {
	var out []string
	for _, in := range launches(f) {
		out = append(out, aws.ToString(in.ClientToken))
	}
	return out
}

func tagOf(i ec2types.Instance, key string) string {
	for _, t := range i.Tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

func stateOf(i ec2types.Instance) string { return string(i.State.Name) }

// refuseProfile makes the fake answer its next n CreateFleet calls with EC2's per-override
// error for an instance profile it does not see yet, launching nothing.
func refuseProfile(f *awsfake.EC2, n int) {
	f.Hook = func(_ context.Context, op string, in any) (any, error) {
		if op != "CreateFleet" || n == 0 {
			return nil, nil
		}
		n--
		ov := in.(*ec2.CreateFleetInput).LaunchTemplateConfigs[0].Overrides[0]
		return &ec2.CreateFleetOutput{Errors: []ec2types.CreateFleetError{{ErrorCode: aws.String("InvalidParameterValue"),
			ErrorMessage: aws.String("Value (nodeplane-c1-static-0123456789) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name"),
			LaunchTemplateAndOverrides: &ec2types.LaunchTemplateAndOverridesResponse{
				Overrides: &ec2types.FleetLaunchTemplateOverrides{InstanceType: ov.InstanceType, SubnetId: ov.SubnetId}}}}}, nil
	}
}

func own(owner string) fleet.Ownership {
	return fleet.Ownership{launchplan.TagNodePool: "general", launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: "c1", launchplan.TagOwner: owner}
}

func pool(owner string, replicas int) fleet.Pool {
	return fleet.Pool{
		Name: "general", Replicas: replicas, Own: own(owner), Zones: []string{"za", "zb"},
		LaunchPlan: []launchplan.Option{
			{Zone: "za", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
			{Zone: "zb", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
		},
		Subnets:      []launchplan.Subnet{{ID: "subnet-a", Zone: "za", AvailableIPs: 100}, {ID: "subnet-b", Zone: "zb", AvailableIPs: 100}},
		IPsPerType:   map[string]int{"m5.large": 10},
		CapacityType: "on-demand",
		Templates:    map[string]fleet.LaunchTemplate{"lt-a": {ID: "lt-1", Name: "lt-a", Fingerprint: "fp-1"}},
		Wait:         time.Second,
	}
}

func TestReconcileLaunchesSpreadAndStableTokens(t *testing.T) {
	f := newEC2()
	res := stageOf(f).Reconcile(context.Background(), pool("o1", 3))
	if len(res.Errors) > 0 || len(res.Live) != 3 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	zones := map[string]int{}
	for _, i := range res.Live {
		zones[i.Zone]++
		if i.Tags[launchplan.TagOwner] != "o1" {
			t.Errorf("%s launched without the owner tag: %v", i.ID, i.Tags)
		}
	}
	if zones["za"]+zones["zb"] != 3 || zones["za"] == 0 || zones["zb"] == 0 {
		t.Errorf("not spread over the zones: %v", zones)
	}
	// A second reconcile at replicas changes nothing.
	before := f.Calls("CreateFleet")
	if res := stageOf(f).Reconcile(context.Background(), pool("o1", 3)); len(res.Live) != 3 || f.Calls("CreateFleet") != before {
		t.Errorf("second reconcile: live %d, launches %d -> %d", len(res.Live), before, f.Calls("CreateFleet"))
	}
}

// Scale 3 -> 0 -> 3: every launch attempt gets its own token, so none meets a token AWS still
// binds to an earlier request.
func TestReconcileTokensNeverRepeat(t *testing.T) {
	f := newEC2()
	s := stageOf(f)
	for _, n := range []int{3, 0, 3, 0, 3} {
		if res := s.Reconcile(context.Background(), pool("o1", n)); len(res.Errors) > 0 || len(res.Live) != n {
			t.Fatalf("replicas %d: errors %v, live %d", n, res.Errors, len(res.Live))
		}
	}
	seen := map[string]bool{}
	for _, tok := range tokens(f) {
		if tok == "" || seen[tok] {
			t.Errorf("token %q empty or reused: %v", tok, tokens(f))
		}
		seen[tok] = true
	}
	if len(tokens(f)) < 6 {
		t.Errorf("%d launches, want one per zone per fill (6)", len(tokens(f)))
	}
}

// Instances of another owner, with the same pool name and cluster, are neither counted,
// adopted nor terminated.
func TestReconcileLeavesOtherOwners(t *testing.T) {
	f := newEC2()
	if res := stageOf(f).Reconcile(context.Background(), pool("other", 2)); len(res.Live) != 2 {
		t.Fatalf("other owner: %d live", len(res.Live))
	}
	res := stageOf(f).Reconcile(context.Background(), pool("mine", 1))
	if len(res.Live) != 1 || res.Live[0].Tags[launchplan.TagOwner] != "mine" {
		t.Fatalf("mine: %+v", res.Live)
	}
	if err := stageOf(f).TerminateAll(context.Background(), own("mine"), time.Second); err != nil {
		t.Fatal(err)
	}
	for _, i := range f.Instances {
		if tagOf(i, launchplan.TagOwner) == "other" && stateOf(i) != "running" {
			t.Errorf("another owner's instance %s is %s", aws.ToString(i.InstanceId), stateOf(i))
		}
		if tagOf(i, launchplan.TagOwner) == "mine" && stateOf(i) != "terminated" {
			t.Errorf("own instance %s is %s", aws.ToString(i.InstanceId), stateOf(i))
		}
	}
}

// A node in a subnet the class no longer selects is replaced: the replacement launches first,
// then the node is terminated.
func TestReconcileReplacesNodesOutsideTheClass(t *testing.T) {
	f := newEC2()
	s := stageOf(f)
	if res := s.Reconcile(context.Background(), pool("o1", 2)); len(res.Live) != 2 {
		t.Fatal(res.Errors)
	}
	p := pool("o1", 2)
	p.Subnets = []launchplan.Subnet{{ID: "subnet-a", Zone: "za", AvailableIPs: 100}, {ID: "subnet-b2", Zone: "zb", AvailableIPs: 100}}
	res := s.Reconcile(context.Background(), p)
	if len(res.Errors) > 0 || len(res.Live) != 2 {
		t.Fatalf("errors %v, live %+v", res.Errors, res.Live)
	}
	for _, i := range res.Live {
		if i.Zone == "zb" && i.SubnetID != "subnet-b2" {
			t.Errorf("zone b node %s still in %s", i.ID, i.SubnetID)
		}
	}
	for _, i := range f.Instances {
		if aws.ToString(i.SubnetId) == "subnet-b" && stateOf(i) != "terminated" {
			t.Errorf("node %s in the dropped subnet is %s", aws.ToString(i.InstanceId), stateOf(i))
		}
	}
}

// The after-launch hook stops the reconcile right after a fleet, as a crash would.
func TestReconcileAfterLaunchAborts(t *testing.T) {
	f := newEC2()
	s := stageOf(f)
	s.AfterLaunch = func(string) error { return errors.New("crash") }
	res := s.Reconcile(context.Background(), pool("o1", 2))
	if !res.Aborted || f.Calls("CreateFleet") != 1 {
		t.Fatalf("aborted %v after %d launches", res.Aborted, f.Calls("CreateFleet"))
	}
	// The re-run adopts what launched and completes the pool.
	s.AfterLaunch = nil
	if res := s.Reconcile(context.Background(), pool("o1", 2)); len(res.Live) != 2 || len(res.Errors) > 0 {
		t.Fatalf("re-run: live %d, errors %v", len(res.Live), res.Errors)
	}
	if n := len(f.Instances); n != 2 {
		t.Errorf("%d instances exist, want 2", n)
	}
}

func TestReconcileLaunchFailureIsOnReplicas(t *testing.T) {
	f := newEC2()
	f.Fail = map[string]error{"CreateFleet": errors.New("boom")}
	res := stageOf(f).Reconcile(context.Background(), pool("o1", 2))
	if len(res.Errors) != 1 || !res.Errors[0].OnReplicas {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// Templates: a planned name another owner holds fails; stale own templates are deleted, another
// owner's never.
func TestEnsureTemplatesOwnership(t *testing.T) {
	f := &awsfake.EC2{}
	s := stageOf(f)
	planned := []launchplan.LaunchTemplate{{Name: "c1/general/aaaa", Tags: own("o1")}, {Name: "c1/general/bbbb", Tags: own("o1")}}
	ensured, err := s.EnsureTemplates(context.Background(), own("o1"), planned)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureTemplates(context.Background(), own("o2"), []launchplan.LaunchTemplate{{Name: "c1/general/aaaa", Tags: own("o2")}}); !errors.Is(err, awsclient.ErrOwnedByOther) {
		t.Fatalf("another owner's template was taken over: %v", err)
	}
	if _, err := s.EnsureTemplates(context.Background(), own("o1"), planned[:1]); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, in := range awsfake.Inputs[ec2.DeleteLaunchTemplateInput](f) {
		deleted = append(deleted, aws.ToString(in.LaunchTemplateId))
	}
	if !slices.Equal(deleted, []string{ensured["c1/general/bbbb"].ID}) {
		t.Errorf("deleted %v, want only the stale own template", deleted)
	}
	if err := s.DeleteTemplates(context.Background(), own("o2")); err != nil || len(f.LaunchTemplates) != 1 {
		t.Errorf("another owner's delete touched o1's templates: %v, %d left", err, len(f.LaunchTemplates))
	}
}

func TestNewOwnerID(t *testing.T) {
	a, b := fleet.NewOwnerID(), fleet.NewOwnerID()
	if len(a) != 16 || a == b {
		t.Errorf("owner ids %q %q", a, b)
	}
}

// A profile created right before the pool's first launch: EC2 refuses it until IAM makes it
// visible. The stage waits and tries again, each attempt with a new token, and gives up after
// ProfileAttempts with EC2's message.
func TestReconcileWaitsForANewInstanceProfile(t *testing.T) {
	f := newEC2()
	refuseProfile(f, 2)
	var waits []time.Duration
	s := stageOf(f)
	s.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	res := s.Reconcile(context.Background(), pool("o1", 2))
	if len(res.Errors) > 0 || len(res.Live) != 2 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	if !slices.Equal(waits, []time.Duration{fleet.ProfileBackoff, 2 * fleet.ProfileBackoff}) || f.Calls("CreateFleet") != 4 {
		t.Fatalf("waits %v, launches %d; want two growing waits and 2 refused + 2 launches", waits, f.Calls("CreateFleet"))
	}
	if seen := map[string]bool{}; len(tokens(f)) != 4 || func() bool {
		for _, tok := range tokens(f) {
			if seen[tok] {
				return true
			}
			seen[tok] = true
		}
		return false
	}() {
		t.Fatalf("tokens %v: every attempt needs its own", tokens(f))
	}

	// A profile that never appears: ProfileAttempts launches, then EC2's message on replicas.
	f = newEC2()
	refuseProfile(f, 100)
	s = stageOf(f)
	s.Sleep = func(context.Context, time.Duration) error { return nil }
	res = s.Reconcile(context.Background(), pool("o1", 1))
	if len(res.Live) != 0 || len(res.Errors) == 0 || f.Calls("CreateFleet") != fleet.ProfileAttempts ||
		!strings.Contains(res.Errors[0].Error(), "Invalid IAM Instance Profile name") {
		t.Fatalf("live %d, launches %d, errors %v", len(res.Live), f.Calls("CreateFleet"), res.Errors)
	}
}

// The overrides of a zone are the plan's options of the pool's capacity type, in the plan's
// (price) order, each with its offering's price as the priority, as Karpenter sends them.
func TestReconcileOverridesCarryThePlansPrices(t *testing.T) {
	f := newEC2()
	p := pool("o1", 1)
	p.Zones = []string{"za"}
	p.LaunchPlan = []launchplan.Option{
		{Zone: "za", CapacityType: "on-demand", InstanceType: "t3.large", LaunchTemplate: "lt-a", Price: 0.0832},
		{Zone: "za", CapacityType: "on-demand", InstanceType: "c5.large", LaunchTemplate: "lt-a", Price: 0.085},
		{Zone: "za", CapacityType: "spot", InstanceType: "m5.large", LaunchTemplate: "lt-a", Price: 0.03},
		{Zone: "zb", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a", Price: 0.096},
	}
	if res := stageOf(f).Reconcile(context.Background(), p); len(res.Errors) > 0 || len(res.Live) != 1 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	if len(launches(f)) != 1 {
		t.Fatalf("%d launches", len(launches(f)))
	}
	var got []string
	for _, c := range launches(f)[0].LaunchTemplateConfigs {
		for _, o := range c.Overrides {
			got = append(got, fmt.Sprintf("%s %s %v", o.InstanceType, aws.ToString(o.AvailabilityZone), aws.ToFloat64(o.Priority)))
		}
	}
	if want := []string{"t3.large za 0.0832", "c5.large za 0.085"}; !slices.Equal(got, want) {
		t.Errorf("overrides %v, want %v", got, want)
	}
}
