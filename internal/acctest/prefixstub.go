package acctest

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// PrefixStub is a loopback EC2 endpoint for tests of prefix delegation's /28 blocks. LocalStack
// 4.14 (moto) assigns no IPv4 prefixes to network interfaces and has no subnet CIDR
// reservations, so the stub answers DescribeNetworkInterfaces and GetSubnetCidrReservations
// with internal/awsfake's EC2 fake from the interfaces and reservations a test gives it (in
// LocalStack's subnets), and forwards every other call (the subnets themselves) to LocalStack.
type PrefixStub struct {
	front *fakeFront
}

// StubInterface is one network interface the stub serves: its primary address, its secondary
// addresses and its IPv4 prefixes.
type StubInterface struct {
	ID, SubnetID, Primary string
	Secondary, Prefixes   []string
}

// StubCidrReservation is one subnet CIDR reservation (Type prefix or explicit).
type StubCidrReservation struct {
	ID, SubnetID, CIDR, Type string
}

// NewPrefixStub starts a stub in front of Endpoint() for the test.
func NewPrefixStub(t testing.TB) *PrefixStub {
	t.Helper()
	return &PrefixStub{front: newFakeFront(t, "prefix stub", "DescribeNetworkInterfaces", "GetSubnetCidrReservations")}
}

// URL is the stub's endpoint, for the provider's `endpoints.ec2`.
func (s *PrefixStub) URL() string { return s.front.URL() }

// SetInterfaces replaces the interfaces the stub serves.
func (s *PrefixStub) SetInterfaces(ifaces ...StubInterface) {
	out := make([]ec2types.NetworkInterface, len(ifaces))
	for i, n := range ifaces {
		out[i] = ec2types.NetworkInterface{NetworkInterfaceId: aws.String(n.ID), SubnetId: aws.String(n.SubnetID),
			Status: ec2types.NetworkInterfaceStatusInUse, InterfaceType: ec2types.NetworkInterfaceTypeInterface, PrivateIpAddress: aws.String(n.Primary),
			PrivateIpAddresses: []ec2types.NetworkInterfacePrivateIpAddress{{PrivateIpAddress: aws.String(n.Primary), Primary: aws.Bool(true)}}}
		for _, a := range n.Secondary {
			out[i].PrivateIpAddresses = append(out[i].PrivateIpAddresses, ec2types.NetworkInterfacePrivateIpAddress{PrivateIpAddress: aws.String(a), Primary: aws.Bool(false)})
		}
		for _, p := range n.Prefixes {
			out[i].Ipv4Prefixes = append(out[i].Ipv4Prefixes, ec2types.Ipv4PrefixSpecification{Ipv4Prefix: aws.String(p)})
		}
	}
	s.front.change(func() { s.front.ec2.NetworkInterfaces = out })
}

// SetReservations replaces the subnet CIDR reservations the stub serves.
func (s *PrefixStub) SetReservations(rs ...StubCidrReservation) {
	out := make([]ec2types.SubnetCidrReservation, len(rs))
	for i, r := range rs {
		out[i] = ec2types.SubnetCidrReservation{SubnetCidrReservationId: aws.String(r.ID), SubnetId: aws.String(r.SubnetID), Cidr: aws.String(r.CIDR),
			ReservationType: ec2types.SubnetCidrReservationType(r.Type)}
	}
	s.front.change(func() { s.front.ec2.SubnetCidrReservations = out })
}

// Calls is how many requests of action the stub received.
func (s *PrefixStub) Calls(action string) int { return s.front.Calls(action) }

// String describes the stub for failure messages.
func (s *PrefixStub) String() string {
	return fmt.Sprintf("prefix stub at %s in front of %s", s.URL(), Endpoint())
}
