package awsclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
	"github.com/nodeplane/terraform-provider-karpenter/internal/prefixblocks"
)

// SubnetBlocksAPI is what reading a subnet's /28 blocks calls beyond EC2API: its network
// interfaces and its subnet CIDR reservations. Kept out of EC2API, as SpotPriceAPI is, so the
// EC2 fakes of other tests need not implement it.
type SubnetBlocksAPI interface {
	DescribeNetworkInterfaces(context.Context, *ec2.DescribeNetworkInterfacesInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	GetSubnetCidrReservations(context.Context, *ec2.GetSubnetCidrReservationsInput, ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error)
}

var _ SubnetBlocksAPI = (*ec2.Client)(nil)

// SubnetBlocks reads what decides a subnet's free /28 blocks (prefixblocks.Subnet). With a
// Cache each subnet is read once per provider process, however many pools ask.
type SubnetBlocks struct {
	EC2   EC2API
	Cache *DiscoveryCache
}

// SubnetBlocks returns the client's reader, sharing the discovery cache.
func (c *Client) SubnetBlocks() SubnetBlocks {
	return SubnetBlocks{EC2: c.EC2, Cache: c.discoveryCache}
}

// Read returns the subnet's IPv4 CIDR (DescribeSubnets, through the discovery cache), the
// private addresses and IPv4 prefixes of its network interfaces (DescribeNetworkInterfaces,
// subnet-id filter, every page) and its IPv4 CIDR reservations (GetSubnetCidrReservations,
// every page).
func (s SubnetBlocks) Read(ctx context.Context, subnetID string) (prefixblocks.Subnet, error) {
	if s.Cache == nil {
		return s.read(ctx, subnetID)
	}
	got, err := memo.Do(ctx, &s.Cache.m, "prefixblocks|"+subnetID, func() (prefixblocks.Subnet, error) { return s.read(ctx, subnetID) })
	return cloneBlocksInput(got), err
}

func (s SubnetBlocks) read(ctx context.Context, subnetID string) (prefixblocks.Subnet, error) {
	out := prefixblocks.Subnet{ID: subnetID}
	api, ok := s.EC2.(SubnetBlocksAPI)
	if !ok {
		return out, fmt.Errorf("reading subnet %s's /28 blocks: the EC2 client cannot describe network interfaces", subnetID)
	}
	subnets, err := Discovery{EC2: s.EC2, Cache: s.Cache}.FindSubnets(ctx, discovery.FilterSet{{Name: "subnet-id", Values: []string{subnetID}}})
	if err != nil {
		return out, err
	}
	if len(subnets) == 0 {
		return out, &NotFoundError{Kind: "subnet", ID: subnetID}
	}
	out.CIDR = subnets[0].CIDRBlock
	p := ec2.NewDescribeNetworkInterfacesPaginator(api, &ec2.DescribeNetworkInterfacesInput{
		Filters: toEC2Filters(discovery.FilterSet{{Name: "subnet-id", Values: []string{subnetID}}}), MaxResults: aws.Int32(1000)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, fmt.Errorf("describing the network interfaces of subnet %s: %w", subnetID, err)
		}
		for _, n := range page.NetworkInterfaces {
			if a := aws.ToString(n.PrivateIpAddress); a != "" {
				out.Addresses = append(out.Addresses, a) // also listed below as the primary; once is enough
			}
			for _, a := range n.PrivateIpAddresses {
				if !aws.ToBool(a.Primary) && aws.ToString(a.PrivateIpAddress) != "" {
					out.Addresses = append(out.Addresses, aws.ToString(a.PrivateIpAddress))
				}
			}
			for _, pf := range n.Ipv4Prefixes {
				if v := aws.ToString(pf.Ipv4Prefix); v != "" {
					out.Prefixes = append(out.Prefixes, v)
				}
			}
		}
	}
	// GetSubnetCidrReservations has no paginator in the SDK: NextToken by hand.
	in := &ec2.GetSubnetCidrReservationsInput{SubnetId: aws.String(subnetID), MaxResults: aws.Int32(1000)}
	for {
		page, err := api.GetSubnetCidrReservations(ctx, in)
		if err != nil {
			return out, fmt.Errorf("reading the CIDR reservations of subnet %s: %w", subnetID, err)
		}
		for _, r := range page.SubnetIpv4CidrReservations {
			out.Reservations = append(out.Reservations, prefixblocks.Reservation{CIDR: aws.ToString(r.Cidr), Type: string(r.ReservationType)})
		}
		if aws.ToString(page.NextToken) == "" {
			return out, nil
		}
		in.NextToken = page.NextToken
	}
}

// cloneBlocksInput copies the slices of a cached answer, so a caller cannot change another's.
func cloneBlocksInput(s prefixblocks.Subnet) prefixblocks.Subnet {
	s.Addresses = append([]string(nil), s.Addresses...)
	s.Prefixes = append([]string(nil), s.Prefixes...)
	s.Reservations = append([]prefixblocks.Reservation(nil), s.Reservations...)
	return s
}
