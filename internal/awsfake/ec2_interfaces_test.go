package awsfake

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The reads of a subnet's /28 blocks over the query protocol, as internal/acctest serves them
// in front of LocalStack: interfaces with their addresses and prefixes by subnet, a subnet's
// reservations, pages and errors.
func TestEC2HTTPInterfacesAndCidrReservations(t *testing.T) {
	f := &EC2{
		NetworkInterfaces: []ec2types.NetworkInterface{
			{NetworkInterfaceId: aws.String("eni-1"), SubnetId: aws.String("subnet-a"), VpcId: aws.String("vpc-1"), AvailabilityZone: aws.String("za"),
				Status: ec2types.NetworkInterfaceStatusInUse, InterfaceType: ec2types.NetworkInterfaceTypeInterface, PrivateIpAddress: aws.String("10.0.0.5"),
				PrivateIpAddresses: []ec2types.NetworkInterfacePrivateIpAddress{{PrivateIpAddress: aws.String("10.0.0.5"), Primary: aws.Bool(true)},
					{PrivateIpAddress: aws.String("10.0.0.21"), Primary: aws.Bool(false)}},
				Ipv4Prefixes: []ec2types.Ipv4PrefixSpecification{{Ipv4Prefix: aws.String("10.0.0.48/28")}, {Ipv4Prefix: aws.String("10.0.0.64/28")}},
				TagSet:       tags("team", "net")},
			{NetworkInterfaceId: aws.String("eni-2"), SubnetId: aws.String("subnet-a"), PrivateIpAddress: aws.String("10.0.0.6")},
			{NetworkInterfaceId: aws.String("eni-3"), SubnetId: aws.String("subnet-b"), PrivateIpAddress: aws.String("10.0.1.6")},
		},
		SubnetCidrReservations: []ec2types.SubnetCidrReservation{
			{SubnetCidrReservationId: aws.String("scr-1"), SubnetId: aws.String("subnet-a"), Cidr: aws.String("10.0.0.128/26"),
				ReservationType: ec2types.SubnetCidrReservationTypePrefix, OwnerId: aws.String("111111111111"), Tags: tags("k", "v")},
			{SubnetCidrReservationId: aws.String("scr-2"), SubnetId: aws.String("subnet-a"), Cidr: aws.String("10.0.0.96/28"),
				ReservationType: ec2types.SubnetCidrReservationTypeExplicit},
			{SubnetCidrReservationId: aws.String("scr-3"), SubnetId: aws.String("subnet-b"), Cidr: aws.String("10.0.1.96/28"),
				ReservationType: ec2types.SubnetCidrReservationTypeExplicit},
		},
	}
	c := httpEC2(t, f)
	ctx := context.Background()

	inA, err := c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{filter("subnet-id", "subnet-a")}})
	if err != nil || len(inA.NetworkInterfaces) != 2 {
		t.Fatalf("by subnet: %+v, %v", inA, err)
	}
	got, want := inA.NetworkInterfaces[0], f.NetworkInterfaces[0]
	if !reflect.DeepEqual(jsonOf(got), jsonOf(want)) {
		t.Errorf("over HTTP:\n got %s\nwant %s", jsonOf(got), jsonOf(want))
	}
	first, err := c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(2)})
	if err != nil || len(first.NetworkInterfaces) != 2 || first.NextToken == nil {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	second, err := c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(2), NextToken: first.NextToken})
	if err != nil || len(second.NetworkInterfaces) != 1 || aws.ToString(second.NetworkInterfaces[0].NetworkInterfaceId) != "eni-3" || second.NextToken != nil {
		t.Errorf("second page: %+v, %v", second, err)
	}
	if _, err := c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-9"}}); code(err) != "InvalidNetworkInterfaceID.NotFound" {
		t.Errorf("an unknown id: %v", err)
	}

	res, err := c.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String("subnet-a")})
	if err != nil || len(res.SubnetIpv4CidrReservations) != 2 {
		t.Fatalf("subnet-a's reservations: %+v, %v", res, err)
	}
	if got, want := res.SubnetIpv4CidrReservations[0], f.SubnetCidrReservations[0]; !reflect.DeepEqual(jsonOf(got), jsonOf(want)) {
		t.Errorf("over HTTP:\n got %s\nwant %s", jsonOf(got), jsonOf(want))
	}
	prefixOnly, err := c.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String("subnet-a"),
		Filters: []ec2types.Filter{filter("reservationType", "prefix")}})
	if err != nil || len(prefixOnly.SubnetIpv4CidrReservations) != 1 {
		t.Errorf("by type: %+v, %v", prefixOnly, err)
	}
	paged, err := c.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String("subnet-a"), MaxResults: aws.Int32(1)})
	if err != nil || len(paged.SubnetIpv4CidrReservations) != 1 || aws.ToString(paged.NextToken) != "1" {
		t.Errorf("paged: %+v, %v", paged, err)
	}
	// The SDK refuses a call without SubnetId before sending it; the fake refuses it all the same.
	if _, err := f.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{}); code(err) != "MissingParameter" {
		t.Errorf("without a subnet: %v", err)
	}
	if n := f.Calls("DescribeNetworkInterfaces", "GetSubnetCidrReservations"); n != 8 {
		t.Errorf("%d calls recorded, want 8", n)
	}
}
