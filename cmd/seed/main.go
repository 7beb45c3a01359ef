// Command seed creates the tutorial's VPC in an EC2 endpoint (LocalStack by default),
// idempotently: cluster my-cluster in ap-southeast-1, three subnets tagged
// karpenter.sh/discovery=my-cluster in zones a, b and c (the zone-a one also purpose=hpc), a
// security group tagged for discovery, and the node role KarpenterNodeRole-my-cluster that the
// quickstart's node classes name (the provider checks at plan that it exists). Running it again
// finds and reuses what exists.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

const seedTag = "nodeplane.io/seed"

func main() {
	cluster := flag.String("cluster", "my-cluster", "cluster name for the discovery tag")
	region := flag.String("region", envOr("AWS_REGION", "ap-southeast-1"), "AWS region")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(*region))
	if err != nil {
		log.Fatalf("seed: loading AWS config: %v", err)
	}
	c := ec2.NewFromConfig(cfg)
	if err := seed(ctx, c, *cluster, *region); err != nil {
		log.Fatalf("seed: %v", err)
	}
	if err := seedRole(ctx, iam.NewFromConfig(cfg), *cluster); err != nil {
		log.Fatalf("seed: %v", err)
	}
}

// nodeTrustPolicy lets EC2 instances assume the role.
const nodeTrustPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// seedRole creates the node role KarpenterNodeRole-<cluster> unless it exists.
func seedRole(ctx context.Context, c *iam.Client, cluster string) error {
	name := "KarpenterNodeRole-" + cluster
	got, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	var nse *iamtypes.NoSuchEntityException
	switch {
	case err == nil && seeded(got.Role.Tags):
		fmt.Printf("iam role       %s (exists)\n", name)
		return attachNodePolicies(ctx, c, name) // roles seeded before the node-role check had none
	case err == nil:
		fmt.Printf("iam role       %s (exists, not seeded: left as it is)\n", name)
		return nil
	case !errors.As(err, &nse):
		return fmt.Errorf("GetRole: %w", err)
	}
	if _, err := c.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(nodeTrustPolicy),
		Tags: []iamtypes.Tag{{Key: aws.String(seedTag), Value: aws.String(cluster)}},
	}); err != nil {
		return fmt.Errorf("CreateRole: %w", err)
	}
	fmt.Printf("iam role       %s (created, with the worker, CNI and registry managed policies)\n", name)
	return attachNodePolicies(ctx, c, name)
}

// attachNodePolicies attaches nodePolicies to the role (attaching twice changes nothing).
func attachNodePolicies(ctx context.Context, c *iam.Client, role string) error {
	partition := awsclient.PartitionOfRegion(c.Options().Region)
	for _, name := range nodePolicies {
		arn := awsclient.ManagedPolicyARN(partition, name)
		if _, err := c.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)}); err != nil {
			return fmt.Errorf("AttachRolePolicy %s: %w", arn, err)
		}
	}
	return nil
}

// seeded reports whether the seed created the role (its tag).
func seeded(tags []iamtypes.Tag) bool {
	for _, t := range tags {
		if aws.ToString(t.Key) == seedTag {
			return true
		}
	}
	return false
}

// nodePolicies are the AWS managed policies of an EKS node role, which the node class's
// node-role check looks for (names: their ARNs are in the region's partition).
var nodePolicies = []string{"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly"}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func tags(kv ...string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, ec2types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

func byTag(k, v string) []ec2types.Filter {
	return []ec2types.Filter{{Name: aws.String("tag:" + k), Values: []string{v}}}
}

func seed(ctx context.Context, c *ec2.Client, cluster, region string) error {
	discovery := "karpenter.sh/discovery"
	vpcs, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: byTag(seedTag, cluster)})
	if err != nil {
		return fmt.Errorf("DescribeVpcs: %w", err)
	}
	var vpcID string
	if len(vpcs.Vpcs) > 0 {
		vpcID = aws.ToString(vpcs.Vpcs[0].VpcId)
		fmt.Printf("vpc            %s (exists)\n", vpcID)
	} else {
		out, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{
			CidrBlock: aws.String("10.0.0.0/16"),
			TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeVpc,
				Tags: tags("Name", cluster, seedTag, cluster)}},
		})
		if err != nil {
			return fmt.Errorf("CreateVpc: %w", err)
		}
		vpcID = aws.ToString(out.Vpc.VpcId)
		fmt.Printf("vpc            %s (created)\n", vpcID)
	}

	subnets := []struct {
		zone, cidr string
		extra      []string
	}{
		{region + "a", "10.0.0.0/20", []string{"purpose", "hpc"}},
		{region + "b", "10.0.16.0/20", nil},
		{region + "c", "10.0.32.0/24", nil},
	}
	for _, s := range subnets {
		name := fmt.Sprintf("%s-private-%s", cluster, s.zone[len(s.zone)-1:])
		found, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: append(byTag(seedTag, cluster),
			ec2types.Filter{Name: aws.String("tag:Name"), Values: []string{name}})})
		if err != nil {
			return fmt.Errorf("DescribeSubnets: %w", err)
		}
		if len(found.Subnets) > 0 {
			fmt.Printf("subnet         %s %s %s (exists)\n", aws.ToString(found.Subnets[0].SubnetId), s.zone, s.cidr)
			continue
		}
		kv := append([]string{"Name", name, seedTag, cluster, discovery, cluster}, s.extra...)
		out, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{
			VpcId: aws.String(vpcID), CidrBlock: aws.String(s.cidr), AvailabilityZone: aws.String(s.zone),
			TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSubnet, Tags: tags(kv...)}},
		})
		if err != nil {
			return fmt.Errorf("CreateSubnet %s: %w", s.zone, err)
		}
		fmt.Printf("subnet         %s %s %s (created)\n", aws.ToString(out.Subnet.SubnetId), s.zone, s.cidr)
	}

	sgName := cluster + "-nodes"
	sgs, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: append(byTag(seedTag, cluster),
		ec2types.Filter{Name: aws.String("group-name"), Values: []string{sgName}})})
	if err != nil {
		return fmt.Errorf("DescribeSecurityGroups: %w", err)
	}
	if len(sgs.SecurityGroups) > 0 {
		fmt.Printf("security group %s %s (exists)\n", aws.ToString(sgs.SecurityGroups[0].GroupId), sgName)
		return nil
	}
	out, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String(sgName), Description: aws.String("nodes of " + cluster), VpcId: aws.String(vpcID),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup,
			Tags: tags("Name", sgName, seedTag, cluster, discovery, cluster)}},
	})
	if err != nil {
		return fmt.Errorf("CreateSecurityGroup: %w", err)
	}
	// Node-to-node traffic, as the tutorial asks of the discovered group.
	if _, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: out.GroupId,
		IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: out.GroupId}}}},
	}); err != nil {
		return fmt.Errorf("AuthorizeSecurityGroupIngress: %w", err)
	}
	fmt.Printf("security group %s %s (created)\n", aws.ToString(out.GroupId), sgName)
	return nil
}
