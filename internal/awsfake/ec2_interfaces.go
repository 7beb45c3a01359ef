package awsfake

import (
	"context"
	"encoding/xml"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// What a subnet's free /28 blocks are read from: its network interfaces (their addresses and
// IPv4 prefixes) and its subnet CIDR reservations. LocalStack 4.14 assigns no prefixes and has no
// subnet CIDR reservations, so the acceptance tests serve both from here.

func interfaceTags(n ec2types.NetworkInterface) []ec2types.Tag            { return n.TagSet }
func cidrReservationTags(r ec2types.SubnetCidrReservation) []ec2types.Tag { return r.Tags }

var interfaceFields = fields[ec2types.NetworkInterface]{
	"network-interface-id": func(n ec2types.NetworkInterface) []string { return str(n.NetworkInterfaceId) },
	"subnet-id":            func(n ec2types.NetworkInterface) []string { return str(n.SubnetId) },
	"vpc-id":               func(n ec2types.NetworkInterface) []string { return str(n.VpcId) },
	"availability-zone":    func(n ec2types.NetworkInterface) []string { return str(n.AvailabilityZone) },
	"status":               func(n ec2types.NetworkInterface) []string { return enum(n.Status) },
}

// DescribeNetworkInterfaces answers the interfaces asked for (NetworkInterfaceIds;
// InvalidNetworkInterfaceID.NotFound for one it does not hold) that match the filters.
func (f *EC2) DescribeNetworkInterfaces(ctx context.Context, in *ec2.DescribeNetworkInterfacesInput, _ ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeNetworkInterfaces", in, func(in *ec2.DescribeNetworkInterfacesInput) (*ec2.DescribeNetworkInterfacesOutput, error) {
		if len(in.NetworkInterfaceIds) > 0 && in.MaxResults != nil {
			return nil, apiError("InvalidParameterCombination", "The parameter NetworkInterfaceIds cannot be used with the parameter MaxResults")
		}
		objs, err := byIDs(f.NetworkInterfaces, in.NetworkInterfaceIds, func(n ec2types.NetworkInterface) string { return aws.ToString(n.NetworkInterfaceId) },
			"InvalidNetworkInterfaceID.NotFound", "network interface")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeNetworkInterfaces", selectObjects("DescribeNetworkInterfaces", objs, in.Filters, interfaceTags, interfaceFields),
			f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeNetworkInterfacesOutput{NetworkInterfaces: items, NextToken: next}, err
	})
}

var cidrReservationFields = fields[ec2types.SubnetCidrReservation]{
	"reservationType": func(r ec2types.SubnetCidrReservation) []string { return enum(r.ReservationType) },
	"subnet-id":       func(r ec2types.SubnetCidrReservation) []string { return str(r.SubnetId) },
}

// GetSubnetCidrReservations answers the IPv4 reservations of the subnet asked for (SubnetId,
// required: MissingParameter without it) that match the filters. The fake does not check that
// the subnet exists (its subnets may live in LocalStack): an unknown one has no reservations.
func (f *EC2) GetSubnetCidrReservations(ctx context.Context, in *ec2.GetSubnetCidrReservationsInput, _ ...func(*ec2.Options)) (*ec2.GetSubnetCidrReservationsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetSubnetCidrReservations", in, func(in *ec2.GetSubnetCidrReservationsInput) (*ec2.GetSubnetCidrReservationsOutput, error) {
		if aws.ToString(in.SubnetId) == "" {
			return nil, apiError("MissingParameter", "The request must contain the parameter SubnetId")
		}
		var objs []ec2types.SubnetCidrReservation
		for _, r := range f.SubnetCidrReservations {
			if aws.ToString(r.SubnetId) == aws.ToString(in.SubnetId) {
				objs = append(objs, r)
			}
		}
		items, next, err := page("GetSubnetCidrReservations", selectObjects("GetSubnetCidrReservations", objs, in.Filters, cidrReservationTags, cidrReservationFields),
			f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.GetSubnetCidrReservationsOutput{SubnetIpv4CidrReservations: items, NextToken: next}, err
	})
}

// serveInterfaces answers DescribeNetworkInterfaces and GetSubnetCidrReservations over the query
// protocol.
func (f *EC2) serveInterfaces(ctx context.Context, reqID, action string, v url.Values) (any, error) {
	if action == "GetSubnetCidrReservations" {
		out, err := f.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{SubnetId: optional(v, "SubnetId"), Filters: queryFilters(v),
			MaxResults: optionalInt32(v, "MaxResults"), NextToken: optional(v, "NextToken")})
		if err != nil {
			return nil, err
		}
		x := cidrReservationsResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, NextToken: aws.ToString(out.NextToken)}
		for _, r := range out.SubnetIpv4CidrReservations {
			x.IPv4 = append(x.IPv4, cidrReservationXML{ID: aws.ToString(r.SubnetCidrReservationId), SubnetID: aws.ToString(r.SubnetId),
				Cidr: aws.ToString(r.Cidr), Type: string(r.ReservationType), OwnerID: aws.ToString(r.OwnerId), Description: aws.ToString(r.Description),
				Tags: xmlTags(r.Tags)})
		}
		return x, nil
	}
	out, err := f.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: members(v, "NetworkInterfaceId"),
		Filters: queryFilters(v), MaxResults: optionalInt32(v, "MaxResults"), NextToken: optional(v, "NextToken")})
	if err != nil {
		return nil, err
	}
	x := interfacesResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, NextToken: aws.ToString(out.NextToken)}
	for _, n := range out.NetworkInterfaces {
		nx := interfaceXML{ID: aws.ToString(n.NetworkInterfaceId), SubnetID: aws.ToString(n.SubnetId), VpcID: aws.ToString(n.VpcId),
			Zone: aws.ToString(n.AvailabilityZone), Status: string(n.Status), InterfaceType: string(n.InterfaceType),
			PrivateIP: aws.ToString(n.PrivateIpAddress), Tags: xmlTags(n.TagSet)}
		for _, a := range n.PrivateIpAddresses {
			nx.PrivateIPs = append(nx.PrivateIPs, privateIPXML{Address: aws.ToString(a.PrivateIpAddress), Primary: aws.ToBool(a.Primary)})
		}
		for _, p := range n.Ipv4Prefixes {
			nx.Prefixes = append(nx.Prefixes, prefixXML{aws.ToString(p.Ipv4Prefix)})
		}
		x.Interfaces = append(x.Interfaces, nx)
	}
	return x, nil
}

type privateIPXML struct {
	Address string `xml:"privateIpAddress"`
	Primary bool   `xml:"primary"`
}

type prefixXML struct {
	Prefix string `xml:"ipv4Prefix"`
}

type interfaceXML struct {
	ID            string         `xml:"networkInterfaceId"`
	SubnetID      string         `xml:"subnetId,omitempty"`
	VpcID         string         `xml:"vpcId,omitempty"`
	Zone          string         `xml:"availabilityZone,omitempty"`
	Status        string         `xml:"status,omitempty"`
	InterfaceType string         `xml:"interfaceType,omitempty"`
	PrivateIP     string         `xml:"privateIpAddress,omitempty"`
	PrivateIPs    []privateIPXML `xml:"privateIpAddressesSet>item"`
	Prefixes      []prefixXML    `xml:"ipv4PrefixSet>item"`
	Tags          []tagXML       `xml:"tagSet>item"`
}

type interfacesResponseXML struct {
	XMLName    xml.Name       `xml:"DescribeNetworkInterfacesResponse"`
	Xmlns      string         `xml:"xmlns,attr"`
	RequestID  string         `xml:"requestId"`
	Interfaces []interfaceXML `xml:"networkInterfaceSet>item"`
	NextToken  string         `xml:"nextToken,omitempty"`
}

type cidrReservationXML struct {
	ID          string   `xml:"subnetCidrReservationId"`
	SubnetID    string   `xml:"subnetId"`
	Cidr        string   `xml:"cidr"`
	Type        string   `xml:"reservationType"`
	OwnerID     string   `xml:"ownerId,omitempty"`
	Description string   `xml:"description,omitempty"`
	Tags        []tagXML `xml:"tagSet>item"`
}

type cidrReservationsResponseXML struct {
	XMLName   xml.Name             `xml:"GetSubnetCidrReservationsResponse"`
	Xmlns     string               `xml:"xmlns,attr"`
	RequestID string               `xml:"requestId"`
	IPv4      []cidrReservationXML `xml:"subnetIpv4CidrReservationSet>item"`
	NextToken string               `xml:"nextToken,omitempty"`
}
