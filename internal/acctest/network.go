package acctest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// TagKey is the tag every fixture carries, with the network's unique id as its value.
const TagKey = "karpenter-acc/test"

// Subnet is one fixture subnet.
type Subnet struct {
	ID, Zone, CIDR string
	Tags           map[string]string
}

// SecurityGroup is one fixture security group.
type SecurityGroup struct {
	ID, Name string
	Tags     map[string]string
}

// Network is an isolated VPC with three subnets of different sizes (so their free-IP order is
// known: a /24 in zone a, a /25 in zone b, a /26 in zone c) and two security groups.
//
// Tags: every object has TagKey = ID. Subnets also carry `tier` = private-a, private-b, public-c
// and `zone-tag` = a, b, c; security groups carry `role` = nodes / control.
type Network struct {
	ID             string // the unique tag value
	VPCID          string
	Subnets        []Subnet // zone a, b, c
	SecurityGroups []SecurityGroup
}

// NetworkSpec tweaks the fixture.
type NetworkSpec struct {
	// ExtraSubnetTags are added to subnet i (0, 1, 2).
	ExtraSubnetTags map[int]map[string]string
	// ExtraSecurityGroupTags are added to security group i (0 nodes, 1 control).
	ExtraSecurityGroupTags map[int]map[string]string
	// NoNodeToNode leaves out the rule each group has by default, all traffic from itself (what
	// a cluster's node group has, and what the default node-to-node check looks for).
	NoNodeToNode bool
}

// NewNetwork creates the fixture and removes it when the test ends.
func NewNetwork(t testing.TB, spec NetworkSpec) *Network {
	t.Helper()
	c := EC2(t)
	ctx := Context(t)
	n, err := CreateNetwork(ctx, c, RandomName("acc"), spec)
	if n != nil {
		t.Cleanup(func() {
			if err := n.Delete(context.Background(), c); err != nil {
				t.Logf("fixture cleanup: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatalf("creating fixture network: %v", err)
	}
	return n
}

// Keys are sorted: a request built twice from one map must serialize the same (a repeated
// CreateFleet with one client token is compared parameter by parameter).
func tagSpec(rt ec2types.ResourceType, tags map[string]string) []ec2types.TagSpecification {
	var ts []ec2types.Tag
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		ts = append(ts, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: ts}}
}

// CreateNetwork builds the fixture; on error the partial network is returned for cleanup.
func CreateNetwork(ctx context.Context, c *ec2.Client, id string, spec NetworkSpec) (*Network, error) {
	octet := 16 + rand.IntN(200) // VPC CIDRs may overlap across VPCs; vary them anyway for readability
	base := map[string]string{TagKey: id, "Name": id}
	vpc, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{
		CidrBlock:         aws.String(fmt.Sprintf("10.%d.0.0/16", octet)),
		TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, base),
	})
	if err != nil {
		return nil, fmt.Errorf("CreateVpc: %w", err)
	}
	n := &Network{ID: id, VPCID: aws.ToString(vpc.Vpc.VpcId)}

	region := Region()
	layout := []struct{ zone, cidr, tier, zt string }{
		{region + "a", fmt.Sprintf("10.%d.0.0/24", octet), "private-a", "a"},
		{region + "b", fmt.Sprintf("10.%d.1.0/25", octet), "private-b", "b"},
		{region + "c", fmt.Sprintf("10.%d.2.0/26", octet), "public-c", "c"},
	}
	for i, l := range layout {
		tags := map[string]string{TagKey: id, "Name": fmt.Sprintf("%s-%s", id, l.zt), "tier": l.tier, "zone-tag": l.zt}
		for k, v := range spec.ExtraSubnetTags[i] {
			tags[k] = v
		}
		out, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{
			VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String(l.cidr), AvailabilityZone: aws.String(l.zone),
			TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, tags),
		})
		if err != nil {
			return n, fmt.Errorf("CreateSubnet %s: %w", l.zone, err)
		}
		n.Subnets = append(n.Subnets, Subnet{ID: aws.ToString(out.Subnet.SubnetId), Zone: l.zone, CIDR: l.cidr, Tags: tags})
	}

	for i, role := range []string{"nodes", "control"} {
		name := id + "-" + role
		tags := map[string]string{TagKey: id, "role": role}
		for k, v := range spec.ExtraSecurityGroupTags[i] {
			tags[k] = v
		}
		out, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
			GroupName: aws.String(name), Description: aws.String("karpenter provider acceptance test"), VpcId: vpc.Vpc.VpcId,
			TagSpecifications: tagSpec(ec2types.ResourceTypeSecurityGroup, tags),
		})
		if err != nil {
			return n, fmt.Errorf("CreateSecurityGroup %s: %w", name, err)
		}
		n.SecurityGroups = append(n.SecurityGroups, SecurityGroup{ID: aws.ToString(out.GroupId), Name: name, Tags: tags})
		if !spec.NoNodeToNode {
			if _, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
				GroupId: out.GroupId, IpPermissions: []ec2types.IpPermission{Permission("-1", 0, 0, aws.ToString(out.GroupId))},
			}); err != nil {
				return n, fmt.Errorf("AuthorizeSecurityGroupIngress %s: %w", name, err)
			}
		}
	}
	return n, nil
}

// Delete removes the fixture's security groups, subnets and VPC.
func (n *Network) Delete(ctx context.Context, c *ec2.Client) error {
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for _, g := range n.SecurityGroups {
		_, err := c.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(g.ID)})
		keep(err)
	}
	for _, s := range n.Subnets {
		_, err := c.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(s.ID)})
		keep(err)
	}
	if n.VPCID != "" {
		_, err := c.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: aws.String(n.VPCID)})
		keep(err)
	}
	return firstErr
}

// TagSubnet adds tags to a subnet (or any EC2 object) out of band (drift tests).
func TagSubnet(t testing.TB, subnetID string, tags map[string]string) {
	t.Helper()
	var ts []ec2types.Tag
	for k, v := range tags {
		ts = append(ts, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if _, err := EC2(t).CreateTags(Context(t), &ec2.CreateTagsInput{Resources: []string{subnetID}, Tags: ts}); err != nil {
		t.Fatalf("tagging %s: %v", subnetID, err)
	}
}

// UntagSubnet removes tag keys from a subnet out of band.
func UntagSubnet(t testing.TB, subnetID string, keys ...string) {
	t.Helper()
	var ts []ec2types.Tag
	for _, k := range keys {
		ts = append(ts, ec2types.Tag{Key: aws.String(k)})
	}
	if _, err := EC2(t).DeleteTags(Context(t), &ec2.DeleteTagsInput{Resources: []string{subnetID}, Tags: ts}); err != nil {
		t.Fatalf("untagging %s: %v", subnetID, err)
	}
}

// Permission builds one security-group permission: protocol "-1", "tcp", "udp" (or a number),
// an inclusive port range (ignored for "-1"), and the other end of the rule, a group id (`sg-…`)
// or an IPv4 CIDR.
func Permission(protocol string, fromPort, toPort int32, other string) ec2types.IpPermission {
	p := ec2types.IpPermission{IpProtocol: aws.String(protocol)}
	if protocol != "-1" {
		p.FromPort, p.ToPort = aws.Int32(fromPort), aws.Int32(toPort)
	}
	if len(other) > 3 && other[:3] == "sg-" {
		p.UserIdGroupPairs = []ec2types.UserIdGroupPair{{GroupId: aws.String(other)}}
	} else {
		p.IpRanges = []ec2types.IpRange{{CidrIp: aws.String(other)}}
	}
	return p
}

// AuthorizeIngress adds ingress rules to a group out of band and revokes them when the test
// ends (before the fixture network is deleted: a rule that references another group would
// otherwise keep that group in use).
func AuthorizeIngress(t testing.TB, groupID string, perms ...ec2types.IpPermission) {
	t.Helper()
	if _, err := EC2(t).AuthorizeSecurityGroupIngress(Context(t), &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(groupID), IpPermissions: perms,
	}); err != nil {
		t.Fatalf("authorizing ingress on %s: %v", groupID, err)
	}
	t.Cleanup(func() {
		_, _ = EC2(t).RevokeSecurityGroupIngress(context.Background(), &ec2.RevokeSecurityGroupIngressInput{
			GroupId: aws.String(groupID), IpPermissions: perms,
		})
	})
}

// AuthorizeEgress adds egress rules to a group out of band; see AuthorizeIngress.
func AuthorizeEgress(t testing.TB, groupID string, perms ...ec2types.IpPermission) {
	t.Helper()
	if _, err := EC2(t).AuthorizeSecurityGroupEgress(Context(t), &ec2.AuthorizeSecurityGroupEgressInput{
		GroupId: aws.String(groupID), IpPermissions: perms,
	}); err != nil {
		t.Fatalf("authorizing egress on %s: %v", groupID, err)
	}
	t.Cleanup(func() {
		_, _ = EC2(t).RevokeSecurityGroupEgress(context.Background(), &ec2.RevokeSecurityGroupEgressInput{
			GroupId: aws.String(groupID), IpPermissions: perms,
		})
	})
}

// RevokeIngress removes ingress rules from a group out of band (drift tests).
func RevokeIngress(t testing.TB, groupID string, perms ...ec2types.IpPermission) {
	t.Helper()
	if _, err := EC2(t).RevokeSecurityGroupIngress(Context(t), &ec2.RevokeSecurityGroupIngressInput{
		GroupId: aws.String(groupID), IpPermissions: perms,
	}); err != nil {
		t.Fatalf("revoking ingress on %s: %v", groupID, err)
	}
}

// RevokeEgress removes egress rules from a group out of band, e.g. the default all-traffic
// egress to 0.0.0.0/0 (Permission("-1", 0, 0, "0.0.0.0/0")).
func RevokeEgress(t testing.TB, groupID string, perms ...ec2types.IpPermission) {
	t.Helper()
	if _, err := EC2(t).RevokeSecurityGroupEgress(Context(t), &ec2.RevokeSecurityGroupEgressInput{
		GroupId: aws.String(groupID), IpPermissions: perms,
	}); err != nil {
		t.Fatalf("revoking egress on %s: %v", groupID, err)
	}
}
