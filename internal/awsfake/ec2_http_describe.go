package awsfake

import (
	"context"
	"encoding/xml"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The HTTP front's Describe calls: the query parsed into the SDK's input, the fake's answer
// written as EC2's XML.

// serveDescribe answers one of the Describe actions ServeHTTP serves.
func (f *EC2) serveDescribe(ctx context.Context, reqID, action string, v url.Values) (any, error) {
	switch action {
	case "DescribeCapacityReservations":
		in := &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: members(v, "CapacityReservationId"), Filters: queryFilters(v),
			MaxResults: optionalInt32(v, "MaxResults"), NextToken: optional(v, "NextToken")}
		out, err := f.DescribeCapacityReservations(ctx, in)
		if err != nil {
			return nil, err
		}
		return reservationsXML(reqID, out), nil
	case "DescribePlacementGroups":
		in := &ec2.DescribePlacementGroupsInput{GroupIds: members(v, "GroupId"), GroupNames: members(v, "GroupName"), Filters: queryFilters(v)}
		out, err := f.DescribePlacementGroups(ctx, in)
		if err != nil {
			return nil, err
		}
		return placementGroupsXML(reqID, out), nil
	default: // DescribeSpotPriceHistory
		in := &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: members(v, "ProductDescription"), AvailabilityZone: optional(v, "AvailabilityZone"),
			Filters: queryFilters(v), MaxResults: optionalInt32(v, "MaxResults"), NextToken: optional(v, "NextToken"),
			StartTime: optionalTime(v, "StartTime"), EndTime: optionalTime(v, "EndTime")}
		for _, t := range members(v, "InstanceType") {
			in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(t))
		}
		out, err := f.DescribeSpotPriceHistory(ctx, in)
		if err != nil {
			return nil, err
		}
		return spotPriceHistoryXML(reqID, out), nil
	}
}

// members are the values of a query list of scalars: prefix.1, prefix.2, ... while the form
// has them.
func members(v url.Values, prefix string) []string {
	var out []string
	for n := 1; ; n++ {
		k := prefix + "." + strconv.Itoa(n)
		if !v.Has(k) {
			return out
		}
		out = append(out, v.Get(k))
	}
}

// queryFilters are the request's Filter.N.Name and Filter.N.Value.M.
func queryFilters(v url.Values) []ec2types.Filter {
	var out []ec2types.Filter
	for _, p := range indexed(v, "Filter") {
		out = append(out, ec2types.Filter{Name: optional(v, p+"Name"), Values: members(v, p+"Value")})
	}
	return out
}

func optionalTime(v url.Values, key string) *time.Time {
	t, err := time.Parse(time.RFC3339, v.Get(key))
	if err != nil {
		return nil
	}
	return &t
}

func xmlTags(in []ec2types.Tag) []tagXML {
	var out []tagXML
	for _, t := range in {
		out = append(out, tagXML{aws.ToString(t.Key), aws.ToString(t.Value)})
	}
	return out
}

func xmlTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

type reservationXML struct {
	ID                    string   `xml:"capacityReservationId,omitempty"`
	OwnerID               string   `xml:"ownerId,omitempty"`
	InstanceType          string   `xml:"instanceType,omitempty"`
	InstancePlatform      string   `xml:"instancePlatform,omitempty"`
	Zone                  string   `xml:"availabilityZone,omitempty"`
	Tenancy               string   `xml:"tenancy,omitempty"`
	Total                 *int32   `xml:"totalInstanceCount,omitempty"`
	Available             *int32   `xml:"availableInstanceCount,omitempty"`
	State                 string   `xml:"state,omitempty"`
	EndDate               string   `xml:"endDate,omitempty"`
	EndDateType           string   `xml:"endDateType,omitempty"`
	StartDate             string   `xml:"startDate,omitempty"`
	Interruptible         *bool    `xml:"interruptible,omitempty"`
	InstanceMatchCriteria string   `xml:"instanceMatchCriteria,omitempty"`
	ReservationType       string   `xml:"reservationType,omitempty"`
	Tags                  []tagXML `xml:"tagSet>item"`
}

type reservationsResponseXML struct {
	XMLName      xml.Name         `xml:"DescribeCapacityReservationsResponse"`
	Xmlns        string           `xml:"xmlns,attr"`
	RequestID    string           `xml:"requestId"`
	Reservations []reservationXML `xml:"capacityReservationSet>item"`
	NextToken    string           `xml:"nextToken,omitempty"`
}

func reservationsXML(reqID string, out *ec2.DescribeCapacityReservationsOutput) reservationsResponseXML {
	x := reservationsResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, NextToken: aws.ToString(out.NextToken)}
	for _, r := range out.CapacityReservations {
		x.Reservations = append(x.Reservations, reservationXML{ID: aws.ToString(r.CapacityReservationId), OwnerID: aws.ToString(r.OwnerId),
			InstanceType: aws.ToString(r.InstanceType), InstancePlatform: string(r.InstancePlatform), Zone: aws.ToString(r.AvailabilityZone),
			Tenancy: string(r.Tenancy), Total: r.TotalInstanceCount, Available: r.AvailableInstanceCount, State: string(r.State),
			EndDate: xmlTime(r.EndDate), EndDateType: string(r.EndDateType), StartDate: xmlTime(r.StartDate), Interruptible: r.Interruptible, InstanceMatchCriteria: string(r.InstanceMatchCriteria),
			ReservationType: string(r.ReservationType), Tags: xmlTags(r.Tags)})
	}
	return x
}

type placementGroupXML struct {
	Name           string     `xml:"groupName,omitempty"`
	ID             string     `xml:"groupId,omitempty"`
	State          string     `xml:"state,omitempty"`
	Strategy       string     `xml:"strategy,omitempty"`
	PartitionCount *int32     `xml:"partitionCount,omitempty"`
	Tags           *tagSetXML `xml:"tagSet,omitempty"` // absent for a group without tags
}

type tagSetXML struct {
	Items []tagXML `xml:"item"`
}

type placementGroupsResponseXML struct {
	XMLName   xml.Name            `xml:"DescribePlacementGroupsResponse"`
	Xmlns     string              `xml:"xmlns,attr"`
	RequestID string              `xml:"requestId"`
	Groups    []placementGroupXML `xml:"placementGroupSet>item"`
}

func placementGroupsXML(reqID string, out *ec2.DescribePlacementGroupsOutput) placementGroupsResponseXML {
	x := placementGroupsResponseXML{Xmlns: ec2XMLNS, RequestID: reqID}
	for _, g := range out.PlacementGroups {
		x.Groups = append(x.Groups, placementGroupXML{Name: aws.ToString(g.GroupName), ID: aws.ToString(g.GroupId), State: string(g.State),
			Strategy: string(g.Strategy), PartitionCount: g.PartitionCount})
		if len(g.Tags) > 0 {
			x.Groups[len(x.Groups)-1].Tags = &tagSetXML{xmlTags(g.Tags)}
		}
	}
	return x
}

type spotPriceXML struct {
	InstanceType       string `xml:"instanceType,omitempty"`
	ProductDescription string `xml:"productDescription,omitempty"`
	SpotPrice          string `xml:"spotPrice,omitempty"`
	Timestamp          string `xml:"timestamp,omitempty"`
	Zone               string `xml:"availabilityZone,omitempty"`
}

type spotPriceHistoryResponseXML struct {
	XMLName   xml.Name       `xml:"DescribeSpotPriceHistoryResponse"`
	Xmlns     string         `xml:"xmlns,attr"`
	RequestID string         `xml:"requestId"`
	History   []spotPriceXML `xml:"spotPriceHistorySet>item"`
	NextToken string         `xml:"nextToken"` // EC2 answers an empty one on the last page
}

func spotPriceHistoryXML(reqID string, out *ec2.DescribeSpotPriceHistoryOutput) spotPriceHistoryResponseXML {
	x := spotPriceHistoryResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, NextToken: aws.ToString(out.NextToken)}
	for _, p := range out.SpotPriceHistory {
		x.History = append(x.History, spotPriceXML{InstanceType: string(p.InstanceType), ProductDescription: string(p.ProductDescription),
			SpotPrice: aws.ToString(p.SpotPrice), Timestamp: xmlTime(p.Timestamp), Zone: aws.ToString(p.AvailabilityZone)})
	}
	return x
}
