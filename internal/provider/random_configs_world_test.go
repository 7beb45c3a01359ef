package provider

import (
	"context"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// The AWS account the random configurations plan against: internal/awsfake's EC2 and IAM fakes
// and an SSM fake of the AMI parameters, in memory, every call recorded.
const (
	worldRegion  = "ap-southeast-1"
	worldCluster = "my-cluster"
	worldRole    = "KarpenterNodeRole-my-cluster"
	worldAccount = "111122223333"
)

var worldZones = []string{"ap-southeast-1a", "ap-southeast-1b", "ap-southeast-1c"}

// fakeSSM answers every public AWS parameter (the AMI aliases' and `ssm_parameter` terms under
// /aws/service/) with an image of the world, and ParameterNotFound for any other name.
type fakeSSM struct {
	mu  sync.Mutex
	ops []string
}

func (f *fakeSSM) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	f.mu.Lock()
	f.ops = append(f.ops, "GetParameter")
	f.mu.Unlock()
	name := aws.ToString(in.Name)
	if !strings.HasPrefix(name, "/aws/service/") {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String(name)}
	}
	id := "ami-0a1202300000x8664"
	if strings.Contains(name, "arm64") {
		id = "ami-0a1202300000arm64"
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: in.Name, Value: aws.String(id)}}, nil
}

// world is one account's fakes; every provider process of a run shares it.
type world struct {
	ec2 *awsfake.EC2
	iam *awsfake.IAM
	ssm *fakeSSM
}

func tag(k, v string) ec2types.Tag { return ec2types.Tag{Key: aws.String(k), Value: aws.String(v)} }

func newWorld() *world {
	f := &awsfake.EC2{}
	discoveryTag := tag("karpenter.sh/discovery", worldCluster)
	for i, z := range worldZones {
		id := "subnet-0" + string(rune('a'+i)) + "000000000000001"
		f.Subnets = append(f.Subnets, ec2types.Subnet{SubnetId: aws.String(id), VpcId: aws.String("vpc-01"), AvailabilityZone: aws.String(z),
			AvailabilityZoneId: aws.String("apse1-az" + string(rune('1'+i))), CidrBlock: aws.String("10.0." + string(rune('0'+i)) + ".0/24"),
			AvailableIpAddressCount: aws.Int32(200), State: ec2types.SubnetStateAvailable,
			Tags: []ec2types.Tag{discoveryTag, tag("Name", "private-"+z)}})
	}
	f.SecurityGroups = []ec2types.SecurityGroup{
		{GroupId: aws.String("sg-0node0000000000001"), GroupName: aws.String("node"), VpcId: aws.String("vpc-01"), Tags: []ec2types.Tag{discoveryTag}},
		{GroupId: aws.String("sg-0cluster00000000001"), GroupName: aws.String("eks-cluster-sg-my-cluster"), VpcId: aws.String("vpc-01")},
	}
	f.SecurityGroupRules = []ec2types.SecurityGroupRule{
		{SecurityGroupRuleId: aws.String("sgr-1"), GroupId: aws.String("sg-0node0000000000001"), IpProtocol: aws.String("-1"), FromPort: aws.Int32(-1),
			ToPort: aws.Int32(-1), ReferencedGroupInfo: &ec2types.ReferencedSecurityGroup{GroupId: aws.String("sg-0node0000000000001")}},
		{SecurityGroupRuleId: aws.String("sgr-2"), GroupId: aws.String("sg-0node0000000000001"), IsEgress: aws.Bool(true), IpProtocol: aws.String("-1"),
			FromPort: aws.Int32(-1), ToPort: aws.Int32(-1), CidrIpv4: aws.String("0.0.0.0/0")},
	}
	for _, img := range []struct{ id, arch, name string }{
		{"ami-0a1202300000x8664", "x86_64", "amazon-eks-node-al2023-x86_64-standard-1.33-v20260101"},
		{"ami-0a1202300000arm64", "arm64", "amazon-eks-node-al2023-arm64-standard-1.33-v20260101"},
		{"ami-0custom000000000001", "x86_64", "custom-node"},
	} {
		f.Images = append(f.Images, ec2types.Image{ImageId: aws.String(img.id), Name: aws.String(img.name), Architecture: ec2types.ArchitectureValues(img.arch),
			OwnerId: aws.String(worldAccount), CreationDate: aws.String("2026-01-01T00:00:00.000Z"), State: ec2types.ImageStateAvailable,
			Tags: []ec2types.Tag{discoveryTag}})
	}
	worldCatalog(f)
	f.CapacityReservations = []ec2types.CapacityReservation{{CapacityReservationId: aws.String("cr-0000000000000001"),
		InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String(worldZones[0]), AvailableInstanceCount: aws.Int32(2),
		TotalInstanceCount: aws.Int32(2), State: ec2types.CapacityReservationStateActive, OwnerId: aws.String(worldAccount),
		InstanceMatchCriteria: ec2types.InstanceMatchCriteriaTargeted, Tags: []ec2types.Tag{discoveryTag}}}
	f.PlacementGroups = []ec2types.PlacementGroup{{GroupId: aws.String("pg-0000000000000001"), GroupName: aws.String("cluster-pg"),
		Strategy: ec2types.PlacementStrategyCluster, State: ec2types.PlacementGroupStateAvailable}}
	return &world{ec2: f, iam: worldIAM(), ssm: &fakeSSM{}}
}

// worldCatalog is a small catalog of both architectures, offered in every zone.
func worldCatalog(f *awsfake.EC2) {
	f.InstanceTypes = []ec2types.InstanceTypeInfo{
		capInfo("m5.large", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{3}, 10),
		capInfo("m5.xlarge", 4, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{4}, 15),
		capInfo("c5.large", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{3}, 10),
		capInfo("t3.micro", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{2}, 2),
		capInfo("c7g.large", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeArm64, []int32{3}, 10),
		capInfo("m4.large", 2, ec2types.InstanceTypeHypervisorXen, ec2types.ArchitectureTypeX8664, []int32{2}, 10),
	}
	for _, it := range f.InstanceTypes {
		for _, z := range worldZones {
			f.Offerings = append(f.Offerings, ec2types.InstanceTypeOffering{InstanceType: it.InstanceType, Location: aws.String(z)})
			f.SpotPrices = append(f.SpotPrices, ec2types.SpotPrice{InstanceType: it.InstanceType, AvailabilityZone: aws.String(z),
				SpotPrice: aws.String("0.031"), ProductDescription: ec2types.RIProductDescription("Linux/UNIX")})
		}
	}
}

// worldIAM holds the node role with an administrator's policy (the node-role check finds nothing
// missing) and one instance profile of it.
func worldIAM() *awsfake.IAM {
	arn := "arn:aws:iam::" + worldAccount + ":policy/node-admin"
	return &awsfake.IAM{
		Roles: []iamtypes.Role{{RoleName: aws.String(worldRole), Arn: aws.String("arn:aws:iam::" + worldAccount + ":role/" + worldRole)}},
		InstanceProfiles: []iamtypes.InstanceProfile{{InstanceProfileName: aws.String("existing-profile"),
			Roles: []iamtypes.Role{{RoleName: aws.String(worldRole)}}}},
		Policies: awsfake.RolePolicies{Managed: map[string]string{arn: adminPolicyDoc}, Attached: map[string][]string{worldRole: {arn}}},
	}
}

const adminPolicyDoc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`

// client is the provider's AWS client on the world's fakes.
func (w *world) client(context.Context, awsclient.Settings) (*awsclient.Client, error) {
	return &awsclient.Client{EC2: w.ec2, IAM: w.iam, SSM: w.ssm, Region: worldRegion, AccountID: worldAccount,
		Calls: awsclient.NewCallCounter(), Retries: awsclient.NewCallCounter()}, nil
}

// readOnly tells whether an operation only reads: Describe*, Get* and List*.
func readOnly(op string) bool {
	return strings.HasPrefix(op, "Describe") || strings.HasPrefix(op, "Get") || strings.HasPrefix(op, "List")
}

// mutations are the calls of the fakes that were not reads, by operation, since the last
// forget; calls is how many calls they received in all.
func (w *world) mutations() (byOp map[string]int, calls int) {
	byOp = map[string]int{}
	for _, r := range []awsfake.Recorder{w.ec2, w.iam} {
		for _, c := range r.Log() {
			calls++
			if !readOnly(c.Op) {
				byOp[c.Op]++
			}
		}
	}
	w.ssm.mu.Lock()
	calls += len(w.ssm.ops)
	w.ssm.ops = nil
	w.ssm.mu.Unlock()
	w.ec2.ForgetCalls()
	w.iam.ForgetCalls()
	return byOp, calls
}
