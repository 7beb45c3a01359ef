package awsclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// rulesInputs are the DescribeSecurityGroups requests the fake received.
func rulesInputs(f *awsfake.EC2) []ec2.DescribeSecurityGroupsInput {
	return awsfake.Inputs[ec2.DescribeSecurityGroupsInput](f)
}

func groups(ids ...string) []ec2types.SecurityGroup {
	out := make([]ec2types.SecurityGroup, len(ids))
	for i, id := range ids {
		out[i] = ec2types.SecurityGroup{GroupId: aws.String(id), VpcId: aws.String("vpc-1")}
	}
	return out
}

func sgRule(id, group string, egress bool, proto string, from, to int32, cidr, ref string) ec2types.SecurityGroupRule {
	r := ec2types.SecurityGroupRule{SecurityGroupRuleId: aws.String(id), GroupId: aws.String(group), IsEgress: aws.Bool(egress),
		IpProtocol: aws.String(proto), FromPort: aws.Int32(from), ToPort: aws.Int32(to)}
	if cidr != "" {
		r.CidrIpv4 = aws.String(cidr)
	}
	if ref != "" {
		r.ReferencedGroupInfo = &ec2types.ReferencedSecurityGroup{GroupId: aws.String(ref)}
	}
	return r
}

// The rules of groups the discovery has not described are read from DescribeSecurityGroups (its
// IpPermissions, one rule per peer), a group-id filter of the unique ids, every page.
func TestFindSecurityGroupRules(t *testing.T) {
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeSecurityGroups": 1}, SecurityGroups: groups("sg-a", "sg-b", "sg-other"), SecurityGroupRules: []ec2types.SecurityGroupRule{
		sgRule("sgr-3", "sg-b", true, "-1", -1, -1, "0.0.0.0/0", ""),
		sgRule("sgr-2", "sg-a", false, "tcp", 443, 443, "", "sg-cp"),
		sgRule("sgr-1", "sg-a", true, "-1", -1, -1, "0.0.0.0/0", ""),
		sgRule("sgr-0", "sg-a", false, "-1", -1, -1, "", "sg-a"),
		sgRule("sgr-9", "sg-other", false, "-1", -1, -1, "", "sg-other"),
		{SecurityGroupRuleId: aws.String("sgr-4"), GroupId: aws.String("sg-b"), IsEgress: aws.Bool(false), IpProtocol: aws.String("17"),
			FromPort: aws.Int32(53), ToPort: aws.Int32(53), PrefixListId: aws.String("pl-1")},
		{SecurityGroupRuleId: aws.String("sgr-5"), GroupId: aws.String("sg-b"), IsEgress: aws.Bool(false), IpProtocol: aws.String("58"),
			CidrIpv6: aws.String("::/0")}, // no ports at all
	}}
	got, err := Discovery{EC2: f}.FindSecurityGroupRules(context.Background(), []string{"sg-b", "sg-a", "sg-a", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := []connectivity.Rule{
		{GroupID: "sg-a", Protocol: "-1", FromPort: -1, ToPort: -1, ReferencedGroupID: "sg-a"},
		{GroupID: "sg-a", Protocol: "tcp", FromPort: 443, ToPort: 443, ReferencedGroupID: "sg-cp"},
		{GroupID: "sg-a", Egress: true, Protocol: "-1", FromPort: -1, ToPort: -1, CIDRv4: "0.0.0.0/0"},
		{GroupID: "sg-b", Protocol: "17", FromPort: 53, ToPort: 53, PrefixListID: "pl-1"},
		{GroupID: "sg-b", Protocol: "58", FromPort: -1, ToPort: -1, CIDRv6: "::/0"},
		{GroupID: "sg-b", Egress: true, Protocol: "-1", FromPort: -1, ToPort: -1, CIDRv4: "0.0.0.0/0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	if len(rulesInputs(f)) != 2 {
		t.Errorf("want 2 pages of 1 group, got %d calls", len(rulesInputs(f)))
	}
	if vals := rulesInputs(f)[0].Filters[0].Values; !reflect.DeepEqual(vals, []string{"sg-a", "sg-b"}) {
		t.Errorf("group-id filter = %v, want the unique sorted ids", vals)
	}
}

// The groups a discovery described (their selector's DescribeSecurityGroups) cost no call: the
// node groups' rules come from the answer that selected them.
func TestFindSecurityGroupRulesOfDescribedGroups(t *testing.T) {
	f := &awsfake.EC2{SecurityGroups: groups("sg-a", "sg-b"), SecurityGroupRules: []ec2types.SecurityGroupRule{
		sgRule("sgr-1", "sg-a", false, "-1", -1, -1, "", "sg-a"),
		sgRule("sgr-2", "sg-b", true, "tcp", 443, 443, "10.0.0.0/8", ""),
	}}
	d := Discovery{EC2: f, Cache: NewDiscoveryCache()}
	ctx := context.Background()
	if _, err := d.FindSecurityGroups(ctx, discovery.FilterSet{{Name: "group-id", Values: []string{"sg-a"}}}); err != nil {
		t.Fatal(err)
	}
	f.ForgetCalls()
	got, err := d.FindSecurityGroupRules(ctx, []string{"sg-a", "sg-b"})
	if err != nil {
		t.Fatal(err)
	}
	want := []connectivity.Rule{
		{GroupID: "sg-a", Protocol: "-1", FromPort: -1, ToPort: -1, ReferencedGroupID: "sg-a"},
		{GroupID: "sg-b", Egress: true, Protocol: "tcp", FromPort: 443, ToPort: 443, CIDRv4: "10.0.0.0/8"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	if in := rulesInputs(f); len(in) != 1 || !reflect.DeepEqual(in[0].Filters[0].Values, []string{"sg-b"}) {
		t.Errorf("calls %+v: want one, for sg-b alone (sg-a was described)", in)
	}
	f.ForgetCalls()
	if _, err := d.FindSecurityGroupRules(ctx, []string{"sg-b", "sg-a"}); err != nil || f.Calls("DescribeSecurityGroups") != 0 {
		t.Errorf("again: %d calls, %v; want none", f.Calls("DescribeSecurityGroups"), err)
	}
}

func TestFindSecurityGroupRulesChunksGroupIDs(t *testing.T) {
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeSecurityGroups": 1000}}
	var ids []string
	for i := 0; i < 450; i++ {
		ids = append(ids, fmt.Sprintf("sg-%04d", i))
	}
	if _, err := (Discovery{EC2: f}).FindSecurityGroupRules(context.Background(), ids); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, in := range rulesInputs(f) {
		sizes = append(sizes, len(in.Filters[0].Values))
	}
	if !reflect.DeepEqual(sizes, []int{200, 200, 50}) {
		t.Errorf("filter sizes = %v, want [200 200 50]", sizes)
	}
}

func TestFindSecurityGroupRulesNoGroupsNoCall(t *testing.T) {
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeSecurityGroups": 10}}
	rules, err := Discovery{EC2: f}.FindSecurityGroupRules(context.Background(), nil)
	if err != nil || len(rules) != 0 || f.Calls("DescribeSecurityGroups") != 0 {
		t.Errorf("rules=%v err=%v calls=%d: want nothing and no call", rules, err, f.Calls("DescribeSecurityGroups"))
	}
}

func TestFindSecurityGroupRulesError(t *testing.T) {
	f := &awsfake.EC2{Fail: map[string]error{"DescribeSecurityGroups": errors.New("UnauthorizedOperation: not allowed")}}
	_, err := Discovery{EC2: f}.FindSecurityGroupRules(context.Background(), []string{"sg-a"})
	if err == nil || !strings.Contains(err.Error(), "sg-a") || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("err = %v", err)
	}
}

// TestAccFindSecurityGroupRules reads rules back from LocalStack: self-references, references
// to another group, CIDRs, the default egress, and protocol numbers (which EC2 returns by name).
func TestAccFindSecurityGroupRules(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 and run LocalStack (make localstack-up)")
	}
	t.Parallel()
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true}) // the self rule is added below
	nodes, cp := n.SecurityGroups[0].ID, n.SecurityGroups[1].ID
	acctest.AuthorizeIngress(t, nodes,
		acctest.Permission("-1", 0, 0, nodes),
		acctest.Permission("6", 10250, 10250, cp),
		acctest.Permission("udp", 53, 53, "10.0.0.0/8"))
	acctest.AuthorizeEgress(t, nodes, acctest.Permission("tcp", 443, 443, cp))

	rules, err := Discovery{EC2: acctest.EC2(t)}.FindSecurityGroupRules(acctest.Context(t), []string{nodes})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		got = append(got, r.String())
	}
	want := []string{
		nodes + " ingress all traffic from " + nodes + " (self)",
		nodes + " ingress tcp 10250 from " + cp,
		nodes + " ingress udp 53 from 10.0.0.0/8",
		nodes + " egress all traffic to 0.0.0.0/0",
		nodes + " egress tcp 443 to " + cp,
	}
	if !sameElements(got, want) {
		t.Fatalf("rules of %s:\n%s\nwant\n%s", nodes, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func sameElements(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, c := range count {
		if c != 0 {
			return false
		}
	}
	return true
}
