package awsclient

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/prefixblocks"
)

var _ SubnetBlocksAPI = (*awsfake.EC2)(nil)

func blocksFake() *awsfake.EC2 {
	iface := func(id, subnet, primary string, secondary []string, prefixes ...string) ec2types.NetworkInterface {
		n := ec2types.NetworkInterface{NetworkInterfaceId: aws.String(id), SubnetId: aws.String(subnet), PrivateIpAddress: aws.String(primary),
			PrivateIpAddresses: []ec2types.NetworkInterfacePrivateIpAddress{{PrivateIpAddress: aws.String(primary), Primary: aws.Bool(true)}}}
		for _, a := range secondary {
			n.PrivateIpAddresses = append(n.PrivateIpAddresses, ec2types.NetworkInterfacePrivateIpAddress{PrivateIpAddress: aws.String(a), Primary: aws.Bool(false)})
		}
		for _, p := range prefixes {
			n.Ipv4Prefixes = append(n.Ipv4Prefixes, ec2types.Ipv4PrefixSpecification{Ipv4Prefix: aws.String(p)})
		}
		return n
	}
	return &awsfake.EC2{
		Subnets: []ec2types.Subnet{{SubnetId: aws.String("subnet-a"), CidrBlock: aws.String("10.0.0.0/24")},
			{SubnetId: aws.String("subnet-b"), CidrBlock: aws.String("10.0.1.0/24")}},
		NetworkInterfaces: []ec2types.NetworkInterface{
			iface("eni-1", "subnet-a", "10.0.0.20", []string{"10.0.0.36"}, "10.0.0.64/28"),
			iface("eni-2", "subnet-b", "10.0.1.20", nil),
			iface("eni-3", "subnet-a", "10.0.0.52", []string{"10.0.0.100", "10.0.0.101"}),
		},
		SubnetCidrReservations: []ec2types.SubnetCidrReservation{
			{SubnetId: aws.String("subnet-a"), Cidr: aws.String("10.0.0.128/26"), ReservationType: ec2types.SubnetCidrReservationTypePrefix},
			{SubnetId: aws.String("subnet-b"), Cidr: aws.String("10.0.1.128/26"), ReservationType: ec2types.SubnetCidrReservationTypeExplicit},
			{SubnetId: aws.String("subnet-a"), Cidr: aws.String("10.0.0.240/28"), ReservationType: ec2types.SubnetCidrReservationTypeExplicit},
		},
		// Every read takes several pages.
		PageSize: map[string]int{"DescribeNetworkInterfaces": 1, "GetSubnetCidrReservations": 1},
	}
}

func TestSubnetBlocksReadsEveryPageOfTheSubnet(t *testing.T) {
	fake := blocksFake()
	got, err := SubnetBlocks{EC2: fake}.Read(context.Background(), "subnet-a")
	if err != nil {
		t.Fatal(err)
	}
	want := prefixblocks.Subnet{ID: "subnet-a", CIDR: "10.0.0.0/24", Addresses: []string{"10.0.0.20", "10.0.0.36", "10.0.0.52", "10.0.0.100", "10.0.0.101"},
		Prefixes: []string{"10.0.0.64/28"}, Reservations: []prefixblocks.Reservation{{CIDR: "10.0.0.128/26", Type: "prefix"}, {CIDR: "10.0.0.240/28", Type: "explicit"}}}
	if got.ID != want.ID || got.CIDR != want.CIDR || !slices.Equal(got.Addresses, want.Addresses) || !slices.Equal(got.Prefixes, want.Prefixes) ||
		!slices.Equal(got.Reservations, want.Reservations) {
		t.Errorf("Read = %+v\nwant %+v", got, want)
	}
	if n := fake.Calls("GetSubnetCidrReservations"); n != 2 {
		t.Errorf("%d GetSubnetCidrReservations pages, want 2", n)
	}
	free, err := prefixblocks.Compute(got)
	if err != nil || free.Count() != 9 || free.InPrefixReservations != 4 {
		// Blocks 0 (AWS's and .5), 1 (.20), 2 (.36), 3 (.52), 4 (the prefix), 6 (.100, .101) and
		// 15 (explicit, and AWS's last address) are taken.
		t.Errorf("free blocks %v (%d in prefix reservations), want 9 and 4", free.Free, free.InPrefixReservations)
	}
}

func TestSubnetBlocksReadsEachSubnetOncePerProcess(t *testing.T) {
	fake := blocksFake()
	s := SubnetBlocks{EC2: fake, Cache: NewDiscoveryCache()}
	ctx := context.Background()
	first, err := s.Read(ctx, "subnet-a")
	if err != nil {
		t.Fatal(err)
	}
	first.Addresses[0] = "changed by the caller"
	again, err := s.Read(ctx, "subnet-a")
	if err != nil || again.Addresses[0] != "10.0.0.20" {
		t.Fatalf("second read: %+v, %v", again, err)
	}
	if n := fake.Calls("DescribeNetworkInterfaces", "GetSubnetCidrReservations", "DescribeSubnets"); n != 2+2+1 {
		t.Errorf("two reads of one subnet made %d calls, want the 5 of one", n)
	}
	if _, err := s.Read(ctx, "subnet-b"); err != nil {
		t.Fatal(err)
	}
	if n := fake.Calls("GetSubnetCidrReservations"); n != 3 {
		t.Errorf("another subnet is read again: %d reservation calls, want 3", n)
	}

	// A failure is reported with the subnet and not remembered.
	fresh := SubnetBlocks{EC2: fake, Cache: NewDiscoveryCache()}
	fake.FailNext = map[string][]error{"GetSubnetCidrReservations": {errors.New("UnauthorizedOperation")}}
	if _, err := fresh.Read(ctx, "subnet-b"); err == nil || !strings.Contains(err.Error(), "subnet-b") {
		t.Fatalf("want the failure, naming the subnet: %v", err)
	}
	if _, err := fresh.Read(ctx, "subnet-b"); err != nil {
		t.Fatalf("a failure is read again: %v", err)
	}
}

func TestSubnetBlocksUnknownSubnet(t *testing.T) {
	_, err := SubnetBlocks{EC2: blocksFake()}.Read(context.Background(), "subnet-z")
	if !IsNotFound(err) {
		t.Errorf("an unknown subnet: %v", err)
	}
}
