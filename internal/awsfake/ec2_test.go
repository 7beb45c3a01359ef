package awsfake

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"
)

func tags(kv ...string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, ec2types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func subnetIDs(out *ec2.DescribeSubnetsOutput) []string {
	var ids []string
	for _, s := range out.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	return ids
}

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
	byFilter, _ := f.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-id", "sg-a")}})
	if len(byFilter.SecurityGroups) != 1 || aws.ToString(byFilter.SecurityGroups[0].GroupId) != "sg-a" {
		t.Errorf("groups by filter: %v", byFilter.SecurityGroups)
	}
	rules, _ := f.DescribeSecurityGroupRules(ctx, &ec2.DescribeSecurityGroupRulesInput{Filters: []ec2types.Filter{filter("group-id", "sg-b")}})
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

// EC2's filter semantics: filters AND, values OR, wildcards, tag filters; explicit ids that do
// not exist fail; a filter the fake does not know panics.
func TestEC2Filters(t *testing.T) {
	ctx := context.Background()
	f := &EC2{Subnets: []ec2types.Subnet{
		{SubnetId: aws.String("subnet-a"), VpcId: aws.String("vpc-1"), AvailabilityZone: aws.String("za"), Tags: tags("karpenter.sh/discovery", "c1", "tier", "private")},
		{SubnetId: aws.String("subnet-b"), VpcId: aws.String("vpc-1"), AvailabilityZone: aws.String("zb"), Tags: tags("karpenter.sh/discovery", "c2")},
		{SubnetId: aws.String("subnet-c"), VpcId: aws.String("vpc-2"), AvailabilityZone: aws.String("za"), Tags: tags("tier", "public")},
	}}
	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"tag value", []ec2types.Filter{filter("tag:karpenter.sh/discovery", "c1")}, []string{"subnet-a"}},
		{"values OR", []ec2types.Filter{filter("tag:karpenter.sh/discovery", "c1", "c2")}, []string{"subnet-a", "subnet-b"}},
		{"wildcard", []ec2types.Filter{filter("tag:karpenter.sh/discovery", "c*")}, []string{"subnet-a", "subnet-b"}},
		{"tag-key", []ec2types.Filter{filter("tag-key", "tier")}, []string{"subnet-a", "subnet-c"}},
		{"tag-value", []ec2types.Filter{filter("tag-value", "pub*")}, []string{"subnet-c"}},
		{"filters AND", []ec2types.Filter{filter("tag-key", "tier"), filter("vpc-id", "vpc-1")}, []string{"subnet-a"}},
		{"zone", []ec2types.Filter{filter("availability-zone", "za")}, []string{"subnet-a", "subnet-c"}},
		{"no match", []ec2types.Filter{filter("subnet-id", "subnet-z")}, nil},
	} {
		out, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: tc.filters})
		if err != nil || !slices.Equal(subnetIDs(out), tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, subnetIDs(out), err, tc.want)
		}
	}
	if _, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-a", "subnet-z"}}); code(err) != "InvalidSubnetID.NotFound" {
		t.Errorf("unknown explicit id: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("an unknown filter did not panic")
			}
		}()
		_, _ = f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("map-public-ip-on-launch", "true")}})
	}()
}

// Paginators walk the pages; tokens are page numbers.
func TestEC2Pagination(t *testing.T) {
	f := &EC2{PageSize: map[string]int{"DescribeSubnets": 2}}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		f.Subnets = append(f.Subnets, ec2types.Subnet{SubnetId: aws.String("subnet-" + id)})
	}
	p := ec2.NewDescribeSubnetsPaginator(f, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(500)})
	var ids []string
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, subnetIDs(out)...)
	}
	var tokens []string
	for _, in := range Inputs[ec2.DescribeSubnetsInput](f) {
		tokens = append(tokens, aws.ToString(in.NextToken))
	}
	if len(ids) != 5 || !slices.Equal(tokens, []string{"", "1", "2"}) {
		t.Errorf("ids %v in pages with tokens %q", ids, tokens)
	}
}

func TestEC2LaunchTemplates(t *testing.T) {
	ctx := context.Background()
	f := &EC2{}
	data := &ec2types.RequestLaunchTemplateData{
		ImageId: aws.String("ami-1"), UserData: aws.String("dXNlcmRhdGE="),
		MetadataOptions:    &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{HttpTokens: ec2types.LaunchTemplateHttpTokensStateRequired, HttpPutResponseHopLimit: aws.Int32(1)},
		IamInstanceProfile: &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String("profile")},
		NetworkInterfaces:  []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{{DeviceIndex: aws.Int32(0), Groups: []string{"sg-1"}}},
		BlockDeviceMappings: []ec2types.LaunchTemplateBlockDeviceMappingRequest{{DeviceName: aws.String("/dev/xvda"),
			Ebs: &ec2types.LaunchTemplateEbsBlockDeviceRequest{VolumeSize: aws.Int32(20), VolumeType: ec2types.VolumeTypeGp3}}},
		TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{{ResourceType: ec2types.ResourceTypeInstance, Tags: tags("fingerprint", "fp-1")}},
	}
	created, err := f.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("c/pool/a"), LaunchTemplateData: data,
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: tags("owner", "o1")}}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.LaunchTemplate.LaunchTemplateId
	if _, err := f.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("c/pool/a")}); code(err) != "InvalidLaunchTemplateName.AlreadyExistsException" {
		t.Errorf("a taken name: %v", err)
	}

	// The data reads back as written.
	v, err := f.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: id, Versions: []string{"$Default"}})
	if err != nil || len(v.LaunchTemplateVersions) != 1 {
		t.Fatalf("versions %v, %v", v, err)
	}
	got := v.LaunchTemplateVersions[0].LaunchTemplateData
	if aws.ToString(got.ImageId) != "ami-1" || aws.ToString(got.UserData) != "dXNlcmRhdGE=" || got.MetadataOptions.HttpTokens != "required" ||
		aws.ToString(got.IamInstanceProfile.Name) != "profile" || !slices.Equal(got.NetworkInterfaces[0].Groups, []string{"sg-1"}) ||
		aws.ToInt32(got.BlockDeviceMappings[0].Ebs.VolumeSize) != 20 || got.BlockDeviceMappings[0].Ebs.VolumeType != "gp3" ||
		!reflect.DeepEqual(got.TagSpecifications[0].Tags, tags("fingerprint", "fp-1")) || !aws.ToBool(v.LaunchTemplateVersions[0].DefaultVersion) {
		t.Errorf("data read back: %+v", got)
	}

	// A new version becomes the default only when made so.
	nv, err := f.CreateLaunchTemplateVersion(ctx, &ec2.CreateLaunchTemplateVersionInput{LaunchTemplateId: id,
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: aws.String("ami-2")}})
	if err != nil || aws.ToInt64(nv.LaunchTemplateVersion.VersionNumber) != 2 {
		t.Fatalf("new version %v, %v", nv, err)
	}
	image := func(version string) string {
		out, err := f.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateName: aws.String("c/pool/a"), Versions: []string{version}})
		if err != nil {
			return err.Error()
		}
		return aws.ToString(out.LaunchTemplateVersions[0].LaunchTemplateData.ImageId)
	}
	if image("$Default") != "ami-1" || image("$Latest") != "ami-2" || image("2") != "ami-2" {
		t.Errorf("default %s, latest %s", image("$Default"), image("$Latest"))
	}
	if _, err := f.ModifyLaunchTemplate(ctx, &ec2.ModifyLaunchTemplateInput{LaunchTemplateId: id, DefaultVersion: aws.String("2")}); err != nil || image("$Default") != "ami-2" {
		t.Errorf("modify: %v, default %s", err, image("$Default"))
	}
	if _, err := f.ModifyLaunchTemplate(ctx, &ec2.ModifyLaunchTemplateInput{LaunchTemplateId: id, DefaultVersion: aws.String("7")}); code(err) != "InvalidLaunchTemplateId.VersionNotFound" {
		t.Errorf("an unknown version: %v", err)
	}

	// Lookups by tag, name, id.
	byTag, err := f.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{filter("tag:owner", "o1")}})
	if err != nil || len(byTag.LaunchTemplates) != 1 || aws.ToInt64(byTag.LaunchTemplates[0].DefaultVersionNumber) != 2 {
		t.Errorf("by tag: %v, %v", byTag, err)
	}
	if _, err := f.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{"nope"}}); code(err) != "InvalidLaunchTemplateName.NotFoundException" {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := f.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: id}); err != nil || len(f.LaunchTemplates) != 0 || len(f.LaunchTemplateVersions) != 0 {
		t.Errorf("delete: %v, %d templates, %d versions left", err, len(f.LaunchTemplates), len(f.LaunchTemplateVersions))
	}
	if _, err := f.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: id}); code(err) != "InvalidLaunchTemplateId.NotFound" {
		t.Errorf("a deleted template: %v", err)
	}
}

// fleetFake holds template lt-1 (instance tags from-template=yes, shared=template) and subnet
// subnet-a in za.
func fleetFake() *EC2 {
	return &EC2{
		Subnets:         []ec2types.Subnet{{SubnetId: aws.String("subnet-a"), VpcId: aws.String("vpc-1"), AvailabilityZone: aws.String("za")}},
		LaunchTemplates: []ec2types.LaunchTemplate{{LaunchTemplateId: aws.String("lt-1"), LaunchTemplateName: aws.String("t"), DefaultVersionNumber: aws.Int64(1)}},
		LaunchTemplateVersions: []ec2types.LaunchTemplateVersion{{LaunchTemplateId: aws.String("lt-1"), VersionNumber: aws.Int64(1),
			LaunchTemplateData: &ec2types.ResponseLaunchTemplateData{ImageId: aws.String("ami-1"), TagSpecifications: []ec2types.LaunchTemplateTagSpecification{
				{ResourceType: ec2types.ResourceTypeInstance, Tags: tags("from-template", "yes", "shared", "template")}}}}},
	}
}

func fleetRequest(template string, count int32, overrides ...ec2types.FleetLaunchTemplateOverridesRequest) *ec2.CreateFleetInput {
	return &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant, ClientToken: aws.String("tok"),
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: aws.String(template), Version: aws.String("$Default")},
			Overrides:                   overrides,
		}},
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(count), DefaultTargetCapacityType: "spot"},
		TagSpecifications:           []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: tags("shared", "request", "pool", "p1")}},
	}
}

// An instant fleet launches its capacity from the lowest-priority override, with the template's
// and the request's tags; instances list and terminate.
func TestEC2Fleets(t *testing.T) {
	ctx := context.Background()
	f := fleetFake()
	out, err := f.CreateFleet(ctx, fleetRequest("lt-1", 2,
		ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "m5.large", SubnetId: aws.String("subnet-a"), Priority: aws.Float64(0.096)},
		ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "t3.large", SubnetId: aws.String("subnet-a"), Priority: aws.Float64(0.083)},
		ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "c5.large", SubnetId: aws.String("subnet-a")},
	))
	if err != nil || len(out.Instances) != 1 || len(out.Instances[0].InstanceIds) != 2 || out.Instances[0].InstanceType != "t3.large" || aws.ToString(out.FleetId) == "" {
		t.Fatalf("fleet %+v, %v", out, err)
	}
	i := f.Instances[0]
	if i.InstanceType != "t3.large" || aws.ToString(i.ImageId) != "ami-1" || aws.ToString(i.Placement.AvailabilityZone) != "za" || aws.ToString(i.VpcId) != "vpc-1" ||
		i.State.Name != "running" || i.InstanceLifecycle != "spot" || !reflect.DeepEqual(i.Tags, tags("from-template", "yes", "shared", "request", "pool", "p1")) {
		t.Errorf("instance %+v", i)
	}
	if !f.Instances[0].LaunchTime.Before(*f.Instances[1].LaunchTime) {
		t.Error("launch times are not ordered")
	}
	if _, err := f.CreateFleet(ctx, fleetRequest("lt-9", 1)); code(err) != "InvalidLaunchTemplateId.NotFound" {
		t.Errorf("an unknown template: %v", err)
	}

	running := func() []string {
		out, err := f.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{filter("instance-state-name", "pending", "running"), filter("tag:pool", "p1")}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range out.Reservations {
			for _, i := range r.Instances {
				ids = append(ids, aws.ToString(i.InstanceId))
			}
		}
		return ids
	}
	if ids := running(); !slices.Equal(ids, out.Instances[0].InstanceIds) {
		t.Errorf("running %v, launched %v", ids, out.Instances[0].InstanceIds)
	}
	first := out.Instances[0].InstanceIds[0]
	if _, err := f.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{first, "i-gone"}}); code(err) != "InvalidInstanceID.NotFound" || len(running()) != 2 {
		t.Errorf("a batch with an unknown id: %v, %d running", err, len(running()))
	}
	if _, err := f.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{first}}); err != nil || len(running()) != 1 {
		t.Errorf("terminate: %v, %d running", err, len(running()))
	}
	if d, err := f.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{first}}); err != nil || d.Reservations[0].Instances[0].State.Name != "terminated" {
		t.Errorf("a terminated instance is still described: %v, %v", d, err)
	}
}

func TestEC2CapacityAndSpot(t *testing.T) {
	ctx := context.Background()
	f := &EC2{
		CapacityReservations: []ec2types.CapacityReservation{
			{CapacityReservationId: aws.String("cr-1"), State: "active", InstanceMatchCriteria: "targeted", Tags: tags("team", "ml")},
			{CapacityReservationId: aws.String("cr-2"), State: "expired", InstanceMatchCriteria: "open"},
		},
		PlacementGroups: []ec2types.PlacementGroup{{GroupId: aws.String("pg-1"), GroupName: aws.String("hpc")}},
		SpotPrices: []ec2types.SpotPrice{
			{InstanceType: "m5.large", ProductDescription: ec2types.RIProductDescriptionLinuxUnix, SpotPrice: aws.String("0.03")},
			{InstanceType: "m5.large", ProductDescription: ec2types.RIProductDescriptionWindows, SpotPrice: aws.String("0.09")},
		},
	}
	if _, err := f.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-1"}, MaxResults: aws.Int32(10)}); code(err) != "InvalidParameterCombination" {
		t.Errorf("ids with MaxResults: %v", err)
	}
	if _, err := f.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-1", "cr-9"}}); code(err) != "InvalidCapacityReservationId.NotFound" {
		t.Errorf("an unknown id: %v", err)
	}
	out, err := f.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{filter("state", "active"), filter("tag-key", "team")}})
	if err != nil || len(out.CapacityReservations) != 1 || aws.ToString(out.CapacityReservations[0].CapacityReservationId) != "cr-1" {
		t.Errorf("by filters: %v, %v", out, err)
	}
	if _, err := f.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupNames: []string{"nope"}}); code(err) != "InvalidPlacementGroup.Unknown" {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := f.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupIds: []string{"pg-9"}}); code(err) != "InvalidPlacementGroupId.NotFound" {
		t.Errorf("an unknown id: %v", err)
	}
	spot, err := f.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: []string{"Linux/UNIX"}})
	if err != nil || len(spot.SpotPriceHistory) != 1 || spot.NextToken == nil || *spot.NextToken != "" {
		t.Errorf("spot: %+v, %v (the last page carries an empty token)", spot, err)
	}
}

// The HTTP front serves the SDK's own requests.
func TestEC2HTTP(t *testing.T) {
	f := fleetFake()
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := ec2.New(ec2.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(srv.URL), Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	ctx := context.Background()

	out, err := c.CreateFleet(ctx, fleetRequest("lt-1", 2, ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "m5.large", SubnetId: aws.String("subnet-a"), Priority: aws.Float64(1)}))
	if err != nil || len(out.Instances) != 1 || !slices.Equal(out.Instances[0].InstanceIds, []string{aws.ToString(f.Instances[0].InstanceId), aws.ToString(f.Instances[1].InstanceId)}) ||
		aws.ToString(out.FleetId) == "" || out.Instances[0].InstanceType != "m5.large" {
		t.Fatalf("CreateFleet over HTTP: %+v, %v", out, err)
	}
	in := Inputs[ec2.CreateFleetInput](f)[0]
	if aws.ToString(in.ClientToken) != "tok" || !reflect.DeepEqual(in.TagSpecifications[0].Tags, tags("shared", "request", "pool", "p1")) ||
		aws.ToFloat64(in.LaunchTemplateConfigs[0].Overrides[0].Priority) != 1 {
		t.Errorf("the request as decoded: %+v", in)
	}
	run, err := c.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1), InstanceType: "t3.micro", ImageId: aws.String("ami-9"),
		SubnetId: aws.String("subnet-a"), TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: tags("k", "v")}}})
	if err != nil || len(run.Instances) != 1 || run.Instances[0].State.Name != "running" || aws.ToString(run.Instances[0].Placement.AvailabilityZone) != "za" ||
		!reflect.DeepEqual(run.Instances[0].Tags, tags("k", "v")) {
		t.Fatalf("RunInstances over HTTP: %+v, %v", run, err)
	}

	f.FailNext = map[string][]error{"CreateFleet": {apiError("Unavailable", "down")}}
	_, err = c.CreateFleet(ctx, fleetRequest("lt-1", 1))
	var re interface{ HTTPStatusCode() int }
	if code(err) != "Unavailable" || !errors.As(err, &re) || re.HTTPStatusCode() != 503 {
		t.Errorf("a failure over HTTP: %v", err)
	}
	if _, err := c.CreateFleet(ctx, fleetRequest("lt-9", 1)); code(err) != "InvalidLaunchTemplateId.NotFound" {
		t.Errorf("an API error over HTTP: %v", err)
	}
	if _, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); code(err) != "InvalidAction" {
		t.Errorf("an action the front does not serve: %v", err)
	}
}
